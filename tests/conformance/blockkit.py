"""Small synthetic blocks for the block audit tests: real tickets, small lot tables.

A small block has the shape of a real one (header, unit lines from the reference's ticket maker)
but a few thousand units and a lot table scaled to sit exactly on the 70 % cap, so whole-block
checks (lot counts, payout, randomness) run in milliseconds. ``MemoryTarget`` serves such blocks
through the Adapter interface, slices included, so the block checks run on them unchanged.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator, Mapping
from functools import cache
from typing import Any

import numpy as np

from conformance._audit import Expectation
from harness._errors import ErrorReply
from reference._generate import TicketMaker

# 4 000 robots units at 1 €: 280 000 cents of prizes, exactly 70 % of the 400 000 sold
ROBOTS_LOTS = {100: 800, 200: 300, 300: 100, 500: 100, 1000: 40, 10000: 2}
ROBOTS_UNITS = 4000
# 2 000 eldorado units at 1 €: 140 000 cents, exactly 70 % of 200 000
ELDORADO_LOTS = {200: 275, 300: 100, 500: 50, 1000: 10, 1500: 10, 5000: 1}
ELDORADO_UNITS = 2000


def small_lots(game: str) -> dict[int, int]:
    lots, units = (
        (ROBOTS_LOTS, ROBOTS_UNITS) if game == "robots" else (ELDORADO_LOTS, ELDORADO_UNITS)
    )
    return {0: units - sum(lots.values()), **lots}


def small_units(game: str) -> int:
    return ROBOTS_UNITS if game == "robots" else ELDORADO_UNITS


def expectation(
    game: str = "robots",
    stake: int = 100,
    block_id: str | None = "test-1",
    start: int | None = None,
    count: int | None = None,
) -> Expectation:
    return Expectation(game, stake, small_units(game), small_lots(game), 70, block_id, start, count)


def shuffled_prizes(game: str, seed: int) -> list[int]:
    """The small lot table laid out in a random order."""
    prizes = [p for p, n in small_lots(game).items() for _ in range(n)]
    random.Random(seed).shuffle(prizes)
    return prizes


@cache
def _ticket(game: str, stake: int, prize: int, seed: int) -> str:
    return TicketMaker(game, stake)(prize, random.Random(seed))


def unit_line(
    game: str, stake: int, index: int, prize: int, ticket_seed: int | None = None
) -> bytes:
    ticket = _ticket(game, stake, prize, index % 97 if ticket_seed is None else ticket_seed)
    return b'{"index":%d,"prize_cents":%d,"ticket":"%s"}' % (index, prize, ticket.encode())


def unit_lines(game: str, stake: int, prizes: list[int], start: int = 0) -> list[bytes]:
    return [unit_line(game, stake, start + i, p) for i, p in enumerate(prizes)]


def header(
    game: str = "robots",
    stake: int = 100,
    block_id: str = "test-1",
    units: int | None = None,
    start: int = 0,
    count: int | None = None,
) -> dict[str, Any]:
    units = small_units(game) if units is None else units
    return {
        "format": "block/1",
        "game": game,
        "stake_cents": stake,
        "block_id": block_id,
        "units": units,
        "start": start,
        "count": units - start if count is None else count,
        "generator": {"name": "blockkit", "version": "1"},
    }


def document(head: Mapping[str, Any], lines: list[bytes]) -> bytes:
    return (
        json.dumps(head, separators=(",", ":")).encode()
        + b"\n"
        + b"".join(line + b"\n" for line in lines)
    )


def chunked(lines: list[bytes], size: int = 700) -> Iterator[bytes]:
    """Whole-line chunks of ``size`` lines (small, so several chunks are audited)."""
    for at in range(0, len(lines), size):
        yield b"".join(line + b"\n" for line in lines[at : at + size])


class MemoryStream:
    def __init__(self, head: dict[str, Any], lines: list[bytes]) -> None:
        self.header = head
        self._lines = lines

    def lines(self) -> Iterator[bytes]:
        yield from self._lines

    def close(self) -> None:
        pass


class MemoryTarget:
    """Blocks held in memory, served through the Adapter interface (blocks capability only).

    ``blocks`` maps block id to (header, unit lines of the whole block); ``slice_hook`` may
    alter what a small slice read returns, to model an implementation whose slices disagree.
    """

    name = "memory:test"

    def __init__(self, blocks: Mapping[str, tuple[dict[str, Any], list[bytes]]]) -> None:
        self.blocks = dict(blocks)
        self.slice_hook: Any = None

    def describe(self) -> dict[str, Any]:
        games: dict[str, set[int]] = {}
        for head, _ in self.blocks.values():
            games.setdefault(head["game"], set()).add(head["stake_cents"])
        return {
            "name": "memory",
            "version": "1",
            "games": {g: {"stakes_cents": sorted(s)} for g, s in games.items()},
            "capabilities": ["blocks"],
        }

    def list_blocks(self, game: str, stake_cents: int) -> list[dict[str, Any]]:
        return [
            {"block_id": bid, "game": game, "stake_cents": stake_cents, "units": head["units"]}
            for bid, (head, _) in self.blocks.items()
            if (head["game"], head["stake_cents"]) == (game, stake_cents)
        ]

    def read_block(
        self, block_id: str, start: int | None = None, count: int | None = None
    ) -> MemoryStream:
        if block_id not in self.blocks:
            raise ErrorReply(404, "unknown_block", block_id)
        head, lines = self.blocks[block_id]
        if start is None and count is None:
            return MemoryStream(dict(head), list(lines))
        first = start or 0
        size = head["units"] - first if count is None else count
        part = lines[first : first + size]
        if self.slice_hook is not None:
            part = self.slice_hook(first, size, part)
        return MemoryStream({**head, "start": first, "count": size}, part)

    def close(self) -> None:
        pass


def small_target(
    game: str = "robots", stake: int = 100, seed: int = 1, blocks: int = 1
) -> MemoryTarget:
    """A target with ``blocks`` correct small blocks of (game, stake)."""
    served = {}
    for n in range(blocks):
        prizes = shuffled_prizes(game, seed + n)
        block_id = f"{game}-{stake}-{n + 1:04d}"
        served[block_id] = (header(game, stake, block_id), unit_lines(game, stake, prizes))
    return MemoryTarget(served)


def prizes_of(lines: list[bytes]) -> np.ndarray[Any, np.dtype[np.int64]]:
    return np.array([json.loads(line)["prize_cents"] for line in lines], np.int64)
