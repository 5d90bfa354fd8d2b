"""The special functions of the randomness laws, from ``math`` and numpy alone (issue 12).

``scipy.special`` costs about 0.2 s of CPU to import (its array-API layer walks numpy's whole
namespace: numpy.ma, numpy.f2py, numpy.testing), which a block audit paid for a few dozen
scalar p-values: a quarter of an eldorado audit's wall clock. The functions a block audit calls
are computed here, by the textbook algorithms below, and ``tests/conformance/test_special.py``
holds each one to ``scipy.special`` (relative 1e-12 where the value is not tiny) over wider
ranges than the audit uses. ``conformance._laws_scipy`` still takes ``smirnov`` from
``scipy.special``, on the exact Kolmogorov-Smirnov paths that need it only.

- ``chdtrc``/``chdtr``: the regularized incomplete gamma functions Q(a, x) and P(a, x) at
  a = df / 2, x = x / 2; P by its power series below x = a + 1, Q by its continued fraction
  (modified Lentz) above, the other as one minus it (each tail is computed where it is small).
- ``betaincc``: 1 - I_x(a, b), the regularized incomplete beta function's upper tail, by the
  continued fraction of Didonato & Morris (as Boost, scipy's engine, evaluates it) on the side
  of the mean where it converges, and below parameters of 1 by Numerical Recipes' (6.4).
- Their prefactors x^a e^-x / Gamma(a) and x^a (1-x)^b / B(a, b) are formed around the law's
  mean, with Stirling's series for the large arguments, so that a = b = 10^6 (Pearson's r over
  a robots block) keeps every digit: the naive log-gamma form loses about eight.
- ``kv``: K_nu(z) = integral over t > 0 of exp(-z cosh t) cosh(nu t), by the trapezoidal rule,
  which converges geometrically on this doubly-exponentially decaying integrand; the step
  shrinks as 1 / sqrt(z) where the integrand narrows to a Gaussian.
- ``kolmogorov``: Kolmogorov's limiting survival function, by its two theta series.
- ``erfc``, ``gamma``, ``gammaln``: the C library's, through ``math``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["betaincc", "chdtr", "chdtrc", "erfc", "gamma", "gammaln", "kolmogorov", "kv"]

_EPS = 2.0**-53
_TINY = 1e-300
_MAX_ITERATIONS = 1_000_000  # a = 10^6 needs about 10^4; never reached on finite arguments
_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)
#: Stirling's series of log Gamma(a) - ((a - 1/2) log a - a + log sqrt(2 pi)), a >= 10: the
#: Bernoulli terms B_2k / (2k (2k - 1) a^(2k - 1)); the next is below 1e-17 at a = 10
_STIRLING = (1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360, 1 / 156)
_STIRLING_FROM = 10.0


def erfc(x: float) -> float:
    return math.erfc(x)


def gamma(x: float) -> float:
    return math.gamma(x)


def gammaln(x: float) -> float:
    return math.lgamma(x)


def _stirling_correction(a: float) -> float:
    """log Gamma(a) - ((a - 1/2) log a - a + log sqrt(2 pi)), for a >= ``_STIRLING_FROM``."""
    inverse_square = 1.0 / (a * a)
    total, power = 0.0, 1.0 / a
    for coefficient in _STIRLING:
        total += coefficient * power
        power *= inverse_square
    return total


def _log_ratio_less(ratio: float, t: float) -> float:
    """log(ratio) - t, t = ratio - 1 computed apart: no cancellation of the two near t = 0."""
    if abs(t) > 0.25:
        return math.log(ratio) - t
    # -t^2/2 + t^3/3 - t^4/4 + ...: the series converges like 0.25^k
    power, total, k = t, 0.0, 1
    while True:
        k += 1
        power *= t
        step = power / k if k % 2 else -power / k
        total += step
        if abs(step) <= _EPS * abs(total):
            return total


def _log_gamma_prefactor(a: float, x: float) -> float:
    """log(x^a e^-x / Gamma(a)), accurate where a and x are both large."""
    if a < _STIRLING_FROM:
        return a * math.log(x) - x - math.lgamma(a)
    # a log x - x - log Gamma(a) = a (log(x/a) - (x/a - 1)) + (1/2) log(a / 2 pi) - corr(a)
    return (
        a * _log_ratio_less(x / a, (x - a) / a)
        + 0.5 * math.log(a)
        - _LOG_SQRT_2PI
        - _stirling_correction(a)
    )


def _gamma_series(a: float, x: float) -> float:
    """P(a, x) by its power series: x^a e^-x / Gamma(a + 1) * sum x^n / ((a+1)...(a+n))."""
    term = total = 1.0
    denominator = a
    for _ in range(_MAX_ITERATIONS):
        denominator += 1.0
        term *= x / denominator
        total += term
        if term < total * _EPS:
            break
    return math.exp(_log_gamma_prefactor(a, x) + math.log(total / a))


def _continued_fraction(b0: float, terms: Iterator[tuple[float, float]]) -> float:
    """b0 + a1 / (b1 + a2 / (b2 + ...)), the (a_n, b_n) from ``terms``, by the modified Lentz
    method (Thompson and Barnett 1986), to double precision: the one evaluator of the gamma
    and beta fractions below."""
    f = _TINY if b0 == 0 else b0
    c, d = f, 0.0
    for _, (an, bn) in zip(range(_MAX_ITERATIONS), terms, strict=False):
        d = bn + an * d
        d = _TINY if abs(d) < _TINY else d
        c = bn + an / c
        c = _TINY if abs(c) < _TINY else c
        d = 1.0 / d
        delta = c * d
        f *= delta
        if abs(delta - 1.0) <= _EPS:
            break
    return f


def _gamma_fraction(a: float, x: float) -> float:
    """Q(a, x) by its continued fraction, for x >= a + 1: the prefactor over
    (x + 1 - a) - 1 (1 - a) / ((x + 3 - a) - 2 (2 - a) / ((x + 5 - a) - ...))."""

    def terms() -> Iterator[tuple[float, float]]:
        i, b = 1, x + 1.0 - a
        while True:
            b += 2.0
            yield -i * (i - a), b
            i += 1

    fraction = _continued_fraction(x + 1.0 - a, terms())
    return math.exp(_log_gamma_prefactor(a, x) - math.log(fraction))


def _gamma_tails(a: float, x: float) -> tuple[float, float]:
    """(P(a, x), Q(a, x)), the regularized lower and upper incomplete gamma functions."""
    if math.isnan(a) or math.isnan(x) or a <= 0 or x < 0:
        return math.nan, math.nan
    if x == 0:
        return 0.0, 1.0
    if math.isinf(x):
        return 1.0, 0.0
    if x < a + 1.0:
        p = _gamma_series(a, x)
        return p, 1.0 - p
    q = _gamma_fraction(a, x)
    return 1.0 - q, q


def _chi_square_tails(df: float, x: float) -> tuple[float, float]:
    """(P, Q) of the chi-square law of ``df`` degrees at ``x``; scipy's values at the edges."""
    df, x = float(df), float(x)
    if math.isnan(df) or math.isnan(x) or df < 0 or x < 0 or (df == 0 and x == 0):
        return math.nan, math.nan
    if df == 0:  # all at 0
        return 1.0, 0.0
    if math.isinf(df):
        return (math.nan, math.nan) if math.isinf(x) else (0.0, 1.0)
    return _gamma_tails(df / 2, x / 2)


def chdtrc(df: float, x: float) -> float:
    """The chi-square law's survival function: Q(df / 2, x / 2)."""
    return _chi_square_tails(df, x)[1]


def chdtr(df: float, x: float) -> float:
    """The chi-square law's distribution function: P(df / 2, x / 2)."""
    return _chi_square_tails(df, x)[0]


def _log_beta_constant(a: float, b: float) -> float:
    """log(x0^a y0^b / B(a, b)) at the law's mean x0 = a / (a + b), y0 = b / (a + b): by
    Stirling's series for whichever of a, b, a + b is large (their log-gammas cancel there)."""
    total = a + b
    if a < _STIRLING_FROM and b < _STIRLING_FROM:
        lbeta = math.lgamma(a) + math.lgamma(b) - math.lgamma(total)
        return a * math.log(a / total) + b * math.log(b / total) - lbeta
    if a >= _STIRLING_FROM and b >= _STIRLING_FROM:
        correction = _stirling_correction(total) - _stirling_correction(a) - _stirling_correction(b)
        return 0.5 * math.log(a * b / total) - _LOG_SQRT_2PI + correction
    small, large = (a, b) if a < b else (b, a)
    # log Gamma(total) - log Gamma(large) by Stirling; log Gamma(small) as it is
    correction = _stirling_correction(total) - _stirling_correction(large)
    return (
        small * math.log(small)
        - small
        - math.lgamma(small)
        - 0.5 * math.log1p(small / large)
        + correction
    )


def _mean_spread(a: float, b: float, x: float, y: float) -> float:
    """x - x0 (= y0 - y) at the law's mean x0 = a / (a + b), from the smaller of x and y: the
    other, one minus it, has lost its last bits, which the large parameters multiply (b log y
    loses b times as much: a tenth of the digits at b = 10^6)."""
    total = a + b
    return x - a / total if x <= y else b / total - y


def _log_beta_prefactor(a: float, b: float, x: float, y: float) -> float:
    """log(x^a y^b / B(a, b)), y = 1 - x: a log(x / x0) + b log(y / y0) around the law's mean
    (their first-order terms cancel), plus the constant at the mean."""
    total = a + b
    x0, y0 = a / total, b / total
    spread = _mean_spread(a, b, x, y)
    around = a * _log_ratio_less(x / x0, spread / x0) + b * _log_ratio_less(y / y0, -spread / y0)
    return around + _log_beta_constant(a, b)


def _small_beta_fraction(a: float, b: float, x: float) -> float:
    """I_x(a, b) over its prefactor / a, for x < (a + 1) / (a + b + 2): one over the
    continued fraction 1 + d1 / (1 + d2 / (1 + ...)) of Numerical Recipes' betacf, for the
    parameters below 1."""

    def terms() -> Iterator[tuple[float, float]]:
        yield -(a + b) * x / (a + 1.0), 1.0
        m = 1
        while True:
            m2 = 2 * m
            yield m * (b - m) * x / ((a - 1.0 + m2) * (a + m2)), 1.0
            yield -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1.0 + m2)), 1.0
            m += 1

    return 1.0 / _continued_fraction(1.0, terms())


def _beta_fraction(a: float, b: float, x: float, spread: float) -> float:
    """F of I_x(a, b) = x^a y^b / B(a, b) / F, for a, b >= 1 and x at or left of the mean:
    the continued fraction of Didonato & Morris (TOMS 708, BFRAC) as Boost's ibeta_fraction2
    writes it; its a y - b x is - (a + b) (x - x0), so neither x nor y brings
    the bits that 1 - x lost."""
    linear = -(a + b) * spread + 1.0  # a y - b x + 1

    def terms() -> Iterator[tuple[float, float]]:
        m = 1
        while True:
            left = a + 2 * m - 1
            an = (a + m - 1) * (a + b + m - 1) * m * (b - m) * x * x / (left * left)
            yield an, m + m * (b - m) * x / left + (a + m) * (linear + m * (2 - x)) / (left + 2)
            m += 1

    return _continued_fraction(a * linear / (a + 1.0), terms())


def betaincc(a: float, b: float, x: float) -> float:
    """1 - I_x(a, b): the upper tail of the beta law of parameters a, b at x."""
    a, b, x = float(a), float(b), float(x)
    if math.isnan(a) or math.isnan(b) or not 0 <= x <= 1 or a < 0 or b < 0:
        return math.nan
    if x == 0:
        return 1.0
    if x == 1:
        return 0.0
    if (a == 0 and b == 0) or (math.isinf(a) and math.isinf(b)):
        return math.nan
    if a == 0 or math.isinf(b):  # the law is all at 0
        return 0.0
    if b == 0 or math.isinf(a):  # ... all at 1
        return 1.0
    y = 1.0 - x
    if min(a, b) < 1.0:
        if x < (a + 1.0) / (a + b + 2.0):  # I_x(a, b) converges here: one minus it
            lower = math.exp(_log_beta_prefactor(a, b, x, y)) * _small_beta_fraction(a, b, x)
            return 1.0 - lower / a
        # 1 - I_x(a, b) = I_y(b, a), whose fraction converges on this side
        return math.exp(_log_beta_prefactor(b, a, y, x)) * _small_beta_fraction(b, a, y) / b
    spread = _mean_spread(a, b, x, y)
    if spread <= 0:  # x left of the mean: the lower tail I_x(a, b), the upper one minus it
        return 1.0 - math.exp(_log_beta_prefactor(a, b, x, y)) / _beta_fraction(a, b, x, spread)
    # right of it: 1 - I_x(a, b) = I_y(b, a), y left of the mean of the law (b, a)
    return math.exp(_log_beta_prefactor(b, a, y, x)) / _beta_fraction(b, a, y, -spread)


_KV_STEP = 0.1  # the trapezoidal rule's step where the integrand is wide (z up to 25)
_KV_NEGLIGIBLE = 745.0  # exp(-745) is below the smallest double: the integrand has ended


def _kv_one(nu: float, z: float) -> float:
    nu = abs(nu)  # K_-nu = K_nu
    if math.isnan(nu) or math.isnan(z) or z < 0:
        return math.nan
    if z == 0:
        return math.inf
    if math.isinf(z) or z > _KV_NEGLIGIBLE:
        return 0.0
    # K_nu(z) = e^-z * integral over t >= 0 of exp(-z (cosh t - 1)) cosh(nu t), and
    # cosh t - 1 = 2 sinh^2(t / 2) keeps every digit of the exponent at small t
    step = min(_KV_STEP, 0.5 / math.sqrt(z))
    end = 2.0 * math.asinh(math.sqrt((_KV_NEGLIGIBLE + abs(nu) * 40.0) / (2.0 * z)))
    t = np.arange(0.0, end + step, step)
    integrand = np.exp(-2.0 * z * np.sinh(t / 2) ** 2) * np.cosh(nu * t)
    integral = step * (float(integrand.sum()) - 0.5 * float(integrand[0]))
    return math.exp(-z) * integral


def kv(nu: float, z: Any) -> Any:
    """K_nu(z), the modified Bessel function of the second kind, for z >= 0; like
    ``scipy.special.kv``, a float for a number and an array of floats for an array."""
    values = np.asarray(z, dtype=np.float64)
    out: npt.NDArray[np.float64] = np.array(
        [_kv_one(float(nu), v) for v in values.ravel().tolist()], dtype=np.float64
    ).reshape(values.shape)
    return out if values.ndim else float(out)


def kolmogorov(x: float) -> float:
    """Kolmogorov's limiting survival function: P(sqrt(n) D_n > x) as n grows."""
    x = float(x)
    if math.isnan(x):
        return math.nan
    if x <= 0:
        return 1.0
    if x < 1.0:
        # 1 - sqrt(2 pi) / x * sum over k >= 1 of exp(-(2k - 1)^2 pi^2 / (8 x^2))
        w = -(math.pi**2) / (8.0 * x * x)
        total, k = 0.0, 1
        while True:
            term = math.exp(w * (2 * k - 1) ** 2)
            total += term
            if term <= _EPS * total:
                break
            k += 1
        return 1.0 - math.sqrt(2 * math.pi) / x * total
    # 2 * sum over k >= 1 of (-1)^(k - 1) exp(-2 k^2 x^2)
    total, k, sign = 0.0, 1, 1.0
    while True:
        term = math.exp(-2.0 * k * k * x * x)
        total += sign * term
        if term <= _EPS * abs(total):
            break
        k, sign = k + 1, -sign
    return min(1.0, 2.0 * total)
