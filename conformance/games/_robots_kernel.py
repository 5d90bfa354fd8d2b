"""The robots kernel of the block audit's fast path (``conformance._kernels``): a lookup table
over byte pairs gives a ticket's gauges and its validity in one reduction."""

from __future__ import annotations

import numpy as np

import reference
import reference.robots

from .._compiled import fastaudit
from .._kernels import BoolArray, Bytes, ChunkVerdict, IntArray, Words, compiled_chunk


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
        rules = reference.robots.robots_rules()
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
        # indexed by x + 256 y: the little-endian uint16 that starts at x's byte
        self.pack = pack.reshape(256, 256).T.copy().ravel()
        bit = np.full(256, 1 << 9, np.int64)
        for k, c in enumerate(letters):
            bit[c] = 1 << k
        self.bit = bit
        self.all_bits = (1 << len(letters)) - 1
        # for the compiled chunk judge: each byte's symbol (0xFF: none), gauges and amounts
        symbol = bytearray([0xFF]) * 256
        for k, c in enumerate(letters):
            symbol[c] = k
        self.symbol = bytes(symbol)
        self.notch_array = np.array(self.notches, np.int64)
        self.amount_array = np.array(self.amounts, np.int64)
        self.stakes = tuple(rules.stakes_cents)


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
    # (numpy indexes far faster by intp than by small integers: cast first, then take)
    head = np.take(tables.bit, robots.astype(np.intp)).sum(axis=1)
    good = (head == tables.all_bits) & (a[b0 + tables.robots] == ord("|"))
    lo, hi = int(b0[0]), int(b1[-1]) + 1
    # every byte pair (x, y) of the window as the little-endian uint16 x + 256 y: a strided
    # view of the chunk itself, no copy (the chunk's padding holds the last pair's y)
    pairs = np.ndarray(shape=(hi - lo,), dtype="<u2", buffer=a, offset=lo, strides=(1,))
    cut = np.empty(2 * len(idx), np.int64)
    cut[0::2] = b0 + tables.robots - lo  # from the '|' ...
    cut[1::2] = b1 - lo  # ... to the pair ending on the closing quote
    packed = np.add.reduceat(np.take(tables.pack, pairs.astype(np.intp)), cut)[0::2]
    field = (1 << tables.FIELD) - 1
    good &= (packed >> tables.SPACES) == tables.spaces  # 17 spaces and no forbidden pair
    total = np.zeros(len(idx), np.int64)
    for k, (notches, amount) in enumerate(zip(tables.notches, tables.amounts, strict=True)):
        total += np.where(((packed >> (tables.FIELD * k)) & field) >= notches, amount, 0)
    prize[idx] = total
    ok[idx] = good
    return prize


def robots_chunk(
    padded: bytes, size: int, stake: int, table: frozenset[int]
) -> ChunkVerdict | None:
    """Every line of ``padded[:size]`` judged at once in C (``conformance._fastaudit``), as
    ``eldorado_chunk`` does for eldorado: each line's end, prize and index when every one is a
    canonical unit line whose well-formed ticket shows the prize it declares, a prize of
    ``table``; None otherwise, and the chunk takes the numpy path."""
    tables = robots_tables()
    if fastaudit is None or stake not in tables.stakes:
        return None
    return compiled_chunk(
        fastaudit.robots_chunk,
        padded,
        size,
        table,
        tables.symbol,
        tables.notch_array,
        tables.amount_array,
        tables.robots,
        tables.spaces + 1,
        tables.MAX_TICKET,
    )
