"""Misbehaving targets started in-test on 127.0.0.1: each fault is classified within its timeout."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from harness import (
    ErrorReply,
    HttpAdapter,
    ProtocolViolation,
    TargetError,
    TargetTimeout,
    TargetUnreachable,
)

TIMEOUT = 0.6  # seconds: the adapter's deadline per request, where a test waits for it to cut
IN_TIME = 10.0  # the deadline of every other request: ample on a busy machine

HEADER = {
    "format": "block/1",
    "game": "robots",
    "stake_cents": 100,
    "block_id": "robots-100-0001",
    "units": 2000000,
    "start": 0,
    "count": 5,
}
UNIT = b'{"index":0,"prize_cents":0,"ticket":"OHPSCTQD|C D T S C S D T S P H O C S P D C P"}\n'

Behaviour = Callable[[BaseHTTPRequestHandler], None]


class FakeTarget:
    """A tiny HTTP server whose every answer is ``behaviour``; counts the requests it got."""

    def __init__(self, behaviour: Behaviour) -> None:
        self.requests = 0
        self.release = threading.Event()
        target = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                pass

            def _any(self) -> None:
                target.requests += 1
                length = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(length)
                behaviour(self)

            do_GET = do_POST = _any

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)

    def __enter__(self) -> FakeTarget:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


def answer(
    handler: BaseHTTPRequestHandler,
    status: int,
    body: bytes,
    content_type: str = "application/json",
    length: int | None = None,
) -> None:
    handler.send_response(status)
    handler.send_header("Content-Type", content_type)
    handler.send_header("Content-Length", str(len(body) if length is None else length))
    handler.end_headers()
    handler.wfile.write(body)
    handler.wfile.flush()


def close_delimited(handler: BaseHTTPRequestHandler, body: bytes, content_type: str) -> None:
    """An answer whose end is the connection's close (no length): how a cut stream looks."""
    handler.send_response(200)
    handler.send_header("Content-Type", content_type)
    handler.send_header("Connection", "close")
    handler.end_headers()
    handler.wfile.write(body)
    handler.wfile.flush()
    handler.close_connection = True


@pytest.fixture
def serve() -> Iterator[Callable[[Behaviour], FakeTarget]]:
    started: list[FakeTarget] = []

    def start(behaviour: Behaviour) -> FakeTarget:
        target = FakeTarget(behaviour).__enter__()
        started.append(target)
        return target

    yield start
    for target in started:
        target.__exit__()


def fault_of(call: Callable[[], object], kind: type[TargetError]) -> TargetError:
    """The fault ``call`` raises, of ``kind`` (a call that never returned would be stopped by
    the hang guard, pyproject.toml; no test asserts a duration)."""
    with pytest.raises(TargetError) as info:
        call()
    assert isinstance(info.value, kind), f"{type(info.value).__name__}: {info.value}"
    return info.value


def adapter_for(target: FakeTarget, timeout: float = IN_TIME, **options: object) -> HttpAdapter:
    return HttpAdapter(target.url, timeout=timeout, backoff=0.01, **options)  # type: ignore[arg-type]


# -- no answer ----------------------------------------------------------------------------


def test_nothing_listening_is_unreachable() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # bound, never listening: connections are refused
        adapter = HttpAdapter(f"http://127.0.0.1:{port}", timeout=TIMEOUT, backoff=0.01)
        fault = fault_of(adapter.describe, TargetUnreachable)
    assert f"127.0.0.1:{port}" in str(fault)


def test_a_target_that_hangs_times_out(serve: Callable[[Behaviour], FakeTarget]) -> None:
    def hang(handler: BaseHTTPRequestHandler) -> None:
        target.release.wait(10)

    target = serve(hang)
    adapter = adapter_for(target, TIMEOUT)
    fault_of(adapter.describe, TargetTimeout)
    fault_of(lambda: adapter.play("a", "t", "robots", 100), TargetTimeout)
    adapter.close()


def test_a_hang_is_not_retried_and_a_play_never_repeated(
    serve: Callable[[Behaviour], FakeTarget],
) -> None:
    def drop(handler: BaseHTTPRequestHandler) -> None:
        handler.close_connection = True  # read the request, close without a word

    target = serve(drop)
    adapter = adapter_for(target, retries=2)
    fault = fault_of(lambda: adapter.play("a", "t", "robots", 100), ProtocolViolation)
    # a play is never sent twice blindly: the one play, then the history that would settle it
    # (a read: three tries, each dropped too), so the play is not sent again
    assert target.requests == 1 + 3
    assert "the history could not tell" in str(fault)
    fault_of(adapter.describe, ProtocolViolation)
    assert target.requests == 4 + 3  # a read is retried twice


def test_a_busy_read_is_retried_until_it_answers(serve: Callable[[Behaviour], FakeTarget]) -> None:
    document = {"name": "x", "version": "1", "games": {}, "capabilities": []}

    def busy_once(handler: BaseHTTPRequestHandler) -> None:
        if target.requests == 1:
            answer(handler, 503, b"busy", "text/plain")
        else:
            answer(handler, 200, json.dumps(document).encode())

    target = serve(busy_once)
    assert adapter_for(target).describe() == document
    assert target.requests == 2


# -- answers outside the contract ---------------------------------------------------------


def test_a_500_is_a_protocol_violation_quoting_the_body(
    serve: Callable[[Behaviour], FakeTarget],
) -> None:
    body = b'{"error": {"code": "boom", "message": "Traceback (most recent call last)"}}'
    target = serve(lambda handler: answer(handler, 500, body))
    fault = fault_of(adapter_for(target).describe, ProtocolViolation)
    assert "got 500" in str(fault) and "Traceback (most recent call last)" in str(fault)


def test_invalid_json_is_a_protocol_violation_quoting_the_bytes(
    serve: Callable[[Behaviour], FakeTarget],
) -> None:
    target = serve(lambda handler: answer(handler, 200, b'{"name": "vendor", "version": '))
    fault = fault_of(adapter_for(target).describe, ProtocolViolation)
    assert "not JSON" in str(fault) and '{"name": "vendor", "version": ' in str(fault)


def test_offending_bytes_are_shortened(serve: Callable[[Behaviour], FakeTarget]) -> None:
    target = serve(lambda handler: answer(handler, 200, b"<" * 5000))
    fault = fault_of(adapter_for(target).describe, ProtocolViolation)
    assert "(5000 bytes)" in str(fault) and len(str(fault)) < 400


@pytest.mark.parametrize(
    ("body", "fault"),
    [
        (b'{"name": 1, "version": "1", "games": {}, "capabilities": []}', "name must be"),
        (b'{"version": "1", "games": {}, "capabilities": []}', "has no 'name'"),
        (b"[]", "JSON object"),
    ],
)
def test_a_wrong_shape_is_a_protocol_violation(
    serve: Callable[[Behaviour], FakeTarget], body: bytes, fault: str
) -> None:
    target = serve(lambda handler: answer(handler, 200, body))
    assert fault in str(fault_of(adapter_for(target).describe, ProtocolViolation))


def test_wrong_content_type_and_wrong_status(serve: Callable[[Behaviour], FakeTarget]) -> None:
    document = b'{"account_id": "a", "token": "t", "balance_cents": 5}'
    target = serve(lambda handler: answer(handler, 200, document, "text/html"))
    adapter = adapter_for(target)
    assert "expected status 201, got 200" in str(
        fault_of(lambda: adapter.open_account(5), ProtocolViolation)
    )
    assert "text/html" in str(fault_of(lambda: adapter.balance("a", "t"), ProtocolViolation))


def test_evaluate_checks_the_number_of_results(serve: Callable[[Behaviour], FakeTarget]) -> None:
    body = json.dumps({"results": [{"prize_cents": 0, "wins": []}]}).encode()
    target = serve(lambda handler: answer(handler, 200, body))
    adapter = adapter_for(target)
    assert adapter.evaluate("robots", 100, ["t"]) == [{"prize_cents": 0, "wins": []}]
    fault = fault_of(lambda: adapter.evaluate("robots", 100, ["t", "u"]), ProtocolViolation)
    assert "2 tickets sent, 1 results received" in str(fault)


def test_a_well_formed_error_is_an_error_reply(serve: Callable[[Behaviour], FakeTarget]) -> None:
    body = b'{"error": {"code": "insufficient_funds", "message": "broke"}}'
    target = serve(lambda handler: answer(handler, 402, body))
    fault = fault_of(lambda: adapter_for(target).play("a", "t", "robots", 100), ErrorReply)
    assert isinstance(fault, ErrorReply)
    assert (fault.status, fault.code, fault.message) == (402, "insufficient_funds", "broke")


def test_a_4xx_without_the_error_document_is_a_protocol_violation(
    serve: Callable[[Behaviour], FakeTarget],
) -> None:
    target = serve(lambda handler: answer(handler, 404, b"Not Found", "text/plain"))
    fault = fault_of(lambda: adapter_for(target).balance("a", "t"), ProtocolViolation)
    assert "got 404" in str(fault) and "Not Found" in str(fault)


# -- block streams ------------------------------------------------------------------------


def block(header: dict[str, object], units: bytes, **kwargs: object) -> Behaviour:
    body = json.dumps(header).encode() + b"\n" + units
    return lambda handler: answer(handler, 200, body, "application/x-ndjson", **kwargs)  # type: ignore[arg-type]


def read_all(adapter: HttpAdapter, count: int | None = 5) -> list[bytes]:
    stream = adapter.read_block("robots-100-0001", 0, count)
    return list(stream.lines())


def test_a_complete_stream_reads_clean(serve: Callable[[Behaviour], FakeTarget]) -> None:
    target = serve(block(HEADER, UNIT * 5))
    assert read_all(adapter_for(target)) == [UNIT.rstrip(b"\n")] * 5
    assert read_all(adapter_for(target), None) == [UNIT.rstrip(b"\n")] * 5  # count from header


def test_a_stream_cut_short_is_a_protocol_violation(
    serve: Callable[[Behaviour], FakeTarget],
) -> None:
    header = json.dumps(HEADER).encode() + b"\n"
    cut = serve(lambda handler: close_delimited(handler, header + UNIT * 2, "application/x-ndjson"))
    fault = fault_of(lambda: read_all(adapter_for(cut)), ProtocolViolation)
    assert "ended after 2 of 5 unit lines" in str(fault)

    def short_then_close(handler: BaseHTTPRequestHandler) -> None:
        length = len(header) + len(UNIT) * 5  # promises 5 units, sends 2 and a half, hangs up
        answer(handler, 200, header + UNIT * 2 + UNIT[:30], "application/x-ndjson", length)
        handler.close_connection = True

    short = serve(short_then_close)
    fault = fault_of(lambda: read_all(adapter_for(short)), ProtocolViolation)
    assert "cut after" in str(fault)


def test_a_stream_longer_than_asked_is_a_protocol_violation(
    serve: Callable[[Behaviour], FakeTarget],
) -> None:
    target = serve(block(HEADER, UNIT * 6))
    assert "more than the 5 unit lines" in str(
        fault_of(lambda: read_all(adapter_for(target)), ProtocolViolation)
    )


def test_a_line_that_is_not_json_is_quoted(serve: Callable[[Behaviour], FakeTarget]) -> None:
    target = serve(block(HEADER, UNIT * 2 + b"<html>oops</html>\n" + UNIT * 2))
    fault = fault_of(lambda: read_all(adapter_for(target)), ProtocolViolation)
    assert "unit line 2 is not JSON" in str(fault) and "<html>oops</html>" in str(fault)


def test_a_bad_header_or_content_type(serve: Callable[[Behaviour], FakeTarget]) -> None:
    headless = serve(block({"format": "block/1"}, UNIT * 5))
    assert "the header has no 'game'" in str(
        fault_of(lambda: read_all(adapter_for(headless)), ProtocolViolation)
    )
    plain = serve(lambda handler: answer(handler, 200, UNIT, "text/plain"))
    assert "text/plain" in str(fault_of(lambda: read_all(adapter_for(plain)), ProtocolViolation))


def test_a_stream_that_trickles_is_cut_off(serve: Callable[[Behaviour], FakeTarget]) -> None:
    def trickle(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "application/x-ndjson")
        handler.end_headers()
        handler.wfile.write(json.dumps(HEADER).encode() + b"\n")
        handler.wfile.flush()
        while not target.release.is_set():
            try:
                handler.wfile.write(b" ")
                handler.wfile.flush()
            except OSError:
                return
            time.sleep(0.02)

    target = serve(trickle)
    fault = fault_of(lambda: read_all(adapter_for(target, TIMEOUT)), TargetTimeout)
    assert "below the floor" in str(fault)


def test_a_stream_that_stops_times_out(serve: Callable[[Behaviour], FakeTarget]) -> None:
    def stall(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "application/x-ndjson")
        handler.end_headers()
        handler.wfile.write(json.dumps(HEADER).encode() + b"\n" + UNIT)
        handler.wfile.flush()
        target.release.wait(10)

    target = serve(stall)
    fault = fault_of(lambda: read_all(adapter_for(target, TIMEOUT)), TargetTimeout)
    assert "no byte for" in str(fault)


# -- block streams, unparsed: chunks() ------------------------------------------------------


def chunked(adapter: HttpAdapter, count: int | None = 5) -> bytes:
    stream = adapter.read_block("robots-100-0001", 0, count)
    pieces = list(stream.chunks())
    assert all(piece.endswith(b"\n") for piece in pieces), "chunks hold whole lines"
    return b"".join(pieces)


def test_chunks_hand_on_the_unit_lines_unparsed(serve: Callable[[Behaviour], FakeTarget]) -> None:
    target = serve(block(HEADER, UNIT * 5))
    assert chunked(adapter_for(target)) == UNIT * 5
    assert chunked(adapter_for(target), None) == UNIT * 5  # count from the header
    stream = adapter_for(target).read_block("robots-100-0001", 0, 5)
    assert stream.header_bytes == json.dumps(HEADER).encode() + b"\n"
    list(stream.chunks())
    with pytest.raises(RuntimeError):
        list(stream.lines())


def test_chunks_of_a_large_stream_are_whole_lines(serve: Callable[[Behaviour], FakeTarget]) -> None:
    count = 120_000  # about 10 MiB: several chunks
    units = b"".join(UNIT.replace(b'"index":0', b'"index":%d' % n) for n in range(count))
    target = serve(block({**HEADER, "count": count}, units))
    stream = adapter_for(target).read_block("robots-100-0001", 0, count)
    pieces = list(stream.chunks())
    assert len(pieces) >= 2 and b"".join(pieces) == units
    assert all(piece.endswith(b"\n") for piece in pieces)


def test_chunks_a_last_line_without_newline(serve: Callable[[Behaviour], FakeTarget]) -> None:
    whole = serve(block(HEADER, UNIT * 4 + UNIT.rstrip(b"\n") + b"\n\n  "))
    assert chunked(adapter_for(whole)) == UNIT * 5  # a whole object; trailing space dropped
    cut = serve(block(HEADER, UNIT * 2 + UNIT[:30]))
    fault = fault_of(lambda: chunked(adapter_for(cut)), ProtocolViolation)
    assert "ends in the middle of unit line 2" in str(fault) and repr(UNIT[:30]) in str(fault)


def test_chunks_hand_on_a_clean_short_or_slightly_long_body(
    serve: Callable[[Behaviour], FakeTarget],
) -> None:
    """Well-formed NDJSON lacking or repeating units is the block's fault: the auditor judges
    it (unit_sequence), the stream does not refuse it."""
    short = serve(block(HEADER, UNIT * 2))
    assert chunked(adapter_for(short)) == UNIT * 2
    header = json.dumps(HEADER).encode() + b"\n"
    closed = serve(
        lambda handler: close_delimited(handler, header + UNIT * 3, "application/x-ndjson")
    )
    assert chunked(adapter_for(closed)) == UNIT * 3
    repeated = serve(block(HEADER, UNIT * 6))
    assert chunked(adapter_for(repeated)) == UNIT * 6


def test_chunks_refuse_a_body_far_longer_than_asked(
    serve: Callable[[Behaviour], FakeTarget],
) -> None:
    flood = serve(block(HEADER, UNIT * 5 + UNIT * 20_000))  # 1.7 MB past 5 lines of 450 bytes
    fault = fault_of(lambda: chunked(adapter_for(flood)), ProtocolViolation)
    assert "far more than the 5 unit lines asked for" in str(fault)
    assert repr(UNIT.rstrip(b"\n")) in str(fault)


def test_chunks_refuse_a_cut_body_and_an_endless_line(
    serve: Callable[[Behaviour], FakeTarget],
) -> None:
    header = json.dumps(HEADER).encode() + b"\n"

    def short_then_close(handler: BaseHTTPRequestHandler) -> None:
        length = len(header) + len(UNIT) * 5  # promises 5 units, sends 2, hangs up
        answer(handler, 200, header + UNIT * 2, "application/x-ndjson", length)
        handler.close_connection = True

    cut = serve(short_then_close)
    assert "cut after" in str(fault_of(lambda: chunked(adapter_for(cut)), ProtocolViolation))
    endless = serve(block(HEADER, UNIT + b"x" * (5 << 20)))
    fault = fault_of(lambda: chunked(adapter_for(endless)), ProtocolViolation)
    assert "a line longer than" in str(fault)


def test_a_request_is_named_with_its_path_shortened(
    serve: Callable[[Behaviour], FakeTarget],
) -> None:
    """A block id the target listed (here 1 MB of it) is not quoted whole in the message."""
    target = serve(lambda handler: answer(handler, 414, b"<h1>URI Too Long</h1>", "text/html"))
    # a deadline far above the test's: sending 1 MB of path is no test of time, and on a busy
    # machine it can take longer than TIMEOUT (the 414 would then be a timeout)
    adapter = HttpAdapter(target.url, timeout=60, backoff=0.01)
    fault = fault_of(lambda: adapter.read_block("b" * 1_000_000), ProtocolViolation)
    message = str(fault)
    assert message.startswith("GET /v1/blocks/bbbb") and "got 414" in message
    assert "… (1000011 characters)" in message and len(message) < 2_000


# -- the request as sent ------------------------------------------------------------------


def test_a_request_carries_the_checks_token_only(
    serve: Callable[[Behaviour], FakeTarget], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Neither a ``~/.netrc`` entry for the target's host (which ``requests`` would put in
    place of the bearer token) nor a cookie the target set reaches the target: a token check
    tests the token it chose, nothing else."""
    (tmp_path / ".netrc").write_text("machine 127.0.0.1 login lab password secret\n")
    (tmp_path / ".netrc").chmod(0o600)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("NETRC", str(tmp_path / ".netrc"))
    seen: list[tuple[str | None, str | None]] = []

    def record(handler: BaseHTTPRequestHandler) -> None:
        seen.append((handler.headers.get("Authorization"), handler.headers.get("Cookie")))
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Set-Cookie", "session=let-me-in; Path=/")
        body = b'{"account_id":"a1","balance_cents":5}'
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    adapter = adapter_for(serve(record))
    adapter.balance("a1", "tok-1")
    adapter.balance("a1", None)
    adapter.balance("a1", "tok-2")
    assert seen == [("Bearer tok-1", None), (None, None), ("Bearer tok-2", None)]


def test_the_proxy_environment_is_honoured(
    serve: Callable[[Behaviour], FakeTarget], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``HTTP_PROXY`` still routes the requests (read once, when the adapter is made), and
    ``NO_PROXY`` still exempts a host."""
    paths: list[str] = []

    def proxy(handler: BaseHTTPRequestHandler) -> None:
        paths.append(handler.path)  # a proxy is asked for the absolute URL
        answer(handler, 200, b'{"account_id":"a1","balance_cents":5}')

    upstream = "http://target.invalid:9"
    monkeypatch.setenv("HTTP_PROXY", serve(proxy).url)
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    assert HttpAdapter(upstream, timeout=TIMEOUT).balance("a1", "t")["balance_cents"] == 5
    assert paths == [upstream + "/v1/accounts/a1"]
    monkeypatch.setenv("NO_PROXY", "target.invalid")
    fault_of(lambda: HttpAdapter(upstream, timeout=TIMEOUT).balance("a1", "t"), TargetUnreachable)
    assert len(paths) == 1
