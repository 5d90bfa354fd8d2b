"""``conformance._laws`` against ``scipy.stats`` itself over the ranges the audit uses (issue 12),
and the block audit's path free of scipy."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from decimal import Decimal, getcontext
from pathlib import Path

import numpy as np
import pytest
from scipy import fft, stats  # type: ignore[import-untyped]
from scipy.stats import _hypotests  # type: ignore[import-untyped]

from conformance import _laws, _laws_scipy
from harness._cli import main

RTOL = 1e-9  # relative, where the value is not tiny ...
ATOL = 1e-15  # ... absolute below that


def agree(ours: float, theirs: float, atol: float = ATOL) -> bool:
    if math.isnan(theirs):
        return math.isnan(ours)
    if ours == theirs:  # infinities too
        return True
    return abs(ours - theirs) <= max(atol, RTOL * abs(theirs))


def check(cases: list[tuple[object, float, float]], atol: float = ATOL) -> None:
    """Every (arguments, ours, scipy's) agrees; the failure lists the worst few."""
    bad = [(args, ours, theirs) for args, ours, theirs in cases if not agree(ours, theirs, atol)]
    assert not bad, f"{len(bad)} of {len(cases)} disagree, e.g. {bad[:5]!r}"


def test_check_sees_a_disagreement() -> None:
    with pytest.raises(AssertionError, match="1 of 2 disagree"):
        check([("a", 0.5, 0.5), ("b", 0.5, 0.5 * (1 + 1e-8))])
    check([("tiny", 1e-16, 0.0), ("close", 0.5, 0.5 * (1 + 1e-10))])


# --- chi-square ---------------------------------------------------------------------------

CHI2_DF = [*range(1, 101), *range(101, 2001, 37), 1999, 2000]


@pytest.mark.parametrize("df", CHI2_DF)
def test_chi2_tails_match_scipy(df: int) -> None:
    # from deep in the lower tail to far in the upper one (p below 1e-300)
    x = np.concatenate(([0.0, 1e-12, 1e-3], df * np.geomspace(1e-3, 30.0, 60), [df + 2e3]))
    sf, cdf = stats.chi2(df).sf(x), stats.chi2(df).cdf(x)
    cases: list[tuple[object, float, float]] = []
    for i, xi in enumerate(x.tolist()):
        cases.append((("sf", df, xi), _laws.chi2_sf(xi, df), float(sf[i])))
        cases.append((("cdf", df, xi), _laws.chi2_cdf(xi, df), float(cdf[i])))
    check(cases)


def test_chisquare_matches_scipy_and_refuses_unlike_totals() -> None:
    rng = np.random.default_rng(1)
    cases: list[tuple[object, float, float]] = []
    for parts in (2, 3, 20, 100, 500, 2000):
        for skew in (0.0, 0.2, 1.0):
            weights = 1 + skew * rng.random(parts)
            observed = rng.multinomial(50 * parts, weights / weights.sum()).astype(float)
            expected = np.full(parts, observed.sum() / parts)
            ours = _laws.chisquare(observed, expected)
            theirs = stats.chisquare(observed, expected)
            cases.append(((parts, skew, "T"), ours[0], float(theirs.statistic)))
            cases.append(((parts, skew, "p"), ours[1], float(theirs.pvalue)))
    check(cases)
    with pytest.raises(ValueError, match=r"observed total 10\.0 and expected total 11\.0"):
        _laws.chisquare([5.0, 5.0], [5.5, 5.5])
    with pytest.raises(ValueError):
        stats.chisquare([5.0, 5.0], [5.5, 5.5])  # scipy refuses it too


# --- Kolmogorov-Smirnov -------------------------------------------------------------------

KS_N = [*range(1, 151), 160, 199, 250, 400, 700, 1000, 1500, 2500, 4000, 6000, 8000, 9999, 10_000]


@pytest.mark.parametrize("n", KS_N)
def test_exact_ks_survival_matches_scipy(n: int) -> None:
    # every method of Simard & L'Ecuyer's choice: Ruben-Gambino at both ends, Durbin (MTW),
    # Pomeranz, Pelz-Good, 2 x Smirnov, and 0 beyond n d^2 = 370
    d = np.concatenate(
        (
            [0.0, 0.25 / n, 0.5 / n, 0.75 / n, 1.0 / n, 1.5 / n, 0.5, 0.75, 1 - 1 / n, 1.0],
            np.sqrt(np.geomspace(0.05, 400.0, 26) / n),
        )
    )
    d = np.unique(np.clip(d, 0.0, 1.0))
    theirs = stats.kstwo.sf(d, n)
    check([((n, di), _laws.kstwo_sf(di, n), float(theirs[i])) for i, di in enumerate(d.tolist())])


def test_asymptotic_ks_matches_scipy() -> None:
    x = np.concatenate(([0.0, 1e-3], np.linspace(0.05, 8.0, 400)))
    theirs = stats.kstwobign.sf(x)
    check([(xi, _laws.kstwobign_sf(xi), float(theirs[i])) for i, xi in enumerate(x.tolist())])


@pytest.mark.parametrize("n", [1, 2, 3, 7, 40, 141, 600, 3000, 10_000, 10_001, 50_000])
def test_ks_uniform_matches_kstest(n: int) -> None:
    rng = np.random.default_rng(n)
    method = "exact" if n <= 10_000 else "asymp"
    cases: list[tuple[object, float, float]] = []
    for bend in (1.0, 1.0 + 2 / math.sqrt(n), 1.0 + 10 / math.sqrt(n), 3.0):
        values = rng.random(n) ** bend  # uniform, then ever further from it
        d, p = _laws.ks_uniform(values, exact=n <= 10_000)
        theirs = stats.kstest(values, "uniform", method=method)
        cases += [((bend, "D"), d, float(theirs.statistic)), ((bend, "p"), p, float(theirs.pvalue))]
    check(cases)


# --- Pearson -----------------------------------------------------------------------------


@pytest.mark.parametrize("n", [10, 11, 12, 30, 101, 1000, 20_000, 2_000_000])
def test_pearsonr_matches_scipy_over_the_range_of_r(n: int) -> None:
    rng = np.random.default_rng(n)
    cases: list[tuple[object, float, float]] = []
    mixes = (-0.999, -0.9, -0.5, -0.1, -0.01, 0.0, 0.003, 0.05, 0.3, 0.7, 0.99)
    for mix in mixes if n < 1_000_000 else (-0.5, 0.0, 0.002):
        x = rng.integers(0, 6, n).astype(float)  # prize tiers, as the tests feed it
        y = np.where(rng.random(n) < abs(mix), x if mix > 0 else 5 - x, rng.integers(0, 6, n))
        if np.all(x == x[0]) or np.all(y == y[0]):
            continue
        r, p = _laws.pearsonr(x, y.astype(float))
        theirs = stats.pearsonr(x, y.astype(float))
        cases += [((mix, "r"), r, float(theirs.statistic)), ((mix, "p"), p, float(theirs.pvalue))]
        # the serial test's exact-sum form, on the integer tiers themselves
        r, p = _laws.pearsonr_integers(x.astype(np.int64), y.astype(np.int64))
        cases += [((mix, "int r"), r, float(theirs.statistic)), ((mix, "int p"), p, theirs.pvalue)]
    check(cases)


def test_pearsonr_integers_falls_back_or_gives_nan_where_it_must() -> None:
    constant = np.full(10, 3, np.int64)
    assert all(math.isnan(v) for v in _laws.pearsonr_integers(constant, np.arange(10)))
    huge = np.array([2**40, 0, 2**40, 1, 0, 2**40], np.int64)  # n * max^2 past 2**62
    ramp = np.arange(6, dtype=np.int64)
    assert _laws.pearsonr_integers(huge, ramp) == _laws.pearsonr(huge, ramp)
    floats = np.array([0.5, 1.5, 0.25, 3.0])
    assert _laws.pearsonr_integers(floats, floats[::-1]) == _laws.pearsonr(floats, floats[::-1])


def test_pearsonr_of_a_constant_input_is_nan_like_scipy() -> None:
    r, p = _laws.pearsonr([1.0] * 10, list(range(10)))
    assert math.isnan(r) and math.isnan(p)


# --- geometric ---------------------------------------------------------------------------


@pytest.mark.parametrize("p", np.geomspace(1e-6, 0.9, 60).tolist())
def test_geometric_ppf_and_cdf_match_scipy(p: float) -> None:
    law = stats.geom(p)
    cases: list[tuple[object, float, float]] = []
    for classes in (2, 3, 7, 20):  # the gap test's equiprobable classes
        q = np.linspace(0, 1, classes + 1)
        ours, theirs = _laws.geom_ppf(q, p), law.ppf(q)
        cases += [(("ppf", classes, qi), ours[i], theirs[i]) for i, qi in enumerate(q.tolist())]
        edges = np.unique(theirs[1:-1].astype(np.int64))
        ours, theirs = _laws.geom_cdf(edges, p), law.cdf(edges)
        cases += [(("cdf", int(e)), ours[i], theirs[i]) for i, e in enumerate(edges.tolist())]
    k = np.array([0, 1, 2, 3, 10, 1000, 10**6, 10**8])
    cases += [
        (("cdf", int(ki)), a, b)
        for ki, a, b in zip(k, _laws.geom_cdf(k, p), law.cdf(k), strict=True)
    ]
    check([(args, float(a), float(b)) for args, a, b in cases])


# --- hypergeometric ----------------------------------------------------------------------

HYPERGEOM = [  # (units, good, draws): slices, whole blocks, the winners of both, sparse tiers
    (5, 2, 2),
    (20, 5, 5),
    (20, 1, 19),
    (500, 100, 200),
    (2000, 600, 610),
    (2001, 600, 610),
    (19_999, 5999, 6011),
    (20_000, 1, 20),
    (20_000, 300, 300),
    (200_000, 60_000, 59_000),
    (1_999_999, 600_123, 599_877),
    (2_000_000, 600_000, 600_000),
    (2_000_000, 45, 45),
    (2_000_000, 300, 1),
    (2_000_000, 1_800_000, 1_700_000),
]


@pytest.mark.parametrize(("units", "good", "draws"), HYPERGEOM)
def test_hypergeometric_tails_match_scipy(units: int, good: int, draws: int) -> None:
    mean = good * draws / units
    sd = math.sqrt(mean * (1 - good / units) * (units - draws) / max(units - 1, 1))
    low, high = max(0, draws - (units - good)), min(good, draws)
    k = {low - 1, low, low + 1, high - 1, high, high + 1}
    k |= {round(mean + z * sd) for z in np.linspace(-40, 40, 81)}
    ks = np.array(sorted(k))
    sf = stats.hypergeom.sf(ks, units, good, draws)
    cdf = stats.hypergeom.cdf(ks, units, good, draws)
    cases: list[tuple[object, float, float]] = []
    for i, ki in enumerate(ks.tolist()):
        cases.append((("sf", ki), _laws.hypergeom_sf(ki, units, good, draws), float(sf[i])))
        cases.append((("cdf", ki), _laws.hypergeom_cdf(ki, units, good, draws), float(cdf[i])))
    check(cases)


def test_small_hypergeometric_tails_are_exact() -> None:
    assert _laws.hypergeom_sf(1, 5, 2, 2) == 0.1  # P(H = 2) = 1 / C(5, 2)
    assert _laws.hypergeom_sf(4, 20, 5, 5) == 1 / math.comb(20, 5)
    assert _laws.hypergeom_cdf(0, 20, 5, 5) == math.comb(15, 5) / math.comb(20, 5)
    assert math.isnan(_laws.hypergeom_sf(0, 0, 0, 0))  # no units: scipy's nan too


def _exact_hypergeom_cdf(k: int, units: int, good: int, draws: int) -> Decimal:
    """P(H <= k) to 50 digits: Stirling's series for the log-factorials, the terms by their
    ratios (a reference for the large cases, where the products of binomials are too big)."""
    getcontext().prec = 60
    pi = Decimal("3.14159265358979323846264338327950288419716939937510582097494")
    bernoulli = [Decimal(1) / 12, -Decimal(1) / 360, Decimal(1) / 1260, -Decimal(1) / 1680]

    def log_fact(m: int) -> Decimal:
        if m < 1000:
            return Decimal(math.factorial(m)).ln()
        x = Decimal(m)
        s = x * x.ln() - x + (2 * pi * x).ln() / 2
        return s + sum(b / x ** (2 * j + 1) for j, b in enumerate(bernoulli))

    bad = units - good
    term = (
        log_fact(good) - log_fact(k) - log_fact(good - k)
        + log_fact(bad) - log_fact(draws - k) - log_fact(bad - draws + k)
        - log_fact(units) + log_fact(draws) + log_fact(units - draws)
    ).exp()  # fmt: skip
    total, j = Decimal(0), k
    while j >= max(0, draws - bad) and term > total * Decimal("1e-40"):
        total += term
        term = term * j * (bad - draws + j) / ((good - j + 1) * (draws - j + 1))
        j -= 1
    return total


@pytest.mark.parametrize(
    ("k", "units", "good", "draws"),
    [(1_531_186, 2_000_000, 1_817_110, 1_685_543), (179_250, 2_000_000, 600_000, 600_000)],
)
def test_large_hypergeometric_tails_hold_to_the_exact_value(
    k: int, units: int, good: int, draws: int
) -> None:
    """Loader's method keeps ~1e-13 at two million units, where scipy's (Boost's) drifts to
    a few 1e-10 relative (here 5.7e-10 in the first case): the reason the tolerance against
    scipy is 1e-9 and not tighter."""
    exact = float(_exact_hypergeom_cdf(k, units, good, draws))
    assert _laws.hypergeom_cdf(k, units, good, draws) == pytest.approx(exact, rel=1e-13)


# --- Cramer-von Mises --------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 4, 5, 8, 13, 30, 100, 300, 1000, 2000])
def test_cramervonmises_cdf_matches_scipy(n: int) -> None:
    x = np.concatenate(([1 / (12 * n), n / 3], np.geomspace(1 / (12 * n) * 1.0001, 8.0, 80)))
    theirs = _hypotests._cdf_cvm(x, n)
    ours = _laws_scipy._cdf_cvm(x, float(n))
    check([((n, xi), float(ours[i]), float(theirs[i])) for i, xi in enumerate(x.tolist())])


@pytest.mark.parametrize("n", [2, 3, 5, 10, 57, 200, 999, 2000])
def test_cramervonmises_matches_scipy(n: int) -> None:
    rng = np.random.default_rng(n)
    cases: list[tuple[object, float, float]] = []
    for bend in (1.0, 1.0 + 1 / math.sqrt(n), 1.0 + 5 / math.sqrt(n), 4.0):
        values = rng.random(n) ** bend
        t, p = _laws.cramervonmises_uniform(values)
        theirs = stats.cramervonmises(values, "uniform")
        cases += [((bend, "T"), t, float(theirs.statistic)), ((bend, "p"), p, float(theirs.pvalue))]
    # p is 1 - cdf, so the error of the cdf's terms is absolute in p: scipy's K_nu is off by up
    # to 1e-14 relative near z = 1, conformance._special's by about 1e-16 (both measured against
    # mpmath at 30 digits), which shows as 2e-15 on a p of 1e-8
    check(cases, atol=1e-14)
    with pytest.raises(ValueError, match="at least two values, got 1"):
        _laws.cramervonmises_uniform([0.5])


# --- FFT lengths -------------------------------------------------------------------------


def test_next_fast_len_matches_scipy() -> None:
    sizes = [*range(1, 5000), 899_999, 1_799_997, 1_999_999, 2_000_000, 3_999_997, 10**7 + 1]
    ours = [_laws.next_fast_len(n) for n in sizes]
    assert ours == [fft.next_fast_len(n, real=True) for n in sizes]


def test_previous_fast_len_is_the_greatest_fast_length_at_or_below() -> None:
    fast = [m for m in range(1, 5001) if _laws.next_fast_len(m) == m]
    for n in range(1, 5001):
        assert _laws.previous_fast_len(n) == max(m for m in fast if m <= n), n
    for n in (65_537, 1_999_999, 899_999, 10**7 + 1):
        m = _laws.previous_fast_len(n)
        assert m <= n < _laws.next_fast_len(m + 1) and _laws.next_fast_len(m) == m
    with pytest.raises(ValueError, match="n >= 1"):
        _laws.previous_fast_len(0)


# --- the block audit's path --------------------------------------------------------------

PROBE = """
import contextlib, io, json, sys
import harness._cli
from harness._cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    code = main(sys.argv[1:])
print(json.dumps({"code": code, "scipy": sorted(m for m in sys.modules if m.startswith("scipy"))}))
"""


def test_a_block_audit_imports_no_scipy_at_all(tmp_path: Path) -> None:
    """The whole audit-block command, every randomness law on its path included (chi-square,
    geometric gaps, Pearson, exact KS, Cramer-von Mises, all computed: their p-values are in
    the report), imports no scipy module: ``conformance._special`` computes their special
    functions (issue 12)."""
    path = tmp_path / "b.jsonl.gz"
    args = ["generate-block", "--game", "eldorado", "--stake-cents", "100", "--seed", "cd" * 32]
    args += ["--start", "0", "--count", "20000", "-o", str(path)]
    assert main(args) == 0
    out = tmp_path / "r"
    done = subprocess.run(
        [sys.executable, "-c", PROBE, "audit-block", str(path), "--out", str(out), "--seed", "1"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["code"] == 0
    assert seen["scipy"] == []
    names = set(_p_values(json.loads((out / "report.json").read_text())))
    for name in ("chi2.winners", "gap.winners", "serial", "ks.sparse", "ks", "cvm"):
        assert name in names, f"{name} not computed: {sorted(names)}"


def _p_values(node: object) -> dict[str, float]:
    """Every p-value of a report, by test name."""
    found: dict[str, float] = {}
    if isinstance(node, dict):
        found.update(node.get("p_values", {}))
        for key, value in node.items():
            if key != "p_values":
                found.update(_p_values(value))
    elif isinstance(node, list):
        for value in node:
            found.update(_p_values(value))
    return found
