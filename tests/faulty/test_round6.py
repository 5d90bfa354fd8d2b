"""The sixth red team's faults (tests/faulty/_round6_faults.py): each rejected for the
requirement it breaks and for no other.

Every one is certified in-process over the requirements of its area with the test profile. All
but one (a control: an Extra stage paid at 1 EUR in plays at 2 EUR, caught before) were
CERTIFIED or caught by chance before this round (docs/certify.md has the table); what changed:
the old accounts of the player sessions settle on their pair and try another now and then
(``_scenarios.players._excursions``), one paced player in four opens with a deposit typed by
hand, the newcomers at the end hold a residue under a stake one time in two
(``_scenarios.money.residue``), and the history is read without a limit, as an app reads it.
One runs in the fast tier; the others are slow, and each test below pins the behaviour of the
harness that catches its class, so a change that loses it goes red in the fast tier.
"""

from __future__ import annotations

import random

import pytest

from conformance.checks._scenarios.money import residue
from conformance.checks._scenarios.players import (
    TYPED_DEPOSIT_EUROS,
    USUAL_DEPOSITS,
    _excursions,
    _funding,
)

from .certify import assert_rejected_for_its_requirement_alone
from .test_variants import scoped_outcome
from .variants import VARIANTS

#: handed to an xdist worker first: few tests, long ones (the settled game switch's run, 10 to 72 s)
pytestmark = pytest.mark.early

ROUND_6 = (
    "play_lot_at_favourite_stake",
    "play_settled_game_switch_lot_lost",
    "play_residue_under_stake_lot_lost",
    "play_typed_deposit_wins_queued",
    "play_app_history_unfinished_prize_zero",
    "play_top_stake_extra_grids_at_one_euro",  # caught before: a control, not a hole
)
FAST = "play_settled_game_switch_lot_lost"  # the class every money check missed: two pairs


def test_every_round_6_variant_is_registered() -> None:
    assert set(ROUND_6) <= set(VARIANTS)


@pytest.mark.parametrize(
    "name", [n if n == FAST else pytest.param(n, marks=pytest.mark.slow) for n in ROUND_6]
)
def test_round_6_variant_rejected_for_its_requirement_and_no_other(name: str) -> None:
    assert_rejected_for_its_requirement_alone(VARIANTS[name], scoped_outcome(name))


def test_an_old_account_settles_then_tries_another_pair_and_comes_back() -> None:
    home, other = ("eldorado", 50), ("robots", 100)
    chosen = _excursions(random.Random("s"), home, [other, ("eldorado", 200)], 200)
    assert len(chosen) == 200 and chosen.count(home) > 120
    # every try comes after at least 3 plays at home in a row (a settled choice)
    for at, pair in enumerate(chosen):
        if pair != home and chosen[at - 1] == home:
            assert chosen[at - 3 : at] == [home] * 3
    assert {p for p in chosen if p != home} == {other, ("eldorado", 200)}
    assert _excursions(random.Random("s"), home, [], 50) == [home] * 50


def test_paced_players_deposit_preset_and_typed_sums() -> None:
    deposits = [_funding(seed, 3, 100, 5) for seed in range(200)]
    low, high = TYPED_DEPOSIT_EUROS
    assert all(d % 100 == 0 and low * 100 <= d <= high * 100 for d in deposits)
    assert len(set(deposits) - set(USUAL_DEPOSITS)) > 50  # not a list a vendor could learn
    assert sum(d <= 10_000 for d in deposits) > 100  # small sums typed more often
    assert {_funding(seed, 0, 100, 5) for seed in range(50)} <= set(USUAL_DEPOSITS)


def test_newcomers_hold_a_residue_under_a_stake_one_time_in_two() -> None:
    case = {"stake_cents": 100, "seed": 7}
    left = [residue(case, n) for n in range(40)]
    assert left[0::2] == [0] * 20
    assert all(0 < r < 100 for r in left[1::2]) and len(set(left[1::2])) > 5
    assert residue({"stake_cents": 1, "seed": 7}, 1) == 0
