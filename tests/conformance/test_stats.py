"""Randomness tests: the right size on random layouts, power against the patterns they target."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from conformance import _stats
from conformance._stats import RandomnessTest, holm, unrelated, winner_positions

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
    rejections = sum(not unrelated(layout(rng), layout(rng), LOTS, 0.05).passed for _ in range(200))
    assert rejections / 200 <= 0.05 + 0.04


@pytest.mark.parametrize("prize", [0, 100])
def test_a_block_of_one_kind_yields_no_spurious_rejection(prize: int) -> None:
    verdict = winner_positions(np.full(50, prize, np.int32), {prize: 50}, 20, 0.01)
    assert verdict.passed


def test_tier_codes() -> None:
    codes = _stats.tier_codes(np.array([0, 100, 500, 7, 100]), [500, 100])
    assert codes.tolist() == [0, 1, 2, -1, 1]
