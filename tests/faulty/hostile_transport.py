"""Targets that attack the transport: each must be cut off by a deadline, never waited on.

Two kinds, both started on 127.0.0.1 with ``with ... as url``:

- ``RawTarget(behaviour)``: a bare TCP server whose every connection gets ``behaviour(conn)``
  (in its own daemon thread), for what no HTTP framework would send: response headers one
  byte at a time (``slow_headers``), an accepted connection never read (``never_read``), an
  HTTP/1.0 answer with no length that never ends (``endless_http10``);
- ``serve_broken(routes)``: the reference over HTTP with some endpoints replaced, e.g. every
  evaluate call hanging; ``serve_slow()``: every answer but describe's 1.5 s late.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route

from ._base import reference_adapter
from .http_bridge import Serving, create_app

Behaviour = Callable[[socket.socket, threading.Event], None]
Handler = Callable[[Request], Awaitable[Response]]

DESCRIBE = (
    b'{"name":"hostile","version":"1","games":{"robots":{"stakes_cents":[100]}},'
    b'"capabilities":["evaluate"]}'
)
SLOW_ANSWER_S = 1.5
HANG_S = 3600.0


class RawTarget:
    """A TCP server on 127.0.0.1 handing each connection to ``behaviour(conn, stop)``."""

    def __init__(self, behaviour: Behaviour, *, accept: bool = True) -> None:
        self.behaviour = behaviour
        self.accept = accept  # False: connections wait in the backlog, never accepted
        self.stop = threading.Event()
        self.connections = 0
        self._listener = socket.create_server(("127.0.0.1", 0), backlog=64)
        self._listener.settimeout(0.05)
        self._open: list[socket.socket] = []
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}"
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        while not self.stop.is_set():
            if not self.accept:
                self.stop.wait(0.05)
                continue
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.connections += 1
            self._open.append(conn)
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _handle(self, conn: socket.socket) -> None:
        with contextlib.suppress(OSError):  # the harness hung up: what it should do
            self.behaviour(conn, self.stop)

    def __enter__(self) -> str:
        self._thread.start()
        return self.url

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self._thread.join(5)
        for conn in self._open:
            conn.close()
        self._listener.close()


def read_request(conn: socket.socket) -> bytes:
    """The request's head (through the blank line) and the body its Content-Length names."""
    data = b""
    while b"\r\n\r\n" not in data:
        piece = conn.recv(65536)
        if not piece:
            return data
        data += piece
    head, _, body = data.partition(b"\r\n\r\n")
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            while len(body) < int(value):
                piece = conn.recv(65536)
                if not piece:
                    break
                body += piece
    return head


def slow_headers(delay_s: float = 1.0) -> Behaviour:
    """Answers every request with a valid describe document, one byte every ``delay_s``."""

    def behaviour(conn: socket.socket, stop: threading.Event) -> None:
        while read_request(conn):
            answer = (
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                b"Content-Length: %d\r\n\r\n%s" % (len(DESCRIBE), DESCRIBE)
            )
            for byte in answer:
                if stop.wait(delay_s):
                    return
                conn.sendall(bytes([byte]))

    return behaviour


def never_read(conn: socket.socket, stop: threading.Event) -> None:
    """Accepts the connection, then neither reads nor writes until the end."""
    stop.wait()


def endless_http10(conn: socket.socket, stop: threading.Event) -> None:
    """HTTP/1.0 with no Content-Length (the body ends when the connection closes), a start of
    a describe document, then silence, the connection held open."""
    read_request(conn)
    conn.sendall(b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n" + DESCRIBE[:20])
    stop.wait()


# -- the reference with endpoints replaced --------------------------------------------------


async def hang(request: Request) -> Response:
    await asyncio.sleep(HANG_S)
    return Response(b"{}", media_type="application/json")  # pragma: no cover


def serve_broken(routes: dict[tuple[str, str], Handler], name: str = "hostile") -> Serving:
    """The reference over HTTP API v1, with the (method, path template) of ``routes``
    answered by their handlers instead: ``with serve_broken(...) as url``."""
    adapter = reference_adapter(name=f"hostile:{name}")
    app = Starlette(
        routes=[
            *(Route(path, handler, methods=[method]) for (method, path), handler in routes.items()),
            Mount("/", app=create_app(adapter)),
        ]
    )
    return Serving(app, on_close=adapter.close)


ENDPOINTS: tuple[tuple[str, str], ...] = (
    ("GET", "/v1/implementation"),
    ("POST", "/v1/evaluate"),
    ("GET", "/v1/blocks"),
    ("GET", "/v1/blocks/{block_id}"),
    ("POST", "/v1/accounts"),
    ("GET", "/v1/accounts/{account_id}"),
    ("POST", "/v1/accounts/{account_id}/plays"),
    ("GET", "/v1/accounts/{account_id}/history"),
    ("POST", "/v1/plays/{play_id}/reveal"),
    ("POST", "/v1/plays/{play_id}/auto"),
)


def serve_slow(delay_s: float = SLOW_ANSWER_S) -> Serving:
    """The reference over HTTP API v1 with every answer but describe's ``delay_s`` late."""
    adapter = reference_adapter(name="hostile:slow")
    app = create_app(adapter)

    async def late(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"] != "/v1/implementation":
            await asyncio.sleep(delay_s)
        await app(scope, receive, send)

    return Serving(late, on_close=adapter.close)
