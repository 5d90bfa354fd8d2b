"""Randomness of winner positions in a block (lab practice: AGCO 19.3.2-19.3.5, 21.1.2).

Every test takes the per-position prizes of one audited block (or slice) and returns a p-value
from ``scipy.stats``; the family is judged by Holm-Bonferroni at ``alpha`` (default 0.01), so
the chance that a truly random block fails at all stays below ``alpha``.

- ``chi2.<tier>``: each prize tier's count in equal segments of the block (scipy ``chisquare``).
  Segments shrink so every expected count is at least 5; tiers too sparse even for two segments
  are pooled into ``chi2.sparse``, and if the pool is still too small its positions are tested
  for uniformity with an exact Kolmogorov-Smirnov test (``ks.sparse``).
- ``runs``: Wald-Wolfowitz runs test on win/lose (too few runs: clustering; too many: a
  regular pattern); normal approximation, exact enough for the thousands of units it sees.
- ``serial``: lag-1 correlation of the prize tiers (ranks, so one jackpot cannot dominate).
- ``gap.<tier>``: gaps between successive units of a tier against the geometric law,
  chi-square over equiprobable classes (catches "a winner every k-th unit").
- across two blocks (``unrelated``): the overlap of their winner positions against the
  hypergeometric law, and the correlation of their prize tiers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy import stats  # type: ignore[import-untyped]

MIN_EXPECTED = 5.0
MIN_GAPS = 20  # fewer gaps than this: the gap test has no power, it is skipped


@dataclass(frozen=True)
class RandomnessTest:
    name: str
    p_value: float
    statistic: float
    note: str = ""


@dataclass(frozen=True)
class FamilyVerdict:
    """Holm-Bonferroni over the family: ``rejected`` names each test it rejects."""

    alpha: float
    results: tuple[RandomnessTest, ...]
    rejected: tuple[str, ...]

    @property
    def passed(self) -> bool:
        return not self.rejected

    def p_values(self) -> dict[str, float]:
        return {r.name: r.p_value for r in self.results}


def holm(results: Sequence[RandomnessTest], alpha: float) -> FamilyVerdict:
    """Holm's step-down procedure: controls the family-wise error rate at ``alpha``."""
    ordered = sorted(results, key=lambda r: r.p_value)
    m = len(ordered)
    rejected: list[str] = []
    for k, result in enumerate(ordered):
        if result.p_value > alpha / (m - k):
            break
        rejected.append(result.name)
    return FamilyVerdict(alpha, tuple(results), tuple(rejected))


def _segments(size: int, parts: int) -> npt.NDArray[np.int64]:
    """Bounds of ``parts`` near-equal segments of ``range(size)``."""
    return np.linspace(0, size, parts + 1).round().astype(np.int64)


def segment_chi2(positions: npt.NDArray[np.int64], size: int, parts: int) -> tuple[float, float]:
    """Chi-square of ``positions`` over ``parts`` equal segments of ``range(size)``.

    A block holds a fixed number of each prize, so segment counts are hypergeometric, not
    multinomial: Pearson's statistic is scaled by (size - 1) / (size - n), the finite
    population correction, before it is referred to the chi-square law (without it the test
    is conservative, markedly so for the 1 € tier and for all winners together).
    """
    bounds = _segments(size, parts)
    observed = np.diff(np.searchsorted(np.sort(positions), bounds)).astype(float)
    expected = len(positions) * np.diff(bounds) / size
    pearson = float(stats.chisquare(observed, expected).statistic)
    n = len(positions)
    corrected = pearson * (size - 1) / (size - n) if n < size else 0.0
    return corrected, float(stats.chi2.sf(corrected, parts - 1))


def tier_tests(
    tiers: npt.NDArray[np.int64], names: Sequence[str], segments: int
) -> list[RandomnessTest]:
    """Segment chi-square of each tier (1..len(names)), pooling the sparse ones."""
    size = len(tiers)
    results: list[RandomnessTest] = []
    sparse: list[npt.NDArray[np.int64]] = []
    for code, name in enumerate(names, start=1):
        positions = np.flatnonzero(tiers == code)
        parts = min(segments, int(len(positions) // MIN_EXPECTED))
        if parts >= 2:
            statistic, p = segment_chi2(positions, size, parts)
            results.append(RandomnessTest(f"chi2.{name}", p, statistic, f"{parts} segments"))
        elif len(positions):
            sparse.append(positions)
    if sparse:
        pool = np.sort(np.concatenate(sparse))
        parts = min(segments, int(len(pool) // MIN_EXPECTED))
        if parts >= 2:
            statistic, p = segment_chi2(pool, size, parts)
            results.append(RandomnessTest("chi2.sparse", p, statistic, f"{len(pool)} units pooled"))
        else:
            # a handful of units: exact KS of their positions (mid-cell) against uniform
            ks = stats.kstest((pool + 0.5) / size, "uniform", method="exact")
            results.append(
                RandomnessTest(
                    "ks.sparse", float(ks.pvalue), float(ks.statistic), f"{len(pool)} units"
                )
            )
    return results


def runs_test(wins: npt.NDArray[np.bool_]) -> RandomnessTest | None:
    """Wald-Wolfowitz runs test on win/lose; None when one kind is absent."""
    n = len(wins)
    n1 = int(wins.sum())
    n2 = n - n1
    if n1 == 0 or n2 == 0:
        return None
    runs = 1 + int(np.count_nonzero(wins[1:] != wins[:-1]))
    mean = 2.0 * n1 * n2 / n + 1.0
    variance = 2.0 * n1 * n2 * (2.0 * n1 * n2 - n) / (n * n * (n - 1.0))
    if variance <= 0:
        return None
    z = (runs - mean) / np.sqrt(variance)
    return RandomnessTest("runs", float(2 * stats.norm.sf(abs(z))), float(z), f"{runs} runs")


def serial_test(tiers: npt.NDArray[np.int64]) -> RandomnessTest | None:
    """Lag-1 correlation of prize tiers (0 losing, 1 the smallest prize, ...)."""
    if len(tiers) < 10 or np.all(tiers == tiers[0]):
        return None
    x, y = tiers[:-1].astype(float), tiers[1:].astype(float)
    if x.std() == 0 or y.std() == 0:
        return None
    result = stats.pearsonr(x, y)
    return RandomnessTest("serial", float(result.pvalue), float(result.statistic), "lag 1")


def gap_test(positions: npt.NDArray[np.int64], size: int, name: str) -> RandomnessTest | None:
    """Gaps between successive positions against the geometric law of a random layout."""
    gaps = np.diff(positions)
    if len(gaps) < MIN_GAPS:
        return None
    p = len(positions) / size
    if p >= 1:
        return None
    law = stats.geom(p)
    classes = max(2, min(20, int(len(gaps) // MIN_EXPECTED)))
    edges = np.unique(law.ppf(np.linspace(0, 1, classes + 1)[1:-1]).astype(np.int64))
    if len(edges) == 0:
        return None
    bounds = np.concatenate(([0], edges, [np.iinfo(np.int64).max]))
    probability = np.diff(np.concatenate(([0.0], law.cdf(edges), [1.0])))
    # class j holds the gaps g with bounds[j] < g <= bounds[j + 1]
    observed = np.bincount(
        np.searchsorted(bounds, gaps, side="left") - 1, minlength=len(bounds) - 1
    ).astype(float)
    keep = probability > 0
    if keep.sum() < 2:
        return None
    expected = probability[keep] / probability[keep].sum() * len(gaps)
    result = stats.chisquare(observed[keep], expected)
    return RandomnessTest(
        f"gap.{name}", float(result.pvalue), float(result.statistic), f"{len(gaps)} gaps"
    )


def tier_codes(
    prizes: npt.NDArray[np.integer], prizes_by_tier: Sequence[int]
) -> npt.NDArray[np.int64]:
    """0 for losing, k for the k-th prize of ``prizes_by_tier`` (ascending), -1 for others."""
    values = prizes.astype(np.int64)
    codes = np.full(len(values), -1, np.int64)
    codes[values == 0] = 0
    for code, prize in enumerate(sorted(prizes_by_tier), start=1):
        codes[values == prize] = code
    return codes


def winner_positions(
    prizes: npt.NDArray[np.integer], lots: Mapping[int, int], segments: int, alpha: float
) -> FamilyVerdict:
    """The randomness family on one block: chi-square per tier, runs, serial, gap per tier."""
    tiers_prizes = sorted(p for p in lots if p > 0)
    codes = tier_codes(prizes, tiers_prizes)
    names = [str(p) for p in tiers_prizes]
    results = tier_tests(codes, names, segments)
    wins = codes > 0
    whole = (
        segment_chi2(np.flatnonzero(wins), len(codes), segments)
        if wins.sum() >= (MIN_EXPECTED * segments)
        else None
    )
    if whole is not None:
        results.append(RandomnessTest("chi2.winners", whole[1], whole[0], f"{segments} segments"))
    for test in (runs_test(wins), serial_test(np.maximum(codes, 0))):
        if test is not None:
            results.append(test)
    gap = gap_test(np.flatnonzero(wins), len(codes), "winners")
    if gap is not None:
        results.append(gap)
    for code, name in enumerate(names, start=1):
        gap = gap_test(np.flatnonzero(codes == code), len(codes), name)
        if gap is not None:
            results.append(gap)
    return holm(results, alpha)


def unrelated(
    first: npt.NDArray[np.integer],
    second: npt.NDArray[np.integer],
    lots: Mapping[int, int],
    alpha: float,
) -> FamilyVerdict:
    """Two blocks' winner positions are unrelated: hypergeometric overlap, tier correlation."""
    size = min(len(first), len(second))
    a = first[:size].astype(np.int64)
    b = second[:size].astype(np.int64)
    wa, wb = a > 0, b > 0
    n1, n2 = int(wa.sum()), int(wb.sum())
    overlap = int(np.count_nonzero(wa & wb))
    law = stats.hypergeom(size, n1, n2)
    p = min(1.0, 2 * min(float(law.cdf(overlap)), float(law.sf(overlap - 1))))
    results = [
        RandomnessTest("overlap", p, float(overlap), f"expected {n1 * n2 / max(size, 1):.1f}")
    ]
    tiers_prizes = sorted(x for x in lots if x > 0)
    ca = np.maximum(tier_codes(a, tiers_prizes), 0).astype(float)
    cb = np.maximum(tier_codes(b, tiers_prizes), 0).astype(float)
    if size >= 10 and ca.std() > 0 and cb.std() > 0:
        r = stats.pearsonr(ca, cb)
        results.append(RandomnessTest("correlation", float(r.pvalue), float(r.statistic), "tiers"))
    return holm(results, alpha)
