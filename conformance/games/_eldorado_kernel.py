"""The eldorado kernel of the block audit's fast path (``conformance._kernels``): every row
of a grid as a number, its prize looked up in a table the reference evaluator filled."""

from __future__ import annotations

import numpy as np

import reference
import reference.eldorado

from .._compiled import fastaudit
from .._kernels import BoolArray, Bytes, ChunkVerdict, IntArray, Words, compiled_chunk


class EldoradoTables:
    """Every possible row of an eldorado grid as a base-``symbols`` number, and its prize.

    A ticket is ``grid('|'grid)*`` with ``grid = row'/'row'/'row`` and rows of ``cells``
    letters, so row r of grid g starts at ``18 g + 6 r`` (for 3 rows of 5): a ticket of G grids
    is ``18 G - 1`` bytes and every byte's role (letter, '/', '|') follows from its offset.
    The prize of each of the ``symbols ** cells`` rows at each stake is the reference
    evaluator's own row paytable, so the kernel and the slow path share one source of truth:
    the rules YAML.
    """

    OTHER = 0xFF  # the role of a byte that is neither a letter, '/' nor '|'
    SLASH, BAR = 0x40, 0x41  # the separators' roles: above every letter's digit

    def __init__(self) -> None:
        rules = reference.eldorado.eldorado_rules()
        self.rows = rules.rows
        self.cells = rules.cells
        self.row_width = rules.cells + 1
        self.grid_width = self.row_width * rules.rows
        self.letters = "".join(s.letter for s in rules.symbols)
        self.extra = self.letters.index(rules.extra_letter)
        # every byte as its role: a letter's digit (0 .. base - 1), SLASH, BAR, or OTHER
        # (bytes.translate); no byte has a role from base to the next power of two, so "a
        # letter stands here" is "the role's bits above the digits are clear"
        self.base = len(self.letters)
        assert 1 <= self.base <= self.SLASH
        roles = bytearray([self.OTHER]) * 256
        for k, letter in enumerate(self.letters):
            roles[ord(letter)] = k
        roles[ord("/")], roles[ord("|")] = self.SLASH, self.BAR
        self.roles = bytes(roles)
        self.letter_mask = 0xFF & ~((1 << (self.base - 1).bit_length()) - 1)
        self._masks: dict[int, tuple[Words, Words]] = {}
        self.stakes = tuple(rules.stakes_cents)
        self._prizes: dict[int, IntArray] = {}

    def word_masks(self, grids: int) -> tuple[Words, Words]:
        """(mask, expected) of a ticket of ``grids`` grids read as 64-bit words of roles: it
        is well formed when every word ANDed with its mask is the expected word. A letter's
        byte must have its high bits clear, a separator's must be exactly '/' or '|' (the
        last grid's closer is the ticket's closing quote, already found: not tested), and
        the bytes past the ticket are not tested."""
        found = self._masks.get(grids)
        if found is not None:
            return found
        size = grids * self.grid_width - 1
        spans = (size + 8) // 8  # the ticket and its closing quote
        mask = np.zeros(8 * spans, np.uint8)
        expected = np.zeros(8 * spans, np.uint8)
        offset = np.arange(size)
        place = offset % self.grid_width
        letter = place % self.row_width < self.cells
        mask[:size] = np.where(letter, self.letter_mask, 0xFF)
        closer = np.where(place == self.grid_width - 1, self.BAR, self.SLASH)
        expected[:size] = np.where(letter, 0, closer)
        found = self._masks[grids] = (mask.view(np.uint64), expected.view(np.uint64))
        return found

    def row_values(self, stake: int) -> IntArray:
        """Each row (indexed by its base-``symbols`` code) as its prize at ``stake`` and its
        EXTRA count in one number, ``prize << EXTRA_BITS | extras``: a grid's rows sum to its
        prize and its EXTRA count at once (at most ``rows * cells`` EXTRA a grid, below
        ``1 << EXTRA_BITS``), with one lookup a row. The prizes are the reference evaluator's
        own paytable of rows (``EldoradoEngine.row_prizes``, 4.4), the table its
        ``prize_cents`` adds up over a ticket's rows, so kernel and slow path share one source
        of truth, the rules YAML."""
        found = self._prizes.get(stake)
        if found is not None:
            return found
        engine = reference.game_engine("eldorado")
        assert isinstance(engine, reference.eldorado.EldoradoEngine)
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
EXTRA_MASK = (1 << EXTRA_BITS) - 1


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
        n = len(idx)
        size = g * gw - 1
        spans = (size + 8) // 8  # words that cover the ticket and its closing quote
        if t0[idx].max() + 8 * (spans - 1) >= len(words):  # past the padding: slow path
            ok[idx] = False
            continue
        # (n, spans) words: each ticket and the bytes after it, as roles in one C pass
        read = words[t0[idx, None] + 8 * np.arange(spans)]
        roles = np.frombuffer(read.tobytes().translate(tables.roles), np.uint64).reshape(n, -1)
        mask, expected = tables.word_masks(g)
        good_all = ((roles & mask) == expected).all(axis=1)  # every byte what its place says
        digits = roles.view(np.uint8)[:, : g * gw].reshape(n, g, rows, width)
        codes = digits[..., cells - 1].astype(np.intp)  # a row's letters, then its closer
        for k in range(cells - 2, -1, -1):  # Horner: letter k weighs base ** k
            codes *= tables.base
            codes += digits[..., k]
        np.minimum(codes, len(row_values) - 1, out=codes)  # a bad ticket's: any row's code
        values = row_values[codes].sum(axis=2)  # (n, g): each grid's prize and EXTRA count
        if g == 1:  # no EXTRA on a ticket of one grid
            good_all &= (values[:, 0] & EXTRA_MASK) == 0
            prize[idx] = values[:, 0] >> EXTRA_BITS
        else:
            granted = np.cumsum(values & EXTRA_MASK, axis=1)  # EXTRA in grids 0..k
            good_all &= granted[:, -1] == g - 1
            good_all &= (granted[:, :-1] >= np.arange(1, g)).all(axis=1)  # grid k needs k
            prize[idx] = (values >> EXTRA_BITS).sum(axis=1)
        ok[idx] = good_all
    return prize


def eldorado_chunk(
    padded: bytes, size: int, stake: int, table: frozenset[int]
) -> ChunkVerdict | None:
    """Every line of ``padded[:size]`` judged at once in C (``conformance._fastaudit``): each
    line's end, prize and index when every one is a canonical unit line whose well-formed
    ticket shows the prize it declares, a prize of ``table``; None otherwise (a fault, another
    layout, an escape, or no compiled module), and the chunk takes the numpy path."""
    tables = eldorado_tables()
    if fastaudit is None or stake not in tables.stakes:
        return None
    return compiled_chunk(
        fastaudit.eldorado_chunk,
        padded,
        size,
        table,
        tables.roles,
        tables.row_values(stake),
        tables.rows,
        tables.cells,
        tables.base,
        EXTRA_BITS,
        MAX_ELDORADO_GRIDS,
    )
