"""Serve any Adapter over HTTP API v1 (contract section 4), so any variant is an HTTP target.

The bridge only translates, as the reference server does: request -> adapter call (in a worker
thread) -> JSON answer; ``ErrorReply`` -> the contract's error document with its status; a
block stream -> ``application/x-ndjson``, header line first. ``with Bridge(adapter) as url:``
starts uvicorn on 127.0.0.1 (a free port) in a thread and stops it on exit.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from harness._adapter import EVALUATE_BATCH_LIMIT
from harness._errors import ErrorReply

Endpoint = Callable[[Request], Awaitable[Response]]


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


def _token(request: Request) -> str | None:
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


def _int(request: Request, name: str) -> int | None:
    text = request.query_params.get(name)
    if text is None:
        return None
    if not (text.isascii() and text.isdigit()):
        raise ErrorReply(400, "malformed_request", f"{name} must be an integer, got {text!r}")
    return int(text)


async def _body(request: Request) -> dict[str, Any]:
    try:
        body = json.loads(await request.body())
    except ValueError as exc:
        raise ErrorReply(400, "malformed_request", f"the body is not JSON: {exc}") from None
    if not isinstance(body, dict):
        raise ErrorReply(400, "malformed_request", "the body must be a JSON object")
    return body


def _field(body: dict[str, Any], name: str) -> Any:
    if name not in body:
        raise ErrorReply(400, "malformed_request", f"the body has no {name!r}")
    return body[name]


def _block_bytes(stream: Any) -> Iterator[bytes]:
    try:
        yield json.dumps(stream.header, separators=(",", ":")).encode() + b"\n"
        batch: list[bytes] = []
        for line in stream.lines():
            batch.append(line + b"\n")
            if len(batch) >= 1024:
                yield b"".join(batch)
                batch = []
        if batch:
            yield b"".join(batch)
    finally:
        stream.close()


ErrorResponse = Callable[[int, str, str], Response]


def create_app(adapter: Any, error: ErrorResponse = _error) -> Starlette:
    """The HTTP API v1 application over ``adapter``; ``error`` writes each refusal (a faulty
    HTTP variant passes its own)."""

    def endpoint(handler: Callable[[Request], Awaitable[Response]]) -> Endpoint:
        async def wrapped(request: Request) -> Response:
            try:
                return await handler(request)
            except ErrorReply as exc:
                return error(exc.status, exc.code, exc.message)
            except Exception as exc:  # the adapter's bug: a 500 document, as a server would
                return _error(500, "internal_error", f"{type(exc).__name__}: {exc}")

        return wrapped

    async def call(function: Callable[..., Any], *args: Any) -> Any:
        return await run_in_threadpool(function, *args)

    async def implementation(request: Request) -> Response:
        return JSONResponse(await call(adapter.describe))

    async def evaluate(request: Request) -> Response:
        body = await _body(request)
        args = (_field(body, "game"), _field(body, "stake_cents"), _field(body, "tickets"))
        if type(args[2]) is not list or not 1 <= len(args[2]) <= EVALUATE_BATCH_LIMIT:
            raise ErrorReply(400, "malformed_request", "tickets must be a list of 1 to 1000")
        return JSONResponse({"results": await call(adapter.evaluate, *args)})

    async def list_blocks(request: Request) -> Response:
        game, stake = request.query_params.get("game"), _int(request, "stake_cents")
        return JSONResponse({"blocks": await call(adapter.list_blocks, game, stake)})

    async def read_block(request: Request) -> Response:
        args = (request.path_params["block_id"], _int(request, "start"), _int(request, "count"))
        stream = await call(adapter.read_block, *args)
        return StreamingResponse(_block_bytes(stream), media_type="application/x-ndjson")

    async def open_account(request: Request) -> Response:
        body = await _body(request)
        account = await call(adapter.open_account, _field(body, "balance_cents"))
        return JSONResponse(account, status_code=201)

    async def balance(request: Request) -> Response:
        account = request.path_params["account_id"]
        return JSONResponse(await call(adapter.balance, account, _token(request)))

    async def play(request: Request) -> Response:
        body = await _body(request)
        args = (_field(body, "game"), _field(body, "stake_cents"))
        account, token = request.path_params["account_id"], _token(request)
        return JSONResponse(await call(adapter.play, account, token, *args), status_code=201)

    async def reveal(request: Request) -> Response:
        body = await _body(request)
        args = (request.path_params["play_id"], _token(request), _field(body, "button"))
        return JSONResponse(await call(adapter.reveal, *args))

    async def auto(request: Request) -> Response:
        return JSONResponse(
            await call(adapter.auto, request.path_params["play_id"], _token(request))
        )

    async def history(request: Request) -> Response:
        args = (request.path_params["account_id"], _token(request), _int(request, "limit"))
        return JSONResponse(await call(adapter.history, *args))

    routes = [
        ("/v1/implementation", implementation, "GET"),
        ("/v1/evaluate", evaluate, "POST"),
        ("/v1/blocks", list_blocks, "GET"),
        ("/v1/blocks/{block_id}", read_block, "GET"),
        ("/v1/accounts", open_account, "POST"),
        ("/v1/accounts/{account_id}", balance, "GET"),
        ("/v1/accounts/{account_id}/plays", play, "POST"),
        ("/v1/accounts/{account_id}/history", history, "GET"),
        ("/v1/plays/{play_id}/reveal", reveal, "POST"),
        ("/v1/plays/{play_id}/auto", auto, "POST"),
    ]
    return Starlette(routes=[Route(p, endpoint(h), methods=[m]) for p, h, m in routes])


class Serving:
    """An ASGI app served by uvicorn on 127.0.0.1 in a daemon thread: ``with Serving(app) as
    url``. Used by the bridge and by the misbehaving targets."""

    def __init__(self, app: Any, on_close: Callable[[], None] | None = None) -> None:
        config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="critical")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, daemon=True)
        self._on_close = on_close
        self.url = ""

    def start(self) -> str:
        self._thread.start()
        deadline = time.monotonic() + 30
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the HTTP server did not start")
            time.sleep(0.01)
        host, port = self._server.servers[0].sockets[0].getsockname()[:2]
        self.url = f"http://{host}:{port}"
        return self.url

    def stop(self) -> None:
        self._server.should_exit = True
        self._server.force_exit = True  # do not wait for a hanging request to finish
        self._thread.join(timeout=10)
        if self._on_close is not None:
            self._on_close()

    def __enter__(self) -> str:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def bridge(adapter: Any) -> Serving:
    """``adapter`` served over HTTP API v1; the adapter is closed when the server stops."""
    return Serving(create_app(adapter), on_close=adapter.close)
