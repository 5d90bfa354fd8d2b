"""A keyed pseudorandom permutation of ``range(size)``: cycle-walking Feistel, BLAKE2b rounds.

This decides where a block's winners sit, so it must be unpredictable without the key and
computable for one index alone (a block's unit i needs only the key and i).

- The index is a number of n bits, n = max(2, bit length of size - 1), split into a high half
  of ``n // 2`` bits and a low half of ``n - n // 2`` bits (an unbalanced Feistel network when
  n is odd: the halves swap sizes every round).
- Round r maps the state (A, B), B the low half, to (B, A xor F_r(B)) where
  F_r(B) = the first 8 bytes, big-endian, of BLAKE2b-64(key=key, person="instcert-feistel",
  data=r as 4 bytes big-endian || B as 4 bytes big-endian), reduced modulo 2^|A|.
  ``ROUNDS`` = 12 rounds (FF1 uses 10).
- Cycle walking: the network permutes ``range(2 ** n)``; an output at or beyond ``size`` is
  fed back in until it falls inside, which gives a permutation of ``range(size)`` (at most
  half the domain lies outside, so fewer than two passes on average).

Each round function has at most 2^11 inputs for a 2 000 000-unit block, so it is tabulated once
per key (12 x 2048 BLAKE2b calls): the same function, evaluated in advance. ``many`` applies the
very same network to a whole array of indices at once (numpy: one table gather per round, then
cycle walking on the few outputs still outside), so a slice's slots cost a few nanoseconds each;
it is tested equal to the one-index path.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from typing import Any

import numpy as np
import numpy.typing as npt

from ._compiled import fastlines

ROUNDS = 12
PERSON = b"instcert-feistel"


class _Round:
    """One round function F_r, evaluated where it is asked and remembered."""

    def __init__(self, key: bytes, r: int, out_bits: int) -> None:
        self._base = hashlib.blake2b(key=key, digest_size=8, person=PERSON)
        self._prefix = r.to_bytes(4, "big")
        self._mask = (1 << out_bits) - 1
        self._known: dict[int, int] = {}

    def table(self, in_bits: int) -> tuple[int, ...]:
        """F_r at every input of ``in_bits`` bits."""
        base, prefix, mask = self._base, self._prefix, self._mask
        table = []
        for b in range(1 << in_bits):
            h = base.copy()
            h.update(prefix + b.to_bytes(4, "big"))
            table.append(int.from_bytes(h.digest(), "big") & mask)
        return tuple(table)

    def __getitem__(self, b: int) -> int:
        found = self._known.get(b)
        if found is None:
            h = self._base.copy()
            h.update(self._prefix + b.to_bytes(4, "big"))
            found = self._known[b] = int.from_bytes(h.digest(), "big") & self._mask
        return found


Tables = tuple[
    tuple[tuple[int, ...], ...],
    tuple[npt.NDArray[np.signedinteger], ...],
    tuple[npt.NDArray[np.int64], ...],
]
#: the round tables tabulated in this process, the newest ``MAX_TABULATED``, by (key, size,
#: rounds): a block built again over the same seed (another service over the same master seed,
#: a test's target made again) takes its permutation's tables rather than 12 x 2048 BLAKE2b
#: calls again. Speed only: the tables are a function of the key, the size and the rounds, and
#: read-only.
_TABULATED: OrderedDict[tuple[bytes, int, int], Tables] = OrderedDict()
_TABULATED_LOCK = threading.Lock()
MAX_TABULATED = 32  # about 1 MB each


def _tabulated(perm: FeistelPermutation, key: bytes) -> Tables:
    """(the round tables, as the numpy path reads them, as the compiled path reads them)."""
    cached = (key, perm.size, perm.rounds)
    with _TABULATED_LOCK:
        found = _TABULATED.get(cached)
        if found is not None:
            _TABULATED.move_to_end(cached)
            return found
    widths = perm._widths
    tables = tuple(_Round(key, r, widths[r][0]).table(widths[r][1]) for r in range(perm.rounds))
    arrays = tuple(_read_only(np.array(t, dtype=perm._dtype)) for t in tables)
    # the compiled path reads the same tables as int64, with the GIL released
    tables64 = (
        tuple(_read_only(np.array(t, dtype=np.int64)) for t in tables)
        if fastlines is not None and perm.bits <= 62
        else ()
    )
    found = (tables, arrays, tables64)
    with _TABULATED_LOCK:
        _TABULATED[cached] = found
        while len(_TABULATED) > MAX_TABULATED:
            _TABULATED.popitem(last=False)
    return found


def _read_only(array: npt.NDArray[Any]) -> npt.NDArray[Any]:
    array.flags.writeable = False
    return array


class FeistelPermutation:
    """``perm(x)`` and ``perm.inverse(y)`` over ``range(size)``, keyed by ``key`` (16-64 bytes).

    ``tabulate=False`` evaluates the round functions only where the indices asked need them,
    for a few indices of many keys (a whole table is 12 x 2048 BLAKE2b calls, about 35 ms);
    ``many`` then is not available."""

    def __init__(self, key: bytes, size: int, rounds: int = ROUNDS, tabulate: bool = True) -> None:
        if not isinstance(key, bytes) or not 16 <= len(key) <= 64:
            raise ValueError(f"key {key!r} ({type(key).__name__}): expected 16 to 64 bytes")
        if type(size) is not int or size < 1:
            raise ValueError(f"size {size!r} ({type(size).__name__}): expected an integer >= 1")
        if type(rounds) is not int or rounds < 2 or rounds % 2:
            raise ValueError(f"rounds {rounds!r}: expected an even integer >= 2")
        self.size = size
        self.rounds = rounds
        bits = max(2, (size - 1).bit_length())
        self.bits = bits
        high, low = bits // 2, bits - bits // 2
        # round r maps the low half (``widths[r][1]`` bits) into the high half (``[0]`` bits)
        self._widths = tuple((high, low) if r % 2 == 0 else (low, high) for r in range(rounds))
        # the vectorised path: int32 halves the memory traffic while indices fit in it
        self._dtype = np.int32 if bits <= 31 else np.int64
        self._tables: tuple[_Round | tuple[int, ...], ...]
        if tabulate:
            self._tables, self._arrays, self._tables64 = _tabulated(self, key)
        else:
            self._tables = tuple(_Round(key, r, self._widths[r][0]) for r in range(rounds))
            self._arrays, self._tables64 = (), ()
        self._pairs = tuple(zip(self._tables[0::2], self._tables[1::2], strict=True))

    def _encrypt(self, x: int) -> int:
        high, low_bits = self._widths[0]
        high_mask, low_mask = (1 << high) - 1, (1 << low_bits) - 1
        for even, odd in self._pairs:
            b = x & low_mask  # (A: high bits, B: low bits) -> (B, A ^ F(B))
            x = (b << high) | ((x >> low_bits) ^ even[b])
            b = x & high_mask  # the halves have swapped sizes
            x = (b << low_bits) | ((x >> high) ^ odd[b])
        return x

    def _encrypt_many(self, x: npt.NDArray[np.signedinteger]) -> npt.NDArray[np.signedinteger]:
        high, low_bits = self._widths[0]
        high_mask, low_mask = (1 << high) - 1, (1 << low_bits) - 1
        arrays = self._arrays
        for r in range(0, self.rounds, 2):
            b = x & low_mask
            x = (b << high) | ((x >> low_bits) ^ arrays[r][b])
            b = x & high_mask
            x = (b << low_bits) | ((x >> high) ^ arrays[r + 1][b])
        return x

    def many(self, x: npt.NDArray[np.int64], *, compiled: bool = True) -> npt.NDArray[np.int64]:
        """``perm`` of every element of an int64 array already known to be in the domain: in
        C where it was built (``_fastlines.feistel_many``), else (or with ``compiled=False``)
        in numpy, the same network and the same results (tests/reference/test_blocks.py)."""
        if not self._arrays:
            raise ValueError("many: this permutation was built with tabulate=False")
        if compiled and self._tables64:
            x = np.ascontiguousarray(x, dtype=np.int64)
            out = np.empty_like(x)
            high, low = self._widths[0]
            fastlines.feistel_many(x, out, self._tables64, high, low, self.size)
            return out
        y = self._encrypt_many(np.asarray(x, dtype=self._dtype))
        outside = np.flatnonzero(y >= self.size)
        while outside.size:  # cycle walking, on the few still outside only
            y[outside] = self._encrypt_many(y[outside])
            outside = outside[y[outside] >= self.size]
        return y.astype(np.int64, copy=False)

    def _decrypt(self, y: int) -> int:
        high, low_bits = self._widths[0]
        high_mask, low_mask = (1 << high) - 1, (1 << low_bits) - 1
        for even, odd in reversed(self._pairs):
            b = y >> low_bits
            y = (((y & low_mask) ^ odd[b]) << high) | b
            b = y >> high
            y = (((y & high_mask) ^ even[b]) << low_bits) | b
        return y

    def _check(self, x: object) -> int:
        if type(x) is not int or not 0 <= x < self.size:
            raise ValueError(
                f"{x!r} ({type(x).__name__}) is not in the permutation's domain 0..{self.size - 1}"
            )
        return x

    def __call__(self, x: int) -> int:
        return self.unchecked(self._check(x))

    def unchecked(self, x: int) -> int:
        """``perm(x)`` for an ``x`` already known to be in the domain (the hot path)."""
        y = self._encrypt(x)
        while y >= self.size:
            y = self._encrypt(y)
        return y

    def inverse(self, y: int) -> int:
        x = self._decrypt(self._check(y))
        while x >= self.size:
            x = self._decrypt(x)
        return x
