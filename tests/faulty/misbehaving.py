"""HTTP targets that misbehave: the harness must survive each within its timeouts.

Each ``Misbehaviour`` is the reference over the HTTP bridge with one endpoint broken the way
a real server breaks: it hangs, answers too slowly, answers 500, sends malformed or truncated
JSON, the wrong content type, cuts a block stream mid-line, or sends far more than was asked.
``affected`` is the capability whose requirements must come out as *error* (the smoke step's
``describe`` breaks them all). ``with serve(name) as url:`` runs one.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Mount, Route

import reference
from harness import open_target

from ._base import reference_adapter
from .certify import Outcome, certify
from .http_bridge import Serving, create_app

Handler = Callable[[Request], Awaitable[Response]]

HANG_S = 3600.0  # "forever": the server is stopped long before
SLOW_S = 4.0  # longer than the tests' timeout, shorter than forever
TRICKLE_S = 1.0  # one unit line per second


@dataclass(frozen=True)
class Misbehaviour:
    name: str
    method: str
    path: str
    affected: str  # capability whose requirements become errors ("all": describe broke)
    what: str
    handler: Handler
    message_words: tuple[str, ...]  # one of them must be in the errors' messages


async def _hang(request: Request) -> Response:
    await asyncio.sleep(HANG_S)
    return Response(b"{}", media_type="application/json")  # pragma: no cover


async def _slow(request: Request) -> Response:
    await asyncio.sleep(SLOW_S)
    return Response(b'{"results": []}', media_type="application/json")


async def _server_error(request: Request) -> Response:
    page = b"<html><body><h1>500 Internal Server Error</h1></body></html>"
    return Response(page, status_code=500, media_type="text/html")


async def _malformed(request: Request) -> Response:
    return Response(
        b'{"results": [{"prize_cents": 0, "wins": []},, ]}', media_type="application/json"
    )


async def _truncated(request: Request) -> Response:
    body = json.dumps({"blocks": [{"block_id": "robots-100-0001", "game": "robots"}]})
    return Response(body[: len(body) // 2].encode(), media_type="application/json")


async def _wrong_type(request: Request) -> Response:
    body = json.dumps(
        {
            "blocks": [
                {
                    "block_id": "robots-100-0001",
                    "game": "robots",
                    "stake_cents": 100,
                    "units": 2000000,
                }
            ]
        }
    )
    return Response(body.encode(), media_type="text/html")


def _header(request: Request) -> bytes:
    """The header the reference would send for this block and slice."""
    block_id = request.path_params["block_id"]
    game, stake = block_id.split("-")[:2]
    units = reference.load_rules(game).block_units
    start = int(request.query_params.get("start", "0"))
    count = int(request.query_params.get("count", str(units - start)))
    header = {
        "format": "block/1",
        "game": game,
        "stake_cents": int(stake),
        "block_id": block_id,
        "units": units,
        "start": start,
        "count": count,
        "generator": {"name": "misbehaving", "version": "0"},
    }
    return json.dumps(header).encode() + b"\n"


def _line(index: int) -> bytes:
    """A well-formed losing unit line (the faults are in the stream, not in the units)."""
    ticket = "OHPSCTQD|C D T S C S D T S P H O C S P D C P"
    return b'{"index":%d,"prize_cents":0,"ticket":"%s"}\n' % (index, ticket.encode())


async def _cut_stream(request: Request) -> Response:
    async def body() -> AsyncIterator[bytes]:
        yield _header(request)
        start = int(request.query_params.get("start", "0"))
        for index in range(start, start + 3):
            yield _line(index)
        yield _line(start + 3)[:25]  # and the stream ends, mid-line

    return StreamingResponse(body(), media_type="application/x-ndjson")


async def _flood_stream(request: Request) -> Response:
    async def body() -> AsyncIterator[bytes]:
        yield _header(request)
        index = int(request.query_params.get("start", "0"))
        while True:  # whatever was asked: lines without end
            yield b"".join(_line(index + k) for k in range(1000))
            index += 1000
            await asyncio.sleep(0)

    return StreamingResponse(body(), media_type="application/x-ndjson")


async def _trickle_stream(request: Request) -> Response:
    async def body() -> AsyncIterator[bytes]:
        yield _header(request)
        index = int(request.query_params.get("start", "0"))
        while True:
            await asyncio.sleep(TRICKLE_S)
            yield _line(index)
            index += 1

    return StreamingResponse(body(), media_type="application/x-ndjson")


BLOCK = "/v1/blocks/{block_id}"
TIMEOUT_WORDS = ("timeout", "timed out", "did not answer")
VIOLATION_WORDS = ("protocol_violation",)

MISBEHAVIOURS: dict[str, Misbehaviour] = {
    m.name: m
    for m in (
        Misbehaviour(
            "hang_describe",
            "GET",
            "/v1/implementation",
            "all",
            "GET /v1/implementation never answers",
            _hang,
            TIMEOUT_WORDS,
        ),
        Misbehaviour(
            "hang_evaluate",
            "POST",
            "/v1/evaluate",
            "evaluate",
            "POST /v1/evaluate never answers",
            _hang,
            TIMEOUT_WORDS,
        ),
        Misbehaviour(
            "slow_evaluate",
            "POST",
            "/v1/evaluate",
            "evaluate",
            f"POST /v1/evaluate answers after {SLOW_S:g} s",
            _slow,
            TIMEOUT_WORDS,
        ),
        Misbehaviour(
            "status_500_evaluate",
            "POST",
            "/v1/evaluate",
            "evaluate",
            "POST /v1/evaluate answers 500 with an HTML page",
            _server_error,
            ("500",),
        ),
        Misbehaviour(
            "malformed_json_evaluate",
            "POST",
            "/v1/evaluate",
            "evaluate",
            "POST /v1/evaluate answers JSON with a syntax error",
            _malformed,
            VIOLATION_WORDS,
        ),
        Misbehaviour(
            "truncated_json_blocks",
            "GET",
            "/v1/blocks",
            "blocks",
            "GET /v1/blocks answers JSON cut in the middle",
            _truncated,
            VIOLATION_WORDS,
        ),
        Misbehaviour(
            "wrong_content_type_blocks",
            "GET",
            "/v1/blocks",
            "blocks",
            "GET /v1/blocks answers text/html",
            _wrong_type,
            VIOLATION_WORDS,
        ),
        Misbehaviour(
            "cut_block_stream",
            "GET",
            BLOCK,
            "blocks",
            "GET /v1/blocks/{id} stops mid-line",
            _cut_stream,
            VIOLATION_WORDS,
        ),
        Misbehaviour(
            "flood_block_stream",
            "GET",
            BLOCK,
            "blocks",
            "GET /v1/blocks/{id} sends unit lines without end",
            _flood_stream,
            VIOLATION_WORDS,
        ),
        Misbehaviour(
            "trickle_block_stream",
            "GET",
            BLOCK,
            "blocks",
            f"GET /v1/blocks/{{id}} sends one line every {TRICKLE_S:g} s",
            _trickle_stream,
            (*TIMEOUT_WORDS, *VIOLATION_WORDS, "slow", "rate"),
        ),
    )
}


def serve(name: str) -> Serving:
    """The reference over HTTP with misbehaviour ``name``; ``with serve(name) as url``."""
    bad = MISBEHAVIOURS[name]
    adapter = reference_adapter(name=f"misbehaving:{name}")
    app = Starlette(
        routes=[
            Route(bad.path, bad.handler, methods=[bad.method]),
            Mount("/", app=create_app(adapter)),
        ]
    )
    return Serving(app, on_close=adapter.close)


TIMEOUT_S = 1.0  # the harness's per-request timeout in these runs
#: the requirements each run covers: enough to meet the broken endpoint, few enough that a
#: run of timeouts stays short
SCOPE = {
    "evaluate": ["robots.4.6.x2", "robots.4.2.invalid_board"],
    "blocks": [
        "blocks.contract3.header",
        "blocks.contract3.slice",
        "robots.2.unit_sequence",
        "robots.3.unit_prize",
        "robots.randomness.winner_positions",
    ],
}


def certify_misbehaving(name: str, out: Path) -> tuple[Outcome, float]:
    """Certify misbehaving target ``name`` over HTTP (robots, the ``SCOPE`` of what it breaks,
    every report written to ``out``); the outcome and the wall time of the whole run."""
    bad = MISBEHAVIOURS[name]
    requirements = None if bad.affected == "all" else SCOPE[bad.affected]
    start = time.monotonic()
    with serve(name) as url:
        outcome = certify(
            open_target(url, timeout=TIMEOUT_S),
            target=url,
            games=["robots"],
            requirements=requirements,
            out=out,
        )
    return outcome, time.monotonic() - start
