"""Eldorado tickets for a given prize: the slow generator and its block fast path.

Derived from the rules data: the gains a unit can hold (each row combination, on any number of
rows), every multiset of them that adds up to a prize (``EldoradoSums``), and the scenario drawn
for it (``EldoradoMaker.make``, whose docstring states the distribution, as ``docs/blocks.md``
does).

Blocks (``EldoradoPools``) show pool scenarios through prize-keeping transformations keyed by
the unit's words: inside each grid the 3 rows are permuted, and inside each row the 5 cells
(E-I1 counts a row's symbols, adjacent or not); no cell leaves its grid, so every grid keeps its
EXTRA count and every Extra stage stays granted (E-I4), and every row keeps its combination.
"""

from __future__ import annotations

import bisect
import itertools
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ._compiled import fastlines
from ._eldorado_rules import GRID_SEPARATOR, ROW_SEPARATOR, EldoradoRules, row_combination
from ._gains import Chooser, Decomposition, Gain, PrizeError, decomposition_key, sample, shuffle
from ._scenarios import (
    BLOCKS,
    I64,
    U8,
    U64,
    LotEntry,
    Maker,
    ScenarioPools,
    uniform_below,
)

_NOTHING = np.zeros(0, np.uint8)  # eldorado_lines needs no per-scenario data

#: eldorado: a unit holds at most this many grids (the main grid and 4 Extra stages) ...
ELDORADO_MAX_GRIDS = 5
#: ... and at most this many winning rows (2 per grid that grants a stage, 3 in the last grid).
ELDORADO_MAX_WINS = 2 * ELDORADO_MAX_GRIDS + 1
#: eldorado: P(one more grid than needed) / P(as many as needed); geometric, capped.
ELDORADO_EXTRA_GRID_RATIO = 1 / 3
#: eldorado: probability that an EXTRA is moved from the grid just before the one it grants to
#: a uniformly chosen earlier grid (otherwise each Extra stage is granted from inside the last).
ELDORADO_EARLIER_EXTRA = 0.5


class EldoradoSums:
    """The decompositions of prizes into row combinations at each stake, memoised."""

    def __init__(self, rules: EldoradoRules) -> None:
        self.rules = rules
        self._gains: dict[int, tuple[Gain, ...]] = {}
        self._found: dict[tuple[int, int, int, int], tuple[Decomposition, ...]] = {}

    def gains(self, stake_cents: int) -> tuple[Gain, ...]:
        """The row combinations' gains at that stake, largest first."""
        found = self._gains.get(stake_cents)
        if found is None:
            gains = (
                Gain(c.amount_cents[stake_cents], c.symbol, c.count)
                for c in self.rules.combinations
            )
            found = self._gains[stake_cents] = tuple(sorted(gains, reverse=True))
        return found

    def decompositions(
        self, stake_cents: int, prize: int, first: int = 0, parts: int = ELDORADO_MAX_WINS
    ) -> tuple[Decomposition, ...]:
        """Multisets of gains ``first..`` (in descending order) of at most ``parts`` gains."""
        key = (stake_cents, prize, first, parts)
        found = self._found.get(key)
        if found is None:
            found = self._found[key] = self._decompositions(stake_cents, prize, first, parts)
        return found

    def _decompositions(
        self, stake_cents: int, prize: int, first: int, parts: int
    ) -> tuple[Decomposition, ...]:
        if prize == 0:
            return ((),)
        gains = self.gains(stake_cents)
        if first >= len(gains) or prize > parts * gains[first].amount_cents:
            return ()  # even the largest gains left cannot reach it
        found: list[Decomposition] = []
        for i in range(first, len(gains)):
            gain = gains[i]
            if gain.amount_cents <= prize and parts > 0:
                for rest in self.decompositions(
                    stake_cents, prize - gain.amount_cents, i, parts - 1
                ):
                    found.append((gain, *rest))
        return tuple(found)

    def sorted(self, stake_cents: int, prize: int) -> tuple[Decomposition, ...]:
        """Every decomposition of ``prize``, fewest gains first."""
        return tuple(sorted(self.decompositions(stake_cents, prize), key=decomposition_key))


@dataclass(frozen=True)
class _RowTemplate:
    row: str
    extra_cells: tuple[int, ...]  # cells an EXTRA may take without changing the row's win


class EldoradoMaker:
    """eldorado scenarios at one stake; see ``make`` for the distribution."""

    def __init__(self, rules: EldoradoRules, stake_cents: int, sums: EldoradoSums) -> None:
        self.rules = rules
        self.sums = sums
        self.stake = stake_cents
        self.extra = rules.extra_letter
        self.rows = rules.rows
        self.cells = rules.cells
        paying = [s.letter for s in rules.symbols if s.paying]
        # E-I5: rows of paying symbols; the losing ones hold no combination (near misses of
        # three alike included), the winning ones exactly one (E-I1: adjacent or not, E-I2)
        self.losing_rows: list[str] = []
        self.winning_rows: dict[tuple[str, int], list[_RowTemplate]] = {}
        for cells in itertools.product(paying, repeat=rules.cells):
            row = "".join(cells)
            combination = row_combination(row, rules)
            if combination is None:
                self.losing_rows.append(row)
                continue
            extra_cells = tuple(
                c
                for c in range(rules.cells)
                if row_combination(row[:c] + self.extra + row[c + 1 :], rules) == combination
            )  # E-I3: EXTRA pays nothing, so it may sit on a winning row's spare cell
            self.winning_rows.setdefault(combination, []).append(_RowTemplate(row, extra_cells))
        # P(grids = fewest needed + e) ~ ratio ** e, for every possible fewest
        self.grid_weights = {
            fewest: list(
                itertools.accumulate(
                    ELDORADO_EXTRA_GRID_RATIO**e for e in range(ELDORADO_MAX_GRIDS - fewest + 1)
                )
            )
            for fewest in range(1, ELDORADO_MAX_GRIDS + 1)
        }
        self._choosers: dict[int, Chooser] = {}

    @staticmethod
    def fewest_grids(wins: int) -> int:
        """Fewest grids that hold ``wins`` winning rows and a free row in each granting grid.

        G grids hold 3 G rows, of which at most G - 1 are kept free: room for 2 G + 1 wins.
        """
        return max(1, wins // 2)

    def chooser(self, prize: int) -> Chooser:
        found = self._choosers.get(prize)
        if found is None:
            decompositions = self.sums.decompositions(self.stake, prize)
            if not decompositions:
                amounts = sorted({g.amount_cents for g in self.sums.gains(self.stake)})
                raise PrizeError(
                    f"prize_cents {prize!r}: no {ELDORADO_MAX_WINS} or fewer winning rows add up "
                    f"to it at stake {self.stake} (row amounts {amounts})"
                )
            found = self._choosers[prize] = Chooser(sorted(decompositions, key=decomposition_key))
        return found

    def make(self, prize: int, rng: random.Random) -> str:
        """An eldorado ticket of ``prize`` at this maker's stake, drawn as follows.

        1. The decomposition (``Chooser``): p winning rows.
        2. The number of grids G: the fewest that hold p rows (``fewest_grids``) plus e more,
           P(e) proportional to ``ELDORADO_EXTRA_GRID_RATIO ** e``, G at most
           ``ELDORADO_MAX_GRIDS``.
        3. The G - 1 EXTRA (4.5, E-I4): the one granting grid k sits in grid k - 1 (an Extra
           stage inside an Extra stage) or, with ``ELDORADO_EARLIER_EXTRA``, in a uniformly
           chosen earlier grid; the last grid holds none.
        4. Each grid holding EXTRA keeps one uniformly chosen row free of wins; the p winning
           rows take uniformly chosen rows among the others, in random order.
        5. A winning row: uniform over the rows of paying symbols that make exactly its
           combination (positions and spare symbol alike); a free row: uniform over the rows of
           paying symbols that make none (so three alike occur often).
        6. Each grid's EXTRA take uniformly chosen cells among its free rows' cells and its
           winning rows' spare cells (E-I3: an EXTRA on a winning row changes nothing).
        """
        rand = rng.random
        dec = self.chooser(prize)(rand)
        fewest = self.fewest_grids(len(dec))
        weights = self.grid_weights[fewest]
        grids = fewest + bisect.bisect(weights, rand() * weights[-1])
        extras = [0] * grids
        for granted in range(1, grids):
            home = granted - 1
            if home and rand() < ELDORADO_EARLIER_EXTRA:
                home = int(rand() * home)
            extras[home] += 1
        rows = self.rows
        free_rows = [g * rows + int(rand() * rows) for g in range(grids) if extras[g]]
        open_rows = [r for r in range(grids * rows) if r not in free_rows]
        losing = self.losing_rows
        grid_rows = [losing[int(rand() * len(losing))] for _ in range(grids * rows)]
        full = tuple(range(self.cells))
        extra_cells = [full] * (grids * rows)
        if dec:
            wins = list(dec)
            shuffle(wins, rand)
            for slot, gain in zip(sample(open_rows, len(wins), rand), wins, strict=True):
                templates = self.winning_rows[gain.symbol, gain.count]
                template = templates[int(rand() * len(templates))]
                grid_rows[slot] = template.row
                extra_cells[slot] = template.extra_cells
        for g, count in enumerate(extras):
            if not count:
                continue
            candidates = [(r, c) for r in range(g * rows, g * rows + rows) for c in extra_cells[r]]
            for r, c in sample(candidates, count, rand):
                row = grid_rows[r]
                grid_rows[r] = row[:c] + self.extra + row[c + 1 :]
        return GRID_SEPARATOR.join(
            ROW_SEPARATOR.join(grid_rows[g * rows : g * rows + rows]) for g in range(grids)
        )


class EldoradoPools(ScenarioPools):
    """eldorado: word 0 picks the scenario, words 1-5 each grid's row order, words 6-20 each
    row's cell order."""

    def __init__(
        self,
        rules: EldoradoRules,
        stake_cents: int,
        maker: Maker,
        pool_key: bytes,
        sizes: Mapping[int, int],
    ) -> None:
        super().__init__(rules.game, stake_cents, maker, pool_key, sizes)
        self.grids, self.rows, self.cells = ELDORADO_MAX_GRIDS, rules.rows, rules.cells
        self.row_width = self.cells + 1  # the cells, then '/' (or '|', or the end)
        self.width = self.row_width * self.rows * self.grids
        self.row_orders = np.array(list(itertools.permutations(range(self.rows))), np.int64)
        self.cell_orders = np.array(list(itertools.permutations(range(self.cells))), np.int64)
        # the same orders as byte offsets: a row's start in its grid; a byte's in its row (the
        # separator last: a shown row keeps its own place's, moved by separator_shifts)
        self.row_order_offsets = self.row_orders * self.row_width
        keep = np.full((len(self.cell_orders), 1), self.cells, np.int64)
        self.cell_order_offsets = np.concatenate([self.cell_orders, keep], axis=1)
        self.grid_offsets = (np.arange(self.grids) * self.rows * self.row_width)[None, :, None]
        shown_rows = np.arange(self.rows)[None, :]
        self.separator_shifts = (shown_rows - self.row_orders) * self.row_width

    compiled = fastlines is not None

    def _lot_entry(self, prize: int) -> LotEntry:
        """(prize, pool, nothing, ticket width): what ``eldorado_lines`` reads."""
        return (prize, self.pool(prize), _NOTHING, self.width)

    def _absent_entry(self) -> LotEntry:
        return (0, np.zeros(self.width, np.uint8), _NOTHING, self.width)

    def _compiled_lines(
        self, first: int, lots: I64, key_low: int, key_high: int, table: list[LotEntry]
    ) -> bytes | None:
        """The lines of ``_rows`` laid out by ``unit_lines``, in C (``eldorado_lines``): each
        unit's words (Philox under the key), then its scenario, row orders and cell orders
        drawn from them the same way."""
        result: bytes = fastlines.eldorado_lines(
            first,
            lots,
            key_low,
            key_high,
            BLOCKS,
            table,
            self.row_orders,
            self.cell_orders,
            self.grids,
            self.rows,
            self.cells,
        )
        return result

    def _encode(self, scenarios: Sequence[str]) -> U8:
        """(scenarios, 5 grids of text): the ticket, then zeros (where its next '|' would be,
        and on); every row starts at a multiple of 6, as in the ticket."""
        text = "".join([t.ljust(self.width, "\0") for t in scenarios]).encode("ascii")
        return np.frombuffer(text, dtype=np.uint8).reshape(len(scenarios), self.width)

    def _rows(self, pool: U8, choice: I64, words: U64, selected: I64) -> U8:
        """Shown cell (g, r, c) is scenario cell (g, row_order[g][r], cell_order[3 g + r][c]);
        the separators ('/', '|', the end) stay in place.

        One gather from the pool's bytes, each shown byte's place in ``pool`` added up from
        offsets (scenario, grid, source row, source cell): no three-axis fancy index is built
        (``take_along_axis`` cost twice as much, the same bytes)."""
        unit_words = words[selected]
        count, grids, rows = len(selected), self.grids, self.rows
        row_order = uniform_below(unit_words[:, 1 : 1 + grids], len(self.row_orders))
        cell_order = uniform_below(
            unit_words[:, 1 + grids : 1 + grids + grids * rows], len(self.cell_orders)
        )
        # where each shown row's bytes start in the pool: its scenario, grid and source row
        source = self.row_order_offsets[row_order] + self.grid_offsets  # (count, grids, rows)
        source += (choice * self.width)[:, None, None]
        where = source.reshape(count, grids * rows, 1) + self.cell_order_offsets[cell_order]
        # the separator is the shown place's own, not the source row's
        where[:, :, self.cells] += self.separator_shifts[row_order].reshape(count, grids * rows)
        tickets: U8 = pool.reshape(-1)[where.reshape(count, -1)]
        return tickets
