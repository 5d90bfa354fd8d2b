"""Per-game vectorised ticket kernels of the block audit's fast path (``conformance._audit``).

A kernel takes a chunk's bytes (as ``uint8``/8-byte-window views) and the bounds [t0, t1) of
the ticket of every candidate line, and returns each ticket's prize, clearing ``ok`` for every
ticket it cannot vouch for: the exact slow path (``json.loads`` and ``reference``) then judges
that line, and alone writes faults. A kernel therefore never needs to explain a fault; it only
has to be right on every ticket it accepts, which the tests check against the reference over
valid and mutated tickets of every shape.

Kernels are registered by game name; a game without a kernel goes through ``generic_prizes``
(the reference's evaluator, line by line): correct, only slower.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

import reference
from reference import TicketError

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
Bytes = npt.NDArray[np.uint8]
Words = npt.NDArray[np.uint64]
Kernel = Callable[[bytes, Bytes, Words, int, IntArray, IntArray, BoolArray], IntArray]


# -- robots --------------------------------------------------------------------------------


class RobotsTables:
    """A lookup table over byte pairs: a ticket's gauges and its validity in one reduction.

    Over the pairs (x, y) from the ticket's '|' to its closing quote, ``pack`` adds each
    letter's notches (1, or 2 when an X2 follows: articles 4.5, 4.6) to a 6-bit field per
    symbol (bits 0-47), counts spaces in bits 48-53 and pairs the notation forbids in bits
    54-60. A ticket of at most ``MAX_TICKET`` characters cannot overflow a field; one with no
    forbidden pair, 17 spaces and 8 distinct robots is exactly one that matches the contract's
    regular expression.
    """

    FIELD = 6
    SPACES = 48
    BAD = 54
    MAX_TICKET = 72  # robots, '|', and a body of at most 63 characters

    def __init__(self) -> None:
        rules = reference.robots_rules()
        letters = [s.letter.encode()[0] for s in rules.symbols]
        self.notches = [s.gauge_notches for s in rules.symbols]
        self.amounts = [s.amount_cents for s in rules.symbols]
        self.robots = rules.robots
        assert self.robots <= 8, "the robots of a ticket are read as one 8-byte word"
        self.spaces = rules.buttons - 1
        kind = np.full(256, 6, np.int8)  # 0 letter, 1 '2', 2 '+', 3 ' ', 4 '|', 5 '"', 6 other
        for c in letters:
            kind[c] = 0
        kind[ord("2")], kind[ord("+")], kind[ord(" ")] = 1, 2, 3
        kind[ord("|")], kind[ord('"')] = 4, 5
        x = np.repeat(kind, 256)
        y = np.tile(kind, 256)
        ok = np.zeros(65536, bool)
        ok |= (y == 0) & np.isin(x, [4, 3, 2])  # a reveal starts after '|', ' ' or '+'
        ok |= (y == 1) & (x == 0)  # an X2 follows its symbol
        ok |= np.isin(y, [2, 3, 5]) & np.isin(x, [0, 1])  # '+', ' ', end follow a reveal
        pack = np.where(ok, 0, 1 << self.BAD).astype(np.int64)
        xs = np.repeat(np.arange(256), 256)
        ys = np.tile(np.arange(256), 256)
        for k, c in enumerate(letters):
            pack[xs == c] += np.where(ys[xs == c] == ord("2"), 2, 1) << (self.FIELD * k)
        pack[xs == ord(" ")] += 1 << self.SPACES
        self.pack = pack
        bit = np.full(256, 1 << 9, np.int64)
        for k, c in enumerate(letters):
            bit[c] = 1 << k
        self.bit = bit
        self.all_bits = (1 << len(letters)) - 1


_ROBOTS: RobotsTables | None = None


def robots_tables() -> RobotsTables:
    global _ROBOTS
    if _ROBOTS is None:
        _ROBOTS = RobotsTables()
    return _ROBOTS


def robots_prizes(
    buf: bytes, a: Bytes, words: Words, stake: int, t0: IntArray, t1: IntArray, ok: BoolArray
) -> IntArray:
    """Prizes of the robots tickets in [t0, t1) (robots has one stake: ``stake`` is the
    table's, checked by the audit against the lot table)."""
    tables = robots_tables()
    length = t1 - t0
    ok &= (length > tables.robots + 1) & (length <= tables.MAX_TICKET)
    prize = np.zeros(len(t0), np.int64)
    if not ok.any():
        return prize
    idx = np.flatnonzero(ok)
    b0, b1 = t0[idx], t1[idx]
    robots = words[b0].view(np.uint8).reshape(-1, 8)[:, : tables.robots]
    head = tables.bit[robots].sum(axis=1)
    good = (head == tables.all_bits) & (a[b0 + tables.robots] == ord("|"))
    lo, hi = int(b0[0]), int(b1[-1]) + 1
    window = a[lo : hi + 1]
    pairs = window[:-1].astype(np.uint16)
    pairs <<= 8
    pairs |= window[1:]
    cut = np.empty(2 * len(idx), np.int64)
    cut[0::2] = b0 + tables.robots - lo  # from the '|' ...
    cut[1::2] = b1 - lo  # ... to the pair ending on the closing quote
    packed = np.add.reduceat(tables.pack[pairs], cut)[0::2]
    field = (1 << tables.FIELD) - 1
    good &= (packed >> tables.SPACES) == tables.spaces  # 17 spaces and no forbidden pair
    total = np.zeros(len(idx), np.int64)
    for k, (notches, amount) in enumerate(zip(tables.notches, tables.amounts, strict=True)):
        total += np.where(((packed >> (tables.FIELD * k)) & field) >= notches, amount, 0)
    prize[idx] = total
    ok[idx] = good
    return prize


# -- eldorado ------------------------------------------------------------------------------


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


KERNELS: dict[str, Kernel] = {"robots": robots_prizes, "eldorado": eldorado_prizes}
PREPARE: dict[str, Callable[[int], object]] = {
    "robots": lambda stake: robots_tables(),
    "eldorado": lambda stake: eldorado_tables().row_prizes(stake),
}


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
