"""``conformance._special`` against ``scipy.special`` itself, over wider ranges than the block
audit reaches (issue 12): the randomness laws' p-values must not move when scipy leaves the path.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special  # type: ignore[import-untyped]

from conformance import _special

RTOL = 1e-11  # relative, for values not in the far tails ...
TAIL = 1e-250  # ... below which (p-values nobody reads but as "zero") 1e-9 relative
TAIL_RTOL = 1e-9
ATOL = 1e-300  # subnormal results: scipy flushes some to zero


def disagreements(cases: list[tuple[object, float, float]]) -> list[tuple[object, float, float]]:
    bad = []
    for args, ours, theirs in cases:
        if (math.isnan(theirs) and math.isnan(ours)) or ours == theirs:
            continue
        tolerance = RTOL if abs(theirs) >= TAIL else TAIL_RTOL
        if not abs(ours - theirs) <= max(ATOL, tolerance * abs(theirs)):
            bad.append((args, ours, theirs))
    return bad


def check(cases: list[tuple[object, float, float]]) -> None:
    bad = disagreements(cases)
    assert not bad, f"{len(bad)} of {len(cases)} disagree, e.g. {bad[:5]!r}"


def test_check_sees_a_disagreement() -> None:
    with pytest.raises(AssertionError, match="1 of 3 disagree"):
        check([("a", 0.5, 0.5), ("b", 0.5, 0.5 * (1 + 1e-10)), ("nan", math.nan, math.nan)])
    check([("close", 0.5, 0.5 * (1 + 1e-12)), ("tail", 1e-300, 1e-300 * (1 + 1e-10))])


DEGREES = [*range(1, 101), *range(101, 2001, 37), 5000, 20_000, 100_000]


@pytest.mark.parametrize("df", DEGREES)
def test_chi_square_tails_match_scipy(df: int) -> None:
    x = np.concatenate(([0.0, 1e-12, 1e-3], df * np.geomspace(1e-3, 30.0, 80), [df + 2e3]))
    cases: list[tuple[object, float, float]] = []
    for value in x.tolist():
        cases.append((("chdtrc", df, value), _special.chdtrc(df, value), special.chdtrc(df, value)))
        cases.append((("chdtr", df, value), _special.chdtr(df, value), special.chdtr(df, value)))
    check(cases)


def test_chi_square_edges_match_scipy() -> None:
    cases: list[tuple[object, float, float]] = []
    edges = [(3.0, -1.0), (3.0, 0.0), (3.0, math.inf), (0.0, 0.0), (0.0, 1.0), (-1.0, 1.0)]
    edges += [(math.nan, 1.0), (3.0, math.nan), (math.inf, 3.0)]
    for df, x in edges:
        cases.append(((df, x), _special.chdtrc(df, x), float(special.chdtrc(df, x))))
        cases.append(((df, x), _special.chdtr(df, x), float(special.chdtr(df, x))))
    check(cases)


@pytest.mark.parametrize("n", [3, 4, 5, 10, 11, 12, 30, 101, 1000, 20_000, 900_000, 2_000_000])
def test_pearson_beta_tail_matches_scipy(n: int) -> None:
    """The call ``_laws._pearson_p`` makes: a = b = n / 2 - 1 at x = (1 + |r|) / 2."""
    ab = n / 2 - 1
    cases: list[tuple[object, float, float]] = []
    for r in (0.0, 1e-7, 1e-5, 1e-4, 1e-3, 2e-3, 0.01, 0.05, 0.1, 0.3, 0.5, 0.9, 0.999, 1.0):
        x = (1 + r) / 2
        cases.append(((n, r), _special.betaincc(ab, ab, x), special.betaincc(ab, ab, x)))
    check(cases)


def test_beta_tail_matches_scipy_over_random_parameters() -> None:
    rng = np.random.default_rng(12)
    cases: list[tuple[object, float, float]] = []
    for _ in range(4000):
        a, b = (float(v) for v in 10 ** rng.uniform(-1, 6.5, 2))
        near_mean = a / (a + b) * float(rng.uniform(0.9, 1.1))
        x = min(1.0, float(rng.random()) if rng.random() < 0.8 else near_mean)
        cases.append(((a, b, x), _special.betaincc(a, b, x), special.betaincc(a, b, x)))
    edges = [(2.0, 3.0, 0.0), (2.0, 3.0, 1.0), (2.0, 3.0, -0.5), (2.0, 3.0, 1.5), (0.0, 1.0, 0.5)]
    edges += [(1.0, 0.0, 0.5), (0.0, 0.0, 0.5), (-1.0, 1.0, 0.5), (0.0, 1.0, 0.0)]
    edges += [(math.inf, 1.0, 0.5), (1.0, math.inf, 0.5), (math.nan, 1.0, 0.5)]
    for a, b, x in edges:
        cases.append(((a, b, x), _special.betaincc(a, b, x), float(special.betaincc(a, b, x))))
    check(cases)


@pytest.mark.parametrize("nu", [0.0, 0.25, -0.25, 0.5, 0.75, 1.25, 2.0])
def test_bessel_k_matches_scipy(nu: float) -> None:
    z = np.geomspace(1e-6, 740.0, 600)
    z = np.concatenate(([-1.0, 0.0, 1e-8], z, [745.5, 800.0, math.inf]))
    ours = _special.kv(nu, z)
    assert isinstance(ours, np.ndarray) and ours.shape == z.shape
    check([((nu, zi), float(ours[i]), float(special.kv(nu, zi))) for i, zi in enumerate(z)])
    one = _special.kv(nu, 2.5)
    assert isinstance(one, float) and one == pytest.approx(float(special.kv(nu, 2.5)), rel=RTOL)
    assert _special.kv(nu, np.asarray([3.0])).shape == (1,)


def test_kolmogorov_matches_scipy() -> None:
    x = np.concatenate(([-1.0, 0.0, 1e-3, 0.05], np.linspace(0.05, 8.0, 900), [30.0]))
    check([(xi, _special.kolmogorov(xi), float(special.kolmogorov(xi))) for xi in x.tolist()])


def test_the_c_library_functions_match_scipy() -> None:
    cases: list[tuple[object, float, float]] = []
    for x in np.linspace(-5.0, 25.0, 301).tolist():
        cases.append((("erfc", x), _special.erfc(x), float(special.erfc(x))))
    for x in np.arange(0.5, 60.0, 0.5).tolist():
        cases.append((("gamma", x), _special.gamma(x), float(special.gamma(x))))
        cases.append((("gammaln", x), _special.gammaln(x), float(special.gammaln(x))))
    check(cases)


def test_the_large_parameter_prefactors_keep_their_digits() -> None:
    """The naive log-gamma prefactor of I_x(10^6, 10^6) loses about eight digits; the Stirling
    form around the mean keeps them (a check that could fail: the naive form does)."""
    a = 999_998.5
    x = 0.5009531426244691
    naive = math.exp(
        a * math.log(x) + a * math.log(1 - x) - (2 * math.lgamma(a) - math.lgamma(2 * a))
    )
    ours = math.exp(_special._log_beta_prefactor(a, a, x, 1 - x))
    # scipy's whole tail, through our continued fraction, recovers the prefactor it used
    theirs = float(special.betaincc(a, a, x)) * _special._beta_fraction(a, a, 1 - x, 0.5 - x)
    assert abs(ours - theirs) <= 1e-12 * theirs
    assert abs(naive - theirs) > 1e-11 * theirs
