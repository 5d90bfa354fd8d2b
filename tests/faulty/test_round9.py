"""The ninth red team's faults (tests/faulty/_round9_faults.py): each rejected for the
requirement it breaks and for no other, and a correct control that stays certified.

All four passed the play area before this round (docs/certify.md has the table): a wallet that
loses updates only between an old account's requests (a "regular" past its 150th play: two
plays at once, a balance read mid-play, AUTO that saves back the row it loaded), and one whose
account lease expires while a win is confirmed, so that only a play 50 to 150 ms after a win
is lost (plays at the same instant are refused with 409: a reservation); and a read-through
cache of the balance, or of the history's pages, that a read overlapping a play fills with what
it loaded before the play was written. What changed: the player sessions' old accounts,
hundreds of plays deep, end their way back with ``overlap.OLD_ROUNDS`` rounds of requests that
overlap, the first at one instant, the others each request at a moment drawn over
``overlap.STAGGER_S`` (``overlap.old_account_rounds``); every round polls the history's page
beside the balance, and once its requests are answered reads both again (``overlap._settled``).

Fast tier: two lost updates in a run narrowed to ``play.money.concurrent_one_account`` (the old
accounts' rounds meet them, and name that requirement), the three caches against
``play.concurrent_one_account`` alone (``CACHES``); the scoped and narrowed runs of the others
in the slow tier.
"""

from __future__ import annotations

import random
import time

import pytest

from conformance.checks._scenarios import overlap
from conformance.checks._scenarios.client import Session
from conformance.checks.sessions import SESSIONS_COVER

from . import _round9_faults as r9
from ._base import reference_adapter, service_variant
from .certify import assert_rejected_for_its_requirement_alone, certify
from .test_freedoms import first_not_passing
from .test_variants import scoped_outcome
from .variants import VARIANTS

ONE_ACCOUNT = "play.money.concurrent_one_account"
ROUND_9 = (
    "play_regular_two_tabs_lost_update",
    "play_regular_read_mid_play_misses_lot",
    "play_regular_auto_writes_back_stale_balance",
    "play_lease_expires_mid_win_lost_update",
    "play_balance_cache_filled_mid_play",
    "play_history_cache_filled_mid_play",
    "play_history_screen_cache_filled_mid_play",
)
FAST = ("play_regular_two_tabs_lost_update", "play_regular_auto_writes_back_stale_balance")
#: read-through caches that a read overlapping a play fills: ``play.concurrent_one_account``'s
#: round of one account's requests at once catches each alone, in a second (the test below);
#: a run narrowed to the requirement adds the player sessions, whose old accounts' rounds meet
#: them too and then replay them one after another at a person's pace (90 s), slow tier
CACHES = (
    "play_balance_cache_filled_mid_play",
    "play_history_cache_filled_mid_play",
    "play_history_screen_cache_filled_mid_play",
)


def test_every_round_9_variant_is_registered() -> None:
    assert set(ROUND_9) <= set(VARIANTS)


@pytest.mark.slow
@pytest.mark.parametrize("name", ROUND_9)
def test_round_9_variant_rejected_for_its_requirement_and_no_other(name: str) -> None:
    assert_rejected_for_its_requirement_alone(VARIANTS[name], scoped_outcome(name))


@pytest.mark.parametrize(
    "name", [n if n in FAST else pytest.param(n, marks=pytest.mark.slow) for n in ROUND_9]
)
def test_an_old_accounts_requests_that_overlap_are_judged(name: str) -> None:
    outcome = certify(VARIANTS[name].factory(), requirements=[ONE_ACCOUNT])
    assert outcome.failed == [ONE_ACCOUNT], (outcome.failed, outcome.errored)
    assert outcome.errored == [], outcome.errored


@pytest.mark.parametrize("name", CACHES)
def test_a_cache_filled_mid_play_is_caught_by_one_accounts_requests_at_once(name: str) -> None:
    """A race (a read must overlap a play to fill the cache): the first run of three that
    does not pass fails, for the one account's atomicity alone."""
    outcome = first_not_passing(VARIANTS[name].factory, "play.concurrent_one_account")
    assert outcome.outcome == "fail", outcome.message
    assert list(outcome.requirements) == [ONE_ACCOUNT], outcome.message


@pytest.mark.slow
def test_a_play_lock_that_waits_through_a_slow_win_stays_certified() -> None:
    # the control: every play of an account waits for the one before (150 ms on a win)
    factory = service_variant("faulty:slow_prize_locked", r9.SlowPrizeServiceLocked)
    outcome = certify(
        factory(), requirements=[ONE_ACCOUNT, "play.money.exact", "play.money.balance_read"]
    )
    assert outcome.failed == [] and outcome.errored == [], (outcome.failed, outcome.errored)


def test_a_round_polls_the_history_beside_the_balance() -> None:
    pairs = [("robots", 100), ("eldorado", 50)]
    for seed in range(10):
        sent = overlap.plan(random.Random(seed), pairs, click=True)
        assert (
            sent.count("history") == len(overlap.HISTORY_READS)
            and sent.count("read") == overlap.READS_AT_ONCE
        )


def test_the_player_sessions_name_a_race_of_one_account() -> None:
    assert ONE_ACCOUNT in SESSIONS_COVER


def test_an_old_account_sends_a_round_at_once_then_rounds_spread_over_a_moment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the long pause before one of its idle rounds (the twelfth round's) is not this test's
    monkeypatch.setattr(overlap, "LONG_IDLE_S", overlap.IDLE_PAUSE_S)
    adapter = reference_adapter(name="x")
    sent: list[float] = []
    try:
        session = Session.of(adapter, adapter.describe())
        account = session.open(100 * 200)
        for _ in range(overlap.PLAYS_AT_ONCE[1] * 6):  # an account that has played a while
            session.play(account, "robots", 100)
        pairs = [["robots", 100], ["eldorado", 50], ["eldorado", 100]]
        case = {"pairs": pairs, "seed": 1, "requirement": ONE_ACCOUNT}
        plays = session.adapter.play

        def timed(*args: object) -> object:
            sent.append(time.monotonic())
            return plays(*args)

        session.adapter.play = timed  # type: ignore[method-assign]
        assert overlap.old_account_rounds(session, case, account, random.Random(1)) is None
    finally:
        adapter.close()
    # every round's plays (a first, a second, 3 to 5 at once, one after): six rounds
    assert len(sent) >= overlap.OLD_ROUNDS * (3 + overlap.PLAYS_AT_ONCE[0])
