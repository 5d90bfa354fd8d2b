"""HTTP API version 1 (contract section 4) over ``GameService``, on Starlette and uvicorn.

The server only translates: it reads the request (JSON body, query, bearer token), calls the
service in a worker thread (SQLite work blocks), and writes the answer. Every refusal is the
contract's error document; a request no route knows, a body that is not JSON, a query number
that is not a number, all get one too, and a bug of the server answers a bare 500 document
(logged on the server's console), never a traceback.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

import uvicorn
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from . import _strict_json as strict_json
from ._http_guard import GuardedHttpProtocol
from ._service import GameService, ServiceError, malformed

MAX_BODY_BYTES = 4 * 1024 * 1024  # 1000 long eldorado tickets fit many times over
STREAM_CHUNK_BYTES = 64 * 1024
NDJSON = "application/x-ndjson"

T = TypeVar("T")


def openapi_bytes() -> bytes:
    """The HTTP contract as shipped in the package (``reference/openapi/openapi.json``)."""
    return resources.files("reference").joinpath("openapi", "openapi.json").read_bytes()


def error_response(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


async def _raw_body(request: Request) -> bytes | None:
    """The request body's bytes, or None once it exceeds ``MAX_BODY_BYTES`` (not read further)."""
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > MAX_BODY_BYTES:
                return None
            chunks.append(chunk)
    except ClientDisconnect:  # gone before the body's end: nothing was done, no one to answer
        raise malformed(
            f"the connection closed after {size} bytes of the body, before its end"
        ) from None
    return b"".join(chunks)


async def _json_body(request: Request) -> dict[str, Any]:
    """The request body as a JSON object, or a 413 or 400 that says what is wrong with it."""
    return _parse_body(await _raw_body(request))


def _parse_body(raw: bytes | None) -> dict[str, Any]:
    if raw is None:
        raise ServiceError(413, "request_too_large", f"the body exceeds {MAX_BODY_BYTES} bytes")
    try:
        body = strict_json.loads(raw, object_pairs_hook=strict_json.no_duplicate_keys)
    except strict_json.JsonError as exc:
        shown = raw[:80].decode("utf-8", "replace")
        raise malformed(f"the body is not JSON ({exc}): {shown!r}") from None
    if not isinstance(body, dict):
        raise malformed(f"the body must be a JSON object, got {type(body).__name__}")
    return body


def _field(body: dict[str, Any], name: str) -> Any:
    if name not in body:
        raise malformed(f"the body has no {name!r} field")
    return body[name]


def _query_text(request: Request, name: str) -> str | None:
    """An optional query parameter, given once with a value, or None when absent; 400 when it
    is given empty (``?count=`` is no count: it must not stream the whole block) or more than
    once (``?game=bogus&game=robots``: which one was meant?), as the OpenAPI document says."""
    values = request.query_params.getlist(name)
    if not values:
        return None
    if len(values) > 1:
        raise malformed(f"query parameter {name} is given {len(values)} times: give it once")
    if values[0] == "":
        raise malformed(f"query parameter {name} is empty: give a value, or leave it out")
    return values[0]


def _query_int(request: Request, name: str) -> int | None:
    """An optional non-negative integer query parameter: digits only, else 400."""
    text = _query_text(request, name)
    if text is None:
        return None
    digits, _, fraction = text.partition(".")  # 100.0 is 100, as JSON Schema's integer
    if (
        not (digits.isascii() and digits.isdigit())
        or len(digits) > 18
        or fraction.strip("0")
        or (text.endswith(".") and not fraction)
    ):
        raise malformed(f"query parameter {name} must be a non-negative integer, got {text!r}")
    return int(digits)


def _token(request: Request) -> str | None:
    """The bearer token of ``Authorization: Bearer <token>``, or None (the service says 401)."""
    header = request.headers.get("authorization")
    if header is None:
        return None
    scheme, _, token = header.strip().partition(" ")
    return token.strip() if scheme.lower() == "bearer" else None


def _chunks(lines: Iterator[bytes]) -> Iterator[bytes]:
    """Lines joined into chunks of about 64 KiB: one thread hop per chunk, not per line."""
    buffer: list[bytes] = []
    size = 0
    for line in lines:
        buffer.append(line)
        size += len(line)
        if size >= STREAM_CHUNK_BYTES:
            yield b"".join(buffer)
            buffer, size = [], 0
    if buffer:
        yield b"".join(buffer)


def create_app(service: GameService, *, owns_service: bool = False) -> Starlette:
    """The ASGI application of HTTP API v1 over ``service``.

    At shutdown it stops the service's block workers, and closes the service if it
    ``owns_service``: uvicorn ends a SIGTERM'd process right after, before any ``finally``.
    """

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        await run_in_threadpool(service.close if owns_service else service.renderer.close)

    async def call(function: Callable[..., T], *args: Any) -> T:
        return await run_in_threadpool(function, *args)

    async def implementation(request: Request) -> Response:
        return JSONResponse(await call(service.implementation))

    async def evaluate(request: Request) -> Response:
        body = await _json_body(request)
        result = await call(
            service.evaluate,
            _field(body, "game"),
            _field(body, "stake_cents"),
            _field(body, "tickets"),
        )
        return JSONResponse(result)

    async def list_blocks(request: Request) -> Response:
        game = _query_text(request, "game")
        return JSONResponse(
            await call(service.list_blocks, game, _query_int(request, "stake_cents"))
        )

    async def read_block(request: Request) -> Response:
        block_id = request.path_params["block_id"]
        start, count = _query_int(request, "start"), _query_int(request, "count")
        lines = await call(service.block_document, block_id, start, count)
        if request.method == "HEAD":  # the slice exists; do not compute a body nobody reads
            lines.close()
            return Response(media_type=NDJSON)
        return StreamingResponse(_chunks(lines), media_type=NDJSON)

    async def open_account(request: Request) -> Response:
        body = await _json_body(request)
        result = await call(service.open_account, _field(body, "balance_cents"))
        return JSONResponse(result, status_code=201)

    async def balance(request: Request) -> Response:
        account = request.path_params["account_id"]
        return JSONResponse(await call(service.balance, account, _token(request)))

    # A play or a reveal is refused for its token (401, 404) before its body (413, 400): in the
    # worker thread, where the service's call follows at once (one thread hop a request, not two).

    def play_now(account: str, token: str | None, raw: bytes | None) -> dict[str, Any]:
        service.authorize_account(account, token)
        body = _parse_body(raw)
        return service.play(account, token, _field(body, "game"), _field(body, "stake_cents"))

    async def play(request: Request) -> Response:
        account, token = request.path_params["account_id"], _token(request)
        result = await call(play_now, account, token, await _raw_body(request))
        return JSONResponse(result, status_code=201)

    def reveal_now(play_id: str, token: str | None, raw: bytes | None) -> dict[str, Any]:
        service.authenticate(token)
        return service.reveal(play_id, token, _field(_parse_body(raw), "button"))

    async def reveal(request: Request) -> Response:
        play_id, token = request.path_params["play_id"], _token(request)
        return JSONResponse(await call(reveal_now, play_id, token, await _raw_body(request)))

    async def auto(request: Request) -> Response:
        return JSONResponse(
            await call(service.auto, request.path_params["play_id"], _token(request))
        )

    async def history(request: Request) -> Response:
        account = request.path_params["account_id"]
        limit = _query_int(request, "limit")
        return JSONResponse(await call(service.history, account, _token(request), limit))

    spec = openapi_bytes()

    async def openapi(request: Request) -> Response:
        return Response(spec, media_type="application/json")

    async def service_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, ServiceError)
        return JSONResponse(exc.document(), status_code=exc.status)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        if exc.status_code == 404:
            return error_response(404, "not_found", f"no such endpoint: {request.url.path}")
        if exc.status_code == 405:
            response = error_response(
                405, "method_not_allowed", f"{request.method} is not allowed on {request.url.path}"
            )
            if exc.headers and "Allow" in exc.headers:
                response.headers["Allow"] = exc.headers["Allow"]
            return response
        code = "malformed_request" if exc.status_code == 400 else "http_error"
        return error_response(exc.status_code, code, str(exc.detail))

    async def server_error(request: Request, exc: Exception) -> Response:
        return error_response(500, "internal_error", "the server failed; see its console")

    routes = [
        Route("/openapi.json", openapi, methods=["GET"]),
        Route("/v1/implementation", implementation, methods=["GET"]),
        Route("/v1/evaluate", evaluate, methods=["POST"]),
        Route("/v1/blocks", list_blocks, methods=["GET"]),
        Route("/v1/blocks/{block_id}", read_block, methods=["GET"]),
        Route("/v1/accounts", open_account, methods=["POST"]),
        Route("/v1/accounts/{account_id}", balance, methods=["GET"]),
        Route("/v1/accounts/{account_id}/plays", play, methods=["POST"]),
        Route("/v1/accounts/{account_id}/history", history, methods=["GET"]),
        Route("/v1/plays/{play_id}/reveal", reveal, methods=["POST"]),
        Route("/v1/plays/{play_id}/auto", auto, methods=["POST"]),
    ]
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        exception_handlers={
            ServiceError: service_error,
            HTTPException: http_error,
            Exception: server_error,
        },
    )
    app.router.redirect_slashes = False  # /v1/implementation/ is unknown: 404, not a 307
    return app


def serve(
    db_path: str | Path,
    *,
    host: str = "127.0.0.1",
    port: int = 8080,
    seed: bytes | None = None,
    log_level: str = "info",
) -> None:
    """Run the reference HTTP server in the foreground until interrupted (SIGINT/SIGTERM)."""
    service = GameService(db_path, seed=seed)
    print(
        f"instantcert serve: HTTP API v1 on http://{host}:{port} (contract at /openapi.json), "
        f"database {str(db_path)!r}",
        file=sys.stderr,
        flush=True,
    )
    try:
        uvicorn.run(
            create_app(service, owns_service=True),
            host=host,
            port=port,
            log_level=log_level,
            http=GuardedHttpProtocol,
        )
    finally:
        service.close()


class ServerThread:
    """The reference server on a background thread (tests, demos): ``with ServerThread(s) as t``.

    ``port=0`` picks a free port; ``url`` is the base URL once started. ``protocol`` is the
    connections' (``_http_guard``; a test narrows its bounds in a subclass).
    """

    def __init__(
        self,
        service: GameService,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        protocol: type[GuardedHttpProtocol] = GuardedHttpProtocol,
    ) -> None:
        config = uvicorn.Config(
            create_app(service), host=host, port=port, log_level="warning", http=protocol
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, name="instantcert-serve", daemon=True
        )
        self.url = ""

    def start(self) -> ServerThread:
        self._thread.start()
        deadline = time.monotonic() + 30
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the reference server did not start")
            time.sleep(0.01)
        host, port = self._server.servers[0].sockets[0].getsockname()[:2]
        self.url = f"http://{host}:{port}"
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=30)

    def __enter__(self) -> ServerThread:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
