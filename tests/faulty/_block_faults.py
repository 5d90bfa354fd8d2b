"""Block layouts that a lab's randomness tests must reject (issue 10): one block derived from
another by a simple transform, top prizes placed early, a layout more even than chance.

Each class keeps the lot table exact (every fault is a permutation of the block's slots), so
only the randomness requirements can see it. ``Remapped`` is a permutation stand-in with the
call shapes the reference's ``Block`` uses (``__call__``, ``unchecked``, ``many``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from reference._blocks import Block

from ._faults import BlockService

IntArray = npt.NDArray[np.int64]


class Remapped:
    """``slot(i)`` for one index and ``many(indices)`` for an array: the same permutation."""

    def __init__(self, many: Callable[[IntArray], IntArray]) -> None:
        self.many = many

    def unchecked(self, index: int) -> int:
        return int(self.many(np.array([index], np.int64))[0])

    def __call__(self, index: int) -> int:
        return self.unchecked(index)


def _rng(seed: bytes, purpose: bytes) -> np.random.Generator:
    digest = hashlib.blake2b(purpose, key=seed, digest_size=32).digest()
    return np.random.default_rng(int.from_bytes(digest, "big"))


class _CopiedLayout(BlockService):
    """Block 2 onwards of robots at 1 € take block 1's layout, shifted by ``SHIFT`` places."""

    fault_on = (("robots", 100),)

    def shift(self, units: int) -> int:
        raise NotImplementedError

    def make_block(self, game: str, stake_cents: int, block_id: str, number: int) -> Block:
        block = super().make_block(game, stake_cents, block_id, number)
        if number > 1 and (game, stake_cents) in self.fault_on:
            first = self._block(game, stake_cents, 1)._permutation
            units, shift = block.units, self.shift(block.units) % block.units
            block._permutation = Remapped(  # type: ignore[assignment]
                lambda i: np.asarray(first.many((i + shift) % units), np.int64)
            )
        return block


class ShiftedCopy(_CopiedLayout):
    """Randomness across blocks: block 2 is block 1's shuffle read one unit on (the vendor
    "re-used the permutation with a fresh offset"): its unit i is block 1's unit i + 1."""

    def shift(self, units: int) -> int:
        return 1


class RotatedHalf(_CopiedLayout):
    """Randomness across blocks: block 2 is block 1's shuffle started half-way (unit i is
    block 1's unit i + units/2, mod units): no two units at the same place coincide more than
    by chance, but the layout is the same."""

    def shift(self, units: int) -> int:
        return units // 2


class TopPrizesEarly(Block):
    """Randomness: the top prizes (the lots of at most 200 units: 10 000 €, 1 000 €, 100 €) are
    all swapped into losing places of the first 10 % of the block ("big winners early keep
    the game selling"); every lot count stays exact."""

    TOP_UNITS = 200

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        inner = self._permutation
        ends = np.asarray(self._ends, np.int64)
        counts = np.diff(np.concatenate(([0], ends)))
        # the lots are laid out largest first: the top ones are the leading lots of few units
        top_lots = 0
        while top_lots < len(counts) - 1 and counts[top_lots] <= self.TOP_UNITS:
            top_lots += 1
        top = int(ends[top_lots - 1]) if top_lots else 0
        tenth = self.units // 10
        slots = np.asarray(inner.many(np.arange(self.units, dtype=np.int64)), np.int64)
        late = np.flatnonzero((slots < top) & (np.arange(self.units) >= tenth))
        losing = np.flatnonzero(slots[:tenth] >= int(ends[-2]))[: len(late)]
        slots[late], slots[losing] = slots[losing], slots[late].copy()
        self._table = slots
        self._permutation = Remapped(lambda i: self._table[i])  # type: ignore[assignment]


class TooRegular(Block):
    """Randomness: a "balanced" layout: every run of 100 units holds exactly its share of each
    slot range (about 30 winners, in shuffled order), so no player ever meets a drought; winners
    are more evenly spread than chance allows."""

    STRATUM = 100

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        k = self.STRATUM
        strata = self.units // k
        rng = _rng(self.seed, b"too-regular")
        # stratum s, place o: slot class within[s, o]; within class c, the slot order[c, s]
        within = np.argsort(rng.random((strata, k)), axis=1)
        order = np.argsort(rng.random((k, strata)), axis=1)
        s = np.repeat(np.arange(strata), k)
        c = within.ravel()
        self._table = (c * strata + order[c, s]).astype(np.int64)
        self._permutation = Remapped(lambda i: self._table[i])  # type: ignore[assignment]
