"""Randomness of winner positions in a block (lab practice: AGCO 19.3.2-19.3.5, 21.1.2).

Every test takes the per-position prizes of one audited block (or slice) and returns a p-value
from the null laws of ``conformance._laws`` (scipy's numbers, without importing ``scipy.stats``);
the family is judged by Holm-Bonferroni at ``alpha`` (default 0.01), so the chance that a truly
random block fails at all stays below ``alpha``.

- ``chi2.<tier>``: each prize tier's count in equal segments of the block (Pearson's chi-square),
  two-sided (from 20 segments of 10 expected units): too large a statistic is clustering, too
  small a layout more even than chance (stratified). Segments shrink so every expected
  count is at least 5; tiers too sparse even for two segments are pooled into
  ``chi2.sparse``, and if the pool is still too small its positions are tested for
  uniformity with an exact Kolmogorov-Smirnov test (``ks.sparse``).
- ``dispersion.<parts>``: the index of dispersion of all winners over 100, 500 and 2000
  segments (those that leave at least 10 expected per segment), two-sided: the finer scales
  see a layout balanced within short runs of units, the 20-segment ``chi2.winners`` a coarse one.
- ``frequency`` (a slice only): the number of winners in the slice against the block's
  proportion (hypergeometric, normal form; NIST SP 800-22 2.1 is its binomial, p = 1/2 case).
- ``runs``: Wald-Wolfowitz runs test on win/lose (too few runs: clustering; too many: a
  regular pattern); normal approximation with the exact moments for fixed counts (NIST SP
  800-22 2.3 is the same test with asymptotic moments: ``runs_p(..., nist=True)``).
- ``serial``: lag-1 correlation of the prize tiers (ranks, so one jackpot cannot dominate).
- ``spectral``: Fisher's g on the periodogram of the winners (a hidden period or rhythm).
- ``gap.<tier>``: gaps between successive units of a tier against the geometric law,
  chi-square over equiprobable classes (catches "a winner every k-th unit").
- across two blocks (``conformance._crossblock.unrelated``, built on this module): the overlap
  of their winner positions against the hypergeometric law, the correlation of their prize
  tiers, and the lagged and transformed overlaps (shifts, rotations, reversals, affine remaps).
- pooled over every block read (``top_tiers``): the relative positions of the top prizes
  against the uniform law (Kolmogorov-Smirnov and Cramer-von Mises).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from . import _laws
from . import _special as special
from ._compiled import compiled

MIN_EXPECTED = 5.0
MIN_GAPS = 20  # fewer gaps than this: the gap test has no power, it is skipped
DISPERSION_PARTS = (100, 500, 2000)  # fine scales of the two-sided index of dispersion
LOWER_TAIL_PARTS = 20  # a segment chi-square is two-sided from this many segments ...
LOWER_TAIL_EXPECTED = 10.0  # ... of at least this many expected units each
SPECTRAL_PREFIX_FROM = 1 << 16  # the spectral test reads a fast-FFT prefix from this length
THREADED_UNITS = 200_000  # a family over this many units runs on threads (winner_positions)
LOOKUP_PRIZES = 1 << 24  # tier codes by a look-up table when every prize is below this
TOP_TIER_UNITS = 200  # a tier with at most this many units in a whole block is a top tier


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


def two_sided(upper: float, lower: float) -> float:
    """A two-sided p-value from the two one-sided tail probabilities."""
    return min(1.0, 2.0 * min(upper, lower))


def _segments(size: int, parts: int) -> npt.NDArray[np.int64]:
    """Bounds of ``parts`` near-equal segments of ``range(size)``."""
    return np.linspace(0, size, parts + 1).round().astype(np.int64)


def _ascending(positions: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """``positions`` sorted: as given when they already are (``np.flatnonzero``'s are, and a
    robots block's family sorted its winners' positions five times over, about 0.1 s of CPU
    on the wall after the read), else a sorted copy."""
    if len(positions) < 2 or bool(np.all(positions[1:] >= positions[:-1])):
        return positions
    return np.sort(positions)


def segment_chi2(positions: npt.NDArray[np.int64], size: int, parts: int) -> tuple[float, float]:
    """Chi-square of ``positions`` over ``parts`` equal segments of ``range(size)``.

    A block holds a fixed number of each prize, so segment counts are hypergeometric, not
    multinomial: Pearson's statistic is scaled by (size - 1) / (size - n), the finite
    population correction, before it is referred to the chi-square law (without it the test
    is conservative, markedly so for the 1 € tier and for all winners together). The p-value
    is two-sided: a statistic far below its ``parts - 1`` degrees of freedom is a layout more
    even than chance allows (each segment given its share), as much a fault as clustering.
    The lower tail is used only where the chi-square law describes it: at least
    ``LOWER_TAIL_PARTS`` segments of at least ``LOWER_TAIL_EXPECTED`` expected units each (with
    a few small counts the statistic is discrete, and 0 has a real chance the law denies it);
    elsewhere the test is upper-tailed, as before.
    """
    bounds = _segments(size, parts)
    observed = np.diff(np.searchsorted(_ascending(positions), bounds)).astype(float)
    expected = len(positions) * np.diff(bounds) / size
    pearson = _laws.chisquare(observed, expected)[0]
    n = len(positions)
    if n >= size or n == 0:
        return 0.0, 1.0  # every unit (or none) is of the kind: nothing can be placed
    corrected = pearson * (size - 1) / (size - n)
    upper = _laws.chi2_sf(corrected, parts - 1)
    if parts < LOWER_TAIL_PARTS or n / parts < LOWER_TAIL_EXPECTED:
        return corrected, upper
    return corrected, two_sided(upper, _laws.chi2_cdf(corrected, parts - 1))


def tier_positions(
    tiers: npt.NDArray[np.int64], count: int, winners: npt.NDArray[np.int64] | None = None
) -> list[npt.NDArray[np.int64]]:
    """The positions of each tier 1..``count``, ascending: ``np.flatnonzero(tiers == code)``
    for each, found among the ``winners`` (the positions of ``tiers > 0``) rather than over the
    whole block each time (a robots block's ten tiers: ten passes over 2 000 000 codes)."""
    if winners is None:
        winners = np.flatnonzero(tiers > 0)
    codes = tiers[winners]
    return [winners[codes == code] for code in range(1, count + 1)]


def tier_winners(
    prizes: npt.NDArray[np.integer], tiers_prizes: Sequence[int]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """(positions, codes) of the units whose prize is one of ``tiers_prizes`` (distinct,
    positive, ascending; code k for the k-th), in order of position: where
    ``tier_codes(prizes, tiers_prizes) > 0``, and those codes, without a code for each unit
    (a robots block's 2 000 000 int64 codes, and the fresh pages the kernel zeroes for them,
    were most of the family's time after the read)."""
    tiers = np.asarray(tiers_prizes, np.int64)
    winners_of = compiled("tier_winners")
    if winners_of is not None and prizes.dtype == np.int32 and prizes.flags.c_contiguous:
        found = winners_of(prizes, tiers)  # one pass, without the GIL
        positions, codes = (np.frombuffer(part, np.int64) for part in found)
        return positions, codes
    positive = np.flatnonzero(prizes > 0)
    if len(tiers) == 0 or len(positive) == 0:
        return positive[:0], positive[:0]
    values = prizes[positive]
    at = np.searchsorted(tiers, values)
    hit = tiers[np.minimum(at, len(tiers) - 1)] == values
    return positive[hit], at[hit] + 1


def tier_tests(
    tiers: npt.NDArray[np.int64],
    names: Sequence[str],
    segments: int,
    by_tier: Sequence[npt.NDArray[np.int64]] | None = None,
) -> list[RandomnessTest]:
    """Segment chi-square of each tier (1..len(names)), pooling the sparse ones; ``by_tier``:
    the tiers' positions if already known (``tier_positions``)."""
    if by_tier is None:
        by_tier = tier_positions(tiers, len(names))
    return tier_tests_of(by_tier, names, segments, len(tiers))


def tier_tests_of(
    by_tier: Sequence[npt.NDArray[np.int64]], names: Sequence[str], segments: int, size: int
) -> list[RandomnessTest]:
    """``tier_tests`` of a document of ``size`` units from each tier's positions."""
    results: list[RandomnessTest] = []
    sparse: list[npt.NDArray[np.int64]] = []
    for positions, name in zip(by_tier, names, strict=True):
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
            d, p = ks_uniform((pool + 0.5) / size)
            results.append(RandomnessTest("ks.sparse", p, d, f"{len(pool)} units"))
    return results


def runs_p(runs: int, ones: int, n: int, *, nist: bool = False) -> tuple[float, float]:
    """(z, two-sided p) of ``runs`` runs in a 0/1 sequence of length ``n`` with ``ones`` ones.

    Default: Wald-Wolfowitz, the exact mean and variance of the number of runs for fixed counts.
    ``nist=True``: NIST SP 800-22 rev1a 2.3, mean 2 n pi (1 - pi), variance 4 n pi^2 (1 - pi)^2,
    pi = ones / n (the same test with asymptotic moments; its published examples check it).
    """
    zeros = n - ones
    if nist:
        pi = ones / n
        mean = 2.0 * n * pi * (1.0 - pi)
        variance = 4.0 * n * pi * pi * (1.0 - pi) ** 2
    else:
        mean = 2.0 * ones * zeros / n + 1.0
        variance = 2.0 * ones * zeros * (2.0 * ones * zeros - n) / (n * n * (n - 1.0))
    if variance <= 0:
        return 0.0, 1.0
    z = (runs - mean) / float(np.sqrt(variance))
    return z, float(special.erfc(abs(z) / np.sqrt(2.0)))


def count_runs(bits: npt.NDArray[np.bool_]) -> int:
    """The number of maximal runs of equal values (NIST's V_n(obs))."""
    return 1 + int(np.count_nonzero(bits[1:] != bits[:-1])) if len(bits) else 0


def runs_test(wins: npt.NDArray[np.bool_]) -> RandomnessTest | None:
    """Wald-Wolfowitz runs test on win/lose; None when one kind is absent."""
    n = len(wins)
    n1 = int(wins.sum())
    if n1 == 0 or n1 == n or n < 3:
        return None
    runs = count_runs(wins)
    z, p = runs_p(runs, n1, n)
    return RandomnessTest("runs", p, z, f"{runs} runs")


def frequency_p(ones: int, n: int, p: float, population: int | None = None) -> tuple[float, float]:
    """(z, two-sided p) of ``ones`` successes in ``n`` draws at proportion ``p``.

    ``population`` None: binomial draws, z = (ones - n p) / sqrt(n p (1 - p)); at p = 1/2 this
    is NIST SP 800-22 rev1a 2.1, the frequency (monobit) test, P = erfc(|S_n| / sqrt(2 n)).
    ``population`` N: n draws without replacement from N units (a slice of a block), the
    variance shrunk by the finite population correction (N - n) / (N - 1).
    """
    variance = n * p * (1.0 - p)
    if population is not None:
        variance *= (population - n) / (population - 1.0) if population > 1 else 0.0
    if variance <= 0:
        return 0.0, 1.0
    z = (ones - n * p) / float(np.sqrt(variance))
    return z, float(special.erfc(abs(z) / np.sqrt(2.0)))


def dispersion_tests(
    wins: npt.NDArray[np.bool_], positions: npt.NDArray[np.int64] | None = None
) -> list[RandomnessTest]:
    """Two-sided index of dispersion of the winners at the fine scales ``DISPERSION_PARTS``
    (``positions``: theirs, if already known)."""
    if positions is None:
        positions = np.flatnonzero(wins)
    results = []
    for parts in DISPERSION_PARTS:
        if len(positions) < LOWER_TAIL_EXPECTED * parts or parts >= len(wins):
            continue
        statistic, p = segment_chi2(positions, len(wins), parts)
        results.append(
            RandomnessTest(f"dispersion.{parts}", p, statistic, f"{parts} segments, two-sided")
        )
    return results


def spectral_test(wins: npt.NDArray[np.bool_]) -> RandomnessTest | None:
    """Fisher's g test for a hidden period in the winners (NIST SP 800-22 2.6 looks at the same
    periodogram): g = the largest periodogram ordinate |S_k|^2, k = 1 .. (N-1)/2, over their
    sum; P <= K (1 - g)^(K - 1), the first (Bonferroni) term of Fisher's exact law for K
    ordinates of white noise, which the ordinates of a random layout approach (each S_k is a
    sum of N terms). Upper tail: a period (winners favouring every 7th unit, a rhythm) makes
    one ordinate stand out; None below 16 units or without both kinds.

    From ``SPECTRAL_PREFIX_FROM`` units on, the test reads the longest prefix of 2^a 3^b 5^c
    units (at most 3 % shorter than the layout): at a length with a large prime factor the
    FFT is ten times slower (0.5 s at 1 999 999 units, a block with one line deleted), and a
    prefix of a random layout is a random layout."""
    whole = len(wins)
    if whole >= SPECTRAL_PREFIX_FROM:
        wins = wins[: _laws.previous_fast_len(whole)]
    n, ones = len(wins), int(wins.sum())
    k = (n - 1) // 2
    if n < 16 or ones == 0 or ones == n:
        return None
    spectrum = np.fft.rfft(wins.astype(np.float64) - ones / n)[1 : k + 1]
    power = spectrum.real**2 + spectrum.imag**2
    total = float(power.sum())
    if total <= 0:
        return None
    peak = int(power.argmax())
    g = float(power[peak]) / total
    log_p = np.log(k) + (k - 1) * np.log1p(-g) if g < 1 else -np.inf
    p = float(min(1.0, np.exp(log_p)))
    note = f"largest ordinate at a period of {n / (peak + 1):.2f} units, g = {g:.4g} of {k}"
    if n < whole:
        note += f"; the first {n} of {whole} units"
    return RandomnessTest("spectral", p, g, note)


def ks_uniform(values: npt.NDArray[np.float64]) -> tuple[float, float]:
    """(D, p) of the two-sided Kolmogorov-Smirnov test of ``values`` in [0, 1) against uniform
    (scipy's exact distribution up to 10 000 values, its asymptotic one beyond)."""
    return _laws.ks_uniform(values, exact=len(values) <= 10_000)


def serial_test(
    tiers: npt.NDArray[np.int64], winners: npt.NDArray[np.int64] | None = None
) -> RandomnessTest | None:
    """Lag-1 correlation of prize tiers (0 losing, 1 the smallest prize, ...). Given the
    ``winners`` (the positions of ``tiers > 0``; every other tier is 0), the exact integer
    sums are taken over them alone: the same r and p, without five passes over the block."""
    if len(tiers) < 10:
        return None
    if winners is None:
        r, p = _laws.pearsonr_integers(tiers[:-1], tiers[1:])
    else:
        values = tiers[winners].astype(np.int64)
        top = max(int(np.abs(values).max()) if len(values) else 0, 1)
        if top * top * (len(tiers) - 1) >= 2**62:  # pearsonr_integers' float path
            r, p = _laws.pearsonr_integers(tiers[:-1], tiers[1:])
        else:
            r, p = _serial_sums(len(tiers), winners, values)
    if math.isnan(r):  # one of the two is constant
        return None
    return RandomnessTest("serial", p, r, "lag 1")


def serial_of_winners(
    size: int, winners: npt.NDArray[np.int64], codes: npt.NDArray[np.int64]
) -> RandomnessTest | None:
    """``serial_test`` of ``size`` tiers that are 0 but for ``codes`` (small, positive) at
    ``winners`` (``tier_winners``)."""
    if size < 10:
        return None
    r, p = _serial_sums(size, winners, codes.astype(np.int64))
    if math.isnan(r):
        return None
    return RandomnessTest("serial", p, r, "lag 1")


def _serial_sums(
    size: int, winners: npt.NDArray[np.int64], values: npt.NDArray[np.int64]
) -> tuple[float, float]:
    """``pearsonr_integers(tiers[:-1], tiers[1:])`` of ``size`` tiers that are 0 but for
    ``values`` at ``winners`` (ascending)."""
    n = size - 1
    has = len(winners) > 0
    first = int(values[0]) if has and winners[0] == 0 else 0
    last = int(values[-1]) if has and winners[-1] == size - 1 else 0
    total, squares = int(values.sum()), int(np.dot(values, values))
    follows = np.flatnonzero(winners[1:] == winners[:-1] + 1)  # winner j + 1 right after j
    lagged = int(np.dot(values[follows], values[follows + 1]))
    return _laws.pearson_from_sums(
        n, total - last, total - first, squares - last * last, squares - first * first, lagged
    )


def gap_test(positions: npt.NDArray[np.int64], size: int, name: str) -> RandomnessTest | None:
    """Gaps between successive positions against the geometric law of a random layout."""
    gaps = np.diff(positions)
    if len(gaps) < MIN_GAPS:
        return None
    p = len(positions) / size
    if p >= 1:
        return None
    classes = max(2, min(20, int(len(gaps) // MIN_EXPECTED)))
    edges = _laws.geom_ppf(np.linspace(0, 1, classes + 1)[1:-1], p).astype(np.int64)
    edges = edges[np.concatenate(([True], edges[1:] != edges[:-1]))]  # rising: each edge once
    if len(edges) == 0:
        return None
    probability = np.diff(np.concatenate(([0.0], _laws.geom_cdf(edges, p), [1.0])))
    # class j holds the gaps g with edge[j - 1] < g <= edge[j] (edge[-1] = 0, the last class
    # unbounded): counted as the gaps up to each edge, one vectorised pass an edge (at most
    # 19), not a binary search a gap (a robots block's 600 000 winners: 3 ms, not 10)
    at_most = [np.count_nonzero(gaps <= edge) for edge in edges]
    observed = np.diff(np.array([0, *at_most, len(gaps)], dtype=np.int64)).astype(float)
    keep = probability > 0
    if keep.sum() < 2:
        return None
    expected = probability[keep] / probability[keep].sum() * len(gaps)
    statistic, p_value = _laws.chisquare(observed[keep], expected)
    return RandomnessTest(f"gap.{name}", p_value, statistic, f"{len(gaps)} gaps")


def tier_codes(
    prizes: npt.NDArray[np.integer], prizes_by_tier: Sequence[int]
) -> npt.NDArray[np.int64]:
    """0 for losing, k for the k-th prize of ``prizes_by_tier`` (ascending), -1 for others."""
    table = {0: 0}
    for code, prize in enumerate(sorted(prizes_by_tier), start=1):
        table[int(prize)] = code
    if len(prizes) and prizes.dtype.kind in "iu" and min(table) >= 0:
        high = int(prizes.max())
        if high < LOOKUP_PRIZES:  # one look-up a unit, not one pass a tier
            lookup = np.full(max(high, *table) + 2, -1, np.int64)  # [0]: every negative prize
            lookup[np.fromiter(table, np.int64, len(table)) + 1] = list(table.values())
            looked_up: npt.NDArray[np.int64] = lookup[np.maximum(prizes, -1).astype(np.int64) + 1]
            return looked_up
    values = prizes.astype(np.int64)
    codes = np.full(len(values), -1, np.int64)
    codes[values == 0] = 0
    for code, prize in enumerate(sorted(prizes_by_tier), start=1):
        codes[values == prize] = code
    return codes


def winner_positions(
    prizes: npt.NDArray[np.integer], lots: Mapping[int, int], segments: int, alpha: float
) -> FamilyVerdict:
    """The randomness family on one block or slice: chi-square per tier, dispersion, frequency
    (slices), runs, serial, spectral, gap per tier. ``lots`` are the whole block's counts.

    On a large block the tests run on three threads (numpy lets go of the GIL over whole
    arrays): the spectral test's FFT, the longest, from the moment the winners are known, the
    gap tests on another, the rest on the caller's; a tenth of a second of CPU on a robots
    block, on the wall after the last unit is read. The family is the same, in the same order,
    whichever way it runs."""
    tiers_prizes = sorted(p for p in lots if p > 0)
    names = [str(p) for p in tiers_prizes]
    size = len(prizes)
    winners, winner_codes = tier_winners(prizes, tiers_prizes)
    wins = np.zeros(size, bool)
    wins[winners] = True
    family = functools.partial(_family, wins, winners, winner_codes, lots, names, segments)
    if size < THREADED_UNITS:
        tests = family(lambda: spectral_test(wins), None)
    else:
        # the spectral test's FFT (0.04-0.05 s on a robots block, more the first time: its
        # plan, fresh pages) begins at once on a thread of its own, the gap tests on the other
        with ThreadPoolExecutor(2, thread_name_prefix="instantcert-stats") as pool:
            tests = family(pool.submit(spectral_test, wins).result, pool)
    return holm([test for test in tests if test is not None], alpha)


def _family(
    wins: npt.NDArray[np.bool_],
    winners: npt.NDArray[np.int64],
    winner_codes: npt.NDArray[np.int64],
    lots: Mapping[int, int],
    names: Sequence[str],
    segments: int,
    spectral: Callable[[], RandomnessTest | None],
    pool: ThreadPoolExecutor | None,
) -> list[RandomnessTest | None]:
    """``winner_positions``' family, in its order (None for a test that does not apply), the
    spectral test's outcome from ``spectral``; with ``pool``, the gap tests (the longest after
    the spectral test) on one of its threads, the others on this one."""
    size = len(wins)
    by_tier = [winners[winner_codes == code] for code in range(1, len(names) + 1)]
    population = sum(lots.values())

    def gaps() -> list[RandomnessTest | None]:
        return [
            gap_test(winners, size, "winners"),
            *(gap_test(at, size, name) for at, name in zip(by_tier, names, strict=True)),
        ]

    gapped = pool.submit(gaps) if pool is not None else None
    tests: list[RandomnessTest | None] = list(tier_tests_of(by_tier, names, segments, size))
    if len(winners) >= MIN_EXPECTED * segments:
        statistic, p = segment_chi2(winners, size, segments)
        tests.append(RandomnessTest("chi2.winners", p, statistic, f"{segments} segments"))
    tests.extend(dispersion_tests(wins, winners))
    if 0 < size < population:
        share = sum(n for p, n in lots.items() if p > 0) / population
        z, p = frequency_p(len(winners), size, share, population)
        tests.append(RandomnessTest("frequency", p, z, f"{len(winners)} winners"))
    tests.append(runs_test(wins))
    tests.append(serial_of_winners(size, winners, winner_codes))
    tests.append(spectral())
    tests.extend(gapped.result() if gapped is not None else gaps())
    return tests


def top_tier_positions(
    prizes: npt.NDArray[np.integer], lots: Mapping[int, int]
) -> npt.NDArray[np.float64]:
    """Relative places, in [0, 1), of the top-tier units of one block or slice.

    A top tier has at most ``TOP_TIER_UNITS`` units in a whole block (robots 10 000 €, 1 000 €,
    100 €; eldorado its five highest lots); a unit at index i of a document of m units is at
    (i + 0.5) / m, uniform under a random layout whether the document is a block or a slice.
    """
    top = [p for p, n in lots.items() if p > 0 and n <= TOP_TIER_UNITS]
    at = np.flatnonzero(np.isin(prizes, np.asarray(top, np.int64)))
    return (at + 0.5) / max(len(prizes), 1)


def top_tiers(places: npt.NDArray[np.float64], alpha: float) -> FamilyVerdict | None:
    """The pooled relative places of the top prizes against the uniform law: two-sided
    Kolmogorov-Smirnov (``ks``) and Cramer-von Mises (``cvm``, more weight on the tails:
    "all in the first y %"). None when no top-tier unit was read."""
    if len(places) == 0:
        return None
    d, p = ks_uniform(places)
    results = [RandomnessTest("ks", p, d, f"{len(places)} top-tier units pooled")]
    if len(places) >= 2:
        t, p = _laws.cramervonmises_uniform(places)
        results.append(RandomnessTest("cvm", p, t, f"{len(places)} units"))
    return holm(results, alpha)
