"""The reference server's HTTP/1.1 connections, bounded: uvicorn's httptools protocol with three
guards a hostile client meets before any route is reached.

- A request that is not well-formed HTTP/1.1 (a request line or header the parser refuses, a
  ``Content-Length`` that is negative, twice or not a number, a malformed chunk) is answered
  with the contract's error document (``{"error": {"code": "malformed_request", ...}}``, 400),
  naming the parser's fault, where uvicorn wrote a bare ``text/plain`` line.
- Its request line and headers together are bounded (``HEAD_BYTES``): past it, 431 and the
  connection closed, where uvicorn kept every header byte in memory (a 100 MB header was read
  whole).
- A request must arrive whole, head and body, within ``REQUEST_S`` of its first byte (or of
  the connection, for the first one): a client that sends nothing, half a head, or a
  ``Content-Length`` it never fills (slowloris) is answered 408 and closed, where uvicorn held
  its connection for ever. Idle time between requests stays uvicorn's keep-alive timeout.

The routes' own errors (a body that is not JSON, too large, a field of the wrong type) are
the application's (``_server``).
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

HEAD_BYTES = 64 * 1024
"""Request line and headers of one request, at most (the harness sends well under 2 KiB)."""

REQUEST_S = 60.0
"""Seconds a request may take to arrive whole, head and body."""


class HeadTooLarge(Exception):
    """Raised in a parser callback: the request line and headers exceed ``HEAD_BYTES``."""


def error_bytes(status: int, reason: str, code: str, message: str) -> bytes:
    """A whole HTTP/1.1 response carrying the contract's error document, closing the
    connection (the request's framing cannot be trusted, or it never arrived)."""
    body = json.dumps({"error": {"code": code, "message": message}}).encode("ascii")
    head = (
        f"HTTP/1.1 {status} {reason}\r\n"
        "content-type: application/json\r\n"
        f"content-length: {len(body)}\r\n"
        "connection: close\r\n\r\n"
    )
    return head.encode("ascii") + body


class GuardedHttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with the guards of this module (one per connection)."""

    head_bytes = HEAD_BYTES
    request_s = REQUEST_S

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head = 0
        self._deadline: asyncio.TimerHandle | None = None

    def _arm(self) -> None:
        if self._deadline is None:
            self._deadline = self.loop.call_later(self.request_s, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if self.transport is None or self.transport.is_closing():
            return
        if self.cycle is None or not self.cycle.response_started:
            self.transport.write(
                error_bytes(
                    408,
                    "Request Timeout",
                    "request_timeout",
                    f"the request did not arrive whole (request line, headers and body) "
                    f"within {self.request_s:g} s: nothing was done",
                )
            )
        self.transport.close()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._head = 0
        self._arm()

    def _count(self, size: int) -> None:
        self._head += size
        if self._head > self.head_bytes:
            raise HeadTooLarge

    def on_url(self, url: bytes) -> None:
        self._count(len(url))
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._count(len(name) + len(value) + 4)
        super().on_header(name, value)

    def on_message_complete(self) -> None:
        self._disarm()
        super().on_message_complete()

    def send_400_response(self, msg: str) -> None:
        """Called by uvicorn inside its ``except`` for the parser's error: that error, read
        here, names the fault (a head too large is a 431)."""
        self._disarm()
        fault = sys.exception()
        causes = (fault, getattr(fault, "__cause__", None), getattr(fault, "__context__", None))
        if any(isinstance(cause, HeadTooLarge) for cause in causes):
            response = error_bytes(
                431,
                "Request Header Fields Too Large",
                "headers_too_large",
                f"the request line and headers exceed {self.head_bytes} bytes",
            )
        else:
            detail = str(fault) if fault is not None and str(fault) else "unreadable"
            response = error_bytes(
                400,
                "Bad Request",
                "malformed_request",
                f"the request is not well-formed HTTP/1.1 ({detail[:200]}): nothing was done",
            )
        self.transport.write(response)
        self.transport.close()
