"""The adapter for a target speaking HTTP API v1 (contract section 4), on ``requests``.

One pooled session; a connect timeout, and one total deadline for the headers and body of every
answer (``harness._transport``: a watchdog shuts the socket when it passes); a floor on the
transfer rate of a block stream's body, so a target that trickles bytes forever is cut off
too; an endpoint that timed out twice in a row is not waited on again (``Breaker``). A call
whose connection fails before any answer is sent again, with backoff, only when that cannot
hurt (a read, an evaluation, a new account, or nothing was sent); a lost play is settled from
the history, never sent twice blindly; the requests in flight are limited (``Limiter``, lowered
when a target drops connections). A target asking for patience (429, or 503 with
``Retry-After``) gets it: the request is sent again after the wait asked, a bounded number of
times (``_be_patient``). Every answer is bounded in size and in the memory its parse
takes (``ANSWER_LIMITS``), and 1xx answers are skipped (``InterimSkipping``). Every fault is
classified (``contract._errors``): nothing answers → ``TargetUnreachable``; no answer in time →
``TargetTimeout``; an answer outside the contract → ``ProtocolViolation`` quoting the offending
bytes; a contract error document → ``ErrorReply``. An answer's shape is its schema's
(``contract/schemas/``, as ``contract.Validated`` checks it): the status a document of the
contract's shape came with decides between a breach (*fail*) and a violation (*error*).
"""

from __future__ import annotations

import random
import re
import threading
import time
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from typing import Any, NamedTuple
from urllib.parse import quote, unquote, urlencode, urlsplit

import requests
import urllib3.exceptions
from requests.structures import CaseInsensitiveDict
from requests.utils import check_header_validity, requote_uri
from urllib3.util import parse_url

from contract import RAW_BODY_BYTES, RawAnswer
from contract._schemas import fast_shape, first_fault
from contract._validated import is_error_document
from reference._strict_json import JsonError, OverCost, loads_block_line
from reference._strict_json import loads as strict_loads

from ._adapter import EVALUATE_BATCH_LIMIT, Document
from ._budget import wait_unless_cut
from ._clients import OKHTTP_ORDER, Client, Devices, header_order, okhttp_client
from ._errors import (
    ConfigError,
    ContractBreach,
    ErrorReply,
    ProtocolViolation,
    TargetError,
    TargetTimeout,
    TargetUnreachable,
)
from ._flags import FlagNumbers
from ._ids import IdNumbers
from ._integers import IntegerForms, IntegerStrings
from ._patience import RATE_PATIENCE_S, RATE_RETRIES, rate_wait
from ._redirects import MAX_HOPS, REDIRECTS, Redirects, redirected
from ._statuses import UnnamedStatuses
from ._timeout import DEFAULT_TIMEOUT_S
from ._transport import (
    Breaker,
    Counts,
    Deadline,
    DeadlineHTTPAdapter,
    IdleCloses,
    Limiter,
    asks_patience,
    endpoint,
)

QUOTE_BYTES = 200  # how much of an offending answer a message shows
READ_CHUNK = 64 * 1024
BLOCK_READ = 1 << 18  # a block body is read 256 KiB at a time
BLOCK_CHUNK = 1 << 19  # ``HttpBlockStream.chunks()`` hands on about 512 KiB of whole lines at once
# (the block audit's chunk size: its numpy work stays in the core's cache; docs/block-audit.md)
KIB, MIB = 1024, 1024 * 1024
MAX_LINE_BYTES = MIB  # a block line (header or unit) is a few hundred bytes
LINE_COST = 4 * MIB  # ... and the memory its parsed value may take (reference._strict_json)


class Limit(NamedTuple):
    """What one answer may be: its bytes (on the wire, and after its Content-Encoding is
    undone) and the memory its parsed value may take (``reference._strict_json.structure``)."""

    size: int
    memory: int


ANSWER_LIMITS: dict[str | None, Limit] = {
    # the contract's document for the operation (its schema) -> its limit. The reference's
    # answers, for scale: describe 300 bytes, a batch of 1 000 evaluation results 54 KB
    # (about 0.8 MiB parsed), a history of 300 plays 71 KB, anything else under 300 bytes
    "implementation": Limit(64 * KIB, MIB),
    "evaluate-response": Limit(2 * MIB, 16 * MIB),
    "block-list": Limit(MIB, 8 * MIB),
    "history": Limit(2 * MIB, 16 * MIB),
    "account": Limit(64 * KIB, MIB),
    "balance": Limit(64 * KIB, MIB),
    "play": Limit(64 * KIB, MIB),
    "reveal": Limit(64 * KIB, MIB),
    "auto": Limit(64 * KIB, MIB),
    None: Limit(64 * KIB, MIB),  # a refusal of a block stream
}
MAX_INFLATION = 200
"""How many times its size on the wire a body may grow when its Content-Encoding (gzip) is
undone, past ``INFLATION_FLOOR`` bytes (JSON and NDJSON inflate 5 to 20 times; a body of one
byte repeated, 1 000 times: a bomb, cut early whatever its size limit)."""
INFLATION_FLOOR = MIB
INITIAL_LIMIT = 16  # requests in flight a target is first allowed (growing to pool_size)
UNSAFE_SHARE = 0.5  # of the limit on requests in flight, under which a play or a reveal goes out
BREAKER_AFTER = 2  # timeouts in a row after which an endpoint is not called again
# kept-alive connections: at least the requests a run sends at once (check_concurrency checks
# times scenario_workers scenarios each: 4 x 8), so none is closed on return to a full pool
# and opened again for the next request
POOL_SIZE = 64
_DEADLINE = "instantcert_deadline"  # the response's attribute holding its Deadline
_ENDPOINT = "instantcert_endpoint"  # ... and its endpoint, for the breaker
DEFAULT_USER_AGENT = "okhttp/4.12.0"
"""The User-Agent of a request built outside the run's devices (``_prepare`` without a
client): OkHttp's. A run's requests come from its devices (``harness._clients``: OkHttp,
Dalvik's agent, URLSession, each device's version and headers drawn from the run's seed); a
lab names its traffic with ``user_agent`` (config) or ``certify --user-agent``, which every
device then sends. Not ``python-requests`` (the mark of a script or a test tool) nor a
browser's (a browser sends a dozen other headers whose absence would stand out), and nothing
that names the harness (docs/http-api.md)."""
DEVICE = "instantcert_device"  # a prepared request's attribute: the device (pool) it is sent from
RECEIVE_BUFFER = "instantcert_receive_buffer"  # ... and its connections' receive buffer, if set
SLOW_RECEIVE_BYTES = 16 * 1024
"""The receive buffer of the slow reader's connections (``read_block_slowly``): a socket's
buffer grows as its reader keeps up (to 32 MB on this machine's loopback), so a reader that
stops would leave a stream tens of megabytes to send before the server's writes block; set,
it stays this small (the kernel doubles it), as a phone's on a slow network is."""
JSON_TYPE = "application/json"
JSON_BODY_TYPE = "application/json; charset=utf-8"  # OkHttp's for a JSON request body
NDJSON_TYPE = "application/x-ndjson"


def host_header(base_url: str) -> str:
    """The ``Host`` header of ``base_url`` as OkHttp and ``http.client`` write it: the host
    (an IPv6 address in brackets), and the port unless it is the scheme's default."""
    parts = urlsplit(base_url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    default = 443 if parts.scheme == "https" else 80
    return host if parts.port in (None, default) else f"{host}:{parts.port}"


def client_ordered(
    prepared: requests.PreparedRequest, host: str, order: tuple[str, ...] = OKHTTP_ORDER
) -> None:
    """``prepared``'s headers (``Host`` among them) in the order its client sends them
    (``harness._clients.header_order``; a gateway can fingerprint a client by the order of its
    headers: a fifth red team's tagged OkHttp's order as the app's, and ``http.client`` writes
    ``Host`` first)."""
    headers = prepared.headers
    headers["Host"] = host
    prepared.headers = requests.structures.CaseInsensitiveDict(header_order(dict(headers), order))


def okhttp_ordered(prepared: requests.PreparedRequest, host: str) -> None:
    """``prepared``'s headers in the order OkHttp sends them (``client_ordered``)."""
    client_ordered(prepared, host, OKHTTP_ORDER)


def device_key(path: str) -> tuple[str, str] | None:
    """``("account", id)`` or ``("play", id)``: whose resource ``path`` (as sent, or as a
    probe spells it: doubled slashes, escapes) names, or None."""
    segments = [unquote(s) for s in path.split("?", 1)[0].split("/") if s]
    if len(segments) >= 3 and segments[0] == "v1" and segments[1] in ("accounts", "plays"):
        return ("account" if segments[1] == "accounts" else "play", segments[2])
    return None


def quote_bytes(data: bytes) -> str:
    """The first bytes of ``data`` as a Python literal, marked when shortened."""
    shown = repr(data[:QUOTE_BYTES])
    return shown + (f" ... ({len(data)} bytes)" if len(data) > QUOTE_BYTES else "")


def _media_type(response: requests.Response) -> str:
    return response.headers.get("Content-Type", "").split(";")[0].strip().lower()


# -- response shapes: the contract's schemas (contract/schemas/), as the seam checks them ----

ERROR = {"code": "str", "message": "str"}  # what a per-ticket error must be, for evidence


def shape_fault(value: object, schema: str | None, where: str) -> str | None:
    """What is wrong with ``value`` as a document of the contract's schema ``schema`` (its
    shape: ``contract._schemas``; None: any JSON object), or None."""
    if type(value) is not dict:
        return f"{where} must be a JSON object, got {type(value).__name__}"
    fault = first_fault(schema, value) if schema is not None else None
    if fault is None:
        return None
    path, offending, reason = fault
    at = "" if path == "$" else f" at {path}"
    return f"{where}{at} {reason}" + ("" if path == "$" else f", got {offending!r:.200}")


_is_error_document = is_error_document


AUTO = "POST /v1/plays/{play_id}/auto"

REFUSAL_STATUS = "protocol.refusals.status"
REFUSAL_DOCUMENT = "protocol.refusals.error_document"


REQUEST_LABEL_PATH_CHARS = 200
"""A request is named in messages by its method and path, the path cut to this many characters:
a path carries ids the target chose (a block id, an account id), and a hostile target's
4 MiB id must not be quoted whole in every message and report that names the request."""


def request_label(method: str, path: str) -> str:
    """``GET /v1/blocks/robots-100-0001``: how messages name a request (path shortened)."""
    if len(path) <= REQUEST_LABEL_PATH_CHARS:
        return f"{method} {path}"
    return f"{method} {path[:REQUEST_LABEL_PATH_CHARS]}… ({len(path)} characters)"


def _breach(what: str, got: int, want: int, value: object, raw: bytes, shape: str | None) -> None:
    """Raise ``ContractBreach`` when a JSON answer is in the contract's shape but its status or
    error document is wrong: a refusal with a 2xx status, a success with another 2xx than the
    contract's, a 4xx whose JSON body is not the error document. Anything else returns (the
    caller raises ``ProtocolViolation``: *error*)."""
    if value is raw:  # not JSON: unparseable stays an error
        return
    answer: dict[str, object] = {"operation": what, "status": got, "body": value}
    if 200 <= got < 300 and _is_error_document(value):
        raise ContractBreach(
            REFUSAL_STATUS,
            f"{what}: expected status {want}, got {got} with the error document: a refusal "
            f"sent with a success status (a refusal has a 4xx status): {quote_bytes(raw)}",
            {**answer, "expected": "a 4xx status with the error document"},
        )
    if 200 <= got < 300 and shape_fault(value, shape, "the answer") is None:
        raise ContractBreach(
            REFUSAL_STATUS,
            f"{what}: expected status {want}, got {got} with an answer of the contract's "
            f"shape: a success sent with the wrong status",
            {**answer, "expected": {"status": want}},
        )
    if 400 <= got < 500:
        fault = shape_fault(value, "error", "the answer")
        raise ContractBreach(
            REFUSAL_DOCUMENT,
            f"{what}: expected status {want}, got {got}, and this refusal is not the error "
            f'document {{"error": {{"code", "message"}}}} ({fault}): {quote_bytes(raw)}',
            {**answer, "expected": {"error": {"code": "<snake_case>", "message": "<str>"}}},
        )


# -- requests built without re-parsing what was checked once ---------------------------------

_PLAIN_TARGET = re.compile(r"(?:[A-Za-z0-9\-._~/?=&+]|%[0-9A-F]{2})*")
"""A path and query as ``quote`` and ``urlencode`` write them: ``PreparedRequest.prepare``
would leave it exactly as it is (``_is_plain_target``)."""


def _is_plain_target(target: str) -> bool:
    """Whether ``requests`` would send ``target`` (a path, and a query after one ``?``) as it
    is: no character it would escape, no escape it would undo or change (``%61`` is ``a``), no
    dot segment it would remove (``/../``)."""
    return (
        _PLAIN_TARGET.fullmatch(target) is not None
        and target.count("?") <= 1
        and "/." not in target
        and ("%" not in target or requote_uri(target) == target)
    )


def _url_prefix(base_url: str, headers: Mapping[str, str]) -> str | None:
    """The base URL as ``PreparedRequest.prepare`` writes it (host and path normalised), to
    which a plain path is appended as it is; None when a request must be prepared in full: a
    base URL with credentials (``prepare`` turns them into an ``Authorization`` header) or a
    dot segment, or headers ``prepare`` would refuse (it says so at each request then)."""
    parts = urlsplit(base_url)
    if "@" in parts.netloc or "/." in parts.path:
        return None
    probe = requests.PreparedRequest()
    try:
        probe.prepare(method="GET", url=base_url + "/", headers=dict(headers))
    except (requests.exceptions.RequestException, ValueError):
        return None
    url = str(probe.url)
    return url[:-1] if url.endswith("/") and "Authorization" not in probe.headers else None


def _plain_request(
    method: str, url: str, headers: dict[str, str], data: bytes | None, token: str | None
) -> requests.PreparedRequest:
    """The request ``PreparedRequest.prepare`` would make of these (same URL, same headers in
    the same order, ``Content-Length`` as it sets it), with only the token checked: the rest
    was checked once (``_url_prefix``, ``_is_plain_target``)."""
    if token is not None:
        check_header_validity(("Authorization", headers["Authorization"]))
    prepared = requests.PreparedRequest()
    prepared.method = method
    prepared.url = url
    prepared.headers = CaseInsensitiveDict(headers)
    if data:
        prepared.headers["Content-Length"] = str(len(data))
    elif method not in ("GET", "HEAD"):
        prepared.headers["Content-Length"] = "0"
    prepared.body = data
    return prepared


# -- reading bodies -----------------------------------------------------------------------


class _Reader:
    """Reads a streamed body in bounded chunks, within the read timeout, the request's total
    deadline (if it still runs: a JSON answer's does, a block stream's ends with its headers)
    and a rate floor.

    The floor counts only the time spent waiting for the target, so a slow consumer is never
    blamed on the target: after ``grace`` seconds of waiting, the bytes received must keep up
    with ``min_rate`` bytes per second of waiting. A timeout is told to ``breaker``; a body
    read to its end tells it the endpoint answered.
    """

    def __init__(
        self,
        response: requests.Response,
        what: str,
        grace: float,
        min_rate: int,
        breaker: Breaker | None = None,
    ) -> None:
        self.response = response
        self.what = what
        self.grace = grace
        self.min_rate = min_rate
        self.received = 0  # bytes of the body, its Content-Encoding undone
        self.wire = 0  # ... and as they came on the wire
        self.waited = 0.0
        self.read_size = READ_CHUNK
        deadline = getattr(response, _DEADLINE, None)
        self.deadline = deadline if isinstance(deadline, Deadline) else None
        self.endpoint = str(getattr(response, _ENDPOINT, what))
        self.breaker = breaker

    def _timeout(self, message: str) -> TargetTimeout:
        if self.breaker is not None:
            self.breaker.timed_out(self.endpoint, message)
        return TargetTimeout(message)

    def _past_deadline(self) -> TargetTimeout | None:
        if self.deadline is None or not self.deadline.expired:
            return None
        return self._timeout(
            f"{self.what}: no complete answer within {self.deadline.seconds:g} s "
            f"({self.received} bytes of the body received)"
        )

    def chunks(self) -> Generator[bytes, None, None]:
        """The body in pieces of at most ``read_size`` bytes (read at each step: a block stream
        reads its header in small pieces, then its units in large ones)."""
        raw = self.response.raw
        try:
            while True:
                began = time.monotonic()
                try:
                    data = raw.read1(self.read_size, decode_content=True)
                except (urllib3.exceptions.ReadTimeoutError, TimeoutError):
                    raise self._past_deadline() or self._timeout(
                        f"{self.what}: no byte for {self.grace:g} s after {self.received} bytes"
                    ) from None
                except (urllib3.exceptions.HTTPError, OSError, ValueError) as exc:
                    raise self._past_deadline() or ProtocolViolation(
                        f"{self.what}: the body was cut after {self.received} bytes ({exc})"
                    ) from None
                self.waited += time.monotonic() - began
                late = self._past_deadline()  # a shut socket reads as the end of the body
                if late is not None:
                    raise late
                if not data:
                    if self.breaker is not None:
                        self.breaker.answered(self.endpoint)
                    return
                self.received += len(data)
                self.wire = raw.tell()
                if self.received > INFLATION_FLOOR and self.received > MAX_INFLATION * self.wire:
                    raise ProtocolViolation(
                        f"{self.what}: the body inflates more than {MAX_INFLATION} times: "
                        f"{self.wire} bytes on the wire were {self.received} bytes and more "
                        f"once its Content-Encoding was undone"
                    )
                floor = self.min_rate * (self.waited - self.grace)
                if self.received < floor:
                    raise self._timeout(
                        f"{self.what}: {self.received} bytes in {self.waited:.1f} s of waiting, "
                        f"below the floor of {self.min_rate} bytes/s after {self.grace:g} s"
                    )
                yield data
        finally:
            if self.deadline is not None:
                self.deadline.finish()

    def read_all(self, limit: int) -> bytes:
        """The whole body, at most ``limit`` bytes on the wire and after its Content-Encoding
        is undone; past either, ``ProtocolViolation`` naming the limit."""
        parts: list[bytes] = []
        chunks = self.chunks()
        try:
            for data in chunks:
                parts.append(data)
                if self.received > limit or self.wire > limit:
                    where = "once inflated" if self.received > limit else "on the wire"
                    raise ProtocolViolation(
                        f"{self.what}: the answer exceeds its limit of {limit} bytes {where} "
                        f"(docs/http-api.md, 'Bounded answers'): {quote_bytes(parts[0])}"
                    )
        finally:
            chunks.close()  # ends the deadline now, not when the generator is collected
        return b"".join(parts)


class HttpBlockStream:
    """A block document read in bounded memory (``BlockStream``), by either of two ways.

    ``lines()`` checks each unit line to be a JSON object; the number of unit lines must be the
    one asked for (or the header's ``count``): fewer is a cut stream, more is an answer far
    bigger than asked, both ``ProtocolViolation``.

    ``chunks()`` hands the unit lines on unparsed, in large blocks of whole lines, for an
    auditor that judges every line itself (``conformance._audit``); it checks the framing
    only (see there).
    """

    def __init__(
        self,
        response: requests.Response,
        reader: _Reader,
        expected: int | None,
        ids: IdNumbers | None = None,
    ) -> None:
        self._response = response
        self._reader = reader
        self._chunks = reader.chunks()
        self._pending = b""
        self._what = reader.what
        self._consumed = False
        header_line = self._next_line()
        if header_line is None:
            self.close()
            raise ProtocolViolation(f"{self._what}: the stream holds no header line")
        header = self._parse(header_line, "the header line")
        if ids is not None:
            header = ids.as_text(header, "block-header")
        fault = shape_fault(header, "block-header", "the header")
        count = header.get("count") if isinstance(header, dict) else None
        if fault is None and expected is None:
            if type(count) is not int or count < 0:
                fault = f"the header's count must be a non-negative integer, got {count!r}"
            expected = count
        if fault is not None:
            self.close()
            raise ProtocolViolation(f"{self._what}: {fault}: {quote_bytes(header_line)}")
        assert isinstance(header, dict) and expected is not None
        self.header: Document = header
        self.header_bytes = header_line + b"\n"  # as sent (but a CR): hashed by the audit
        self.expected = expected
        self._left = expected  # chunks(): unit lines asked for, not yet handed on
        self._handed = 0  # chunks(): bytes of them handed on
        self._extra: list[bytes] = []  # chunks(): whole lines past those asked for, held back
        self._extra_size = 0

    def _next_line(self) -> bytes | None:
        """The next line without its newline, None at the end; a last line needs no newline."""
        while True:
            cut = self._pending.find(b"\n")
            if cut >= 0:
                line, self._pending = self._pending[:cut], self._pending[cut + 1 :]
                return line.rstrip(b"\r")
            if len(self._pending) > MAX_LINE_BYTES:
                raise ProtocolViolation(
                    f"{self._what}: a line longer than {MAX_LINE_BYTES} bytes: "
                    f"{quote_bytes(self._pending)}"
                )
            data = next(self._chunks, None)
            if data is None:
                line, self._pending = self._pending, b""
                return line if line.strip() else None
            self._pending += data

    def _parse(self, line: bytes, where: str) -> Any:
        try:
            return loads_block_line(line, max_cost=LINE_COST)
        except JsonError as exc:
            raise ProtocolViolation(
                f"{self._what}: {where} is not JSON ({exc}): {quote_bytes(line)}"
            ) from None

    def lines(self) -> Iterator[bytes]:
        """Each unit line as raw JSON bytes, in block order; checked, then handed over.
        Whitespace after the last line (a blank line) is dropped, as ``chunks()`` drops it."""
        if self._consumed:
            raise RuntimeError("a block stream is read once")
        self._consumed = True
        try:
            for number in range(self.expected):
                line = self._next_line()
                if line is None:
                    raise ProtocolViolation(
                        f"{self._what}: the stream ended after {number} of {self.expected} unit "
                        f"lines ({self._reader.received} bytes)"
                    )
                if type(self._parse(line, f"unit line {number}")) is not dict:
                    raise ProtocolViolation(
                        f"{self._what}: unit line {number} is not a JSON object: "
                        f"{quote_bytes(line)}"
                    )
                yield line
            extra = self._next_line()
            while extra is not None and not extra.strip():  # whitespace after the last line:
                extra = self._next_line()  # dropped, as ``chunks()`` drops it
            if extra is not None:
                raise ProtocolViolation(
                    f"{self._what}: more than the {self.expected} unit lines asked for: "
                    f"{quote_bytes(extra)}"
                )
        finally:
            self.close()

    def chunks(self) -> Iterator[bytes]:
        """The unit lines in blocks of about ``BLOCK_CHUNK`` bytes of whole lines, each line
        ending in ``b"\\n"``, unparsed, with no per-line work here.

        This checks the framing, the target's part of the answer: a body the transport cuts
        (``_Reader``), a last line cut mid-way (no newline, and not a JSON object), a line
        longer than ``MAX_LINE_BYTES`` still unfinished, and a body far longer than asked (more
        than ``extra_allowance`` bytes past the unit lines asked for, e.g. a stream without
        end) are each a ``ProtocolViolation`` when reached. Well-formed NDJSON whose content is
        wrong is handed on for the auditor to judge, as it judges every line: a body that ends
        cleanly after fewer lines than asked (units missing), or with a few lines more
        (units repeated), is the block's fault (``unit_sequence``), not the transport's.
        Whitespace after the last line is dropped.
        """
        if self._consumed:
            raise RuntimeError("a block stream is read once")
        self._consumed = True
        self._reader.read_size = BLOCK_READ
        parts, size = [self._pending], len(self._pending)
        self._pending = b""
        try:
            for data in self._chunks:
                parts.append(data)
                size += len(data)
                if size < BLOCK_CHUNK:
                    continue
                buffer = b"".join(parts)
                end = buffer.rfind(b"\n") + 1
                tail = buffer[end:]
                if len(tail) > MAX_LINE_BYTES:
                    raise ProtocolViolation(
                        f"{self._what}: a line longer than {MAX_LINE_BYTES} bytes: "
                        f"{quote_bytes(tail)}"
                    )
                parts, size = [tail], len(tail)
                if end:
                    asked = self._take(buffer[:end] if tail else buffer)
                    if asked:
                        yield asked
            buffer = b"".join(parts)
            end = buffer.rfind(b"\n") + 1
            tail = buffer[end:]
            asked = self._take(buffer[:end] if tail else buffer)
            if tail.strip():
                self._last_line(tail)
                asked += self._take(tail + b"\n")
            if asked:
                yield asked
            extra = b"".join(self._extra).rstrip()
            if extra:
                yield extra + b"\n"
        finally:
            self.close()

    def extra_allowance(self) -> int:
        """How many bytes may follow the unit lines asked for before the body counts as far
        longer than asked: 1 % of those lines' bytes, at least ``MAX_LINE_BYTES``."""
        return max(MAX_LINE_BYTES, self._handed // 100)

    def _take(self, body: bytes) -> bytes:
        """Of ``body`` (whole lines), the part still asked for; the rest is held back."""
        asked, more = body, b""
        if self._left == 0:
            asked, more = b"", body
        else:
            lines = body.count(b"\n")
            if lines > self._left:
                at = 0
                for _ in range(self._left):
                    at = body.index(b"\n", at) + 1
                asked, more = body[:at], body[at:]
                lines = self._left
            self._left -= lines
            self._handed += len(asked)
        if more:
            self._extra.append(more)
            self._extra_size += len(more)
            if self._extra_size > self.extra_allowance():
                shown = b"".join(self._extra).lstrip().split(b"\n", 1)[0] or more[:QUOTE_BYTES]
                raise ProtocolViolation(
                    f"{self._what}: far more than the {self.expected} unit lines asked for "
                    f"(over {self._extra_size} bytes past them): {quote_bytes(shown)}"
                )
        return asked

    def _last_line(self, tail: bytes) -> None:
        """The body ends in ``tail``, a line without its newline: a whole JSON object, or the
        stream was cut mid-line."""
        number = self.expected - self._left + sum(part.count(b"\n") for part in self._extra)
        try:
            value = strict_loads(tail, max_cost=LINE_COST)
        except JsonError:
            value = None
        if type(value) is not dict:
            raise ProtocolViolation(
                f"{self._what}: the stream ends in the middle of unit line {number} "
                f"({self._reader.received} bytes received, {self.expected} unit lines asked "
                f"for): {quote_bytes(tail)}"
            )

    def close(self) -> None:
        self._response.close()

    def __enter__(self) -> HttpBlockStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# -- plays whose answer was lost --------------------------------------------------------


class LostAnswer(Exception):
    """A request that changes a play or a balance lost its answer: it may have been done."""

    def __init__(self, fault: TargetError) -> None:
        super().__init__(str(fault))
        self.fault = fault


class _PlayBook:
    """Per account, the plays this adapter bought (their ids) and the plays in flight: what a
    lost answer is settled against. A play whose answer was lost stops counting as in flight
    and holds the account's new plays back; it is settled once no other play of the account is
    in flight, one settlement at a time, so that the history it reads holds every play of the
    account but the lost ones."""

    def __init__(self) -> None:
        self._known: dict[str, set[str]] = {}
        self._in_flight: dict[str, int] = {}
        self._held: dict[str, int] = {}  # lost answers waiting to be settled, per account
        self._settling: set[str] = set()
        self._changed = threading.Condition()

    def start(self, account: str, seconds: float) -> None:
        with self._changed:
            self._changed.wait_for(lambda: not self._held.get(account), seconds)
            self._in_flight[account] = self._in_flight.get(account, 0) + 1

    def end(self, account: str, play_id: object = None) -> None:
        with self._changed:
            self._in_flight[account] -= 1
            if isinstance(play_id, str):
                self._known.setdefault(account, set()).add(play_id)
            self._changed.notify_all()

    def settle(self, account: str, seconds: float) -> bool:
        """Called by a play in flight whose answer was lost: wait (at most ``seconds``) until
        no other play of the account is in flight and none settles; False: that never came.
        Either way, ``settled(account, ready)`` follows."""
        with self._changed:
            self._in_flight[account] -= 1
            self._held[account] = self._held.get(account, 0) + 1
            ready = self._changed.wait_for(
                lambda: self._in_flight[account] == 0 and account not in self._settling, seconds
            )
            if ready:
                self._settling.add(account)
            return ready

    def settled(self, account: str, ready: bool) -> None:
        with self._changed:
            if ready:
                self._settling.discard(account)
            self._held[account] -= 1
            self._in_flight[account] += 1  # counted again, until the play's ``end``
            self._changed.notify_all()

    def known(self, account: str) -> set[str]:
        with self._changed:
            return set(self._known.get(account, ()))


# -- the adapter --------------------------------------------------------------------------


def _check_base_url(base_url: str) -> None:
    """``ConfigError`` naming what is wrong with a target's base URL, before any request: not
    an http(s) URL, no host or a port outside 1..65535, a host no request could name (a
    space, a bad escape), or a query or fragment (the harness adds ``/v1/...`` and its own
    query to it: ``http://host/api?key=K`` would send ``/api?key=K/v1/...``)."""
    try:
        parts = urlsplit(base_url)
    except ValueError as exc:  # an unclosed [IPv6 address]
        raise ConfigError(f"target {base_url!r} is not a URL: {exc}") from None
    try:
        port = parts.port
    except ValueError:  # no number, or out of range
        port = 0
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError(f"target {base_url!r} is not an http:// or https:// base URL")
    if not parts.hostname or port == 0:
        raise ConfigError(f"target {base_url!r}: no host, or a port outside 1..65535")
    if parts.query or parts.fragment or base_url.endswith(("?", "#")):
        raise ConfigError(
            f"target {base_url!r}: a base URL without a query or fragment (the harness adds "
            f"/v1/... and its own query to it): {parts._replace(query='', fragment='').geturl()}"
        )
    try:
        parse_url(base_url)
    except urllib3.exceptions.LocationParseError as exc:
        raise ConfigError(f"target {base_url!r}: no request can be sent there: {exc}") from None


class HttpAdapter:
    """An ``Adapter`` over HTTP API v1 at ``base_url``.

    ``timeout`` is each request's total deadline for headers and body together (a block
    stream's headers only: its body is held to ``min_rate``), and bounds every single read;
    ``connect_timeout`` (default ``min(timeout, 10)``) bounds each connection attempt;
    ``min_rate`` is a block stream's transfer-rate floor (bytes per second of waiting) once
    ``timeout`` seconds have been waited; ``retries`` is how often a call is sent again when no
    answer came and that is safe (``_send``), after ``backoff`` s, doubled each time; an
    endpoint that timed out ``breaker_after`` times in a row is not called again (0: always
    called), nor one whose requests were refused to the end (429, 503 with ``Retry-After``)
    that many times in a row; ``user_agent`` is the User-Agent header (``DEFAULT_USER_AGENT``);
    ``rate_retries`` is how often a request refused with 429 (or 503 with ``Retry-After``) is
    sent again, each time after ``sleep(seconds)`` (``rate_wait``; by default a wait that ends
    when the check it is made for is cut: ``harness._budget.wait_unless_cut``).
    """

    def __init__(
        self,
        base_url: str,
        *,
        timeout: float = DEFAULT_TIMEOUT_S,
        connect_timeout: float | None = None,
        retries: int = 3,
        backoff: float = 0.2,
        min_rate: int = 16 * 1024,
        pool_size: int = POOL_SIZE,
        verify: bool | str = True,
        breaker_after: int = BREAKER_AFTER,
        user_agent: str | None = None,
        rate_retries: int = RATE_RETRIES,
        sleep: Callable[[float], None] = wait_unless_cut,
    ) -> None:
        _check_base_url(base_url)
        parts = urlsplit(base_url)
        if not timeout > 0 or (connect_timeout is not None and not connect_timeout > 0):
            raise ConfigError(f"timeouts must be positive, got {timeout!r} / {connect_timeout!r}")
        self.name = base_url
        self.base_url = base_url.rstrip("/")
        self.timeout = (connect_timeout or min(timeout, 10.0), timeout)
        self.retries = retries
        self.backoff = backoff
        self.min_rate = min_rate
        self.breaker = Breaker(breaker_after)
        self.refusals = Breaker(breaker_after, "was refused to the end (429 or 503, waited on)")
        self.rate_retries = rate_retries
        self._sleep = sleep
        # the waits' spread, from a generator of the adapter's own: timing only, and never the
        # global one, which hypothesis watches while a strategy draws (a wait taken on another
        # thread meanwhile warned that a strategy used ``random``) and seeded code may share
        self._jitter = random.Random()
        self.counts = Counts(min(INITIAL_LIMIT, pool_size))
        self.limiter = Limiter(pool_size, self.counts, start=INITIAL_LIMIT)
        self._plays = _PlayBook()
        self.statuses = UnnamedStatuses()  # 201 where the contract names no status
        self.redirects = Redirects()  # redirects to the target's own origin, followed
        self.ids = IdNumbers()  # ids answered as JSON integers
        self.flags = FlagNumbers()  # a reveal's flags answered as 0 and 1
        self.integers = IntegerForms()  # integers answered as 100.0 or 1E+2
        self.integer_strings = IntegerStrings()  # integers answered as "100"
        self.idle_closes = IdleCloses()  # how soon the target closes idle connections
        self.session = requests.Session()
        self.session.verify = verify
        self._transport = DeadlineHTTPAdapter(
            pool_connections=pool_size, pool_maxsize=pool_size, max_retries=0
        )
        self.session.mount("http://", self._transport)
        self.session.mount("https://", self._transport)
        self.session.headers.clear()  # requests' own: python-requests/x.y and deflate
        self.session.headers.update(
            {
                "User-Agent": user_agent or DEFAULT_USER_AGENT,
                # no Accept: OkHttp sends none, and an app's gateway can tell a client that
                # does (a fifth red team's tagged requests without one as the app's)
                "Accept-Encoding": "gzip",
                "Connection": "Keep-Alive",  # spelt as OkHttp spells it
            }
        )
        self._headers: dict[str, str] = {k: str(v) for k, v in self.session.headers.items()}
        self._url_prefix = _url_prefix(self.base_url, self._headers)
        self._default_client = okhttp_client(user_agent or DEFAULT_USER_AGENT)
        self.devices = Devices(0, user_agent)  # the players' devices (``reseed``: the run's)
        self._host = host_header(self.base_url)
        # The environment (HTTP(S)_PROXY, NO_PROXY, REQUESTS_CA_BUNDLE, CURL_CA_BUNDLE) is read
        # once, here, as ``requests`` would read it for each request; see ``_send``.
        settings = self.session.merge_environment_settings(self.base_url, {}, None, verify, None)
        self._proxies: dict[str, str] = dict(settings["proxies"])
        # a CA bundle is a path ``requests`` stats at every request: an http:// target has no TLS
        resolved = settings["verify"]
        self._verify: bool | str = True if parts.scheme == "http" or resolved is None else resolved

    # -- transport ------------------------------------------------------------------------

    def _send(
        self,
        method: str,
        path: str,
        *,
        body: object = None,
        params: Mapping[str, object] | None = None,
        token: str | None = None,
        safe: bool = False,
        settled: bool = False,
        device: int | None = None,
    ) -> requests.Response:
        """``_send_once``'s answer, a redirect to the target's own origin followed
        (``harness._redirects``: at most ``MAX_HOPS`` in a row, each counted for the run's
        reservation)."""
        asked = endpoint(method, path)  # the contract's endpoint, whatever the redirects say
        if device is None:
            device = self._device(path, token)
        hops = 0
        while True:
            response = self._send_once(
                method,
                path,
                body=body,
                params=params,
                token=token,
                safe=safe,
                settled=settled,
                device=device,
            )
            status = response.status_code
            if status not in REDIRECTS or hops == MAX_HOPS:
                return response
            target = redirected(
                self.base_url, method, path, status, response.headers.get("Location")
            )
            if target is None:
                return response
            deadline = getattr(response, _DEADLINE, None)
            if isinstance(deadline, Deadline):
                deadline.finish()
            response.close()
            self.redirects.followed(asked, status)
            path, params = target
            hops += 1

    def reseed(self, seed: object) -> None:
        """The run's seed: its devices are drawn from it (``harness._clients``)."""
        self.devices.reseed(seed)

    def _device(self, path: str, token: str | None) -> int:
        """The device a request comes from: the one of the account or play its path names
        (a request without the token, or with another, comes from the owner's device too, on
        its connections: an app logged out, a token mistyped), else the token's, else one of
        the devices of no account; for a player on two devices, the one it is on
        (``Devices.sender``)."""
        named = device_key(path)
        found = self.devices.of(*named) if named is not None else None
        if found is None and token is not None:
            found = self.devices.of("token", token)
        # a player on two devices sends from either (``Devices.sender``)
        return self.devices.tool() if found is None else self.devices.sender(found)

    def _send_once(
        self,
        method: str,
        path: str,
        *,
        body: object = None,
        params: Mapping[str, object] | None = None,
        token: str | None = None,
        safe: bool = False,
        settled: bool = False,
        device: int | None = None,
    ) -> requests.Response:
        """One request, answered with headers; sent again only when that cannot hurt.

        A connection that fails before any answer (refused, reset, closed before the status
        line) lowers the target's limit on requests in flight (``Limiter``). The request is
        sent again, after a backoff, at most ``retries`` times, when it is ``safe`` (it
        changes nothing, or nothing that matters: a read, an evaluation, a new account) or
        when its connection was never made (nothing was sent). Otherwise the fault is raised
        as a ``LostAnswer``: the play was perhaps made; ``play`` settles it from the history.
        An answer asking for patience (429, or 503 with ``Retry-After``) is no answer: the
        request is sent again after the wait asked (``_be_patient``), whatever it is.

        Each attempt has its own total deadline (``self.timeout[1]``), which goes on running
        for the body: the response carries it, and the reader of the body ends it."""
        what = request_label(method, path)
        key = endpoint(method, path)
        self.breaker.check(key)
        self.refusals.check(key)
        query = {k: str(v) for k, v in (params or {}).items() if v is not None}
        if device is None:
            device = self._device(path, token)
        client = self.devices.client(device)
        attempt = 0  # attempts that failed (no answer, or 502/503/504), against ``retries``
        refused = 0  # answers asking for patience (429, 503 with Retry-After)
        waited = 0.0  # the seconds waited on them
        while True:
            if not self.limiter.acquire(self.timeout[1], 1.0 if safe else UNSAFE_SHARE):
                raise TargetTimeout(
                    f"{what}: not sent: the {int(self.limiter.limit)} requests this target is "
                    f"allowed in flight (lowered after it dropped connections) stayed busy for "
                    f"{self.timeout[1]:g} s"
                )
            fresh_after = None if safe else self.idle_closes.fresh_after()
            deadline = Deadline(self.timeout[1], fresh_after, self.idle_closes)
            answered, unsent = False, False
            try:
                with deadline:
                    response = self._transport.send(
                        self._prepare(method, path, body, query, token, client, device),
                        stream=True,
                        timeout=self.timeout,
                        verify=self._verify,
                        proxies=self._proxies,
                    )
                answered = True
            except requests.exceptions.RequestException as exc:
                deadline.finish()
                if deadline.expired or isinstance(exc, requests.exceptions.ReadTimeout):
                    message = f"{what}: no complete answer within {deadline.seconds:g} s"
                    self.breaker.timed_out(key, message)
                    raise TargetTimeout(message) from None
                if isinstance(exc, requests.exceptions.ConnectTimeout):
                    fault: TargetError = TargetUnreachable(
                        f"{what}: no connection to {self.base_url} within {self.timeout[0]:g} s"
                    )
                    unsent = True
                elif isinstance(exc, requests.exceptions.ConnectionError):
                    fault, unsent = self._connection_fault(what, exc)
                else:
                    raise ProtocolViolation(f"{what}: {exc}") from None
                self.limiter.dropped()
            except UnicodeEncodeError as exc:  # e.g. a token the target chose, not Latin-1
                deadline.finish()
                raise ProtocolViolation(
                    f"{what}: the request cannot be sent: {exc.object[exc.start : exc.end]!r} "
                    f"does not fit an HTTP header ({exc.reason})"
                ) from None
            except BaseException:
                deadline.finish()
                raise
            finally:
                self.limiter.release(answered)
            if answered:
                patience, asked = asks_patience(response.status_code, response.headers)
                if patience:
                    deadline.finish()
                    response.close()
                    refused += 1
                    waited += self._be_patient(
                        what, key, response.status_code, asked, refused, waited, settled
                    )
                    continue
                self.refusals.answered(key)
                if safe and response.status_code in (502, 503, 504) and attempt < self.retries:
                    deadline.finish()
                    response.close()
                    self.limiter.dropped(asked=True)  # overloaded, by its own word
                    self._pause(attempt)
                    attempt += 1
                    continue
                setattr(response, _DEADLINE, deadline)
                setattr(response, _ENDPOINT, key)
                return response
            if not (safe or unsent):
                raise LostAnswer(fault)
            if attempt == self.retries:
                raise fault
            self._pause(attempt)
            attempt += 1

    def _be_patient(
        self,
        what: str,
        key: str,
        status: int,
        asked: float | None,
        refused: int,
        waited: float,
        settled: bool,
    ) -> float:
        """The target answered ``status`` (429, or 503 with ``Retry-After``) for the ``refused``-th
        time to one request: wait what it asks (``rate_wait``), the requests in flight halved
        (``Limiter``: the harness slows down), then the request is sent again (the seconds waited
        returned), whatever it is, a play or a reveal too: the answer refuses the request, it does
        not report it done. A 429 is a client error, "too many requests", whose ``Retry-After`` says
        how long to wait "before making a new request" (RFC 6585 4); a 503 says the server is
        "unable to handle the request", its ``Retry-After`` how long to wait "before retrying the
        request" (RFC 9110 15.6.4): a server shedding load says so before doing the work (a gateway
        that lost its upstream's answer says 502 or 504, or a 503 without ``Retry-After``, which is
        not waited on here). A play (``settled``) met with a 503 is still settled from the history
        after the wait (``LostAnswer``), as cheap as sending it again and never buying it twice.
        Refused ``rate_retries`` times already, or the wait asked taking the request's waits
        (``waited`` so far) past ``RATE_PATIENCE_S``: ``TargetTimeout`` (the check: *error*, never a
        failure), and the endpoint counts one more such request in a row (``refusals``: past
        ``breaker_after``, not called again)."""
        self.limiter.dropped(asked=True)
        self.counts.add("rate_limited")
        said = f"{status}" + ("" if asked is None else f" with Retry-After {asked:g} s")
        wait = rate_wait(asked, refused, self._jitter.random)  # timing only
        if refused > self.rate_retries or waited + wait > RATE_PATIENCE_S:
            message = (
                f"{what}: refused {refused} times in a row ({said} the last time), waited on "
                f"{refused - 1} times, {waited:.0f} s in all (at most {self.rate_retries} times "
                f"and {RATE_PATIENCE_S:g} s): the target did not answer the request"
            )
            self.refusals.timed_out(key, message)
            raise TargetTimeout(message)
        self._sleep(wait)
        self.counts.waited(wait)
        if status == 503 and settled:
            raise LostAnswer(ProtocolViolation(f"{what}: answered {said}"))
        return wait

    def _pause(self, attempt: int) -> None:
        """The backoff before attempt ``attempt + 2``: ``backoff`` doubled each time, spread by
        a random half either way (requests dropped together are not sent again together)."""
        self.counts.add("retries")
        time.sleep(self.backoff * 2**attempt * (0.5 + self._jitter.random()))  # timing only

    def _prepare(
        self,
        method: str,
        path: str,
        body: object,
        query: Mapping[str, str],
        token: str | None,
        client: Client | None = None,
        device: int | None = None,
    ) -> requests.PreparedRequest:
        """The request exactly as the check asked for it, sent straight to the transport.

        Not through ``Session.request``, whose extras are either unwanted here or cost a
        fifth of the harness's CPU in a certify over HTTP (measured: docs/http-api.md): it
        looks for ``~/.netrc`` at every request, and an entry for the target's host would
        replace the check's own ``Authorization`` header (a token check would then test the
        netrc's password); it keeps the cookies a target sets and sends them back, so a
        target could be let in by a cookie where the contract asks for the bearer token; it
        follows no redirect here anyway (``allow_redirects=False``).

        Nor, for a plain path, through ``PreparedRequest.prepare``, which parses and checks
        the whole URL and every header again at each request (a tenth of the harness's CPU):
        ``_plain_request`` builds the same request, byte for byte, from what was checked once.

        ``client`` is the device's (``harness._clients``: its headers and their order, its JSON
        writer); None: OkHttp's, bodies in their keys' order (``okhttp_client``); ``device``
        picks the connections the request goes on (``DeadlineHTTPAdapter``)."""
        client = client or self._default_client
        headers = dict(client.headers)
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        data = None
        if body is not None:  # compact, as a mobile client's JSON library writes it (Python's
            # own ", " and ": " would name the client's language)
            try:
                data = client.body(body)
            except (TypeError, ValueError) as exc:
                raise requests.exceptions.InvalidJSONError(exc) from None
            headers["Content-Type"] = client.body_type
        target = path + ("?" + urlencode(list(query.items())) if query else "")
        if self._url_prefix is not None and _is_plain_target(target):
            prepared = _plain_request(method, self._url_prefix + target, headers, data, token)
        else:
            prepared = requests.PreparedRequest()
            prepared.prepare(
                method=method, url=self.base_url + path, headers=headers, data=data, params=query
            )
        client_ordered(prepared, self._host, client.order)
        if device is not None:
            setattr(prepared, DEVICE, device)
            if self.devices.is_slow_reader(device):
                setattr(prepared, RECEIVE_BUFFER, SLOW_RECEIVE_BYTES)
        return prepared

    def _connection_fault(
        self, what: str, exc: requests.exceptions.ConnectionError
    ) -> tuple[TargetError, bool]:
        """The fault, and whether the request was surely not sent (no connection was made)."""
        reason = exc.args[0] if exc.args else exc
        if isinstance(reason, urllib3.exceptions.MaxRetryError):
            reason = reason.reason
        if isinstance(reason, urllib3.exceptions.ProtocolError):
            return ProtocolViolation(
                f"{what}: the target closed the connection without an answer ({reason})"
            ), False
        unsent = isinstance(reason, urllib3.exceptions.NewConnectionError)
        return TargetUnreachable(f"{what}: nothing answers at {self.base_url} ({reason})"), unsent

    def _reader(self, response: requests.Response, what: str) -> _Reader:
        return _Reader(
            response, what, grace=self.timeout[1], min_rate=self.min_rate, breaker=self.breaker
        )

    def _json(
        self,
        response: requests.Response,
        what: str,
        status: int,
        shape: str | None,
        operation: str | None = None,
    ) -> Document:
        """The answer as a document of ``shape`` with ``status``, or the classified fault;
        for an ``operation`` whose status the contract does not name, another success it
        leaves open is taken too (``harness._statuses``).

        Its size and the memory its value takes are bounded (``ANSWER_LIMITS``), and its
        parse counts within the request's deadline."""
        limit = ANSWER_LIMITS.get(shape, ANSWER_LIMITS[None])
        deadline = getattr(response, _DEADLINE, None)
        try:
            raw = self._reader(response, what).read_all(limit.size)
        finally:
            response.close()
        why = ""
        parse_float, integral_met = self.integers.parser()
        try:
            value = strict_loads(raw, max_cost=limit.memory, parse_float=parse_float)
            if integral_met():
                value = self.integers.placed(value)
        except OverCost as exc:
            raise ProtocolViolation(f"{what}: the answer is over its memory limit: {exc}") from None
        except JsonError as exc:
            value, why = raw, f" ({exc})"
        value = self.flags.as_booleans(self.ids.as_text(value, shape), shape)
        if isinstance(deadline, Deadline) and time.monotonic() > deadline.at:
            raise TargetTimeout(
                f"{what}: no complete answer within {deadline.seconds:g} s (its {len(raw)} "
                f"bytes read and parsed)"
            )
        if response.status_code != status and not (
            value is not raw
            and not _is_error_document(value)
            and self.statuses.takes(operation, status, response.status_code)
        ):
            if 400 <= response.status_code < 500 and _is_error_document(value):
                error = value["error"]
                raise ErrorReply(response.status_code, error["code"], error["message"])
            _breach(what, response.status_code, status, value, raw, shape)
            raise ProtocolViolation(
                f"{what}: expected status {status}, got {response.status_code} "
                f"with {quote_bytes(raw)}"
            )
        if _is_error_document(value) and shape_fault(value, shape, "the answer") is not None:
            _breach(what, response.status_code, status, value, raw, shape)
        if value is raw:
            raise ProtocolViolation(
                f"{what}: the answer is not strict JSON{why}: {quote_bytes(raw)}"
            )
        media = _media_type(response)
        if media != JSON_TYPE:
            raise ProtocolViolation(
                f"{what}: Content-Type {media or 'missing'!r}, expected {JSON_TYPE!r}: "
                f"{quote_bytes(raw)}"
            )
        fault = shape_fault(value, shape, "the answer")
        if fault is not None:
            placed = self.integer_strings.placed(
                value, raw, lambda v: shape_fault(v, shape, "the answer") is None
            )
            if placed is None:
                raise ProtocolViolation(f"{what}: {fault}: {quote_bytes(raw)}")
            value = placed
        assert isinstance(value, dict)
        return value

    def _call(
        self,
        method: str,
        path: str,
        shape: str | None,
        *,
        status: int = 200,
        operation: str | None = None,
        **kwargs: Any,
    ) -> Document:
        response = self._send(method, path, **kwargs)
        return self._json(response, request_label(method, path), status, shape, operation)

    # -- the contract's operations --------------------------------------------------------

    def describe(self) -> Document:
        return self._call("GET", "/v1/implementation", "implementation", safe=True)

    def evaluate(self, game: str, stake_cents: int, tickets: Sequence[str]) -> list[Document]:
        results: list[Document] = []
        for first in range(0, len(tickets), EVALUATE_BATCH_LIMIT):
            batch = list(tickets[first : first + EVALUATE_BATCH_LIMIT])
            what = f"POST /v1/evaluate (tickets {first}..{first + len(batch) - 1})"
            body = {"game": game, "stake_cents": stake_cents, "tickets": batch}
            results.extend(self._evaluate_request(what, body, len(batch)))
        return results

    def evaluate_once(self, game: object, stake_cents: object, tickets: object) -> list[Document]:
        """One ``POST /v1/evaluate`` with this body as it is (no chunking, no check of the
        count or the types): how the suite sends the requests the contract refuses."""
        body = {"game": game, "stake_cents": stake_cents, "tickets": tickets}
        size = len(tickets) if isinstance(tickets, list) else 0
        return self._evaluate_request("POST /v1/evaluate (one request)", body, size)

    def _evaluate_request(self, what: str, body: Document, size: int) -> list[Document]:
        response = self._send("POST", "/v1/evaluate", body=body, safe=True)
        document = self._json(response, what, 200, "evaluate-response", "POST /v1/evaluate")
        answers: list[Document] = document["results"]
        if len(answers) != size:
            raise ContractBreach(
                "evaluate.batch.order",
                f"{what}: {size} tickets sent, {len(answers)} results received",
                {"operation": what, "status": 200, "body": document, "expected": {"results": size}},
            )
        conforms = fast_shape("evaluation-result")
        for number, answer in enumerate(answers):
            if type(answer) is dict and "error" not in answer and conforms(answer):
                continue  # a result of the contract's shape, as nearly all are: nothing to say
            if _is_error_document(answer):
                continue
            if type(answer) is dict and "error" in answer:
                raise ContractBreach(
                    "evaluate.batch.errors",
                    f"{what}: results[{number}] is an error object but not "
                    f'{{"error": {{"code", "message"}}}}: {answer!r}'[:400],
                    {"operation": what, "status": 200, "body": answer, "expected": ERROR},
                )
            fault = shape_fault(answer, "evaluation-result", f"results[{number}]")
            if fault is not None:
                placed = self.integer_strings.placed(answer, None, conforms)
                if placed is None:
                    raise ProtocolViolation(f"{what}: {fault}"[:400])
                answers[number] = placed
        return answers

    def list_blocks(self, game: str, stake_cents: int) -> list[Document]:
        path = "/v1/blocks"
        params = {"game": game, "stake_cents": stake_cents}
        document = self._call("GET", path, "block-list", params=params, safe=True)
        blocks: list[Document] = document["blocks"]
        return blocks

    def read_block(
        self, block_id: str, start: int | None = None, count: int | None = None
    ) -> HttpBlockStream:
        return self._read_block(block_id, start, count, None)

    def read_block_slowly(
        self, block_id: str, start: int | None = None, count: int | None = None
    ) -> HttpBlockStream:
        """``read_block`` as a slow reader reads it: from a device of its own
        (``Devices.slow_reader``), on connections whose receive buffer stays small
        (``SLOW_RECEIVE_BYTES``), so that when its reader stops the server's writes block
        once a few megabytes are in flight, as a slow network's client makes them."""
        return self._read_block(block_id, start, count, self.devices.slow_reader())

    def _read_block(
        self, block_id: str, start: int | None, count: int | None, device: int | None
    ) -> HttpBlockStream:
        path = f"/v1/blocks/{quote(block_id, safe='')}"
        what = request_label("GET", path)
        query = {"start": start, "count": count}
        response = self._send("GET", path, params=query, safe=True, device=device)
        if response.status_code != 200 or _media_type(response) != NDJSON_TYPE:
            if response.status_code == 200:
                body = self._reader(response, what).chunks()
                head = next(body, b"")[:QUOTE_BYTES]
                body.close()
                response.close()
                raise ProtocolViolation(
                    f"{what}: Content-Type {_media_type(response) or 'missing'!r}, "
                    f"expected {NDJSON_TYPE!r}: {quote_bytes(head)}"
                )
            self._json(response, what, 200, None)
        deadline = getattr(response, _DEADLINE, None)
        if isinstance(deadline, Deadline):  # the headers came in time: the floor takes over
            deadline.finish()
        return HttpBlockStream(response, self._reader(response, what), count, self.ids)

    def open_account(self, balance_cents: int) -> Document:
        body = {"balance_cents": balance_cents}  # sent again if lost: one more account, unused
        device = self.devices.new()  # a new player's device, its sign-up on its own connection
        opened = self._call(
            "POST", "/v1/accounts", "account", status=201, body=body, safe=True, device=device
        )
        self.devices.own(device, "account", opened.get("account_id"))
        self.devices.own(device, "token", opened.get("token"))
        return opened

    def balance(self, account_id: str, token: str | None) -> Document:
        path = f"/v1/accounts/{quote(account_id, safe='')}"
        return self._call("GET", path, "balance", token=token, safe=True)

    def play(self, account_id: str, token: str | None, game: str, stake_cents: int) -> Document:
        """A play; one whose answer was lost is settled from the history (``_settle``)."""
        path = f"/v1/accounts/{quote(account_id, safe='')}/plays"
        body = {"game": game, "stake_cents": stake_cents}
        account = str(account_id)
        self._plays.start(account, self.timeout[1])
        bought: object = None
        try:
            try:
                document = self._call(
                    "POST", path, "play", status=201, body=body, token=token, settled=True
                )
            except LostAnswer as lost:
                document = self._settle(account_id, token, game, stake_cents, path, lost)
            bought = document.get("play_id")
            owner = self.devices.of("account", account)
            if owner is not None:
                self.devices.own(owner, "play", bought)
            return document
        finally:
            self._plays.end(account, bought)

    def _settle(
        self,
        account_id: str,
        token: str | None,
        game: str,
        stake_cents: int,
        path: str,
        lost: LostAnswer,
    ) -> Document:
        """The lost play's answer, from the history and the balance, or the play sent again
        when the history shows it was not bought (a play shows there as soon as it is bought:
        contract section 4), at most ``retries`` times; ``ProtocolViolation`` when neither can
        be told (the check: *error*).

        The history holds the account's plays but the lost one, each known here, once no
        other of its plays is in flight: a play there that is not known is the lost one."""
        account = str(account_id)
        cannot = f"{lost.fault}; the play was perhaps made, and the history could not tell"
        ready = self._plays.settle(account, self.timeout[1])
        try:
            if not ready:
                self.counts.add("lost")
                raise ProtocolViolation(f"{cannot} (other plays of the account stayed in flight)")
            for attempt in range(1 + self.retries):
                found = self._lost_play(account_id, token, game, stake_cents, cannot)
                if found is not None:
                    self.counts.add("plays_bought")
                    return found
                if attempt == self.retries:
                    break
                self.counts.add("plays_resent")
                body = {"game": game, "stake_cents": stake_cents}
                try:
                    return self._call(
                        "POST", path, "play", status=201, body=body, token=token, settled=True
                    )
                except LostAnswer as again:
                    cannot = (
                        f"{again.fault}; the play was perhaps made, and the history could not tell"
                    )
            self.counts.add("lost")
            raise ProtocolViolation(f"{lost.fault}; sent again {self.retries} times, each lost")
        finally:
            self._plays.settled(account, ready)

    def _lost_play(
        self, account_id: str, token: str | None, game: str, stake_cents: int, cannot: str
    ) -> Document | None:
        """The play answer of the account's one play that is not known here, from the
        history and the balance; None: the history shows none (it was not bought)."""
        try:
            history = self.history(account_id, token)
        except TargetError as exc:
            self.counts.add("lost")
            raise ProtocolViolation(f"{cannot} (reading it: {exc})") from None
        known = self._plays.known(str(account_id))
        plays = history.get("plays")
        new = [
            p
            for p in (plays if isinstance(plays, list) else [])
            if type(p) is dict and p.get("play_id") not in known
        ]
        if not new:
            return None
        found = new[0]
        if len(new) > 1 or (found.get("game"), found.get("stake_cents")) != (game, stake_cents):
            self.counts.add("lost")
            raise ProtocolViolation(
                f"{cannot}: it shows {len(new)} play(s) this harness did not see bought, "
                f"the newest {found!r:.300}"
            )
        try:
            balance = self.balance(account_id, token)
        except TargetError as exc:
            self.counts.add("lost")
            raise ProtocolViolation(f"{cannot} (reading the balance: {exc})") from None
        fields = ("play_id", "game", "stake_cents", "block_id", "index")
        return {
            **{name: found.get(name) for name in fields},
            "balance_cents": balance.get("balance_cents"),
        }

    def reveal(self, play_id: str, token: str | None, button: int) -> Document:
        path = f"/v1/plays/{quote(play_id, safe='')}/reveal"
        return self._unsettled(
            "POST",
            path,
            "reveal",
            body={"button": button},
            token=token,
            operation="POST /v1/plays/{play_id}/reveal",
        )

    def auto(self, play_id: str, token: str | None) -> Document:
        """AUTO; one whose answer was lost is asked again, as a safe request (at most
        ``retries`` times, with backoff): a second AUTO changes nothing
        (docs/contract-decisions.md: it may answer the ticket again or refuse, and the balance
        does not move), so its answer is the lost one's. A refusal then: the first was done,
        its answer lost, and nothing else tells it (the check: *error*)."""
        path = f"/v1/plays/{quote(play_id, safe='')}/auto"
        try:
            return self._call("POST", path, "auto", body={}, token=token, operation=AUTO)
        except LostAnswer as lost:
            self._pause(0)
            try:
                return self._call(
                    "POST", path, "auto", body={}, token=token, safe=True, operation=AUTO
                )
            except ErrorReply as refused:
                self.counts.add("lost")
                raise ProtocolViolation(
                    f"{lost.fault}; asked again, it was refused ({refused}): the first was "
                    "perhaps done, and nothing tells its answer"
                ) from None
            except TargetError:
                self.counts.add("lost")
                raise

    def _unsettled(self, method: str, path: str, shape: str, **kwargs: Any) -> Document:
        """A reveal: a lost answer is not settled (the history shows no reveal state) nor
        sent again (it would reveal the next symbol under the button): the check cannot
        judge."""
        try:
            return self._call(method, path, shape, **kwargs)
        except LostAnswer as lost:
            self.counts.add("lost")
            raise ProtocolViolation(
                f"{lost.fault}; it changes the play, so it is not sent again, and nothing "
                "tells whether it was done"
            ) from None

    def wire_reservations(self) -> list[dict[str, Any]]:
        """The run's reservations about what the wire showed: success statuses the contract
        does not name (``harness._statuses``), ids as JSON numbers (``harness._ids``), a
        reveal's flags as 0 and 1 (``harness._flags``), redirects followed
        (``harness._redirects``); integers as 100.0 or 1E+2 are none (``harness._integers``:
        the JSON number is the integer)."""
        return (
            self.statuses.reservations()
            + self.redirects.reservations()
            + self.ids.reservations()
            + self.flags.reservations()
            + self.integer_strings.reservations()
        )

    def transport_counts(self) -> dict[str, int]:
        """What the transport did (``harness._transport.Counts``): the report shows it."""
        return self.counts.snapshot()

    def history(self, account_id: str, token: str | None, limit: int | None = None) -> Document:
        path = f"/v1/accounts/{quote(account_id, safe='')}/history"
        return self._call("GET", path, "history", params={"limit": limit}, token=token, safe=True)

    # -- how many purchases go out at once (``contract.HeldBack``) ---------------------------

    def pace_mark(self) -> int:
        return self.limiter.mark()

    def fewest_at_once(self, mark: int) -> int | None:
        """The fewest plays or reveals let out at once since ``mark`` while the target had
        the harness slow down (429, 503 with ``Retry-After``, a 502/503/504 overload): they
        go out under ``UNSAFE_SHARE`` of the limit on requests in flight, which each such
        answer halves; None when the target asked nothing of the kind meanwhile."""
        lowest = self.limiter.lowest_since(mark)
        return None if lowest is None else max(1, int(lowest * UNSAFE_SHARE))

    # -- a request as written (``contract.RawRequests``) ------------------------------------

    def send_raw(
        self,
        method: str,
        path: str,
        headers: Mapping[str, str] | None = None,
        body: object = None,
    ) -> RawAnswer:
        """One request exactly as written (``contract.RawRequests``): ``path`` (query string
        included) is sent byte for byte, no normalisation (``requests`` would turn ``%61``
        into ``a``), ``headers`` added to the adapter's own (no ``Authorization`` unless
        given), ``body`` as JSON. Sent again only when the target asks for patience (a 429,
        a 503 with ``Retry-After``: ``_be_patient``), as it asks: a probe is judged on the
        answer the target gives when the harness comes back as told, never on a refusal to
        answer it (a probe's request changes nothing the suite judges, or only an account of
        its own: sent again even after a 503); the answer's status and its body's first
        ``RAW_BODY_BYTES`` bytes, within the request's deadline."""
        what = request_label(method, path)
        key = endpoint(method, path)
        self.breaker.check(key)
        self.refusals.check(key)
        refused, waited = 0, 0.0
        while True:
            response, deadline = self._send_raw_once(what, key, method, path, headers, body)
            patience, asked = asks_patience(response.status_code, response.headers)
            if not patience:
                break
            deadline.finish()
            response.close()
            refused += 1
            waited += self._be_patient(
                what, key, response.status_code, asked, refused, waited, False
            )
        self.refusals.answered(key)
        setattr(response, _DEADLINE, deadline)
        setattr(response, _ENDPOINT, key)
        reader = self._reader(response, what)
        parts: list[bytes] = []
        chunks = reader.chunks()
        try:
            for data in chunks:
                parts.append(data)
                if reader.received >= RAW_BODY_BYTES:
                    break
        finally:
            chunks.close()
            response.close()
        return RawAnswer(response.status_code, b"".join(parts)[:RAW_BODY_BYTES])

    def _send_raw_once(
        self,
        what: str,
        key: str,
        method: str,
        path: str,
        headers: Mapping[str, str] | None,
        body: object,
    ) -> tuple[requests.Response, Deadline]:
        """``send_raw``'s request sent once: its answer's headers, and its running deadline."""
        named = device_key(path)
        device = self.devices.of(*named) if named is not None else None
        device = self.devices.tool() if device is None else device
        client = self.devices.client(device)  # the owner's device, as its app would send it
        sent = {**client.headers, **(headers or {})}
        if body is not None:
            sent.setdefault("Content-Type", client.body_type)
        prepared = requests.PreparedRequest()
        prepared.prepare(
            method=method,
            url=self.base_url + "/",
            headers=sent,
            data=None if body is None else client.body(body),
        )
        prepared.url = self.base_url + path  # as written: prepare() would requote the path
        client_ordered(prepared, self._host, client.order)
        setattr(prepared, DEVICE, device)
        deadline = Deadline(self.timeout[1])
        try:
            with deadline:
                response = self._transport.send(
                    prepared,
                    stream=True,
                    timeout=self.timeout,
                    verify=self._verify,
                    proxies=self._proxies,
                )
        except requests.exceptions.RequestException as exc:
            deadline.finish()
            if deadline.expired or isinstance(exc, requests.exceptions.Timeout):
                message = f"{what}: no complete answer within {deadline.seconds:g} s"
                self.breaker.timed_out(key, message)
                raise TargetTimeout(message) from None
            if isinstance(exc, requests.exceptions.ConnectionError):
                raise self._connection_fault(what, exc)[0] from None
            raise ProtocolViolation(f"{what}: {exc}") from None
        except BaseException:
            deadline.finish()
            raise
        return response, deadline

    def close(self) -> None:
        self.session.close()
