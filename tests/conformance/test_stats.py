"""Randomness tests: the right size on random layouts, power against the patterns they target."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
import pytest
from scipy import stats  # type: ignore[import-untyped]

from conformance import _stats
from conformance._crossblock import unrelated
from conformance._stats import RandomnessTest, holm, winner_positions

LOTS = {0: 7000, 100: 1800, 200: 700, 500: 300, 1000: 150, 10000: 45, 100000: 4, 1000000: 1}
SIZE = sum(LOTS.values())


def layout(rng: np.random.Generator) -> npt.NDArray[np.int32]:
    prizes = np.repeat(np.array(list(LOTS), np.int32), list(LOTS.values()))
    return rng.permutation(prizes)


def test_holm_bonferroni_steps_down() -> None:
    results = [
        RandomnessTest("a", 0.001, 0),
        RandomnessTest("b", 0.006, 0),
        RandomnessTest("c", 0.03, 0),
    ]
    assert holm(results, 0.01).rejected == ("a",)  # 0.001 <= 0.01/3; 0.006 > 0.01/2
    assert holm(results, 0.05).rejected == ("a", "b", "c")
    assert holm([RandomnessTest("a", 0.02, 0)], 0.01).passed


def test_false_alarm_rate_on_random_layouts_is_near_alpha() -> None:
    rng = np.random.default_rng(2024)
    trials = 200
    family_rejections = 0
    p_values: dict[str, list[float]] = {}
    for _ in range(trials):
        verdict = winner_positions(layout(rng), LOTS, 20, 0.05)
        family_rejections += not verdict.passed
        for name, p in verdict.p_values().items():
            p_values.setdefault(name, []).append(p)
    # Holm keeps the family-wise rate at most alpha (binomial sd at 200 trials: ~0.015)
    assert family_rejections / trials <= 0.05 + 0.05
    # each test alone is of the right size: about 10 % of its p-values below 0.1
    for name, ps in p_values.items():
        rate = float(np.mean(np.asarray(ps) < 0.1))
        assert 0.02 <= rate <= 0.2, (name, rate)
    assert {"runs", "serial", "chi2.winners", "gap.winners", "chi2.100"} <= set(p_values)


def test_the_family_on_two_threads_is_the_family_on_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """Threaded (the longest tests first), the family has the same tests, in the same order,
    with the same statistics and p-values."""
    prizes = layout(np.random.default_rng(7))
    one = winner_positions(prizes, LOTS, 20, 0.01)
    monkeypatch.setattr(_stats, "THREADED_UNITS", 1)
    two = winner_positions(prizes, LOTS, 20, 0.01)
    assert two == one
    assert len(one.results) >= 10


def test_winners_clustered_in_the_first_half_are_caught() -> None:
    rng = np.random.default_rng(1)
    prizes = layout(rng)
    wins = np.flatnonzero(prizes > 0)
    losses = np.flatnonzero(prizes == 0)
    # move a tenth of the second half's winners into the first half
    late = wins[wins >= SIZE // 2][::10]
    early = losses[losses < SIZE // 2][: len(late)]
    prizes[early], prizes[late] = prizes[late], prizes[early]
    verdict = winner_positions(prizes, LOTS, 20, 0.01)
    assert not verdict.passed
    assert any(name.startswith("chi2.") for name in verdict.rejected)


def test_a_winner_every_kth_unit_is_caught() -> None:
    prizes = np.zeros(SIZE, np.int32)
    tiers = np.repeat(np.array([p for p in LOTS if p], np.int32), [n for p, n in LOTS.items() if p])
    step = SIZE // len(tiers)
    prizes[np.arange(len(tiers)) * step] = np.random.default_rng(3).permutation(tiers)
    verdict = winner_positions(prizes, LOTS, 20, 0.01)
    assert {"runs", "gap.winners"} <= set(verdict.rejected)


def test_serially_paired_winners_are_caught() -> None:
    rng = np.random.default_rng(4)
    prizes = layout(rng)
    # every winner but the last is followed by another winner: pairs
    wins = np.flatnonzero(prizes > 0)
    pairs = np.zeros(SIZE, np.int32)
    starts = np.sort(rng.choice(SIZE // 2, len(wins) // 2, replace=False)) * 2
    pairs[starts] = prizes[wins[: len(starts)]]
    pairs[starts + 1] = prizes[wins[len(starts) : 2 * len(starts)]]
    lots = {int(p): int(n) for p, n in zip(*np.unique(pairs, return_counts=True), strict=True)}
    verdict = winner_positions(pairs, lots, 20, 0.01)
    assert "serial" in verdict.rejected or "runs" in verdict.rejected


def test_sparse_tiers_are_pooled_or_tested_exactly() -> None:
    rng = np.random.default_rng(5)
    names = {r.name for r in winner_positions(layout(rng), LOTS, 20, 0.01).results}
    assert "chi2.10000" in names  # 45 units: 9 segments of expected 5
    assert "ks.sparse" in names  # 4 + 1 units pooled: too few for segments, exact KS
    tiny = {0: 999, 7: 1}
    prizes = np.zeros(1000, np.int32)
    prizes[500] = 7
    result = {r.name: r for r in winner_positions(prizes, tiny, 20, 0.01).results}
    assert "ks.sparse" in result and result["ks.sparse"].p_value > 0.5


def test_two_blocks_with_identical_orders_are_related() -> None:
    rng = np.random.default_rng(6)
    first = layout(rng)
    assert not unrelated(first, first.copy(), LOTS, 0.01).passed
    assert unrelated(first, layout(rng), LOTS, 0.01).passed


def test_unrelated_blocks_have_the_right_size() -> None:
    rng = np.random.default_rng(7)
    rejections = sum(not unrelated(layout(rng), layout(rng), LOTS, 0.05).passed for _ in range(100))
    assert rejections / 100 <= 0.05 + 0.05


@pytest.mark.parametrize("prize", [0, 100])
def test_a_block_of_one_kind_yields_no_spurious_rejection(prize: int) -> None:
    verdict = winner_positions(np.full(50, prize, np.int32), {prize: 50}, 20, 0.01)
    assert verdict.passed


def test_tier_codes() -> None:
    codes = _stats.tier_codes(np.array([0, 100, 500, 7, 100]), [500, 100])
    assert codes.tolist() == [0, 1, 2, -1, 1]


def _codes_by_passes(prizes: npt.NDArray[np.integer], tiers: list[int]) -> list[int]:
    """``tier_codes`` as it was written first: one pass over the prizes a tier."""
    values = prizes.astype(np.int64)
    codes = np.full(len(values), -1, np.int64)
    codes[values == 0] = 0
    for code, prize in enumerate(sorted(tiers), start=1):
        codes[values == prize] = code
    return codes.tolist()


@pytest.mark.parametrize(
    "prizes",
    [
        [0, 100, 500, 7, 100, -1, -5, 1000000, 999],  # negatives: a line without a prize
        [2**31 - 1, 0, 100, -(2**31)],  # past the look-up table: the passes
        [5, 5, 5],  # none of a tier
        [],
    ],
)
def test_tier_codes_by_look_up_equal_the_passes(prizes: list[int]) -> None:
    array = np.array(prizes, np.int32)
    tiers = [500, 100, 1000000]
    codes = _stats.tier_codes(array, tiers)
    assert codes.dtype == np.int64
    assert codes.tolist() == _codes_by_passes(array, tiers)


@pytest.mark.parametrize("seed", range(5))
def test_the_family_from_the_winners_equals_the_passes_over_the_block(seed: int) -> None:
    """Tier positions, dispersion and the serial correlation taken from the winners alone
    (every other unit is 0) give exactly the statistics of the passes over the whole block."""
    rng = np.random.default_rng(seed)
    prizes = layout(rng)
    if seed % 2:  # winners at both ends: the lag's edge terms
        prizes[0], prizes[-1] = 100, 1000
    codes = _stats.tier_codes(prizes, [p for p in LOTS if p > 0])
    winners = np.flatnonzero(codes > 0)
    tiers = np.maximum(codes, 0)
    for code, positions in enumerate(_stats.tier_positions(codes, 7, winners), start=1):
        assert positions.tolist() == np.flatnonzero(codes == code).tolist()
    sparse, dense = _stats.serial_test(tiers, winners), _stats.serial_test(tiers)
    assert sparse is not None and dense is not None
    assert (sparse.statistic, sparse.p_value) == (dense.statistic, dense.p_value)
    wins = codes > 0
    assert _stats.dispersion_tests(wins, winners) == _stats.dispersion_tests(wins)
    tiers_prizes = sorted(p for p in LOTS if p > 0)
    found, found_codes = _stats.tier_winners(prizes, tiers_prizes)
    assert found.tolist() == winners.tolist()
    assert found_codes.tolist() == codes[winners].tolist()
    of_winners = _stats.serial_of_winners(len(prizes), found, found_codes)
    assert of_winners is not None
    assert (of_winners.statistic, of_winners.p_value) == (dense.statistic, dense.p_value)


def test_tier_winners_leave_out_what_is_no_tier() -> None:
    int32 = np.array([0, 100, -1, 7, 500, 100, 2**31 - 1, 0], np.int32)
    for prizes in (int32, int32.astype(np.int64)):  # compiled, numpy
        positions, codes = _stats.tier_winners(prizes, [100, 500])
        assert positions.tolist() == [1, 4, 5] and codes.tolist() == [1, 2, 1]
        assert [len(a) for a in _stats.tier_winners(prizes, [])] == [0, 0]
        assert [len(a) for a in _stats.tier_winners(prizes[:0], [100])] == [0, 0]


# -- known answers: published worked examples (NIST SP 800-22 rev1a) and small exact cases ----

NIST_100 = (
    "11001001000011111101101010100010001000010110100011"
    "00001000110100110001001100011001100010100010111000"
)


def bits(text: str) -> npt.NDArray[np.bool_]:
    return np.frombuffer(text.encode(), np.uint8) == ord("1")


def test_frequency_reproduces_the_nist_monobit_examples() -> None:
    # SP 800-22 rev1a 2.1.4: epsilon = 1011010101, S_10 = 2, s_obs = 0.632455532, P = 0.527089
    z, p = _stats.frequency_p(int(bits("1011010101").sum()), 10, 0.5)
    assert z == pytest.approx(0.632455532, abs=1e-9)
    assert p == pytest.approx(0.527089, abs=5e-7)
    # 2.1.8: the 100-bit example, S_100 = -16, s_obs = 1.6, P = 0.109599
    z, p = _stats.frequency_p(int(bits(NIST_100).sum()), 100, 0.5)
    assert z == pytest.approx(-1.6)
    assert p == pytest.approx(0.109599, abs=5e-7)


def test_frequency_with_a_finite_population_by_hand() -> None:
    # 3 winners in a slice of 5 from a block of 10 holding 5: var = 5 * 1/4 * 5/9 = 25/36,
    # z = (3 - 2.5) / (5/6) = 0.6, P = erfc(0.6 / sqrt 2) = 0.5485062
    z, p = _stats.frequency_p(3, 5, 0.5, population=10)
    assert z == pytest.approx(0.6)
    assert p == pytest.approx(math.erfc(0.6 / math.sqrt(2)))
    assert p == pytest.approx(0.5485062, abs=1e-7)
    assert _stats.frequency_p(5, 10, 0.5, population=10) == (0.0, 1.0)  # the whole block


def test_runs_reproduce_the_nist_runs_examples() -> None:
    # SP 800-22 rev1a 2.3.4: epsilon = 1001101011, pi = 3/5, V_10(obs) = 7, P = 0.147232
    sequence = bits("1001101011")
    assert _stats.count_runs(sequence) == 7
    _z, p = _stats.runs_p(7, 6, 10, nist=True)
    assert p == pytest.approx(0.147232, abs=5e-7)
    # 2.3.8: the 100-bit example, pi = 0.42, V_100(obs) = 52, P = 0.500798
    sequence = bits(NIST_100)
    assert (int(sequence.sum()), _stats.count_runs(sequence)) == (42, 52)
    _z, p = _stats.runs_p(52, 42, 100, nist=True)
    assert p == pytest.approx(0.500798, abs=5e-7)


def test_runs_with_exact_moments_by_hand() -> None:
    # Wald-Wolfowitz on 1001101011: n1 = 6, n2 = 4, R = 7; mean 2*6*4/10 + 1 = 5.8,
    # variance 2*24*(48 - 10) / (10^2 * 9) = 1824/900, z = 1.2 / sqrt(1824/900) = 0.842927
    z, p = _stats.runs_p(7, 6, 10)
    assert z == pytest.approx(1.2 / math.sqrt(1824 / 900))
    assert z == pytest.approx(0.842927, abs=1e-6)
    assert p == pytest.approx(math.erfc(z / math.sqrt(2)))
    test = _stats.runs_test(bits("1001101011"))
    assert test is not None and test.statistic == pytest.approx(z)
    # the two forms are the same test: on a long sequence they differ by O(1 / sqrt(n)) only
    # (NIST's mean lacks the + 1)
    long = np.random.default_rng(9).random(200_000) < 0.3
    runs, ones = _stats.count_runs(long), int(long.sum())
    assert _stats.runs_p(runs, ones, len(long))[1] == pytest.approx(
        _stats.runs_p(runs, ones, len(long), nist=True)[1], abs=1e-2
    )


def test_segment_chi2_by_hand() -> None:
    # 10 units, 5 winners at 0, 1, 2, 3, 5: segments [0, 5), [5, 10) hold 4 and 1, expected
    # 2.5 each: Pearson 1.8; finite population (10 - 1)/(10 - 5): 3.24 = z^2 of the
    # hypergeometric count (var 5/4 * 5/9); 2 segments: upper tail, P = erfc(1.8 / sqrt 2)
    statistic, p = _stats.segment_chi2(np.array([0, 1, 2, 3, 5]), 10, 2)
    assert statistic == pytest.approx(3.24)
    assert p == pytest.approx(math.erfc(1.8 / math.sqrt(2)))
    assert p == pytest.approx(0.0718606, abs=1e-7)


def test_segment_chi2_is_two_sided_from_20_segments() -> None:
    # 400 units, 200 winners, exactly 10 in each of 20 segments of 20: statistic 0, the lower
    # tail says "too even": P = 2 * chi2_19.cdf(0) = 0
    even = np.concatenate([np.arange(s, s + 10) for s in range(0, 400, 20)])
    statistic, p = _stats.segment_chi2(even, 400, 20)
    assert statistic == 0.0 and p == 0.0
    # all 200 in the first 10 segments: Pearson 20 * 10^2 / 10 = 200, corrected 200 * 399/200
    statistic, p = _stats.segment_chi2(np.arange(200), 400, 20)
    assert statistic == pytest.approx(399.0)
    assert p == pytest.approx(2 * float(stats.chi2.sf(399.0, 19)))
    # fewer expected units per segment: upper tail only (the law does not describe the lower)
    _statistic, p = _stats.segment_chi2(np.arange(0, 400, 20), 400, 20)
    assert p == pytest.approx(1.0)


def test_dispersion_at_fine_scales_by_hand() -> None:
    # 100 000 units, every 5th a winner: 20 000 winners, exactly 200 per segment of 1 000:
    # the index of dispersion is 0 at every scale, P = 0 (too regular)
    wins = np.zeros(100_000, bool)
    wins[::5] = True
    results = {r.name: r for r in _stats.dispersion_tests(wins)}
    assert set(results) == {"dispersion.100", "dispersion.500", "dispersion.2000"}
    assert all(r.statistic == 0.0 and r.p_value == 0.0 for r in results.values())
    # 2 000 segments need 20 000 winners (10 each); 19 999 are not enough for that scale
    wins[0] = False
    assert "dispersion.2000" not in {r.name for r in _stats.dispersion_tests(wins)}


def test_ks_uniform_by_hand() -> None:
    # n = 1: D = max(x, 1 - x) = 0.5 at x = 0.5, P(D >= 0.5) = 1
    assert _stats.ks_uniform(np.array([0.5])) == pytest.approx((0.5, 1.0))
    # n = 2 at 0.1, 0.2: D+ = 1 - 0.2 = 0.8; P(D+ >= 0.8) = P(both <= 0.2) = 0.04, the same for
    # D-, and both cannot hold: P(D >= 0.8) = 0.08
    assert _stats.ks_uniform(np.array([0.1, 0.2])) == pytest.approx((0.8, 0.08))


def test_holm_by_hand() -> None:
    # sorted 0.005 <= 0.05/4, 0.01 <= 0.05/3, 0.03 > 0.05/2: stop; 0.04 is not rejected
    ps = (0.01, 0.04, 0.03, 0.005)
    results = [RandomnessTest(n, p, 0) for n, p in zip("abcd", ps, strict=True)]
    assert holm(results, 0.05).rejected == ("d", "a")
    assert holm(results, 0.001).rejected == ()


def test_top_tier_positions_and_pooled_tests_by_hand() -> None:
    # a 500 cents lot of 1 unit is a top tier; its unit at index 1 of 4 sits at 1.5 / 4
    places = _stats.top_tier_positions(np.array([0, 500, 0, 100]), {500: 1, 100: 300, 0: 3})
    assert places.tolist() == [0.375]
    verdict = _stats.top_tiers(np.array([0.1, 0.2]), 0.01)
    assert verdict is not None
    assert verdict.p_values()["ks"] == pytest.approx(0.08)
    assert _stats.top_tiers(np.zeros(0), 0.01) is None


def test_top_tiers_catch_top_prizes_in_the_first_tenth() -> None:
    rng = np.random.default_rng(11)
    fair = np.concatenate([rng.random(40) for _ in range(4)])
    assert _stats.top_tiers(fair, 0.01).passed  # type: ignore[union-attr]
    early = rng.random(40) * 0.1
    verdict = _stats.top_tiers(early, 0.01)
    assert verdict is not None and set(verdict.rejected) == {"ks", "cvm"}


def test_a_stratified_layout_is_too_regular() -> None:
    # every run of 100 units holds exactly 30 winners, shuffled: each run looks random
    rng = np.random.default_rng(12)
    strata = [rng.permutation(np.repeat([100, 0], [30, 70])) for _ in range(100)]
    prizes = np.concatenate(strata).astype(np.int32)
    verdict = winner_positions(prizes, {100: 3000, 0: 7000}, 20, 0.01)
    assert "chi2.winners" in verdict.rejected
    assert verdict.p_values()["chi2.winners"] < 1e-6


def test_spectral_by_hand() -> None:
    # 16 units, winners at 0, 4, 8, 12: S_k = 4 for k = 4 and 0 for the other k in 1..7,
    # so g = 1 and P = 7 * (1 - 1)^6 = 0
    wins = np.zeros(16, bool)
    wins[::4] = True
    test = _stats.spectral_test(wins)
    assert test is not None and test.statistic == pytest.approx(1.0) and test.p_value == 0.0
    assert "period of 4.00" in test.note
    # winners at 0 and 1: |S_k|^2 = 2 + 2 cos(pi k / 8), summing to 14 over k = 1..7; the
    # largest, k = 1, is 2 + 2 cos(pi / 8) = 3.847759: g = 0.274840, P = min(1, 7 (1 - g)^6)
    wins = np.zeros(16, bool)
    wins[:2] = True
    test = _stats.spectral_test(wins)
    g = (2 + 2 * math.cos(math.pi / 8)) / 14
    assert test is not None and test.statistic == pytest.approx(g)
    assert g == pytest.approx(0.274840, abs=1e-6)
    assert test.p_value == pytest.approx(min(1.0, 7 * (1 - g) ** 6))


def test_spectral_reads_a_fast_prefix_of_a_long_layout_of_awkward_length() -> None:
    """1 999 999 = 17 x 71 x 1657 units (a block with a line deleted): the test reads the
    first 1 990 656 = 2^13 x 3^5 and says so; a rhythm in them is still caught."""
    rng = np.random.default_rng(5)
    n = 1_999_999
    wins = rng.random(n) < 0.3
    test = _stats.spectral_test(wins)
    assert test is not None and "the first 1990656 of 1999999 units" in test.note
    prefix = _stats.spectral_test(wins[:1_990_656])
    assert prefix is not None and (prefix.p_value, prefix.statistic) == (
        test.p_value,
        test.statistic,
    )
    wins[::7] = True  # a winner on every 7th unit
    caught = _stats.spectral_test(wins)
    assert caught is not None and caught.p_value < 1e-12  # (its strongest harmonic: 7 / 2)
    short = _stats.spectral_test(wins[: _stats.SPECTRAL_PREFIX_FROM - 1])
    assert short is not None and "the first" not in short.note  # below it: every unit


def test_spectral_catches_a_rhythm_and_holds_its_level() -> None:
    rng = np.random.default_rng(13)
    n = 50_000
    nulls = [_stats.spectral_test(rng.permutation(np.arange(n) < 15_000)) for _ in range(100)]
    assert sum(t is not None and t.p_value < 0.05 for t in nulls) <= 5 + 5
    wins = rng.permutation(np.arange(n) < 15_000)
    beats = np.arange(0, n, 7)
    free = beats[~wins[beats]]
    off = np.flatnonzero(wins & (np.arange(n) % 7 != 0))
    moved = rng.choice(off, 600, replace=False)  # 4 % of the winners onto every 7th unit
    wins[moved] = False
    wins[rng.choice(free, 600, replace=False)] = True
    test = _stats.spectral_test(wins)
    assert test is not None and test.p_value < 1e-6


def test_gap_test_by_hand() -> None:
    # 21 winners every 100 units of 2 100: p = 0.01, 20 gaps of 100; 4 classes at the quartiles
    # of the geometric law: ceil(log(1 - q) / log 0.99) = 29, 69, 138; every gap falls in
    # (69, 138], of probability 0.99^69 - 0.99^138; chi-square = 20^2 / E - 20 on 3 df
    positions = np.arange(0, 2100, 100)
    test = _stats.gap_test(positions, 2100, "winners")
    assert test is not None and test.name == "gap.winners"
    expected = 20 * (0.99**69 - 0.99**138)
    assert test.statistic == pytest.approx(400 / expected - 20)
    assert test.statistic == pytest.approx(60.0, abs=0.01)
    assert test.p_value == pytest.approx(float(stats.chi2.sf(400 / expected - 20, 3)))
    assert _stats.gap_test(positions[:20], 2100, "winners") is None  # 19 gaps: no power


def test_serial_test_by_hand() -> None:
    # tiers 0 0 1 1 0 0 1 1 0 0: pairs (x, y) = (t[i], t[i + 1]); both means 4/9, sum of
    # products 2, so cov = 2 - 16/9 = 2/9 and each sum of squares 20/9: r = 0.1 exactly;
    # P = 2 t_7.sf(0.1 sqrt(7 / 0.99))
    test = _stats.serial_test(np.array([0, 0, 1, 1, 0, 0, 1, 1, 0, 0]))
    assert test is not None
    assert test.statistic == pytest.approx(0.1)
    t = 0.1 * math.sqrt(7 / 0.99)
    assert test.p_value == pytest.approx(2 * float(stats.t.sf(t, 7)))
    # alternation: r = -1
    test = _stats.serial_test(np.array([0, 1] * 5))
    assert test is not None and test.statistic == pytest.approx(-1.0) and test.p_value < 1e-6


def test_cramer_von_mises_of_the_top_tiers_by_hand() -> None:
    # two places at 1/4 and 3/4: W^2 = 1/(12 n) + sum (u_i - (2i - 1)/(2n))^2 = 1/24, its
    # smallest possible value: P = 1; KS: D = 1/4 = 1/(2n), also its least: P = 1
    verdict = _stats.top_tiers(np.array([0.25, 0.75]), 0.01)
    assert verdict is not None
    cvm = next(r for r in verdict.results if r.name == "cvm")
    assert cvm.statistic == pytest.approx(1 / 24)
    assert cvm.p_value == pytest.approx(1.0, abs=1e-6)
    assert verdict.p_values()["ks"] == pytest.approx(1.0)


def _gap_test_by_binary_search(
    positions: npt.NDArray[np.int64], size: int, name: str
) -> RandomnessTest | None:
    """``gap_test`` as it was written first: each gap's class by a binary search."""
    gaps = np.diff(positions)
    p = len(positions) / size
    classes = max(2, min(20, int(len(gaps) // _stats.MIN_EXPECTED)))
    edges = _stats._laws.geom_ppf(np.linspace(0, 1, classes + 1)[1:-1], p).astype(np.int64)
    edges = edges[np.concatenate(([True], edges[1:] != edges[:-1]))]
    bounds = np.concatenate(([0], edges, [np.iinfo(np.int64).max]))
    probability = np.diff(np.concatenate(([0.0], _stats._laws.geom_cdf(edges, p), [1.0])))
    observed = np.bincount(
        np.searchsorted(bounds, gaps, side="left") - 1, minlength=len(bounds) - 1
    ).astype(float)
    keep = probability > 0
    expected = probability[keep] / probability[keep].sum() * len(gaps)
    statistic, p_value = _stats._laws.chisquare(observed[keep], expected)
    return RandomnessTest(f"gap.{name}", p_value, statistic, f"{len(gaps)} gaps")


@pytest.mark.parametrize("share", [0.001, 0.05, 0.3, 0.7])
def test_gap_classes_counted_edge_by_edge_are_the_binary_searchs(share: float) -> None:
    """The gaps counted up to each edge (``gap_test``) fall in the classes a binary search a
    gap put them in: the same statistic and p-value, to the bit."""
    rng = np.random.default_rng(int(share * 1000))
    size = 200_000
    positions = np.flatnonzero(rng.random(size) < share).astype(np.int64)
    assert _stats.gap_test(positions, size, "x") == _gap_test_by_binary_search(positions, size, "x")
