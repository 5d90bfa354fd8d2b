"""Randomness across two blocks: is one block's layout a simple transform of the other's?

Comparing two blocks position by position only sees a copy. A vendor whose second block is the
first shifted by one place, rotated, reversed or read through an affine map of the indices
passes that; these tests do not let it. Every test here has an exact null distribution, or a
union (Bonferroni) bound over exact ones, so a correct target fails with at most the stated
chance; the family is judged by Holm-Bonferroni with the position-by-position tests.

The null hypothesis is the one a correct generator satisfies: block B's layout is a uniformly
random arrangement of its lot table, independent of block A. Then for ANY fixed transform T of
A's winner indicators and any cyclic lag k, the overlap sum_i T(A)_i B_(i+k) is hypergeometric
(size n, T(A)'s winners, B's winners): B shifted cyclically is still uniformly arranged. For a
bijective T it holds just as well when A is the random one and B arbitrary. The same holds
inside a slice read from both blocks at the same place (a slice of a uniform layout, given its
count, is uniformly arranged), taken as a circle.

- ``lag_overlap``: the largest and the smallest winner overlap over all n cyclic lags of A read
  through each multiplier c (A_c[i] = A[c i mod n]; c = 1 is a shift or rotation, c = -1 a
  reversal or mirror, |c| >= 2 an affine remap, both ways round; and modulo n - 1, where
  c = 2 is the perfect shuffle of the two halves), computed with FFT cross-correlation;
  p = (number of lags x transforms x 2 sides) x the smallest one-sided hypergeometric tail.
  Only multipliers prime to the modulus are used (``transforms``): then the test holds its
  level whenever either block is random, so one bad block does not fail this requirement.
  Whole blocks use ``WHOLE_MULTIPLIERS``; a slice only c = +-1 (a remap moves units out of
  the slice read).
- ``order_overlap``: the same on the sequence of winners in position order, each flagged "above
  the lowest prize", over every lag of that sequence: a map that keeps the winners' order
  (stretch, insertions, a copy shifted by a varying amount) keeps that sequence.
- ``lag_overlap.top``: for the sparse tiers (at most ``SPARSE_UNITS`` units in both), the
  pairwise differences of positions: the most frequent difference (y - c x) mod n between a
  unit of the tier in B and one in A, against the hypergeometric law of one lag, union bound
  over lags, multipliers and tiers. It catches top prizes placed alike in every block.
- ``segment_counts.<k>``: the Pearson correlation of the two blocks' winner counts in k equal
  segments (k in ``SEGMENT_COUNTS``, where a segment holds enough units and winners), two-sided,
  r's null law that of independent normal samples (t with k - 2 degrees of freedom). Given A,
  B's counts are exchangeable, so r is centred with variance 1/(k - 1) and near-normal over
  many segments. It catches a block whose every segment holds the winners another block's
  holds, however they are moved inside the segment (a layout re-shuffled chunk by chunk),
  which no position-by-position or lagged overlap sees.

Blocks of two stakes (eldorado) are compared on a common scale (``common_tiers``): each unit's
rank in its own block's lot table when both tables have the same count at every rank, else
winning or not.

Memory: a few float64 arrays of n (16 MB each at 2 000 000 units); time: 14 transforms of a
whole 2 000 000-unit block take 3 to 7 s for a pair on the shared 2-core machine, a 20 000-unit
slice a few milliseconds; ``segment_counts`` one cumulative sum per block, milliseconds.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from . import _laws
from ._stats import FamilyVerdict, RandomnessTest, holm, tier_codes, two_sided

WHOLE_MULTIPLIERS: tuple[int, ...] = (1, -1, 2, -2, 3, -3, 5, -5, 7, -7)
SHUFFLE_MULTIPLIERS: tuple[int, ...] = (2, -2)  # modulo n - 1: the perfect shuffles
SLICE_MULTIPLIERS: tuple[int, ...] = (1, -1)
SPARSE_UNITS = 300
SEGMENT_COUNTS: tuple[int, ...] = (100, 1000, 10000)
MIN_SEGMENT_UNITS = 20  # a segment count k is used when every segment holds this many units
MIN_SEGMENT_WINNERS = 5.0  # ... and this many winners expected, in both blocks

BoolArray = npt.NDArray[np.bool_]
IntArray = npt.NDArray[np.int64]


@lru_cache(maxsize=4096)
def _at_least(n: int, good: int, draws: int, hits: int) -> float:
    """P(H >= hits), H hypergeometric: ``draws`` from ``n`` units of which ``good`` are good."""
    return _laws.hypergeom_sf(hits - 1, n, good, draws)


def remap(x: BoolArray, c: int) -> BoolArray:
    """``x`` read through the multiplier ``c``: element i is ``x[c * i mod len(x)]``."""
    n = len(x)
    return x if c == 1 else x[(c * np.arange(n, dtype=np.int64)) % n]


def circular_overlaps(
    x: BoolArray, y: BoolArray, fy: npt.NDArray[np.complex128] | None = None
) -> IntArray:
    """``r[k] = sum_i x[i] * y[(i + k) mod n]`` for every lag k, by FFT (exact after rounding:
    the sums are integers below 2^53). ``fy``: ``spectrum(y)`` if already computed.

    A length with a large prime factor (1 999 999, 899 999) would make a length-n FFT slow:
    then the linear correlation is computed at a fast padded length and folded onto the circle.
    """
    n = len(x)
    size = _fft_size(n)
    fx = np.fft.rfft(x.astype(np.float64), size)
    if fy is None:
        fy = spectrum(y)
    r = np.rint(np.fft.irfft(np.conj(fx) * fy, size)).astype(np.int64)
    if size == n:
        return r
    # lin[k] for k in [0, n) sits at r[k]; for k in (-n, 0) at r[size + k]: fold k and k - n
    return r[:n] + np.concatenate(([0], r[size - n + 1 :]))


def _fft_size(n: int) -> int:
    fast = _laws.next_fast_len(n)
    return n if fast == n else _laws.next_fast_len(2 * n - 1)


def spectrum(y: BoolArray) -> npt.NDArray[np.complex128]:
    """The FFT of ``y`` at the length ``circular_overlaps`` uses."""
    return np.fft.rfft(y.astype(np.float64), _fft_size(len(y)))


Transform = tuple[int, int, bool]  # (modulus, multiplier, applied to B rather than A)


def transforms(n: int, multipliers: Sequence[int]) -> list[Transform]:
    """The index maps tried: i -> c i mod n, and i -> +-2 i mod n - 1 (the first n - 1 units on
    their own circle: the perfect shuffles of the two halves), each on A and, for
    |c| >= 2, on B. Only multipliers prime to the modulus: a bijection keeps a uniformly random
    arrangement uniform, so each overlap is hypergeometric as long as EITHER block is random
    (a fault of one block alone never shows here)."""
    out: list[Transform] = []
    remaps = any(abs(c) >= 2 for c in multipliers) and n > 2
    for m, cs in ((n, multipliers), (n - 1, SHUFFLE_MULTIPLIERS if remaps else ())):
        for c in cs:
            if math.gcd(c, m) == 1:
                out.extend((m, c, swap) for swap in ((False,) if abs(c) == 1 else (False, True)))
    return out


def _label(t: Transform, n: int) -> str:
    m, c, swap = t
    return f"{'B' if swap else 'A'}[{c}*i mod {m}]" if m != n else f"{'B' if swap else 'A'}[{c}*i]"


def lagged_overlap(
    a: BoolArray, b: BoolArray, multipliers: Sequence[int], name: str = "lag_overlap"
) -> RandomnessTest | None:
    """Max and min overlap over every cyclic lag and transform; union-bounded p (see module)."""
    n = len(a)
    if n < 3 or len(b) != n:
        return None
    count_a, count_b = int(a.sum()), int(b.sum())
    if min(count_a, count_b) == 0 or max(count_a, count_b) == n:
        return None
    best = (2.0, "", 0, "", 0, 0.0)  # (tail, transform, lag, side, overlap, expected)
    tried = transforms(n, multipliers)
    spectra: dict[tuple[int, bool], npt.NDArray[np.complex128]] = {}
    for t in tried:
        m, c, swap = t
        moved, fixed = (b[:m], a[:m]) if swap else (a[:m], b[:m])
        if (m, swap) not in spectra:
            spectra[(m, swap)] = spectrum(fixed)
        x = remap(moved, c)
        overlaps = circular_overlaps(x, fixed, spectra[(m, swap)])
        good, draws = int(x.sum()), int(fixed.sum())
        expected = good * draws / m
        hi, lo = int(overlaps.argmax()), int(overlaps.argmin())
        for side, lag, tail in (
            ("high", hi, _at_least(m, good, draws, int(overlaps[hi]))),
            ("low", lo, _laws.hypergeom_cdf(int(overlaps[lo]), m, good, draws)),
        ):
            if tail < best[0]:
                signed = lag - m if lag > m // 2 else lag  # fixed[i + lag] against moved[i]
                where = f"{'A' if swap else 'B'}[i {signed:+d}] against {_label(t, n)}"
                best = (tail, where, signed, side, int(overlaps[lag]), expected)
    tail, label, _lag, side, overlap, expected = best
    p = min(1.0, 2.0 * len(tried) * n * tail)
    note = (
        f"most extreme: overlap {overlap} ({side}, expected {expected:.1f}) of {label}; "
        f"union bound over {len(tried)} transform(s) x {n} lags x 2 sides"
    )
    return RandomnessTest(name, p, float(overlap), note)


def winner_order(codes: IntArray) -> BoolArray:
    """The winners in position order, each flagged True when above the lowest prize tier."""
    winners = codes[codes > 0]
    return np.asarray(winners > 1, dtype=bool)


def order_overlap(codes_a: IntArray, codes_b: IntArray) -> RandomnessTest | None:
    """``lagged_overlap`` of the two blocks' winner-order sequences (cut to the shorter)."""
    sa, sb = winner_order(codes_a), winner_order(codes_b)
    size = min(len(sa), len(sb))
    return lagged_overlap(sa[:size], sb[:size], SLICE_MULTIPLIERS, "order_overlap")


def sparse_overlap(
    codes_a: IntArray, codes_b: IntArray, multipliers: Sequence[int]
) -> RandomnessTest | None:
    """Pairwise position differences of the sparse tiers (``lag_overlap.top``)."""
    n = len(codes_a)
    tiers = sorted(set(np.unique(codes_a[codes_a > 0]).tolist()))
    best = (2.0, 0, "", 0, 0)  # (tail, tier, transform, lag, coincidences)
    tries = 0
    tried = transforms(n, multipliers)
    for tier in tiers:
        xa = np.flatnonzero(codes_a == tier)
        xb = np.flatnonzero(codes_b == tier)
        if not (0 < len(xa) <= SPARSE_UNITS and 0 < len(xb) <= SPARSE_UNITS):
            continue
        for t in tried:
            m, c, swap = t
            u, v = (xb, xa) if swap else (xa, xb)
            u, v = u[u < m], v[v < m]
            if not (len(u) and len(v)):
                continue
            image = (c * u) % m
            counts = np.bincount(((v[None, :] - image[:, None]) % m).ravel())
            lag = int(counts.argmax())
            tail = _at_least(m, len(image), len(v), int(counts[lag]))
            tries += 1
            if tail < best[0]:
                moved, fixed = ("B", "A") if swap else ("A", "B")
                label = f"(y - {c} x) mod {m}, x in {moved}, y in {fixed}"
                best = (tail, tier, label, lag, int(counts[lag]))
    if not tries:
        return None
    tail, tier, label, lag, hits = best
    note = (
        f"most coincidences: {hits} units of tier {tier} at {label} = {lag}; "
        f"union bound over {tries} (tier, transform) x {n} lags"
    )
    return RandomnessTest("lag_overlap.top", min(1.0, tries * n * tail), float(hits), note)


def segment_counts(
    a: BoolArray, b: BoolArray, parts: Sequence[int] = SEGMENT_COUNTS
) -> list[RandomnessTest]:
    """``segment_counts.<k>``: the correlation of winners per segment, for each k of ``parts``
    whose segments hold ``MIN_SEGMENT_UNITS`` units and ``MIN_SEGMENT_WINNERS`` expected winners.

    Each count is taken less its expectation (segment size x the block's winner rate), so
    segments one unit longer than others (n not a multiple of k) add no correlation of their
    own. None of the two-sided p-values needs more than one cumulative sum per block."""
    n = len(a)
    if n < 3 or len(b) != n:
        return []
    sums_a = np.concatenate(([0], np.cumsum(a, dtype=np.int64)))
    sums_b = np.concatenate(([0], np.cumsum(b, dtype=np.int64)))
    rate_a, rate_b = int(sums_a[-1]) / n, int(sums_b[-1]) / n
    out: list[RandomnessTest] = []
    for k in parts:
        if k < 3 or n < k * MIN_SEGMENT_UNITS or n * min(rate_a, rate_b) < k * MIN_SEGMENT_WINNERS:
            continue
        bounds = np.linspace(0, n, k + 1).round().astype(np.int64)
        sizes = np.diff(bounds).astype(np.float64)
        xa = np.diff(sums_a[bounds]) - sizes * rate_a
        xb = np.diff(sums_b[bounds]) - sizes * rate_b
        r, p = _laws.pearsonr(xa, xb)
        if math.isnan(r):
            continue
        note = f"winners in {k} segments of {n / k:.0f} units: r = {r:.4f} (t law, {k - 2} df)"
        out.append(RandomnessTest(f"segment_counts.{k}", p, r, note))
    return out


def rank_codes(prizes: npt.NDArray[np.integer], lots: Mapping[int, int]) -> IntArray:
    """Each unit's rank in its block's lot table: 0 losing, 1 the lowest prize, ... t the top
    one (t prizes), t + 1 a prize the table does not hold (still a winner), -1 below zero."""
    table = sorted(p for p in lots if p > 0)
    codes = tier_codes(prizes, table)
    codes[(codes < 0) & (prizes > 0)] = len(table) + 1
    return codes


def common_tiers(
    first: npt.NDArray[np.integer],
    first_lots: Mapping[int, int],
    second: npt.NDArray[np.integer],
    second_lots: Mapping[int, int],
) -> tuple[IntArray, IntArray, dict[int, int], str]:
    """Two blocks with lot tables of their own (two stakes) on one scale, for ``unrelated``.

    Tables with the same count at every rank (eldorado's stakes: the prizes scaled, the counts
    alike) compare tiers by rank (``"rank"``): a layout copied across stakes keeps every tier
    in place. Otherwise only winning against losing can be compared (``"winners"``). Returns
    the two code arrays, the lot table they follow (first block's counts) and the scale."""

    def counts(lots: Mapping[int, int]) -> list[int]:
        return [lots.get(0, 0)] + [lots[p] for p in sorted(p for p in lots if p > 0)]

    if counts(first_lots) == counts(second_lots):
        table = dict(enumerate(counts(first_lots)))
        return rank_codes(first, first_lots), rank_codes(second, second_lots), table, "rank"
    winners = sum(n for p, n in first_lots.items() if p > 0)
    table = {0: sum(first_lots.values()) - winners, 1: winners}
    a = (first.astype(np.int64) > 0).astype(np.int64)
    b = (second.astype(np.int64) > 0).astype(np.int64)
    return a, b, table, "winners"


def unrelated(
    first: npt.NDArray[np.integer],
    second: npt.NDArray[np.integer],
    lots: Mapping[int, int],
    alpha: float,
) -> FamilyVerdict:
    """Two blocks (or the same slice of two blocks) have unrelated layouts.

    ``overlap``: winners at the same positions, hypergeometric, two-sided; ``correlation``: the
    Pearson correlation of prize tiers at the same positions; then the tests of this module
    (``segment_counts`` on every pair: whole blocks and slices alike).
    Whole blocks (``len == sum(lots)``) are tried through every multiplier, slices through +-1.
    """
    size = min(len(first), len(second))
    a = first[:size].astype(np.int64)
    b = second[:size].astype(np.int64)
    wa, wb = a > 0, b > 0
    n1, n2 = int(wa.sum()), int(wb.sum())
    overlap = int(np.count_nonzero(wa & wb))
    upper = _laws.hypergeom_sf(overlap - 1, size, n1, n2)
    p = two_sided(upper, _laws.hypergeom_cdf(overlap, size, n1, n2))
    results = [
        RandomnessTest("overlap", p, float(overlap), f"expected {n1 * n2 / max(size, 1):.1f}")
    ]
    tiers_prizes = sorted(x for x in lots if x > 0)
    ca = np.maximum(tier_codes(a, tiers_prizes), 0)
    cb = np.maximum(tier_codes(b, tiers_prizes), 0)
    fa, fb = ca.astype(float), cb.astype(float)
    if size >= 10 and fa.std() > 0 and fb.std() > 0:
        r, p_r = _laws.pearsonr(fa, fb)
        results.append(RandomnessTest("correlation", p_r, r, "tiers"))
    whole = size == sum(lots.values()) and len(first) == len(second)
    multipliers = WHOLE_MULTIPLIERS if whole else SLICE_MULTIPLIERS
    for test in (
        lagged_overlap(wa, wb, multipliers),
        order_overlap(ca, cb),
        sparse_overlap(ca, cb, multipliers),
    ):
        if test is not None:
            results.append(test)
    results.extend(segment_counts(wa, wb))
    return holm(results, alpha)
