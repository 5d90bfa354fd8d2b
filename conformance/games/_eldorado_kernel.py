"""The eldorado kernel of the block audit's fast path (``conformance._kernels``): every row
of a grid as a number, its prize looked up in a table the reference evaluator filled."""

from __future__ import annotations

import numpy as np

import reference

from .._kernels import BoolArray, Bytes, IntArray, Words


class EldoradoTables:
    """Every possible row of an eldorado grid as a base-``symbols`` number, and its prize.

    A ticket is ``grid('|'grid)*`` with ``grid = row'/'row'/'row`` and rows of ``cells``
    letters, so row r of grid g starts at ``18 g + 6 r`` (for 3 rows of 5): a ticket of G grids
    is ``18 G - 1`` bytes and every byte's role (letter, '/', '|') follows from its offset.
    The prize of each of the ``symbols ** cells`` rows at each stake is the reference
    evaluator's own row paytable, so the kernel and the slow path share one source of truth:
    the rules YAML.
    """

    OTHER = 255  # the role of a byte that is neither a letter, '/' nor '|'

    def __init__(self) -> None:
        rules = reference.eldorado_rules()
        self.rows = rules.rows
        self.cells = rules.cells
        self.row_width = rules.cells + 1
        self.grid_width = self.row_width * rules.rows
        self.letters = "".join(s.letter for s in rules.symbols)
        self.extra = self.letters.index(rules.extra_letter)
        # every byte as its role: a letter's digit, SLASH, BAR, or OTHER (bytes.translate)
        self.base = len(self.letters)
        assert self.base + 2 < self.OTHER
        self.slash, self.bar = self.base, self.base + 1
        roles = bytearray([self.OTHER]) * 256
        for k, letter in enumerate(self.letters):
            roles[ord(letter)] = k
        roles[ord("/")], roles[ord("|")] = self.slash, self.bar
        self.roles = bytes(roles)
        # what each offset of a grid (rows of ``cells`` letters, each closed by '/', the last
        # by '|') must hold, as one test, (role - shift) mod 256 < bound: shift 0 and bound
        # ``base`` where a letter stands, the separator and 1 (exactly it) where it closes a row
        offsets = np.arange(self.grid_width)
        letter_at = offsets % self.row_width < self.cells
        closer = np.where(offsets == self.grid_width - 1, self.bar, self.slash)
        self.shift = np.where(letter_at, 0, closer).astype(np.uint8)
        self.bound = np.where(letter_at, self.base, 1).astype(np.uint8)
        self.stakes = tuple(rules.stakes_cents)
        self._prizes: dict[int, IntArray] = {}

    def row_prizes(self, stake: int) -> IntArray:
        """Prize of every row (indexed by its base-``symbols`` code) at ``stake``: the
        reference evaluator's own paytable of rows (``EldoradoEngine.row_prizes``, 4.4), the
        table its ``prize_cents`` adds up over a ticket's rows, so kernel and slow path share
        one source of truth, the rules YAML."""
        return self.row_values(stake) >> EXTRA_BITS

    def row_values(self, stake: int) -> IntArray:
        """Each row's prize and EXTRA count in one number, ``prize << EXTRA_BITS | extras``: a
        grid's rows sum to its prize and its EXTRA count at once (at most ``rows * cells``
        EXTRA a grid, below ``1 << EXTRA_BITS``), with one lookup a row."""
        found = self._prizes.get(stake)
        if found is not None:
            return found
        engine = reference.game_engine("eldorado")
        assert isinstance(engine, reference.EldoradoEngine)
        assert self.rows * self.cells < 1 << EXTRA_BITS
        codes = np.arange(self.base**self.cells)
        digits = (codes[:, None] // self.base ** np.arange(self.cells)) % self.base
        table: IntArray = (digits == self.extra).sum(axis=1).astype(np.int64)
        digit = {letter: k for k, letter in enumerate(self.letters)}
        for row, amount in engine.row_prizes(stake).items():
            code = sum(digit[letter] * self.base**k for k, letter in enumerate(row))
            table[code] += amount << EXTRA_BITS
        self._prizes[stake] = table
        return table


_ELDORADO: EldoradoTables | None = None


def eldorado_tables() -> EldoradoTables:
    global _ELDORADO
    if _ELDORADO is None:
        _ELDORADO = EldoradoTables()
    return _ELDORADO


MAX_ELDORADO_GRIDS = 64  # a longer ticket goes down the slow path (it is judged, not skipped)
EXTRA_BITS = 6  # a row value's low bits: the EXTRA it shows (``EldoradoTables.row_values``)


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
    row_values = tables.row_values(stake)
    width, gw, rows, cells = tables.row_width, tables.grid_width, tables.rows, tables.cells
    length = t1 - t0
    grids = (length + 1) // gw
    ok &= ((length + 1) % gw == 0) & (grids >= 1) & (grids <= MAX_ELDORADO_GRIDS)
    if not ok.any():
        return prize
    for g in np.flatnonzero(np.bincount(grids[ok])).tolist():  # the grid counts present
        idx = np.flatnonzero(ok & (grids == g))
        size = g * gw - 1
        spans = (size + 7) // 8  # words that cover the ticket (the chunk's padding the rest)
        if t0[idx].max() + 8 * (spans - 1) >= len(words):  # past the padding: slow path
            ok[idx] = False
            continue
        read = words[t0[idx, None] + 8 * np.arange(spans)].view(np.uint8)
        # (n, g*gw) bytes: the ticket, then one virtual '|' closing its last grid ...
        raw = np.empty((len(idx), g * gw), np.uint8)
        raw[:, :size] = read[:, :size]
        raw[:, size] = ord("|")
        # ... each as its role (a letter's digit, '/', '|', other), in one C pass
        shaped = np.frombuffer(raw.tobytes().translate(tables.roles), np.uint8)
        grid = shaped.reshape(len(idx), g, gw)
        # (row sums as products with a vector of ones, numpy's fastest; the ones' type holds
        # the largest sum: up to 64 * 18 misfits in uint16, up to 18 EXTRA a grid in uint8)
        misfits = ((grid - tables.shift) >= tables.bound).view(np.uint8).reshape(len(idx), -1)
        good_all = misfits @ np.ones(g * gw, np.uint16) == 0
        digits = grid.reshape(len(idx), g, rows, width)  # a row's letters, then its closer
        codes = digits[..., cells - 1].astype(np.intp)
        for k in range(cells - 2, -1, -1):  # Horner: letter k weighs base ** k
            codes *= tables.base
            codes += digits[..., k]
        np.minimum(codes, len(row_values) - 1, out=codes)  # a bad ticket's: any row's code
        values = row_values[codes].sum(axis=2)  # (n, g): each grid's prize and EXTRA count
        granted = np.cumsum(values & ((1 << EXTRA_BITS) - 1), axis=1)  # EXTRA in grids 0..k
        good_all &= granted[:, -1] == g - 1
        if g > 1:  # grid k needs k EXTRA among grids 0..k-1
            good_all &= (granted[:, :-1] >= np.arange(1, g)).all(axis=1)
        prize[idx] = (values >> EXTRA_BITS).sum(axis=1)
        ok[idx] = good_all
    return prize
