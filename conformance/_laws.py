"""The null laws of the randomness tests, from numpy and ``scipy.special`` alone.

``scipy.stats`` costs about half a second of CPU to import (it pulls in scipy.optimize,
spatial, sparse, linalg, ...); on the block audit's path that time came straight off the wall
clock, and the tests of ``conformance._stats`` and ``conformance._crossblock`` use a handful of
its functions. Each function here computes what the ``scipy.stats`` function it names computes,
with the same special functions in the same order where scipy has a closed form (so the
p-values in the reports stay scipy's), the exact Kolmogorov-Smirnov and Cramer-von Mises laws
vendored from scipy (``conformance._laws_scipy``), and the hypergeometric law by Loader's
saddle-point method (the one R's ``dhyper``/``phyper`` use; scipy's is Boost's, private to
scipy), in exact integers up to ``EXACT_POPULATION`` units. ``tests/conformance/test_laws.py``
holds each one against ``scipy.stats`` over the ranges the audit uses.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from . import _special as special
from ._laws_scipy import cramervonmises_uniform, kstwo_sf

__all__ = [
    "chi2_cdf",
    "chi2_sf",
    "chisquare",
    "cramervonmises_uniform",
    "geom_cdf",
    "geom_ppf",
    "hypergeom_cdf",
    "hypergeom_sf",
    "ks_uniform",
    "kstwo_sf",
    "kstwobign_sf",
    "next_fast_len",
    "pearson_from_sums",
    "pearsonr",
    "previous_fast_len",
]

FloatArray = npt.NDArray[np.float64]


def chi2_sf(x: float, df: float) -> float:
    """``scipy.stats.chi2(df).sf(x)``: the upper tail of the chi-square law."""
    if not df > 0 or math.isnan(x):
        return math.nan
    return 1.0 if x <= 0 else float(special.chdtrc(df, x))


def chi2_cdf(x: float, df: float) -> float:
    """``scipy.stats.chi2(df).cdf(x)``: the lower tail of the chi-square law."""
    if not df > 0 or math.isnan(x):
        return math.nan
    if x <= 0:
        return 0.0
    return 1.0 if x == math.inf else float(special.chdtr(df, x))


def chisquare(observed: npt.ArrayLike, expected: npt.ArrayLike) -> tuple[float, float]:
    """``scipy.stats.chisquare(observed, expected)``: (Pearson's statistic, upper-tail p on
    len - 1 degrees of freedom). Like scipy, totals that differ by more than sqrt(eps)
    relative are refused: the expected counts must describe the observed ones."""
    f_obs = np.asarray(observed, dtype=np.float64)
    f_exp = np.asarray(expected, dtype=np.float64)
    if f_obs.shape != f_exp.shape or f_obs.ndim != 1:
        raise ValueError(f"observed {f_obs.shape} and expected {f_exp.shape}: not two 1-d alike")
    total_obs, total_exp = f_obs.sum(), f_exp.sum()
    with np.errstate(invalid="ignore", divide="ignore"):
        gap = float(np.abs(total_obs - total_exp) / np.minimum(total_obs, total_exp))
    if gap > np.finfo(np.float64).eps ** 0.5:
        total_obs, total_exp = float(total_obs), float(total_exp)
        raise ValueError(
            f"observed total {total_obs!r} and expected total {total_exp!r} differ by {gap!r}"
        )
    statistic = float(np.sum((f_obs - f_exp) ** 2 / f_exp))
    return statistic, float(special.chdtrc(float(len(f_obs) - 1), statistic))


def kstwobign_sf(x: float) -> float:
    """``scipy.stats.kstwobign.sf(x)``: Kolmogorov's limiting law of sqrt(n) D_n."""
    if math.isnan(x):
        return math.nan
    return 1.0 if x <= 0 else float(special.kolmogorov(x))


def ks_uniform(values: npt.ArrayLike, *, exact: bool) -> tuple[float, float]:
    """``scipy.stats.kstest(values, "uniform", method="exact" | "asymp")``: (D, p) of the
    two-sided one-sample Kolmogorov-Smirnov test against the uniform law on [0, 1]."""
    x = np.sort(np.asarray(values, dtype=np.float64))
    n = len(x)
    if n == 0:
        return math.nan, math.nan
    cdfvals = np.clip(x, 0.0, 1.0)
    d_plus = float(np.max(np.arange(1.0, n + 1) / n - cdfvals))
    d_minus = float(np.max(cdfvals - np.arange(0.0, n) / n))
    d = d_plus if d_plus > d_minus else d_minus
    p = kstwo_sf(d, n) if exact else kstwobign_sf(d * math.sqrt(n))
    return d, float(np.clip(p, 0.0, 1.0))


def pearsonr(x: npt.ArrayLike, y: npt.ArrayLike) -> tuple[float, float]:
    """``scipy.stats.pearsonr(x, y)``: (r, two-sided p), r's null law the beta law on (-1, 1)
    with a = b = n/2 - 1; nan for a constant input (scipy warns and gives nan too)."""
    a = np.asarray(x, dtype=np.float64)
    b = np.asarray(y, dtype=np.float64)
    if a.ndim != 1 or a.shape != b.shape or len(a) < 2:
        raise ValueError(f"pearsonr needs two 1-d samples alike of 2 or more, got {a.shape}")
    if np.all(a == a[0]) or np.all(b == b[0]):
        return math.nan, math.nan
    am, bm = a - np.mean(a), b - np.mean(b)
    # scaled by the largest deviation first, as scipy does (no premature overflow)
    amax, bmax = np.max(np.abs(am)), np.max(np.abs(bm))
    norm_a = amax * np.linalg.norm(am / amax, ord=2, axis=-1, keepdims=True)
    norm_b = bmax * np.linalg.norm(bm / bmax, ord=2, axis=-1, keepdims=True)
    r = float(np.clip(np.dot(am / norm_a, bm / norm_b), -1.0, 1.0))
    return _pearson_p(r, len(a))


def _pearson_p(r: float, n: int) -> tuple[float, float]:
    if n == 2:
        return float(np.round(r)), 1.0
    ab = n / 2 - 1
    return r, float(2 * special.betaincc(ab, ab, (abs(r) - -1) / 2))


def pearsonr_integers(x: npt.NDArray[np.int64], y: npt.NDArray[np.int64]) -> tuple[float, float]:
    """``pearsonr`` of two samples of small integers (prize tiers), r from exact integer sums:
    n sum(xy) - sum(x) sum(y) over the square roots of the same for x and y, rounded once.

    scipy's float algorithm takes a dozen passes over the samples (a fifth of a second on a
    robots block); this takes five, and its r differs from scipy's only in the last bits
    (``tests/conformance/test_laws.py``). Samples whose sums could overflow 64 bits, or that
    are not integers, go to ``pearsonr``."""
    n = len(x)
    if len(y) != n or n < 2 or x.dtype.kind not in "iu" or y.dtype.kind not in "iu":
        return pearsonr(x, y)
    top = max(int(np.abs(x).max()), int(np.abs(y).max()), 1)
    if top * top * n >= 2**62:
        return pearsonr(x, y)
    a, b = x.astype(np.int64, copy=False), y.astype(np.int64, copy=False)
    sums = (int(a.sum()), int(b.sum()), int(np.dot(a, a)), int(np.dot(b, b)), int(np.dot(a, b)))
    return pearson_from_sums(n, *sums)


def pearson_from_sums(
    n: int, sx: int, sy: int, sxx: int, syy: int, sxy: int
) -> tuple[float, float]:
    """(r, p) of ``pearsonr`` from the exact integer sums of ``n`` pairs: sum x, sum y,
    sum x^2, sum y^2, sum xy (``pearsonr_integers``; ``_stats.serial_test`` sums only the
    winners of a block, the rest being zeros)."""
    vx = n * sxx - sx * sx
    vy = n * syy - sy * sy
    if vx == 0 or vy == 0:
        return math.nan, math.nan
    cov = n * sxy - sx * sy
    r = min(1.0, max(-1.0, cov / (math.sqrt(vx) * math.sqrt(vy))))
    return _pearson_p(r, n)


def geom_cdf(k: npt.ArrayLike, p: float) -> FloatArray:
    """``scipy.stats.geom(p).cdf(k)``: P(G <= k), G the trial of the first success (1, 2, ...)."""
    k = np.asarray(k, dtype=np.float64)
    if not 0 < p <= 1:
        return np.full(k.shape, np.nan)
    out = np.zeros(k.shape)
    inside = (k >= 1) & np.isfinite(k)
    out[k == math.inf] = 1.0
    out[np.isnan(k)] = np.nan
    kk = np.floor(k[inside])
    out[inside] = np.clip(-np.expm1(np.log1p(-np.full(kk.shape, p)) * kk), 0, 1)
    return out


def geom_ppf(q: npt.ArrayLike, p: float) -> FloatArray:
    """``scipy.stats.geom(p).ppf(q)``: the least k with P(G <= k) >= q (0 at q = 0)."""
    q = np.asarray(q, dtype=np.float64)
    out = np.full(q.shape, np.nan)
    if not 0 < p <= 1:
        return out
    out[q == 0] = 0.0
    out[q == 1] = math.inf
    inside = (q > 0) & (q < 1)
    qq = q[inside]
    log_fail = np.log1p(-np.full(qq.shape, p))
    vals = np.ceil(np.log1p(-qq) / log_fail)
    below = -np.expm1(log_fail * np.floor(vals - 1))
    out[inside] = np.where((below >= qq) & (vals > 0), vals - 1, vals)
    return out


# --- the hypergeometric law (Loader 2000, "Fast and accurate computation of binomial
# probabilities"; the tails summed as R's phyper does) --------------------------------------


def _stirlerr(n: float) -> float:
    """log(n!) - log(sqrt(2 pi n) (n / e)^n), by its series above 15."""
    if n <= 15:
        if n == 0:
            return 0.0
        return math.lgamma(n + 1.0) - (n + 0.5) * math.log(n) + n - 0.5 * math.log(2 * math.pi)
    s0, s1, s2 = 1.0 / 12, 1.0 / 360, 1.0 / 1260
    s3, s4 = 1.0 / 1680, 1.0 / 1188
    nn = n * n
    if n > 500:
        return (s0 - s1 / nn) / n
    if n > 80:
        return (s0 - (s1 - s2 / nn) / nn) / n
    if n > 35:
        return (s0 - (s1 - (s2 - s3 / nn) / nn) / nn) / n
    return (s0 - (s1 - (s2 - (s3 - s4 / nn) / nn) / nn) / nn) / n


def _bd0(x: float, mean: float) -> float:
    """x log(x / mean) + mean - x, without cancellation when x is near the mean."""
    if abs(x - mean) < 0.1 * (x + mean):
        v = (x - mean) / (x + mean)
        s = (x - mean) * v
        ej = 2 * x * v
        v *= v
        j = 1
        while True:
            ej *= v
            s1 = s + ej / (2 * j + 1)
            if s1 == s:
                return s1
            s = s1
            j += 1
    return x * math.log(x / mean) + mean - x


def _binom_raw(x: float, n: float, p: float, q: float) -> float:
    """P(X = x), X binomial (n, p), q = 1 - p, relatively accurate for large n."""
    if p == 0:
        return 1.0 if x == 0 else 0.0
    if q == 0:
        return 1.0 if x == n else 0.0
    if x == 0:
        if n == 0:
            return 1.0
        return math.exp(-_bd0(n, n * q) - n * p if p < 0.1 else n * math.log(q))
    if x == n:
        return math.exp(-_bd0(n, n * p) - n * q if q < 0.1 else n * math.log(p))
    if x < 0 or x > n:
        return 0.0
    lc = _stirlerr(n) - _stirlerr(x) - _stirlerr(n - x) - _bd0(x, n * p) - _bd0(n - x, n * q)
    lf = math.log(2 * math.pi) + math.log(x) + math.log1p(-x / n)
    return math.exp(lc - 0.5 * lf)


def _hyper_pmf(x: float, white: float, black: float, drawn: float) -> float:
    """P(X = x), X the white balls among ``drawn`` from ``white`` + ``black``."""
    if x < 0 or drawn < x or white < x or drawn - x > black:
        return 0.0
    if drawn == 0:
        return 1.0 if x == 0 else 0.0
    total = white + black
    p, q = drawn / total, (total - drawn) / total
    p1 = _binom_raw(x, white, p, q)
    p2 = _binom_raw(drawn - x, black, p, q)
    p3 = _binom_raw(drawn, total, p, q)
    return p1 * p2 / p3


def _hyper_tail_sum(x: float, white: float, black: float, drawn: float) -> float:
    """P(X <= x) / P(X = x) for x at or below the mean (the terms fall away from it)."""
    total, term = 0.0, 1.0
    eps = float(np.finfo(np.float64).eps)
    while x > 0 and term >= eps * total:
        term *= x * (black - drawn + x) / (drawn + 1 - x) / (white + 1 - x)
        total += term
        x -= 1
    return 1.0 + total


def _hyper_cdf(x: float, white: float, black: float, drawn: float, lower: bool) -> float:
    """P(X <= x) (``lower``) or P(X > x): the tail away from the mean is summed, the other is
    its complement, so a small tail keeps its relative accuracy."""
    x = math.floor(x + 1e-7)
    if x * (white + black) > drawn * white:  # above the mean: the other colour's lower tail
        white, black = black, white
        x = drawn - x - 1
        lower = not lower
    if x < 0 or x < drawn - black:
        return 0.0 if lower else 1.0
    if x >= white or x >= drawn:
        return 1.0 if lower else 0.0
    tail = _hyper_pmf(x, white, black, drawn) * _hyper_tail_sum(x, white, black, drawn)
    return tail if lower else 0.5 - tail + 0.5


EXACT_POPULATION = 2000  # up to this many units, the tails are summed in exact integers


def _hyper_exact(k: int, total: int, good: int, draws: int, lower: bool) -> float:
    """P(H <= k) (``lower``) or P(H > k), k inside the support, as the correctly rounded
    quotient of exact sums of binomial products (small populations: a few hundred digits)."""
    bad = total - good
    low, high = max(0, draws - bad), min(good, draws)
    below = range(low, k + 1)
    above = range(k + 1, high + 1)
    # sum the shorter side; the other is the whole minus it, still exact
    part = below if len(below) <= len(above) else above
    mass = sum(math.comb(good, j) * math.comb(bad, draws - j) for j in part)
    whole = math.comb(total, draws)
    wanted = mass if (part is below) == lower else whole - mass
    return wanted / whole


def _hyper_valid(total: int, good: int, draws: int) -> bool:
    return total > 0 and 0 <= good <= total and 0 <= draws <= total


def hypergeom_sf(k: float, total: int, good: int, draws: int) -> float:
    """``scipy.stats.hypergeom.sf(k, total, good, draws)``: P(H > k), H the good units among
    ``draws`` drawn without replacement from ``total`` units of which ``good`` are good."""
    if not _hyper_valid(total, good, draws) or math.isnan(k):
        return math.nan
    if k < max(draws - (total - good), 0):
        return 1.0
    if k >= min(good, draws):
        return 0.0
    if total <= EXACT_POPULATION and k == int(k):
        return _hyper_exact(int(k), total, good, draws, lower=False)
    return min(1.0, max(0.0, _hyper_cdf(k, good, total - good, draws, lower=False)))


def hypergeom_cdf(k: float, total: int, good: int, draws: int) -> float:
    """``scipy.stats.hypergeom.cdf(k, total, good, draws)``: P(H <= k)."""
    if not _hyper_valid(total, good, draws) or math.isnan(k):
        return math.nan
    if k >= min(good, draws):
        return 1.0
    if k < max(draws - (total - good), 0):
        return 0.0
    if total <= EXACT_POPULATION and k == int(k):
        return _hyper_exact(int(k), total, good, draws, lower=True)
    return min(1.0, max(0.0, _hyper_cdf(k, good, total - good, draws, lower=True)))


def next_fast_len(n: int) -> int:
    """``scipy.fft.next_fast_len(n, real=True)``: the least 2^a 3^b 5^c at or above ``n``
    (the lengths pocketfft, numpy's FFT too, transforms fastest)."""
    if n <= 6:
        return max(n, 1)
    best = 1 << (n - 1).bit_length()  # a power of two always qualifies
    p5 = 1
    while p5 < best:
        p35 = p5
        while p35 < best:
            # the least power-of-two multiple of p35 at or above n
            quotient = -(-n // p35)
            candidate = p35 * (1 << (quotient - 1).bit_length())
            best = min(best, candidate)
            p35 *= 3
        p5 *= 5
    return best


def previous_fast_len(n: int) -> int:
    """The greatest 2^a 3^b 5^c at or below ``n`` (``n`` >= 1): a length ``next_fast_len``
    gives back unchanged."""
    if n < 1:
        raise ValueError(f"previous_fast_len needs n >= 1, got {n!r}")
    best = 1
    p5 = 1
    while p5 <= n:
        p35 = p5
        while p35 <= n:
            # the greatest power-of-two multiple of p35 at or below n
            best = max(best, p35 << ((n // p35).bit_length() - 1))
            p35 *= 3
        p5 *= 5
    return best
