"""Hostile inputs, sixteenth sweep: what a raw socket, a block line, a ``--db`` or an ``--out``
could still do to instantcert, each answered by a clear error within bounded time.

- the reference server's wire (``reference/_http_guard.py``): a request that is not HTTP/1.1
  is answered with the contract's error document (uvicorn wrote ``text/plain``), a head over
  64 KiB with 431 (uvicorn kept it all), and a request that never arrives whole with 408 and
  a closed connection (uvicorn held it for ever);
- a request body naming a key twice is a 400 (the last one was taken silently);
- a block line of many keys naming one twice is judged in linear time (it took minutes);
- ``serve --db ''`` or ``:memory:`` is refused (each connection had a database of its own:
  "no such table" on the second thread, and nothing survived the process);
- ``compare --out FIFO`` with no reader is refused (it waited for ever);
- ``GameService`` given a token or play id holding a lone surrogate answers 401 / 404 (it
  raised ``UnicodeEncodeError``);
- ``evaluate`` reads stdin in bounded lines and quotes 80 characters of a ticket (``<
  /dev/zero`` read until memory ran out, a 30 MB ticket was quoted whole);
- a YAML config or waivers file naming a key twice is refused (the last one was taken).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from conformance._audit.judge import judge_line
from harness._cli import main
from harness._parallel import Task, run_ordered
from reference._http_guard import HEAD_BYTES, GuardedHttpProtocol
from reference._server import ServerThread
from reference._service import GameService, ServiceError
from reference._service_db import ForeignDatabase

SEED = b"h" * 32
GENERATE = ("--count", "600000", "--seed", "ab" * 32)


class QuickGuard(GuardedHttpProtocol):
    request_s = 1.0  # a request must arrive whole within a second here (60 s in production)


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[GameService, int]]:
    service = GameService(tmp_path_factory.mktemp("h16") / "ref.sqlite3", seed=SEED)
    with ServerThread(service, protocol=QuickGuard) as server:
        yield service, int(server.url.rsplit(":", 1)[1])
    service.close()


def exchange(port: int, data: bytes, *, wait: float = 10.0) -> bytes:
    """What the server sends back to ``data`` until it closes the connection (or ``wait``)."""
    with socket.create_connection(("127.0.0.1", port), timeout=wait) as conn:
        conn.sendall(data)
        received = b""
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            try:
                chunk = conn.recv(65536)
            except (TimeoutError, ConnectionResetError):
                break
            if not chunk:
                break
            received += chunk
        return received


def error_document(answer: bytes) -> tuple[int, dict[str, str]]:
    """The status and the ``error`` member of an answer that must be the contract's document."""
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.strip().lower(): v.strip() for k, _, v in (x.partition(":") for x in lines[1:])}
    assert headers.get("content-type", "").startswith("application/json"), answer[:300]
    document = json.loads(body[: int(headers["content-length"])])
    assert set(document) == {"error"}, document
    assert set(document["error"]) == {"code", "message"}, document
    return status, document["error"]


def alive(port: int) -> bool:
    request = b"GET /v1/implementation HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"
    return exchange(port, request).startswith(b"HTTP/1.1 200 ")


POST = b"POST /v1/accounts HTTP/1.1\r\nHost: t\r\n"

NOT_HTTP = {
    "request line garbage": b"GARBAGE\r\n\r\n",
    "method unknown": b"FOO /v1/implementation HTTP/1.1\r\nHost: t\r\n\r\n",
    "method of 100 kB": b"A" * 100_000 + b" /v1/implementation HTTP/1.1\r\n\r\n",
    "NUL in the path": b"GET /v1/impl\x00ementation HTTP/1.1\r\nHost: t\r\n\r\n",
    "header without colon": b"GET /v1/implementation HTTP/1.1\r\nHost: t\r\nBad Header\r\n\r\n",
    "obsolete line folding": b"GET /v1/implementation HTTP/1.1\r\nHost: t\r\nX: a\r\n b\r\n\r\n",
    "bare LF": b"GET /v1/implementation HTTP/1.1\nHost: t\n\n",
    "Content-Length negative": POST + b"Content-Length: -5\r\n\r\n{}",
    "Content-Length not a number": POST + b"Content-Length: abc\r\n\r\n{}",
    "Content-Length past 2**64": POST + b"Content-Length: 99999999999999999999999\r\n\r\n{}",
    "Content-Length twice": POST + b"Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
    "Content-Length and chunked": POST
    + b"Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}",
    "chunk size not hex": POST + b"Transfer-Encoding: chunked\r\n\r\nZZ\r\n{}\r\n0\r\n\r\n",
    "chunk size past 2**64": POST
    + b"Transfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFFFFF\r\n{}\r\n0\r\n\r\n",
    "Transfer-Encoding gzip": POST + b"Transfer-Encoding: gzip\r\n\r\n{}",
    "HTTP/2 preface": b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
    "TLS client hello": bytes.fromhex("16030100a5010000a10303") + bytes(100),
    "CONNECT": b"CONNECT t:80 HTTP/1.1\r\nHost: t\r\n\r\n",
}


@pytest.mark.parametrize("name", sorted(NOT_HTTP))
def test_a_request_that_is_not_http_gets_the_error_document(
    live: tuple[GameService, int], name: str
) -> None:
    status, error = error_document(exchange(live[1], NOT_HTTP[name]))
    assert status == 400 and error["code"] == "malformed_request", error
    assert "not well-formed HTTP/1.1 (" in error["message"], error
    assert alive(live[1])


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"GET /v1/implementation HTTP/1.1\r\nHost: t\r\nX-A: " + b"a" * 200_000 + b"\r\n\r\n",
        b"GET /v1/" + b"a" * 200_000 + b" HTTP/1.1\r\nHost: t\r\n\r\n",
        b"GET /v1/implementation HTTP/1.1\r\n"
        + b"".join(b"X-%05d: %s\r\n" % (i, b"v" * 40) for i in range(2000))
        + b"\r\n",
    ],
    ids=["one header of 200 kB", "a path of 200 kB", "2000 headers"],
)
def test_a_head_past_its_bound_is_431(live: tuple[GameService, int], request_bytes: bytes) -> None:
    status, error = error_document(exchange(live[1], request_bytes))
    assert (status, error["code"]) == (431, "headers_too_large"), error
    assert str(HEAD_BYTES) in error["message"]
    assert alive(live[1])


@pytest.mark.parametrize(
    "partial",
    [
        b"",
        b"GET /v1/impl",
        b"GET /v1/implementation HTTP/1.1\r\nHost: t\r\n",
        POST + b"Content-Length: 100\r\n\r\n{",
        POST + b"Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n",
    ],
    ids=["nothing", "half a request line", "no blank line", "short body", "chunks never ended"],
)
def test_a_request_that_never_arrives_whole_is_408_and_closed(
    live: tuple[GameService, int], partial: bytes
) -> None:
    answer = exchange(live[1], partial, wait=15)  # QuickGuard: 1 s; held on, no 408 in 15 s
    status, error = error_document(answer)
    assert (status, error["code"]) == (408, "request_timeout"), error
    assert alive(live[1])


def test_a_request_sent_whole_is_not_cut_by_the_deadline(live: tuple[GameService, int]) -> None:
    """A slow client that completes its request in time is served; a keep-alive connection
    idle between requests is not answered 408 (uvicorn's keep-alive closes it)."""
    port = live[1]
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(b"GET /v1/implementation HTTP/1.1\r\n")
        time.sleep(0.5)
        conn.sendall(b"Host: t\r\n\r\n")
        assert conn.recv(65536).startswith(b"HTTP/1.1 200 ")


def _post(port: int, path: str, body: bytes, token: str | None = None) -> bytes:
    auth = f"Authorization: Bearer {token}\r\n".encode() if token else b""
    head = f"POST {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n".encode()
    length = b"Content-Length: %d\r\n\r\n" % len(body)
    return exchange(port, head + auth + length + body)


def test_a_body_naming_a_key_twice_is_400_on_every_endpoint(live: tuple[GameService, int]) -> None:
    service, port = live
    account = service.open_account(10_000)
    token, account_id = account["token"], account["account_id"]
    play = service.play(account_id, token, "robots", 100)
    before = service.balance(account_id, token)["balance_cents"]
    bodies = {
        "/v1/accounts": b'{"balance_cents": 5, "balance_cents": 7000000}',
        "/v1/evaluate": b'{"game": "robots", "stake_cents": 100, "tickets": ["x"], '
        b'"game": "eldorado"}',
        f"/v1/accounts/{account_id}/plays": b'{"game": "robots", "stake_cents": 100, '
        b'"stake_cents": 50}',
        f"/v1/plays/{play['play_id']}/reveal": b'{"button": 0, "button": 1}',
        "/v1/evaluate#nested": b'{"game": "robots", "stake_cents": 100, '
        b'"tickets": [{"a": 1, "a": 2}]}',
    }
    for path, body in bodies.items():
        status, error = error_document(_post(port, path.split("#")[0], body, token))
        assert (status, error["code"]) == (400, "malformed_request"), (path, error)
        assert "more than once" in error["message"], error
    assert service.balance(account_id, token)["balance_cents"] == before  # nothing was done


@pytest.mark.timeout(120)  # the hang guard: quadratic, this line took about 15 minutes
def test_a_block_line_of_many_keys_naming_one_twice_is_judged_in_linear_time() -> None:
    keys = ", ".join(f'"k{i}": 1' for i in range(300_000))
    line = f'{{"index": 0, "prize_cents": 0, "ticket": "x", {keys}, "k7": 2}}'.encode()
    verdict = judge_line(line, "robots", 100, 0, frozenset())
    assert verdict.faults == [
        ("unit_lines", "not a JSON document: key(s) 'k7' appear more than once in an object")
    ]


@pytest.mark.parametrize("path", ["", ":memory:"])
def test_a_database_that_is_no_file_is_refused(
    path: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(ForeignDatabase, match="is no file"):
        GameService(path, seed=SEED)
    assert main(["serve", "--db", path, "--port", "0"]) == 2
    captured = capsys.readouterr()
    lines = [x for x in (captured.err + captured.out).splitlines() if x.strip()]
    assert len(lines) == 1 and "is no file" in lines[0], lines


def test_compare_out_to_a_fifo_nobody_reads_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "report"
    assert main(["certify", "--target", "http://127.0.0.1:1", "--out", str(report)]) == 2
    fifo = tmp_path / "out.md"
    os.mkfifo(fifo)
    capsys.readouterr()
    result: list[int] = []
    worker = threading.Thread(
        target=lambda: result.append(
            main(["compare", str(report), str(report), "--out", str(fifo)])
        ),
        daemon=True,
    )
    worker.start()
    worker.join(20)
    if worker.is_alive():  # it waits for a reader: give it one, so the test ends
        with open(fifo, "rb") as reader:
            reader.read()
        worker.join(20)
        pytest.fail("compare --out waited for a reader of the FIFO")
    assert result == [2]
    err = capsys.readouterr().err
    assert "a FIFO (named pipe) that nobody reads" in err and "Traceback" not in err


def test_a_token_or_play_id_with_a_lone_surrogate_is_401_or_404(tmp_path: Path) -> None:
    service = GameService(tmp_path / "ref.sqlite3", seed=SEED)
    try:
        account = service.open_account(1000)
        with pytest.raises(ServiceError) as refused:
            service.balance(account["account_id"], "\ud800")
        assert refused.value.status == 401
        for call in (service.auto, lambda p, t: service.reveal(p, t, 0)):
            with pytest.raises(ServiceError) as refused:
                call("play_\udfff", account["token"])
            assert refused.value.status == 404
    finally:
        service.close()


@pytest.mark.parametrize(
    "stdin, argv",
    [
        ("a" * 5_000_000, []),  # one line of 5 MB and no newline (as ``< /dev/zero`` starts)
        ("\x00" * 100_000 + "\n", []),
        ("", ["b" * 100_000]),
    ],
    ids=["a 5 MB line", "NULs", "a 100 kB ticket argument"],
)
def test_evaluate_refuses_an_overlong_ticket_in_one_short_line(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    stdin: str,
    argv: list[str],
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    assert main(["evaluate", "--game", "robots", *argv]) == 2
    captured = capsys.readouterr()
    lines = [x for x in (captured.err + captured.out).splitlines() if x.strip()]
    assert len(lines) == 1 and len(lines[0]) < 600, (len(lines), len(lines[0]), lines[0][:300])
    assert "Traceback" not in lines[0]


@pytest.mark.parametrize(
    "option, text, key",
    [
        ("--config", "timeout_s: 1\ntimeout_s: 600\n", "timeout_s"),
        ("--config", "stakes:\n  eldorado: [50]\n  eldorado: [200]\n", "eldorado"),
        ("--waivers", "- requirement: a\n  requirement: b\n", "requirement"),
    ],
    ids=["config top level", "config nested", "waivers"],
)
def test_a_yaml_file_naming_a_key_twice_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str, text: str, key: str
) -> None:
    path = tmp_path / "file.yaml"
    path.write_text(text, encoding="utf-8")
    argv = ["certify", "--target", "http://127.0.0.1:1", "--out", str(tmp_path / "r")]
    assert main([*argv, option, str(path)]) == 2
    captured = capsys.readouterr()
    lines = [x for x in (captured.err + captured.out).splitlines() if x.strip()]
    assert len(lines) == 1 and f"the key {key!r} is given twice" in lines[0], lines


def test_ctrl_c_in_a_solo_task_stops_the_run_at_once() -> None:
    """A SIGTERM or Ctrl-C lands in the main thread, which runs the solo tasks (the block
    checks): it was kept until every task before that one in task order had run (a
    SIGTERM'd ``audit-block`` went on auditing, seconds to minutes)."""
    ran: list[str] = []
    release = threading.Event()

    def slow(emit: object) -> None:
        release.wait(60)  # until the interrupt is seen (or a minute: the fault, waited for)
        ran.append("slow")

    def interrupted(emit: object) -> None:
        raise KeyboardInterrupt

    tasks = [Task(run=slow), Task(run=interrupted, solo=True)]  # the solo one starts first
    try:
        with pytest.raises(KeyboardInterrupt):
            run_ordered(tasks, lambda event: None, workers=2)
        assert ran == [], "the interrupt waited for the task before it to end"
    finally:
        release.set()


@pytest.mark.slow
def test_a_sigterm_mid_audit_ends_the_command_and_its_workers(tmp_path: Path) -> None:
    """``audit-block`` of a block whose every line takes the slow path, SIGTERM'd 3 s in: the
    command exits 143 within seconds, and no forked worker outlives it (they waited for ever
    on a task queue once the command was gone)."""
    import signal
    import subprocess
    import sys

    block = tmp_path / "b.jsonl"
    command = [str(Path(sys.executable).with_name("instantcert"))]
    generated = subprocess.run(
        [*command, "generate-block", "--game", "robots", *GENERATE, "-o", str(block)],
        capture_output=True,
        check=False,
    )
    assert generated.returncode == 0, generated.stderr[-500:]
    slow = tmp_path / "slow.jsonl"
    with block.open("rb") as source, slow.open("wb") as out:
        out.write(source.readline())
        for line in source:
            out.write(line[:-2] + b',"serial":"S"}\n')
    audit = subprocess.Popen(
        [*command, "audit-block", "--out", str(tmp_path / "r"), str(slow)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        time.sleep(3)
        audit.send_signal(signal.SIGTERM)
        assert audit.wait(timeout=15) == 143  # it audited on, 25 s here: the whole block
        gone = time.monotonic() + 15
        while subprocess.run(["pgrep", "-s", str(audit.pid)], capture_output=True).stdout:
            assert time.monotonic() < gone, "a worker outlived the command"
            time.sleep(0.1)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(audit.pid, signal.SIGKILL)
