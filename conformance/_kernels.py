"""Per-game vectorised ticket kernels of the block audit's fast path (``conformance._audit``).

A kernel takes a chunk's bytes (as ``uint8``/8-byte-window views) and the bounds [t0, t1) of
the ticket of every candidate line, and returns each ticket's prize, clearing ``ok`` for every
ticket it cannot vouch for: the exact slow path (``json.loads`` and ``reference``) then judges
that line, and alone writes faults. A kernel therefore never needs to explain a fault; it only
has to be right on every ticket it accepts, which the tests check against the reference over
valid and mutated tickets of every shape.

Each game's kernel is its kit's (``conformance.games``: ``GameKit.kernel``, robots' in
``games/_robots_kernel.py``, eldorado's in ``games/_eldorado_kernel.py``); a game without a
kernel goes through ``generic_prizes`` (the reference's evaluator, line by line): correct,
only slower.

Before any of that, a game's kit may have a *chunk judge* (``GameKit.chunk_judge``: both games'
are compiled, ``_fastaudit.c``): it vouches for a whole chunk of lines written exactly as the
reference writes them, or for none of it, and then the chunk takes the path above.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

import numpy as np
import numpy.typing as npt

import reference
from reference import TicketError

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
Bytes = npt.NDArray[np.uint8]
Words = npt.NDArray[np.uint64]
Kernel = Callable[[bytes, Bytes, Words, int, IntArray, IntArray, BoolArray], IntArray]
T = TypeVar("T")


@dataclass(frozen=True)
class ChunkVerdict:
    """A chunk judge's verdict on a chunk it vouches for whole: each line's end (the offset of
    its newline), declared prize (the one its ticket shows) and declared index."""

    ends: IntArray
    prizes: IntArray
    indices: IntArray


ChunkJudge = Callable[[bytes, int, int, frozenset[int]], ChunkVerdict | None]
"""(padded chunk, size, stake, the lot table's prizes) -> a verdict on every line, or None."""


def compiled_chunk(
    judge: Callable[..., tuple[bytearray, bytearray, bytearray] | None],
    padded: bytes,
    size: int,
    table: frozenset[int],
    *tables: object,
) -> ChunkVerdict | None:
    """A compiled chunk judge of ``conformance._fastaudit`` called on ``padded[:size]`` with its
    game's ``tables`` and the lot table's prizes (its last argument), its answer as a
    ``ChunkVerdict``; None when it does not vouch for every line, or a prize does not fit."""
    lots = lot_prizes(table)
    found = None if lots is None else judge(padded, size, *tables, lots)
    if found is None:
        return None
    ends, prizes, indices = (np.frombuffer(part, np.int64) for part in found)
    return ChunkVerdict(ends, prizes, indices)


@functools.lru_cache(maxsize=8)
def lot_prizes(table: frozenset[int]) -> IntArray | None:
    """The lot table's prizes, ascending, as a compiled chunk judge reads them; None when one
    does not fit an int64 (the chunks then take the numpy path)."""
    try:
        return np.array(sorted(table), np.int64)
    except OverflowError:
        return None


if TYPE_CHECKING:
    from .games import GameKit


# -- any other game ------------------------------------------------------------------------


def generic_prizes(
    buf: bytes,
    game: str,
    stake: int,
    t0: IntArray,
    t1: IntArray,
    ok: BoolArray,
) -> IntArray:
    """Prizes by the reference's evaluator, ticket by ticket: for a game with no kernel."""
    prize = np.zeros(len(t0), np.int64)
    evaluate = reference.prize_cents
    for i in np.flatnonzero(ok).tolist():
        text = buf[t0[i] : t1[i]]
        if b"\\" in text or not text.isascii():
            ok[i] = False
            continue
        try:
            prize[i] = evaluate(game, stake, text.decode("ascii"))
        except TicketError:
            ok[i] = False
    return prize


class _KitView(Mapping[str, T]):
    """A read-only view of one field of the registered game kits (``conformance.games``): the
    games whose kit has it, in registration order."""

    def __init__(self, field: Callable[[GameKit], T | None]) -> None:
        self._field = field

    def _items(self) -> dict[str, T]:
        from .games import kits

        found = {k.name: self._field(k) for k in kits()}
        return {name: value for name, value in found.items() if value is not None}

    def __getitem__(self, game: str) -> T:
        return self._items()[game]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items())

    def __len__(self) -> int:
        return len(self._items())


KERNELS: Mapping[str, Kernel] = _KitView(lambda k: k.kernel)
"""Each game's kernel, from its kit (``GameKit.kernel``)."""
PREPARE: Mapping[str, Callable[[int], object]] = _KitView(lambda k: k.prepare)
"""Each game's table builder, from its kit (``GameKit.prepare``)."""
CHUNK_JUDGES: Mapping[str, ChunkJudge] = _KitView(lambda k: k.chunk_judge)
"""Each game's whole-chunk judge, from its kit (``GameKit.chunk_judge``)."""


def prepare(game: str, stake: int) -> None:
    """Build ``game``'s tables before worker processes fork, so each inherits them."""
    build = PREPARE.get(game)
    if build is not None:  # an unknown stake: the kernel sends every line to the slow path
        with contextlib.suppress(reference.GameError):
            build(stake)


def ticket_prizes(
    buf: bytes,
    a: Bytes,
    words: Words,
    game: str,
    stake: int,
    t0: IntArray,
    t1: IntArray,
    ok: BoolArray,
) -> IntArray:
    """The prize of every ticket of ``game`` in [t0, t1), by its kernel or the reference."""
    kernel = KERNELS.get(game)
    if kernel is None:
        return generic_prizes(buf, game, stake, t0, t1, ok)
    return kernel(buf, a, words, stake, t0, t1, ok)


def judged_chunk(
    game: str, padded: bytes, size: int, stake: int, table: frozenset[int]
) -> ChunkVerdict | None:
    """``game``'s chunk judge's verdict on ``padded[:size]``; None where it has none or does
    not vouch for every line."""
    judge = CHUNK_JUDGES.get(game)
    return None if judge is None else judge(padded, size, stake, table)
