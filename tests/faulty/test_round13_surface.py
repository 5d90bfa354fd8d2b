"""The contract's surface against the suite's traffic (tests/faulty/surface.py,
docs/coverage.md), and the thirteenth red team's faults (tests/faulty/_round13_surface_faults.py)
each where a run's traffic did not go.

All three were CERTIFIED for their requirement before this round (``scripts/strength_table.py
--only NAME``: *missed*): a play's token checked against its account only at each game's first
stake (``security.no_token`` and ``security.cross_account`` played each game's first stake
alone), a batch's size checked at each game's first stake only (``evaluate.refusals`` asked
its refused requests there alone), a history page trimmed as if it held one more when
``limit`` is exactly the account's number of plays (``play.history_listing`` asked below and
above the count).

What changed: the security checks and ``evaluate.refusals`` go over every (game, stake) in
scope, in an order drawn from the run's seed; ``play.history_listing`` asks ``limit`` exactly
the count after about half the first plays (drawn from the seed) and in its limits judged.

Fast: each fault against the one check that now catches it, each control against the same
(seconds each); the recorder's classes on a few calls. Slow: a full run's surface (the full
profile with the tests' settings, about a minute), every element tried but the ones a sampled
block audit cannot (``SAMPLED_ONLY``).
"""

from __future__ import annotations

from typing import Any

import pytest

from contract import ErrorReply
from harness import open_target

from . import _round13_surface_faults as r13
from ._base import service_variant
from .certify import TEST_SETTINGS, certify
from .surface import BUTTONS, Recording, surface, untried
from .test_freedoms import check_outcome
from .variants import VARIANTS

ROUND_13 = {
    # variant: (the check that catches it, the requirements it may name)
    "play_later_stakes_token_of_any_account": (
        "security.cross_account",
        {"security.tokens.isolation"},
    ),
    "evaluate_later_stakes_batch_size_unchecked": (
        "evaluate.refusals",
        {"evaluate.refusals.status"},
    ),
    "play_history_page_trimmed_at_its_limit": (
        "play.history_listing",
        {
            "play.history.complete",
            "play.history.limit",
            "robots.4.1.last_unit",
            "eldorado.4.2.last_unit",
        },
    ),
}
CONTROLS = {
    "security.cross_account": r13.LaterStakesTokenOfItsAccount,
    "evaluate.refusals": r13.LaterStakesBatchSizeChecked,
    "play.history_listing": r13.HistoryPageTrimmedPastItsLimit,
}
DESCRIBED = {
    "games": {"robots": {"stakes_cents": [100]}, "eldorado": {"stakes_cents": [50, 100, 200]}}
}
#: what a run of sampled blocks (the tests' settings) cannot try: the full profile reads
#: every block whole (``block_mode: whole``), which the strength table's runs do not
SAMPLED_ONLY = ["read_block whole"]
#: elements a run meets by chance, from the tickets it is sold (which buttons hold a +1) and
#: the click orders the seed draws: one of 18 in a family was missed by one run in four
#: measured (docs/coverage.md); the suite does not yet steer them
BY_CHANCE = ("again after a +1", "first on its ticket")
#: how many of a by-chance family's 18 a full run may miss before the test fails
BY_CHANCE_SLACK = 2


def test_every_round_13_variant_is_registered() -> None:
    assert set(ROUND_13) <= set(VARIANTS)
    for name, (_, requirements) in ROUND_13.items():
        assert VARIANTS[name].caught_by(requirements), name


@pytest.mark.parametrize("seed", [7, 11])
@pytest.mark.parametrize("name", sorted(ROUND_13))
def test_the_check_that_now_tries_the_surface_fails_the_fault(name: str, seed: int) -> None:
    check_id, requirements = ROUND_13[name]
    outcome = check_outcome(VARIANTS[name].factory(), check_id, seed=seed)
    assert outcome.outcome == "fail", (name, outcome.outcome, outcome.message)
    assert set(outcome.requirements) <= requirements, outcome.requirements


@pytest.mark.parametrize("check_id", sorted(CONTROLS))
def test_the_controls_pass(check_id: str) -> None:
    control = CONTROLS[check_id]
    outcome = check_outcome(service_variant(f"control:{check_id}", control)(), check_id)
    assert outcome.outcome == "pass", (check_id, outcome.message)


# -- the recorder ------------------------------------------------------------------------------


def test_the_surface_names_every_button_stake_and_limit_class() -> None:
    elements = surface(DESCRIBED)
    assert len(elements) == len(set(elements))
    for button in BUTTONS:
        assert f"reveal button {button} first on its ticket" in elements
        assert f"reveal button {button} again after a +1" in elements
    for stake in (50, 100, 200):
        assert f"play eldorado {stake}" in elements
        assert f"evaluate 1000 tickets eldorado {stake}" in elements
        assert f"play eldorado {stake} refused 402" in elements
    assert "history limit at the plays" in elements
    without_buttons = surface({"games": {"eldorado": {"stakes_cents": [50]}}})
    assert not any(e.startswith("reveal ") for e in without_buttons)


def test_the_recorder_classes_what_it_is_sent() -> None:
    recording = Recording(open_target("python:reference"))
    try:
        recording.describe()
        account = recording.open_account(1_000)
        aid, token = account["account_id"], account["token"]
        recording.history(aid, token, 5)
        played = recording.play(aid, token, "eldorado", 200)
        recording.history(aid, token, 1)
        recording.history(aid, token, None)
        recording.auto(played["play_id"], token)
        recording.auto(played["play_id"], token)
        ticket = recording.play(aid, token, "robots", 100)
        recording.reveal(ticket["play_id"], token, 17)
        recording.auto(ticket["play_id"], token)
        with pytest.raises(ErrorReply):
            recording.balance(aid, "not the token")
    finally:
        recording.close()
    tried = recording.tried
    for element in (
        "history of an account with no play",
        "history limit at the plays",
        "history limit 1",
        "history limit absent",
        "play eldorado 200: an account's first play",
        "play robots 100: an account's later play",
        "auto of a ticket untouched",
        "auto asked again",
        "reveal button 17 first on its ticket",
        "auto of a ticket half revealed",
        "balance refused 401",
        "history listing a ticket untouched",
    ):
        assert tried[element], element
    assert not tried["history limit below the plays"]
    assert recording.calls["play"] == 2


# -- a full run's surface ----------------------------------------------------------------------


def full_run_surface(seed: int) -> tuple[list[str], Any]:
    """What a full run (the full profile, the tests' settings) of the reference never tried."""
    recording = Recording(open_target("python:reference"))
    outcome = certify(recording, settings=TEST_SETTINGS, profile="full", seed=seed)
    return untried(surface(DESCRIBED), recording.tried), outcome


@pytest.mark.slow
def test_a_full_run_tries_every_element_of_the_surface() -> None:
    missed, outcome = full_run_surface(20261205)
    assert outcome.verdict == "CERTIFIED", outcome.note
    steered = [e for e in missed if not e.endswith(BY_CHANCE)]
    assert steered == SAMPLED_ONLY, steered
    for family in BY_CHANCE:
        assert len([e for e in missed if e.endswith(family)]) <= BY_CHANCE_SLACK, missed
