"""Block layouts related to another block's in ways the first cross-block tests missed (red
team): a layout shared across the stakes of a game, and a block re-shuffled chunk by chunk from
the one before. Each keeps every lot table exact, so only ``<game>.randomness.unrelated_blocks``
can see it (rules: the order of the units is independent of anything a player can see, and the
other stakes' blocks and the earlier blocks are visible).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from reference._blocks import Block

from ._block_faults import Remapped
from ._faults import BlockService


class CrossStakeLayout(BlockService):
    """Randomness across stakes: "the permutation key is derived from the game and the block
    number, not the stake": eldorado's 0,5 € and 2 € blocks n reuse the 1 € block n's
    permutation, so every tier (the tables differ only by the prizes' scale) sits at the same
    places at the three stakes."""

    def make_block(self, game: str, stake_cents: int, block_id: str, number: int) -> Block:
        block = super().make_block(game, stake_cents, block_id, number)
        if game == "eldorado" and stake_cents != 100:
            block._permutation = self._block(game, 100, number)._permutation
        return block


class ChunkReshuffled(BlockService):
    """Randomness across blocks: "the builder streams the previous block file and re-shuffles
    it in place, one 20 000-unit chunk at a time": robots block 2 onwards is the previous
    block's layout with each chunk shuffled on its own, so every chunk holds exactly the
    winners of each tier (jackpots included) that the previous block's holds."""

    CHUNK = 20000

    def make_block(self, game: str, stake_cents: int, block_id: str, number: int) -> Block:
        block = super().make_block(game, stake_cents, block_id, number)
        if game == "robots" and number > 1:
            base = self._block(game, stake_cents, number - 1)._slots(0, block.units)
            table = reshuffled(base, self.CHUNK, block.seed)

            def slot(i: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
                return table[i]

            block._permutation = Remapped(slot)  # type: ignore[assignment]
        return block


def reshuffled(slots: npt.NDArray[np.int64], chunk: int, seed: bytes) -> npt.NDArray[np.int64]:
    """``slots`` with each run of ``chunk`` places shuffled on its own (seeded by ``seed``)."""
    rng = np.random.default_rng(int.from_bytes(seed[:8], "big"))
    table = np.asarray(slots, np.int64).copy()
    for lo in range(0, len(table), chunk):
        hi = min(len(table), lo + chunk)
        table[lo:hi] = table[lo:hi][rng.permutation(hi - lo)]
    return table
