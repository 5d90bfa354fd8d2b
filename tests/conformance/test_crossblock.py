"""Cross-block randomness: exact small cases by hand, the level under the null (also when one
block alone is not random), and power against shifts, rotations, reversals and remaps."""

from __future__ import annotations

import math
import zlib

import numpy as np
import numpy.typing as npt
import pytest

from conformance import _crossblock as cb
from conformance._crossblock import unrelated

LOTS = {0: 7000, 100: 1800, 200: 700, 500: 300, 1000: 150, 10000: 45, 100000: 4, 1000000: 1}
SIZE = sum(LOTS.values())


def layout(rng: np.random.Generator) -> npt.NDArray[np.int64]:
    return rng.permutation(np.repeat(np.array(list(LOTS), np.int64), list(LOTS.values())))


def ones(n: int, at: list[int]) -> npt.NDArray[np.bool_]:
    x = np.zeros(n, bool)
    x[at] = True
    return x


def test_circular_overlaps_by_hand() -> None:
    # x has ones at 0 and 2; r[k] = y[k] + y[k + 2] (mod 5) with y's ones at 1 and 3
    x, y = ones(5, [0, 2]), ones(5, [1, 3])
    assert cb.circular_overlaps(x, y).tolist() == [0, 2, 0, 1, 1]


@pytest.mark.parametrize("n", [10, 17, 1_999_999 // 1000 + 3])
def test_circular_overlaps_match_the_definition(n: int) -> None:
    # lengths with large prime factors take the padded-and-folded path
    rng = np.random.default_rng(n)
    x, y = rng.random(n) < 0.3, rng.random(n) < 0.4
    r = cb.circular_overlaps(x, y)
    assert r.tolist() == [int(np.sum(x & np.roll(y, -k))) for k in range(n)]


def test_lagged_overlap_by_hand() -> None:
    # 20 units; A's winners 0..4, B's 3..7 (A shifted by 3): overlap 5 at lag 3, and
    # P(H >= 5) = 1 / C(20, 5); one transform, 20 lags, 2 sides: p = 40 / 15504
    test = cb.lagged_overlap(ones(20, [0, 1, 2, 3, 4]), ones(20, [3, 4, 5, 6, 7]), (1,))
    assert test is not None
    assert test.statistic == 5
    assert test.p_value == pytest.approx(40 / math.comb(20, 5))
    assert "B[i +3] against A[1*i]" in test.note
    # n = 5, two winners each: the most extreme tail is P(H = 2) = 1/10; p = 2 * 5 * 0.1 = 1
    test = cb.lagged_overlap(ones(5, [0, 2]), ones(5, [1, 3]), (1,))
    assert test is not None and test.p_value == 1.0


def test_sparse_overlap_by_hand() -> None:
    # tier 1 at 2, 5 in A and 7, 10 in B: differences 5, 8, 2, 5: 2 coincide at 5,
    # P(H >= 2) = 1 / C(20, 2); one transform, 20 lags: p = 20 / 190
    a = np.zeros(20, np.int64)
    b = np.zeros(20, np.int64)
    a[[2, 5]] = 1
    b[[7, 10]] = 1
    test = cb.sparse_overlap(a, b, (1,))
    assert test is not None
    assert test.statistic == 2
    assert test.p_value == pytest.approx(20 / 190)


def test_same_position_overlap_by_hand() -> None:
    # 4 units, winners at 0, 1 in both: overlap 2 of Hypergeom(4, 2, 2): P(H >= 2) = 1/6
    both = np.array([100, 100, 0, 0])
    verdict = unrelated(both, both.copy(), {100: 2, 0: 2}, 0.01)
    assert verdict.p_values()["overlap"] == pytest.approx(1 / 3)


def test_transforms_use_multipliers_prime_to_the_modulus() -> None:
    n = 2_000_000
    tried = cb.transforms(n, cb.WHOLE_MULTIPLIERS)
    assert (n, 1, False) in tried and (n, -1, False) in tried
    assert (n, 3, True) in tried and (n, 7, False) in tried
    assert all(c % 2 and c % 5 for m, c, _ in tried if m == n)  # 2 and 5 divide 2 000 000
    assert {(m, c) for m, c, _ in tried if m == n - 1} == {(n - 1, 2), (n - 1, -2)}
    assert cb.transforms(n, cb.SLICE_MULTIPLIERS) == [(n, 1, False), (n, -1, False)]


def test_the_family_holds_its_level_when_one_block_is_not_random() -> None:
    # block A is the same fixed, very regular layout every time (winners in rank order, evenly
    # spaced); B is random: the blocks are unrelated, and the tests must say so at about α
    rng = np.random.default_rng(21)
    prizes = np.repeat(np.array(list(LOTS), np.int64), list(LOTS.values()))
    regular = np.zeros(SIZE, np.int64)
    winners = np.sort(prizes[prizes > 0])
    regular[np.linspace(0, SIZE - 1, len(winners)).astype(np.int64)] = winners
    trials = 60
    rejected = sum(not unrelated(regular, layout(rng), LOTS, 0.05).passed for _ in range(trials))
    assert rejected / trials <= 0.05 + 0.08


def _shuffle(a: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    return np.concatenate([a[::2], a[1::2]])


def _interleave(a: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    return np.stack([a[: len(a) // 2], a[len(a) // 2 :]], 1).ravel()


TRANSFORMS = {
    "shift by 1": lambda a: np.roll(a, 1),
    "shift by 10": lambda a: np.roll(a, 10),
    "shift by 1000": lambda a: np.roll(a, 1000),
    "rotated by half": lambda a: np.roll(a, len(a) // 2),
    "reversed": lambda a: a[::-1].copy(),
    "mirrored and shifted": lambda a: np.roll(a[::-1], 77),
    "affine x3 + 17": lambda a: a[(3 * np.arange(len(a)) + 17) % len(a)],
    "affine x7 - 5, the other way": lambda a: a[(7 * np.arange(len(a)) - 5) % len(a)],
    "even units then odd": _shuffle,
    "halves interleaved": _interleave,
}


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_a_transform_of_another_block_is_caught(name: str) -> None:
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    first = layout(rng)
    second = TRANSFORMS[name](first)
    assert sorted(second.tolist()) == sorted(first.tolist())  # the same lot table
    verdict = unrelated(first, second, LOTS, 0.01)
    assert "lag_overlap" in verdict.rejected, verdict.p_values()
    assert "overlap" not in verdict.rejected or name.startswith(("shift by 1", "halves"))


def test_top_prizes_at_the_same_places_in_every_block_are_caught() -> None:
    # B is random but for its top tiers, which sit where A's do, one place on
    rng = np.random.default_rng(22)
    first, second = layout(rng), layout(rng)
    top = [p for p, n in LOTS.items() if 0 < n <= 150]
    second[np.isin(second, top)] = 0
    second = second.copy()
    at = np.flatnonzero(np.isin(first, top))
    displaced = second[(at + 1) % SIZE].copy()
    second[(at + 1) % SIZE] = first[at]
    free = np.flatnonzero(second == 0)
    free = free[~np.isin(free, (at + 1) % SIZE)]
    second[free[: int((displaced > 0).sum())]] = displaced[displaced > 0]
    assert sorted(second.tolist()) == sorted(first.tolist())
    verdict = unrelated(first, second, LOTS, 0.01)
    assert "lag_overlap.top" in verdict.rejected
    assert "lag_overlap" not in verdict.rejected  # 200 units out of 3 000 winners: only there


def test_a_slice_of_a_shifted_copy_is_caught() -> None:
    # the quick profile reads the same slice of both blocks
    rng = np.random.default_rng(23)
    first = layout(rng)
    second = np.roll(first, 1)
    verdict = unrelated(first[4000:6000], second[4000:6000], LOTS, 0.01)
    assert {"lag_overlap", "order_overlap"} <= set(verdict.rejected)


def test_winners_in_the_same_order_are_caught() -> None:
    # B keeps A's winners in their order but moves each by a varying amount (an order-keeping
    # map): no lag lines the positions up, the order of the prizes gives it away
    rng = np.random.default_rng(24)
    first = layout(rng)
    winners = first[first > 0]
    places = np.sort(rng.choice(SIZE, len(winners), replace=False))
    second = np.zeros(SIZE, np.int64)
    second[places] = winners
    verdict = unrelated(first, second, LOTS, 0.01)
    assert "order_overlap" in verdict.rejected


def test_order_overlap_by_hand() -> None:
    # every unit a winner; A's first 5 are above the lowest prize, B's are A's order 3 on:
    # the winner-order flags overlap 5 at lag 3, P(H >= 5) = 1 / C(20, 5); transforms +1 and
    # -1, 20 lags, 2 sides: p = 80 / 15504
    a = np.array([2] * 5 + [1] * 15, np.int64)
    test = cb.order_overlap(a, np.roll(a, 3))
    assert test is not None and test.name == "order_overlap"
    assert test.statistic == 5
    assert test.p_value == pytest.approx(80 / math.comb(20, 5))


def test_tier_correlation_by_hand() -> None:
    # tiers (0 1 0 1) x 3 against (0 1 1 0) x 3: centred, their products sum to 0: r = 0, P = 1
    first = np.array([0, 100, 0, 100] * 3)
    second = np.array([0, 100, 100, 0] * 3)
    verdict = unrelated(first, second, {100: 6, 0: 6}, 0.01)
    test = next(r for r in verdict.results if r.name == "correlation")
    assert test.statistic == pytest.approx(0.0, abs=1e-12)
    assert test.p_value == pytest.approx(1.0)


def _counts_layout(counts: list[int], per_segment: int) -> npt.NDArray[np.bool_]:
    """Segments of ``per_segment`` units, the first ``counts[i]`` units of segment i winning."""
    out = np.zeros(len(counts) * per_segment, bool)
    for i, c in enumerate(counts):
        out[i * per_segment : i * per_segment + c] = True
    return out


def test_segment_counts_by_hand() -> None:
    # 100 segments of 20 units; A's counts 5, 10, 5, 10, ...; B's the same: r = 1 (p = 0),
    # their mirror 10, 5, ...: r = -1, and 5, 5, 10, 10, ...: centred products cancel, r = 0
    a = _counts_layout([5, 10] * 50, 20)
    (same,) = cb.segment_counts(a, a.copy(), (100,))
    assert same.name == "segment_counts.100"
    assert same.statistic == pytest.approx(1.0) and same.p_value == pytest.approx(0.0, abs=1e-300)
    (mirror,) = cb.segment_counts(a, _counts_layout([10, 5] * 50, 20), (100,))
    assert mirror.statistic == pytest.approx(-1.0) and mirror.p_value < 1e-100
    (none,) = cb.segment_counts(a, _counts_layout([5, 5, 10, 10] * 25, 20), (100,))
    assert none.statistic == pytest.approx(0.0, abs=1e-12)
    assert none.p_value == pytest.approx(1.0)
    # 1000 segments would hold 2 units each (< MIN_SEGMENT_UNITS): not tested
    assert cb.segment_counts(a, a.copy(), (1000,)) == []


def test_rank_codes_and_common_tiers_by_hand() -> None:
    lots_1 = {0: 5, 100: 2, 200: 1}
    lots_2 = {0: 5, 200: 2, 400: 1}  # the same counts, the prizes doubled: compared by rank
    codes = cb.rank_codes(np.array([0, 200, 100, 999, -1]), lots_1)
    assert codes.tolist() == [0, 2, 1, 3, -1]
    a, b, lots, scale = cb.common_tiers(
        np.array([0, 100, 200, 0]), lots_1, np.array([400, 200, 0, 0]), lots_2
    )
    assert scale == "rank" and lots == {0: 5, 1: 2, 2: 1}
    assert a.tolist() == [0, 1, 2, 0] and b.tolist() == [2, 1, 0, 0]
    # different counts at some rank: only winning against losing is comparable
    a, b, lots, scale = cb.common_tiers(
        np.array([0, 100, 200, 0]), lots_1, np.array([300, 0, 0, 0]), {0: 6, 300: 2}
    )
    assert scale == "winners" and lots == {0: 5, 1: 3}
    assert a.tolist() == [0, 1, 1, 0] and b.tolist() == [1, 0, 0, 0]


def test_a_layout_copied_across_stakes_is_caught_on_the_rank_scale() -> None:
    # the same layout at a stake whose prizes are all doubled: every tier at the same places
    rng = np.random.default_rng(25)
    first = layout(rng)
    doubled = {2 * p: n for p, n in LOTS.items()}
    a, b, lots, scale = cb.common_tiers(first, LOTS, 2 * first, doubled)
    verdict = unrelated(a, b, lots, 0.01)
    assert scale == "rank"
    assert {"overlap", "correlation", "lag_overlap", "segment_counts.100"} <= set(verdict.rejected)
    # and an independent layout at that stake is not
    a, b, lots, _ = cb.common_tiers(first, LOTS, 2 * layout(rng), doubled)
    assert unrelated(a, b, lots, 0.01).passed


def test_a_block_reshuffled_chunk_by_chunk_is_caught_by_segment_counts() -> None:
    # block 2 is block 1 with each run of SIZE / 100 units shuffled on its own (the red team's
    # 20 000-unit chunks of a 2 000 000-unit block): no overlap test sees it
    from tests.faulty._crossblock_faults import reshuffled

    rng = np.random.default_rng(26)
    first = layout(rng)
    second = reshuffled(first, SIZE // 100, b"chunk-reshuffled")
    assert sorted(second.tolist()) == sorted(first.tolist())
    verdict = unrelated(first, second, LOTS, 0.01)
    assert "segment_counts.100" in verdict.rejected
    assert verdict.p_values()["segment_counts.100"] < 1e-6


def _fraction_below(p_values: list[float], level: float) -> float:
    return sum(p < level for p in p_values) / len(p_values)


def test_segment_counts_hold_their_level_within_unrelated() -> None:
    # independently shuffled small blocks: segment_counts.100's p-values roughly uniform
    rng = np.random.default_rng(27)
    trials = 150
    p_values = [
        unrelated(layout(rng), layout(rng), LOTS, 0.05).p_values()["segment_counts.100"]
        for _ in range(trials)
    ]
    assert _fraction_below(p_values, 0.05) <= 0.05 + 0.06
    assert abs(_fraction_below(p_values, 0.5) - 0.5) <= 0.15
    assert abs(float(np.mean(p_values)) - 0.5) <= 0.08


@pytest.mark.parametrize("first_block", ["random", "sorted"])
def test_segment_counts_hold_their_level_at_every_scale(first_block: str) -> None:
    # a block ten times the test table (100 000 units), so 100 and 1000 segments are tested,
    # and 7 units more, so the segments are not all the same size; A is random or not random
    # at all (its winners first): B alone being random is enough for the level
    rng = np.random.default_rng(28 if first_block == "random" else 29)
    values = np.repeat(np.array(list(LOTS), np.int64), [10 * n for n in LOTS.values()])
    values = np.concatenate([values, np.zeros(7, np.int64)])
    fixed = np.sort(values)[::-1] > 0
    trials = 400
    p_values: dict[str, list[float]] = {}
    for _ in range(trials):
        a = rng.permutation(values) > 0 if first_block == "random" else fixed
        for test in cb.segment_counts(a, rng.permutation(values) > 0):
            p_values.setdefault(test.name, []).append(test.p_value)
    assert sorted(p_values) == ["segment_counts.100", "segment_counts.1000"]
    for name, ps in p_values.items():
        assert len(ps) == trials
        assert _fraction_below(ps, 0.05) <= 0.05 + 0.035, name
        assert _fraction_below(ps, 0.01) <= 0.01 + 0.02, name
        assert abs(_fraction_below(ps, 0.5) - 0.5) <= 0.1, name
