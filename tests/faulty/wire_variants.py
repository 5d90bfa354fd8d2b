"""Correct targets that speak HTTP differently: the suite must certify each over HTTP.

Each is the reference (``reference_adapter``) behind Python's own ``http.server``
(``ThreadingHTTPServer``, a thread per connection), with one freedom of the wire:

- ``http10_backlog5``: HTTP/1.0, one connection per request, an accept backlog of 5 (a modest
  server: under the harness's concurrency its queue overflows, and connections are reset or
  closed before any answer, though every request it accepts is answered right);
- ``chunked``: HTTP/1.1 kept alive, every body ``Transfer-Encoding: chunked``;
- ``sized``: HTTP/1.1 kept alive, every body with its ``Content-Length`` (block streams too);
- ``gzip``: every answer ``Content-Encoding: gzip`` when the request accepts it;
- ``late``: every answer 150 ms late;
- ``rate_limited``: at most 20 requests a second per account (its token) and 150 per client,
  beyond which ``429 Too Many Requests`` with ``Retry-After: 1`` and the error document, the
  request not processed (``RateLimit``);
- ``rate_limited_bare``: the same limits, the 429 without ``Retry-After`` and with a body that
  is no JSON (nginx's ``limit_req`` page);
- ``overloaded_503``: the same limits answered ``503 Service Unavailable`` with
  ``Retry-After: 1`` (a gateway shedding load);
- ``post_201``: ``201 Created`` for every POST answered, evaluate, reveal and AUTO too
  (NestJS's default; a reservation, row ``success-status``);
- ``int_ids``: account, play and block ids written as JSON integers (integer primary keys; a
  reservation, row ``id-numbers``);
- ``json_forms``: answers indented and newline-ended, ``application/json; charset=utf-8``
  under a lower-case ``content-type`` name, a ``Server``, a request id and a ``Cache-Control``
  header, refusals as ``application/problem+json`` with RFC 9457's members beside ``error``;
- ``escaped``: every character of every JSON string written ``\\uXXXX``, the block stream
  chunked with no newline after its last line;
- ``close_each``: HTTP/1.1, ``Connection: close`` on every answer;
- ``ndjson_crlf``: block lines ended by CR LF (JSON Lines allows it);
- ``reordered``: the keys of every answer and every block line in reverse order;
- ``one_thread_http10``: HTTP/1.0, one request at a time in one thread, a backlog of 5 (a
  block stream read holds every other request in the queue);
- ``keep_alive_300ms``: a kept-alive connection idle for 300 ms is closed (a gateway's short
  keep-alive timeout; ``harness._transport.IdleCloses``);
- ``flags_0_1``: a reveal's ``x2`` and ``plus_one`` written 0 and 1 (an integer column; a
  reservation, row ``flag-numbers``), every answer in raw UTF-8 (``ensure_ascii=False``) and
  every refusal's message in French with accents;
- ``html_404``: a path no route matches (a trailing or doubled slash) answered 404 with an
  HTML page, as Express does (``Cannot GET /v1/...``);
- ``slow_evaluator``: ``POST /v1/evaluate`` takes 1 ms a ticket (1 s a batch of 1000);
- ``media_params``: Spring's ``application/json;charset=UTF-8`` (no space, upper case) on every
  answer, ``application/x-ndjson; charset=utf-8`` on block streams, every header name in upper
  case;
- ``error_extras``: every error object, refusals' and per-ticket ones, with members of the
  vendor's own beside ``code`` and ``message`` (``details``, ``trace_id``, ``status``);
- ``rate_limited_http_date``: the limits of ``rate_limited``, ``Retry-After`` as an HTTP date;
- ``numbers_point_zero``: every integer of every JSON answer written with a zero fraction
  (``100.0``), as a decimal column's encoder does (the integer it equals, no reservation:
  row ``integer-forms``);
- ``numbers_exponent``: every integer of every JSON answer that is a multiple of 10 written
  with an exponent (``1E+2``, Java's ``BigDecimal.toString`` after ``stripTrailingZeros``; no
  reservation, row ``integer-forms``);
- ``ids_url_special``: account, play and block ids holding characters a path must
  percent-encode (``/``, ``+``, ``=``, ``:``, ``@``, ``?``, ``#``, ``%``, a space), as ids in
  standard base64 or URNs are;
- ``ids_long``: account, play and block ids 1 000 characters long;
- ``slow_plays``: every play bought answered 500 ms late (a wallet or payment service behind
  each purchase);
- ``slash_redirect_307``: every route declared with a trailing slash, the contract's path
  answered ``307 Temporary Redirect`` to it (FastAPI's ``redirect_slashes`` for a route declared
  ``"/"`` under a prefix; a reservation, row ``redirects``);
- ``path_prefix``: the API served under a path prefix (``/lottery/api/v1/...``, behind a
  gateway), the base URL naming it;
- ``close_delimited``: HTTP/1.1, every body without ``Content-Length`` or chunking, ended by
  closing the connection (RFC 9112 6.3);
- ``ndjson_spaced``: block lines written with Python's own separators (``", "``, ``": "``);
- ``ndjson_blank_end``: a blank line after the block stream's last line;
- ``unit_extras``: every block line with a field of the generator's own (a serial number per
  unit; a reservation, row ``unit-fields``);
- ``chunked_trailers``: every body chunked, with a trailer field after the last chunk
  (RFC 9112 7.1.2);
- ``batch_207``: ``207 Multi-Status`` for every ``POST /v1/evaluate`` answered, a batch whose
  results each say how their ticket went (Zalando's RESTful API guidelines, rule 152: "use
  code 207 for batch or bulk requests"; a reservation, row ``success-status``);
- ``block_numbers_point_zero``: every integer of every block line, the header's and the
  units', written with a zero fraction (``"prize_cents": 100.0``), as a generator writing a
  decimal column does (the integer it equals, no reservation: row ``integer-forms``);
- ``block_numbers_exponent``: every integer that is a multiple of 10, in every block line and
  every answer, written with an exponent (``"units": 2E+6``, ``BigDecimal.stripTrailingZeros``);
- ``int64_strings``: every integer of every JSON answer written as a string of its digits
  (``"balance_cents": "10000"``: protobuf's JSON mapping of an ``int64``, as a gRPC-gateway
  writes it; a reservation, row ``integer-strings``).

``with WireServer(adapter, **WIRE_VARIANTS[name]) as url`` serves one on 127.0.0.1.
"""

from __future__ import annotations

import email.utils
import json
import re
import socket
import socketserver
import struct
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from harness._adapter import EVALUATE_BATCH_LIMIT
from harness._errors import ErrorReply
from harness._integers import INTEGER_FIELDS

from ._base import reference_adapter

WIRE_VARIANTS: dict[str, dict[str, Any]] = {
    "http10_backlog5": {"http10": True, "backlog": 5},
    "chunked": {"chunked": True},
    "sized": {},
    "gzip": {"gzip": True},
    "late": {"delay_s": 0.150},
    "rate_limited": {"rate": "limits"},
    "rate_limited_bare": {"rate": "limits_bare"},
    "overloaded_503": {"rate": "limits_503"},
    "post_201": {"post_201": True},
    "int_ids": {"int_ids": True},
    "json_forms": {
        "json_form": "pretty",
        "json_media": "application/json; charset=utf-8",
        "type_header": "content-type",
        "problem": True,
        "extra_headers": {
            "SERVER": "nginx/1.25.3",
            "x-request-id": "0f8e2d4c6b1a3957e8d0c2b4a6f81357",
            "Cache-Control": "no-store",
        },
    },
    "escaped": {"json_form": "escaped", "ndjson": "open_end", "chunked": True},
    "close_each": {"close": True},
    "ndjson_crlf": {"ndjson": "crlf"},
    "reordered": {"json_form": "reordered", "ndjson": "reordered"},
    "one_thread_http10": {"http10": True, "threads": False, "backlog": 5},
    "keep_alive_300ms": {"idle_s": 0.3},
    "flags_0_1": {"int_flags": True, "json_form": "utf8"},
    "html_404": {"html_404": True},
    "slow_evaluator": {"per_ticket_s": 0.001},
    "media_params": {
        "json_media": "application/json;charset=UTF-8",
        "ndjson_media": "application/x-ndjson; charset=utf-8",
        "type_header": "CONTENT-TYPE",
        "upper_headers": True,
    },
    "error_extras": {"error_extras": True},
    "rate_limited_http_date": {"rate": "limits_http_date"},
    "numbers_point_zero": {"json_form": "point_zero"},
    "numbers_exponent": {"json_form": "exponent"},
    "ids_url_special": {"special_ids": True},
    "ids_long": {"long_ids": True},
    "slow_plays": {"play_delay_s": 0.5},
    "slash_redirect_307": {"slash_redirect": 307},
    "path_prefix": {"prefix": "/lottery/api"},
    "close_delimited": {"unsized": True},
    "ndjson_spaced": {"ndjson": "spaced"},
    "ndjson_blank_end": {"ndjson": "blank_end"},
    "unit_extras": {"ndjson": "unit_extras"},
    "chunked_trailers": {"chunked": True, "trailers": True},
    "batch_207": {"batch_207": True},
    "block_numbers_point_zero": {"ndjson": "point_zero"},
    "block_numbers_exponent": {"ndjson": "exponent", "json_form": "exponent"},
    "int64_strings": {"json_form": "int64_strings"},
}

WIRE_RESERVATIONS: dict[str, frozenset[str]] = {
    "post_201": frozenset({"success-status"}),
    "batch_207": frozenset({"success-status"}),
    "int64_strings": frozenset({"integer-strings"}),
    "int_ids": frozenset({"id-numbers"}),
    "flags_0_1": frozenset({"flag-numbers"}),
    "slash_redirect_307": frozenset({"redirects"}),
    "unit_extras": frozenset({"unit-fields"}),
}
"""The reservations (their basis) a wire variant's run gets; none for the others."""

CHECK_BASES = frozenset({"unit-fields"})
"""The bases of ``WIRE_RESERVATIONS`` a check words (from what it read), not the wire."""

Document = dict[str, Any]
Answer = tuple[int, Any]  # status, a JSON document or an iterator of NDJSON bytes


def _int(query: dict[str, list[str]], name: str) -> int | None:
    values = query.get(name)
    if not values:
        return None
    text = values[-1]
    if not (text.isascii() and text.isdigit()):
        raise ErrorReply(400, "malformed_request", f"{name} must be an integer, got {text!r}")
    return int(text)


def _field(body: Document, name: str) -> Any:
    if name not in body:
        raise ErrorReply(400, "malformed_request", f"the body has no {name!r}")
    return body[name]


def _block_lines(stream: Any, ids: IdNumbers | None = None) -> Iterator[bytes]:
    try:
        header = stream.header if ids is None else ids.out(stream.header)
        yield json.dumps(header, separators=(",", ":")).encode() + b"\n"
        batch: list[bytes] = []
        for line in stream.lines():
            batch.append(line + b"\n")
            if len(batch) >= 512:
                yield b"".join(batch)
                batch = []
        if batch:
            yield b"".join(batch)
    finally:
        stream.close()


Route = tuple[str, re.Pattern[str], Callable[..., Answer]]


class _NoRoute(Exception):
    """A path no route matches, answered with an HTML page (``html_404``)."""


ID_KEYS = frozenset(("account_id", "play_id", "block_id"))


class IdNumbers:
    """Every id the service hands out written as a JSON integer (1, 2, 3 ... in the order
    first seen), as a vendor with integer primary keys does; ids in paths read back."""

    def __init__(self) -> None:
        self._numbers: dict[str, int | str] = {}
        self._ids: dict[str, str] = {}
        self._lock = threading.Lock()

    def number(self, text: str) -> int | str:
        with self._lock:
            if text not in self._numbers:
                self._numbers[text] = self.written(len(self._numbers) + 1, text)
                self._ids[str(self._numbers[text])] = text
            return self._numbers[text]

    def written(self, count: int, text: str) -> int | str:
        """The id handed out for the service's ``text``, the ``count``-th seen."""
        return count

    def out(self, value: Any) -> Any:
        if isinstance(value, dict):
            return {
                k: self.number(v) if k in ID_KEYS and isinstance(v, str) else self.out(v)
                for k, v in value.items()
            }
        if isinstance(value, list):
            return [self.out(v) for v in value]
        return value

    def back(self, text: str) -> str:
        with self._lock:
            return self._ids.get(text, text)


class SpecialIds(IdNumbers):
    """Every id the service hands out holding characters a path must percent-encode (``/``,
    ``+``, ``=``, ``:``, ``@``, ``?``, ``#``, ``%``, a space), as ids in standard base64 or
    URNs do; ids in paths read back once decoded."""

    def written(self, count: int, text: str) -> int | str:
        return f"urn:{count}:{text}/a+b=c@d?e#f%g h"


class LongIds(IdNumbers):
    """Every id the service hands out 1 000 characters long (a signed, self-describing id)."""

    def written(self, count: int, text: str) -> int | str:
        return f"{text}.{count}.".ljust(1000, "x")


class RateLimit:
    """A rate limiter in front of the service, as production gateways have: a token bucket per
    account (its ``Authorization`` header) of ``per_account`` requests a second, and one for
    the whole client of ``per_client``, each holding a second's worth; a request past either
    is refused with ``status`` (429 or 503), ``Retry-After: retry_after`` when given, and the
    error document (``json_body``) or nginx's HTML page, before anything is processed; with
    ``drop``, its connection is reset instead, with no answer (a proxy shedding load).
    ``refuse(method, path, body)``: a request refused whatever the buckets hold (a faulty
    target's); ``refused`` counts the refusals sent."""

    def __init__(
        self,
        per_account: float = 20.0,
        per_client: float = 150.0,
        *,
        status: int = 429,
        retry_after: str | Callable[[], str] | None = "1",
        json_body: bool = True,
        refuse: Callable[[str, str, bytes], bool] | None = None,
        drop: bool = False,
    ) -> None:
        self.rates = {"account": per_account, "client": per_client}
        self.drop = drop  # a refusal is a connection closed without an answer
        self.status, self.retry_after, self.json_body = status, retry_after, json_body
        self.refuse = refuse
        self.refused = 0
        self._buckets: dict[str, tuple[float, float]] = {}  # key -> (tokens, at)
        self._lock = threading.Lock()

    def _take(self, key: str, rate: float, now: float) -> bool:
        tokens, at = self._buckets.get(key, (rate, now))
        tokens = min(rate, tokens + (now - at) * rate)
        if tokens < 1:
            self._buckets[key] = (tokens, now)
            return False
        self._buckets[key] = (tokens - 1, now)
        return True

    def admits(self, method: str, path: str, body: bytes, account: str | None) -> bool:
        if self.refuse is not None and self.refuse(method, path, body):
            with self._lock:
                self.refused += 1
            return False
        now = time.monotonic()
        with self._lock:
            ok = (account is None or self._take(f"a:{account}", self.rates["account"], now)) and (
                self._take("client", self.rates["client"], now)
            )
            self.refused += not ok
            return ok

    def refusal(self) -> tuple[int, dict[str, str], bytes, str]:
        """The status, headers, body and media type of a refusal."""
        wait = self.retry_after() if callable(self.retry_after) else self.retry_after
        headers = {} if wait is None else {"Retry-After": wait}
        if self.json_body:
            word = "too_many_requests" if self.status == 429 else "overloaded"
            body = {"error": {"code": word, "message": "slow down"}}
            return self.status, headers, json.dumps(body).encode(), "application/json"
        page = b"<html><head><title>429 Too Many Requests</title></head></html>\n"
        return self.status, headers, page, "text/html"


RATE_LIMITS: dict[str, Callable[[], RateLimit]] = {
    "limits": RateLimit,
    "limits_bare": lambda: RateLimit(retry_after=None, json_body=False),
    "limits_503": lambda: RateLimit(status=503),
    # a second from now as an HTTP date (rounded up: HTTP dates have whole seconds)
    "limits_http_date": lambda: RateLimit(
        retry_after=lambda: email.utils.formatdate(time.time() + 2, usegmt=True)
    ),
}


def routes(adapter: Any, ids: IdNumbers | None = None, per_ticket_s: float = 0.0) -> list[Route]:
    """(method, path pattern, handler(match groups..., query, body, token)) of HTTP API v1;
    ``ids``: the ids written as numbers (paths read back)."""

    def implementation(query: Any, body: Document, token: str | None) -> Answer:
        return 200, adapter.describe()

    def evaluate(query: Any, body: Document, token: str | None) -> Answer:
        tickets = _field(body, "tickets")
        if type(tickets) is not list or not 1 <= len(tickets) <= EVALUATE_BATCH_LIMIT:
            raise ErrorReply(400, "malformed_request", "tickets must be a list of 1 to 1000")
        game, stake = _field(body, "game"), _field(body, "stake_cents")
        if per_ticket_s:  # a slow evaluator: its time grows with the batch
            time.sleep(per_ticket_s * len(tickets))
        return 200, {"results": adapter.evaluate(game, stake, tickets)}

    def blocks(query: Any, body: Document, token: str | None) -> Answer:
        game = (query.get("game") or [None])[-1]
        return 200, {"blocks": adapter.list_blocks(game, _int(query, "stake_cents"))}

    def block(block_id: str, query: Any, body: Document, token: str | None) -> Answer:
        stream = adapter.read_block(block_id, _int(query, "start"), _int(query, "count"))
        return 200, _block_lines(stream, ids)

    def accounts(query: Any, body: Document, token: str | None) -> Answer:
        return 201, adapter.open_account(_field(body, "balance_cents"))

    def balance(account: str, query: Any, body: Document, token: str | None) -> Answer:
        return 200, adapter.balance(account, token)

    def plays(account: str, query: Any, body: Document, token: str | None) -> Answer:
        game, stake = _field(body, "game"), _field(body, "stake_cents")
        return 201, adapter.play(account, token, game, stake)

    def history(account: str, query: Any, body: Document, token: str | None) -> Answer:
        return 200, adapter.history(account, token, _int(query, "limit"))

    def reveal(play: str, query: Any, body: Document, token: str | None) -> Answer:
        return 200, adapter.reveal(play, token, _field(body, "button"))

    def auto(play: str, query: Any, body: Document, token: str | None) -> Answer:
        return 200, adapter.auto(play, token)

    table: list[tuple[str, str, Callable[..., Answer]]] = [
        ("GET", r"/v1/implementation", implementation),
        ("POST", r"/v1/evaluate", evaluate),
        ("GET", r"/v1/blocks", blocks),
        ("GET", r"/v1/blocks/([^/]+)", block),
        ("POST", r"/v1/accounts", accounts),
        ("GET", r"/v1/accounts/([^/]+)", balance),
        ("POST", r"/v1/accounts/([^/]+)/plays", plays),
        ("GET", r"/v1/accounts/([^/]+)/history", history),
        ("POST", r"/v1/plays/([^/]+)/reveal", reveal),
        ("POST", r"/v1/plays/([^/]+)/auto", auto),
    ]
    return [(method, re.compile(pattern), handler) for method, pattern, handler in table]


class _Handler(BaseHTTPRequestHandler):
    server: WireHTTPServer
    # TCP_NODELAY, as uvicorn's and the harness's sockets: with Nagle's algorithm an answer's
    # body, written after its headers, waited for the client's delayed ACK (40 ms an answer);
    # the bytes and their order are the same
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def handle_one_request(self) -> None:
        """With ``idle_s``: a kept-alive connection that carries no new request within that
        long is closed (a keep-alive timeout; the first request of a connection waits)."""
        idle = self.server.idle_s
        if idle is not None:
            self.connection.settimeout(idle if getattr(self, "_served", False) else None)
            self._served = True
        super().handle_one_request()

    def parse_request(self) -> bool:
        if self.server.idle_s is not None:
            self.connection.settimeout(None)  # the request line came: no timeout on the rest
        return super().parse_request()

    def end_headers(self) -> None:
        if self.server.upper_headers:  # every header name in upper case
            self._headers_buffer = [_upper_header(line) for line in self._headers_buffer]
        super().end_headers()

    def do_GET(self) -> None:
        self._answer("GET")

    def do_POST(self) -> None:
        self._answer("POST")

    def _answer(self, method: str) -> None:
        options = self.server
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if options.slash_redirect is not None and self._slash_redirected():
            return
        rate = options.rate
        if rate is not None and not rate.admits(
            method, self.path, raw, self.headers.get("Authorization")
        ):
            if rate.drop:  # closed with no answer: a reset, as a proxy shedding load
                self.connection.setsockopt(
                    socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)
                )
                self.close_connection = True
                return
            status, headers, page, media = rate.refusal()
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Type", media)
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)
            return
        try:
            status, document = self._dispatch(method, raw)
        except _NoRoute as exc:
            page = f"<!DOCTYPE html><html><body><pre>{exc}</pre></body></html>".encode()
            self._send(404, "text/html; charset=utf-8", iter([page]))
            return
        if options.delay_s:
            time.sleep(options.delay_s)
        if options.play_delay_s and method == "POST" and self.path.endswith("/plays"):
            time.sleep(options.play_delay_s)  # a wallet or a payment service behind each play
        if isinstance(document, Iterator):
            lines = _lines_written(document, options.ndjson) if options.ndjson else document
            self._send(status, options.ndjson_media, lines)
            return
        if status == 200 and method == "POST" and options.post_201:
            status = 201  # NestJS's default for every POST
        if status == 200 and options.batch_207 and self.path.endswith("/v1/evaluate"):
            status = 207  # a batch's results, one per item (Zalando's rule 152)
        if options.ids is not None:
            document = options.ids.out(document)
        if options.int_flags and isinstance(document, dict):
            flags = {k: int(v) for k, v in document.items() if k in ("x2", "plus_one")}
            document = {**document, **flags}
        if options.int_flags and status >= 400:  # a vendor's own wording, accents and all
            error = document["error"]
            document = {**document, "error": {**error, "message": f"Refusé : {error['message']} €"}}
        if options.error_extras:
            document = _error_extras(document, status)
        media = options.json_media
        if status >= 400 and options.problem:
            media = "application/problem+json"
            document = {**_problem(status, document["error"]), **document}
        self._send(status, media, iter([_json_written(document, options.json_form)]))

    def _slash_redirected(self) -> bool:
        """With ``slash_redirect``: every route is served at its path with a trailing slash,
        and the path without it answered with that status to the path with it (a route
        declared ``"/"`` under a prefix: FastAPI's 307 ``redirect_slashes``)."""
        parts = urlsplit(self.path)
        if parts.path.endswith("/"):
            return False
        location = parts.path + "/" + (f"?{parts.query}" if parts.query else "")
        status = self.server.slash_redirect
        assert status is not None
        self.send_response(status)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()
        return True

    def _dispatch(self, method: str, raw: bytes) -> Answer:
        parts = urlsplit(self.path)
        path = parts.path
        if self.server.slash_redirect is not None:
            path = path[:-1]
        if self.server.prefix:
            if not path.startswith(self.server.prefix + "/"):
                return 404, {"error": {"code": "not_found", "message": f"no such path {path}"}}
            path = path[len(self.server.prefix) :]
        parts = parts._replace(path=path)
        query = parse_qs(parts.query, keep_blank_values=True)
        scheme, _, token = (self.headers.get("Authorization") or "").partition(" ")
        bearer = token.strip() or None if scheme.lower() == "bearer" else None
        try:
            body = json.loads(raw) if raw else {}
            if not isinstance(body, dict):
                raise ErrorReply(400, "malformed_request", "the body must be a JSON object")
            for verb, pattern, handler in self.server.routes:
                match = pattern.fullmatch(parts.path)
                if match is not None and verb == method:
                    ids = [unquote(group) for group in match.groups()]
                    if self.server.ids is not None:
                        ids = [self.server.ids.back(i) for i in ids]
                    return handler(*ids, query, body, bearer)
            if self.server.html_404:  # Express's own page for a route it does not have
                raise _NoRoute(f"Cannot {method} {parts.path}")
            raise ErrorReply(404, "not_found", f"no such endpoint: {parts.path}")
        except ErrorReply as exc:
            return exc.status, {"error": {"code": exc.code, "message": exc.message}}
        except ValueError as exc:
            return 400, {"error": {"code": "malformed_request", "message": str(exc)}}

    def _send(self, status: int, media: str, body: Iterator[bytes]) -> None:
        options = self.server
        squeeze = options.gzip and "gzip" in (self.headers.get("Accept-Encoding") or "")
        if squeeze:
            body = _gzipped(body)
        self.send_response(status)
        for name, value in options.extra_headers.items():
            self.send_header(name, value)
        self.send_header(options.type_header, media)
        if options.close:
            self.send_header("Connection", "close")
            self.close_connection = True
        if squeeze:
            self.send_header("Content-Encoding", "gzip")
        if options.http10 and media != "application/json":  # the end of the body: the close
            self.end_headers()
            for piece in body:
                self.wfile.write(piece)
            return
        if options.chunked:
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for piece in body:
                if piece:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            trailer = b"X-Checksum: 0\r\n" if options.trailers else b""
            self.wfile.write(b"0\r\n" + trailer + b"\r\n")
            return
        data = b"".join(body)
        if options.unsized:  # the end of the body: the close
            self.send_header("Connection", "close")
            self.close_connection = True
            self.end_headers()
            self.wfile.write(data)
            return
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


# -- forms of the same JSON ------------------------------------------------------------------


def _escaped(value: Any) -> Any:
    """``value`` with every character of every string (keys too) written ``\\uXXXX``."""
    if isinstance(value, dict):
        return {_Escaped(k): _escaped(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_escaped(v) for v in value]
    if isinstance(value, str):
        return _Escaped(value)
    return value


class _Escaped(str):
    """A string ``_dumps`` writes with every character escaped."""


def _dumps(value: Any, form: str | None) -> str:
    if form == "pretty":
        return json.dumps(value, indent=2) + "\n"
    if form == "reordered":
        return json.dumps(_reordered(value), separators=(",", ":"))
    if form == "escaped":
        return re.sub(
            r'"((?:[^"\\]|\\.)*)"',
            lambda m: '"' + "".join(f"\\u{ord(c):04x}" for c in json.loads(m.group(0))) + '"',
            json.dumps(value, separators=(",", ":")),
        )
    if form == "utf8":
        return json.dumps(value, ensure_ascii=False)
    if form in ("point_zero", "exponent", "euro_floats"):
        return _numbers_written(value, form)
    if form == "int64_strings":
        return json.dumps(_integers_as_strings(value, None))
    return json.dumps(value)


_NUMBER_MARK = re.compile(r'"\\u0000(-?\d+)\\u0000"')


def _numbers_written(value: Any, form: str) -> str:
    """``value`` as JSON with every integer (not a boolean) written ``100.0`` (``point_zero``)
    or, a multiple of 10, ``1E+2`` (``exponent``: ``BigDecimal.stripTrailingZeros``); or
    through float euros (``euro_floats``, a faulty form: 115 is ``114.99999999999999``)."""

    def marked(v: Any) -> Any:
        if isinstance(v, dict):
            return {k: marked(x) for k, x in v.items()}
        if isinstance(v, list):
            return [marked(x) for x in v]
        if type(v) is int:
            return f"\x00{v}\x00"
        return v

    def number(match: re.Match[str]) -> str:
        digits = match.group(1)
        if form == "euro_floats":
            return repr(int(digits) / 100 * 100)
        return f"{digits}.0" if form == "point_zero" else str(Decimal(digits).normalize())

    return _NUMBER_MARK.sub(number, json.dumps(marked(value)))


def _integers_as_strings(value: Any, field: str | None) -> Any:
    """``value`` with every integer of a field the contract holds integers in written as a JSON
    string of its digits (protobuf's JSON mapping of an ``int64``)."""
    if isinstance(value, dict):
        return {
            k: _integers_as_strings(v, k if k in INTEGER_FIELDS else None) for k, v in value.items()
        }
    if isinstance(value, list):
        return [_integers_as_strings(v, field) for v in value]
    if type(value) is int and field is not None:
        return str(value)
    return value


def _reordered(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _reordered(value[k]) for k in reversed(list(value))}
    if isinstance(value, list):
        return [_reordered(v) for v in value]
    return value


def _json_written(document: Any, form: str | None) -> bytes:
    """An answer's body in the JSON form ``form`` (None: ``json.dumps``'s own)."""
    return _dumps(document, form).encode()


def _lines_written(chunks: Iterator[bytes], form: str) -> Iterator[bytes]:
    """A block stream with each line in ``form``: ``crlf`` (CR LF ends every line), ``open_end``
    (no newline after the last line), or a JSON form of ``_dumps`` (``utf8``, ``reordered``,
    ``escaped``)."""
    last = b""
    for chunk in chunks:
        lines = chunk.split(b"\n")
        assert lines[-1] == b""
        written = []
        for line in lines[:-1]:
            if form == "crlf":
                written.append(line + b"\r\n")
            elif form in ("open_end", "blank_end"):
                written.append(line + b"\n")
            elif form == "spaced":  # Python's own separators, ", " and ": "
                written.append(json.dumps(json.loads(line)).encode() + b"\n")
            elif form == "unit_extras":  # a field of the vendor's own on every line
                value = json.loads(line)
                value["serial"] = f"S-{value.get('index', 0):09d}-{value.get('block_id', '')}"
                written.append(json.dumps(value, separators=(",", ":")).encode() + b"\n")
            else:
                written.append(_dumps(json.loads(line), form).encode() + b"\n")
        if last:
            yield last
        last = b"".join(written)
    if form == "open_end":
        last = last[:-1]
    if form == "blank_end":  # a blank line after the last one
        last += b"\n"
    yield last


def _upper_header(line: bytes) -> bytes:
    """A header line (``Name: value``) with its name in upper case; the status line as is."""
    name, colon, value = line.partition(b":")
    return name.upper() + colon + value if colon and not line.startswith(b"HTTP/") else line


def _error_extras(document: Any, status: int) -> Any:
    """``document`` with members of the vendor's own in its error object (a refusal) or in
    each per-ticket error object (an evaluation's results)."""

    def extended(error: dict[str, Any], where: str) -> dict[str, Any]:
        return {
            **error,
            "status": status,
            "details": [{"field": where, "reason": error.get("code")}],
            "trace_id": "4bf92f3577b34da6a3ce929d0e0e4736",
        }

    if isinstance(document, dict) and isinstance(document.get("error"), dict):
        return {**document, "error": extended(document["error"], "request")}
    if isinstance(document, dict) and isinstance(document.get("results"), list):
        results = [
            {**r, "error": extended(r["error"], f"tickets[{i}]")}
            if isinstance(r, dict) and isinstance(r.get("error"), dict)
            else r
            for i, r in enumerate(document["results"])
        ]
        return {**document, "results": results}
    return document


def _problem(status: int, error: dict[str, Any]) -> dict[str, Any]:
    """RFC 9457's members beside the contract's ``error``: ``type``, ``title``, ``status``,
    ``detail``."""
    return {
        "type": "about:blank",
        "title": error["code"],
        "status": status,
        "detail": error["message"],
    }


def _gzipped(body: Iterator[bytes]) -> Iterator[bytes]:
    squeezer = zlib.compressobj(6, zlib.DEFLATED, 16 + zlib.MAX_WBITS)  # the gzip format
    for piece in body:
        out = squeezer.compress(piece)
        if out:
            yield out
    yield squeezer.flush()


class WireHTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    threads = True

    def process_request(self, request: Any, client_address: Any) -> None:
        if self.threads:
            super().process_request(request, client_address)
        else:  # one request at a time, in the serving thread
            socketserver.TCPServer.process_request(self, request, client_address)

    def __init__(
        self,
        adapter: Any,
        *,
        http10: bool = False,
        backlog: int = 128,
        chunked: bool = False,
        gzip: bool = False,
        delay_s: float = 0.0,
        rate: str | RateLimit | None = None,
        post_201: bool = False,
        json_media: str = "application/json",
        ndjson_media: str = "application/x-ndjson",
        upper_headers: bool = False,
        error_extras: bool = False,
        special_ids: bool = False,
        long_ids: bool = False,
        play_delay_s: float = 0.0,
        json_form: str | None = None,
        ndjson: str | None = None,
        problem: bool = False,
        close: bool = False,
        type_header: str = "Content-Type",
        extra_headers: dict[str, str] | None = None,
        int_ids: bool = False,
        threads: bool = True,
        idle_s: float | None = None,
        int_flags: bool = False,
        html_404: bool = False,
        per_ticket_s: float = 0.0,
        prefix: str = "",
        unsized: bool = False,
        slash_redirect: int | None = None,
        trailers: bool = False,
        batch_207: bool = False,
    ) -> None:
        self.trailers, self.batch_207 = trailers, batch_207
        self.prefix, self.unsized, self.slash_redirect = prefix, unsized, slash_redirect
        self.html_404 = html_404
        self.int_flags = int_flags
        self.threads, self.idle_s = threads, idle_s
        self.ids = (
            SpecialIds()
            if special_ids
            else LongIds()
            if long_ids
            else IdNumbers()
            if int_ids
            else None
        )
        self.ndjson_media, self.upper_headers = ndjson_media, upper_headers
        self.error_extras, self.play_delay_s = error_extras, play_delay_s
        self.post_201, self.json_media, self.json_form = post_201, json_media, json_form
        self.ndjson, self.problem, self.close = ndjson, problem, close
        self.type_header, self.extra_headers = type_header, dict(extra_headers or {})
        self.rate = RATE_LIMITS[rate]() if isinstance(rate, str) else rate
        self.request_queue_size = backlog  # read by server_activate's listen()
        self.routes = routes(adapter, self.ids, per_ticket_s)
        self.http10, self.chunked, self.gzip, self.delay_s = http10, chunked, gzip, delay_s
        handler = type(
            "Handler",
            (_Handler,),
            {"protocol_version": "HTTP/1.0" if http10 else "HTTP/1.1"},
        )
        super().__init__(("127.0.0.1", 0), handler)


class WireServer:
    """``with WireServer(adapter, **options) as url``: served in a daemon thread; the adapter
    is closed when the server stops."""

    def __init__(self, adapter: Any, **options: Any) -> None:
        self.adapter = adapter
        self.server = WireHTTPServer(adapter, **options)
        # polled every 50 ms for shutdown (the default 0.5 s: each server's stop waited it)
        self._thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)

    def __enter__(self) -> str:
        self._thread.start()
        host, port = self.server.server_address[:2]
        return f"http://{host!s}:{port}{self.server.prefix}"

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(10)
        self.adapter.close()


def wire_variant(name: str) -> WireServer:
    """The reference served with the wire freedom ``name`` (a key of ``WIRE_VARIANTS``)."""
    return WireServer(reference_adapter(name=f"wire:{name}"), **WIRE_VARIANTS[name])
