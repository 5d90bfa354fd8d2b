"""A minimal HTTP vendor: the ``evaluate`` and ``blocks`` capabilities of HTTP API v1.

    .venv/bin/python examples/http_vendor/server.py --port 8081
    .venv/bin/instantcert certify --target http://127.0.0.1:8081 --profile quick

It shows the HTTP contract (docs/http-api.md): the routes, the documents, the error objects and
the streamed block documents. Its "engine" is the reference package, to stay short: a vendor
puts its own behind the same routes. Blocks: two per stake (so the suite can check that two
blocks are unrelated) from a fixed, public demonstration seed, computed as they are read.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections.abc import Iterator
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

import reference

MASTER_SEED = b"examples/http_vendor: a public demonstration seed"
STAKES = {game: list(reference.load_rules(game).stakes_cents) for game in reference.GAMES}


def _block(game: str, stake: int, number: int) -> reference.Block:
    block_id = reference.default_block_id(game, stake, number)
    seed = hashlib.sha256(MASTER_SEED + block_id.encode("ascii")).digest()
    return reference.Block(game, stake, block_id, seed)


BLOCKS = {
    block.block_id: block
    for game, stakes in STAKES.items()
    for stake in stakes
    for block in (_block(game, stake, 1), _block(game, stake, 2))
}


def error(status: int, code: str, message: str) -> JSONResponse:
    """The contract's error document, with the 4xx that fits."""
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


def number(text: str | None) -> int | str | None:
    """A query parameter as an integer when it is one (the caller refuses anything else)."""
    return int(text) if text is not None and text.isdigit() else text


async def implementation(request: Request) -> Response:
    games = {game: {"stakes_cents": stakes} for game, stakes in STAKES.items()}
    doc = {"name": "http-vendor-example", "version": "1.0", "games": games}
    return JSONResponse({**doc, "capabilities": ["evaluate", "blocks"]})


async def evaluate(request: Request) -> Response:
    try:
        body = json.loads(await request.body())
        game, stake, tickets = body["game"], body["stake_cents"], body["tickets"]
    except (ValueError, TypeError, KeyError) as exc:
        return error(400, "malformed_request", f"expected {{game, stake_cents, tickets}}: {exc}")
    if type(stake) is not int or type(tickets) is not list or not 1 <= len(tickets) <= 1000:
        return error(400, "malformed_request", "stake_cents is an integer, tickets 1 to 1000")
    if stake not in STAKES.get(game, []):
        return error(422, "invalid_stake", f"{game!r} is not sold at {stake} cents")
    results: list[dict[str, Any]] = []
    for ticket in tickets:  # one invalid ticket: an error object in its place
        try:
            results.append(reference.evaluate(game, stake, ticket))
        except reference.GameError as exc:
            results.append({"error": {"code": exc.code, "message": str(exc)}})
    return JSONResponse({"results": results})


async def list_blocks(request: Request) -> Response:
    game = request.query_params.get("game")
    stake = number(request.query_params.get("stake_cents"))
    if stake not in STAKES.get(str(game), []):
        return error(422, "invalid_stake", f"{game!r} is not sold at stake_cents {stake!r}")
    listed = [b for b in BLOCKS.values() if (b.game, b.stake_cents) == (game, stake)]
    return JSONResponse(
        {
            "blocks": [
                {
                    "block_id": b.block_id,
                    "game": b.game,
                    "stake_cents": b.stake_cents,
                    "units": b.units,
                }
                for b in listed
            ]
        }
    )


async def read_block(request: Request) -> Response:
    block = BLOCKS.get(request.path_params["block_id"])
    if block is None:
        return error(404, "unknown_block", f"no block {request.path_params['block_id']!r}")
    start, count = number(request.query_params.get("start", "0")), request.query_params.get("count")
    try:  # a slice outside the block is refused before anything is streamed
        first, size = block.check_slice(start, number(count))
    except reference.BlockError as exc:
        return error(422, exc.code, str(exc))
    lines = block.document_lines(first, size)  # the header line, then one line per unit
    return StreamingResponse(chunks(lines), media_type="application/x-ndjson")


def chunks(lines: Iterator[bytes], size: int = 1 << 16) -> Iterator[bytes]:
    """The lines joined into chunks of about ``size`` bytes, the same bytes in the same order.
    Starlette runs a plain iterator on a worker thread, one hop per item it yields: a line per
    item was a hop per unit (a read of 20 000 units cost the server as much as 20 000 requests)."""
    buffer: list[bytes] = []
    held = 0
    for line in lines:
        buffer.append(line)
        held += len(line)
        if held >= size:
            yield b"".join(buffer)
            buffer, held = [], 0
    if buffer:
        yield b"".join(buffer)


app = Starlette(
    routes=[
        Route("/v1/implementation", implementation, methods=["GET"]),
        Route("/v1/evaluate", evaluate, methods=["POST"]),
        Route("/v1/blocks", list_blocks, methods=["GET"]),
        Route("/v1/blocks/{block_id}", read_block, methods=["GET"]),
    ]
)

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8081)
    args = parser.parse_args()
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
