"""The eldorado kernel of the block audit's fast path (``conformance._kernels``): every row
of a grid as a number, its prize looked up in a table the reference evaluator filled."""

from __future__ import annotations

import itertools

import numpy as np

import reference

from .._kernels import BoolArray, Bytes, IntArray, Words


class EldoradoTables:
    """Every possible row of an eldorado grid as a base-``symbols`` number, and its prize.

    A ticket is ``grid('|'grid)*`` with ``grid = row'/'row'/'row`` and rows of ``cells``
    letters, so row r of grid g starts at ``18 g + 6 r`` (for 3 rows of 5): a ticket of G grids
    is ``18 G - 1`` bytes and every byte's role (letter, '/', '|') follows from its offset.
    The prize of each of the ``symbols ** cells`` rows at each stake is asked of the reference
    evaluator once (each row in a ticket whose other rows and grids pay nothing), so the
    kernel and the slow path share one source of truth: the rules YAML.
    """

    def __init__(self) -> None:
        rules = reference.eldorado_rules()
        self.rows = rules.rows
        self.cells = rules.cells
        self.row_width = rules.cells + 1
        self.grid_width = self.row_width * rules.rows
        self.letters = "".join(s.letter for s in rules.symbols)
        self.extra = self.letters.index(rules.extra_letter)
        digit = np.full(256, -1, np.int16)
        for k, letter in enumerate(self.letters):
            digit[ord(letter)] = k
        self.digit = digit
        self.weights = len(self.letters) ** np.arange(self.cells, dtype=np.int64)
        self.stakes = tuple(rules.stakes_cents)
        self._prizes: dict[int, IntArray] = {}

    def _losing_row(self) -> str:
        """A row of paying letters, none more than twice: it pays nothing, grants nothing."""
        paying = [c for c in self.letters if c != self.letters[self.extra]]
        return "".join(itertools.islice(itertools.cycle(paying), self.cells))

    def row_prizes(self, stake: int) -> IntArray:
        """Prize of every row (indexed by its base-``symbols`` code) at ``stake``."""
        table = self._prizes.get(stake)
        if table is not None:
            return table
        base = len(self.letters)
        plain = self._losing_row()
        quiet_grid = "/".join([plain] * self.rows)
        table = np.zeros(base**self.cells, np.int64)
        for code in range(base**self.cells):
            row = "".join(self.letters[(code // base**k) % base] for k in range(self.cells))
            grid = "/".join([row, *([plain] * (self.rows - 1))])
            extras = row.count(self.letters[self.extra])
            ticket = "|".join([grid, *([quiet_grid] * extras)])
            table[code] = reference.prize_cents("eldorado", stake, ticket)
        self._prizes[stake] = table
        return table


_ELDORADO: EldoradoTables | None = None


def eldorado_tables() -> EldoradoTables:
    global _ELDORADO
    if _ELDORADO is None:
        _ELDORADO = EldoradoTables()
    return _ELDORADO


MAX_ELDORADO_GRIDS = 64  # a longer ticket goes down the slow path (it is judged, not skipped)


def eldorado_prizes(
    buf: bytes, a: Bytes, words: Words, stake: int, t0: IntArray, t1: IntArray, ok: BoolArray
) -> IntArray:
    """Prizes of the eldorado tickets in [t0, t1) at ``stake``, grouped by their grid count.

    Accepted only when every byte is what its offset says (a symbol letter, '/', '|'), the
    ticket holds exactly 1 + (its EXTRA) grids, and every Extra grid k was granted by the EXTRA
    of grids 0..k-1 (E-I4): exactly the reference's notation check.
    """
    tables = eldorado_tables()
    prize = np.zeros(len(t0), np.int64)
    if stake not in tables.stakes:
        ok[:] = False
        return prize
    row_prizes = tables.row_prizes(stake)
    width, gw = tables.row_width, tables.grid_width
    length = t1 - t0
    grids = (length + 1) // gw
    ok &= ((length + 1) % gw == 0) & (grids >= 1) & (grids <= MAX_ELDORADO_GRIDS)
    for g in np.unique(grids[ok]).tolist():
        idx = np.flatnonzero(ok & (grids == g))
        size = g * gw - 1
        # (n, g*gw) bytes: the ticket, then one virtual '|' closing its last grid
        cells = np.empty((len(idx), g * gw), np.uint8)
        cells[:, :size] = a[t0[idx, None] + np.arange(size)]
        cells[:, size] = ord("|")
        shaped = cells.reshape(len(idx), g, tables.rows, width)
        good = (shaped[:, :, :, width - 1] == np.uint8(ord("/"))).sum(axis=2) == tables.rows - 1
        good &= shaped[:, :, tables.rows - 1, width - 1] == np.uint8(ord("|"))
        digits = tables.digit[shaped[:, :, :, : tables.cells]]  # (n, g, rows, cells)
        good &= (digits >= 0).all(axis=(2, 3))
        good_all = good.all(axis=1)
        extra = (digits == tables.extra).sum(axis=(2, 3))  # EXTRA per grid, (n, g)
        granted = np.cumsum(extra, axis=1)  # EXTRA in grids 0..k
        good_all &= granted[:, -1] == g - 1
        if g > 1:  # grid k needs k EXTRA among grids 0..k-1
            good_all &= (granted[:, :-1] >= np.arange(1, g)).all(axis=1)
        codes = (np.maximum(digits, 0).astype(np.int64) * tables.weights).sum(axis=3)
        prize[idx] = row_prizes[codes].sum(axis=(1, 2))
        ok[idx] = good_all
    return prize
