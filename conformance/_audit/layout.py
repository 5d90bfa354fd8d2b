"""Unit lines read as numbers, vectorised: a chunk's layout (the reference's canonical one,
or another key order and spacing found in its first lines), its bytes as 8-byte words, and the
index and prize of every line parsed at once. The fast path of ``judge`` builds on these; a
line they cannot read goes to the exact slow path.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .model import IntArray

UNIT_KEYS = ("index", "prize_cents", "ticket")


@dataclass(frozen=True)
class Layout:
    """How a generator writes its unit lines: the order of the three keys and the bytes around
    the values (``{``, ``:`` or ``: ``, ``,`` or ``, ``, ``}``, a CR before the newline or not),
    read off one line. The fast path accepts exactly the lines written this way; any other
    line, valid or not, goes to the exact slow path, so a layout can only make the audit
    faster, never change a verdict."""

    order: tuple[str, str, str]
    colon: bytes
    comma: bytes
    open: bytes
    close: bytes

    def key_literal(self, key: str) -> bytes:
        return b'"' + key.encode() + b'"' + self.colon


CANONICAL = Layout(UNIT_KEYS, b":", b",", b"{", b"}")


_LAYOUT = re.compile(
    rb'(\{ ?)"(index|prize_cents|ticket)"( ?: ?)(?:\d+|"[^"\\]*")( ?, ?)'
    rb'"(index|prize_cents|ticket)"\3(?:\d+|"[^"\\]*")\4'
    rb'"(index|prize_cents|ticket)"\3(?:\d+|"[^"\\]*")( ?\}\r?)'
)


LAYOUT_PROBES = 16  # lines of a chunk tried, in order, for its layout


def layout_of(buf: bytes) -> Layout:
    """The layout of the first of the chunk's first ``LAYOUT_PROBES`` lines written in one the
    fast path knows (the three keys once each, one colon and one comma spelling throughout),
    else the canonical one: a faulty first line does not send the whole chunk to the slow path."""
    at = 0
    for _ in range(LAYOUT_PROBES):
        end = buf.find(b"\n", at)
        line = buf[at : len(buf) if end < 0 else end]
        found = _LAYOUT.fullmatch(line)
        if found is not None:
            order = (found[2].decode(), found[5].decode(), found[6].decode())
            if sorted(order) == sorted(UNIT_KEYS):
                return Layout(order, found[3], found[4], found[1], found[7])
        if end < 0:
            break
        at = end + 1
    return CANONICAL


def words(buf: bytes) -> npt.NDArray[np.uint64]:
    """Every 8-byte window of ``buf`` as a little-endian uint64 (a strided view, no copy);
    ``buf`` must end in at least 24 bytes of padding so any window that starts in it exists."""
    return np.ndarray(shape=(len(buf) - 7,), dtype="<u8", buffer=buf, strides=(1,))


def match_at(words: npt.NDArray[np.uint64], pos: IntArray, text: bytes) -> npt.NDArray[np.bool_]:
    """Whether ``text`` (at most 24 bytes) stands at each of ``pos``: one gather per 8 bytes."""
    ok = np.ones(len(pos), bool)
    for offset in range(0, len(text), 8):
        piece = text[offset : offset + 8]
        mask = np.uint64((1 << (8 * len(piece))) - 1)
        ok &= (words[pos + offset] & mask) == np.uint64(int.from_bytes(piece, "little"))
    return ok


_ZEROS = 0x3030303030303030  # eight ASCII '0'


_HIGH_BITS = 0x8080808080808080


def digits(
    a: npt.NDArray[np.uint8],
    words: npt.NDArray[np.uint64],
    begin: IntArray,
    end: IntArray,
    ok: npt.NDArray[np.bool_],
) -> IntArray:
    """Parse canonical JSON non-negative integers in [begin, end); clears ``ok`` elsewhere.

    Up to 8 digits, a number is read as one word (SWAR): its L digit bytes moved to the top of
    the word over L - 8 ASCII zeros, every byte tested to be a digit at once, then the digits
    combined pairwise (2, 4, 8 at a time) by three multiplications. Longer ones (up to 12)
    are read a digit at a time."""
    length = end - begin
    ok &= (length >= 1) & (length <= 12)
    value = np.zeros(len(begin), np.int64)
    if len(begin) == 0:
        return value
    last = len(a) - 1
    short = ok & (length <= 8)
    at = np.where(short, begin, 0)
    pad = (8 - np.where(short, length, 8)).astype(np.uint64) * np.uint64(8)
    w = words[np.minimum(at, len(words) - 1)] << pad  # the digits at the top ...
    w |= np.uint64(_ZEROS) & ((np.uint64(1) << pad) - np.uint64(1))  # ... ASCII zeros below
    digit = (
        (w | (w + np.uint64(0x4646464646464646)) | (w - np.uint64(_ZEROS))) & np.uint64(_HIGH_BITS)
    ) == 0
    v = w - np.uint64(_ZEROS)
    v = (v * np.uint64(10) + (v >> np.uint64(8))) & np.uint64(0x00FF00FF00FF00FF)
    v = (v * np.uint64(100) + (v >> np.uint64(16))) & np.uint64(0x0000FFFF0000FFFF)
    v = (v * np.uint64(10000) + (v >> np.uint64(32))) & np.uint64(0xFFFFFFFF)
    value = np.where(short, v.astype(np.int64), 0)
    ok &= ~short | digit
    long = np.flatnonzero(ok & (length > 8))
    if len(long):
        begin_l, length_l = begin[long], length[long]
        value_l = np.zeros(len(long), np.int64)
        good_l = np.ones(len(long), bool)
        for k in range(int(length_l.max())):
            inside = k < length_l
            d = a[np.minimum(begin_l + k, last)].astype(np.int64) - 48
            good_l &= ~inside | ((d >= 0) & (d <= 9))
            value_l = np.where(inside, value_l * 10 + d, value_l)
        value[long] = value_l
        ok[long] &= good_l
    ok &= (length == 1) | (a[np.minimum(begin, last)] != 48)  # JSON: no leading zero
    return value


def match_layout(
    a: npt.NDArray[np.uint8],
    words: npt.NDArray[np.uint64],
    q: IntArray,
    s: IntArray,
    e: IntArray,
    layout: Layout,
) -> tuple[npt.NDArray[np.bool_], dict[str, IntArray], tuple[IntArray, IntArray]]:
    """Which lines [s, e) with quotes ``q`` (8 a line) are written exactly in ``layout``: their
    two integers parsed (canonical JSON) and the bounds of their ticket's text."""
    n = len(s)
    good = (e - s >= 30) & match_at(words, s, layout.open)
    good &= match_at(words, np.maximum(e - len(layout.close), 0), layout.close)
    slot = 0
    at = s + len(layout.open)  # where the next key's opening quote must stand
    values: dict[str, IntArray] = {}
    t0 = t1 = np.zeros(n, np.int64)
    for k, key in enumerate(layout.order):
        literal = layout.key_literal(key)
        good &= (q[:, slot] == at) & (q[:, slot + 1] == at + len(key) + 1)
        good &= match_at(words, np.where(good, at, s), literal)
        begin = at + len(literal)
        slot += 2
        last = k == len(layout.order) - 1
        if key == "ticket":
            good &= q[:, slot] == begin
            t0, t1 = q[:, slot] + 1, q[:, slot + 1]
            end = q[:, slot + 1] + 1
            slot += 2
        else:  # an integer runs to the comma before the next key's quote, or to the close
            end = e - len(layout.close) if last else q[:, slot] - len(layout.comma)
            values[key] = digits(a, words, begin, end, good)
        if last:
            good &= end == e - len(layout.close)
        else:
            good &= match_at(words, np.where(good, end, s), layout.comma)
            at = end + len(layout.comma)
    return good, values, (t0, t1)


REORDERED_MIN = 32
"""Lines of a chunk outside its layout from which the other key orders are tried at all: fewer
go straight to the slow path (a faulty line or two costs nothing more)."""


def match_other_orders(
    a: npt.NDArray[np.uint8],
    words: npt.NDArray[np.uint64],
    q: IntArray,
    s: IntArray,
    e: IntArray,
    layout: Layout,
    good: npt.NDArray[np.bool_],
    values: dict[str, IntArray],
    bounds: tuple[IntArray, IntArray],
) -> tuple[IntArray, IntArray]:
    """The lines ``match_layout`` left out, matched in each other order of the three keys with
    the layout's separators; ``good`` and ``values`` updated in place, the ticket bounds
    returned.

    A serializer whose key order varies from line to line (Perl's hashes, each in an order of
    its own) writes valid unit lines that no one layout vouches for; without this, every one
    went down the slow path, 20 times slower for a whole block. Each order is as strict as the
    layout's own (the same exact match, the same canonical integers), so this too can only make
    the audit faster, never change a verdict.
    """
    t0, t1 = bounds
    missed = np.flatnonzero(~good)
    if len(missed) < REORDERED_MIN:
        return t0, t1
    t0, t1 = t0.copy(), t1.copy()  # (the bounds may be views of ``q``)
    for first, second, third in itertools.permutations(UNIT_KEYS):
        order = (first, second, third)
        if order == layout.order:
            continue
        other = Layout(order, layout.colon, layout.comma, layout.open, layout.close)
        ok, got, (b0, b1) = match_layout(a, words, q[missed], s[missed], e[missed], other)
        hit = missed[ok]
        good[hit] = True
        for key, value in got.items():
            values[key][hit] = value[ok]
        t0[hit], t1[hit] = b0[ok], b1[ok]
        missed = missed[~ok]
        if len(missed) < REORDERED_MIN:
            break
    return t0, t1
