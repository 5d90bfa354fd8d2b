"""The twelfth red team's faults (tests/faulty/_round12_faults.py): each rejected for the
requirement it breaks and for no other, and correct controls that stay certified.

All three passed before this round: a wallet whose cold session (4 s of silence) loads slowly
only for an account past its 50th play, and loses updates while it loads (an old account's
pauses before requests that overlap were 0.5 to 3 s, the long ones a young paced player's);
an AUTO that answers a settlement still being made (no wins, no prize) to an AUTO of the same
ticket in flight only on such an account's tickets 4 s old (the same; and a double AUTO only
shows on a winning ticket, the round's own first one about one time in four); a heavy
player's "load more" pages (a ``limit`` of 11 to 100 on an account past 100 plays) served
from a set sorted by whole seconds, its ties by play id (an old account was asked below its
count only past 101; its pages of 10 were judged as a set).

What changed: of an old account's two rounds after a pause (``overlap.IDLE_ROUNDS``), one
pauses ``overlap.long_idle`` (5 s and more), the old accounts of a run taking turns at which
kind (at one instant, spread) from the seed (``overlap.old_kinds``); every round after a pause
also sends AUTO twice, together with the rest, on the account's newest finished winning ticket
(``overlap._won_twice``: its ticket and prize, or a 4xx); every account on its way back is
asked its history with limits below its count drawn from the seed, one usual page size up to
100, one past it, one anywhere from 2 to 101 and, deeper, one anywhere past it, each page the
newest that many of the whole listing in its order (``players._pages_judged_below``:
``play.history.order`` when only the order is wrong).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from conformance.checks._scenarios import overlap, players
from conformance.checks._scenarios.client import Session
from contract import ErrorReply

from . import _round12_faults as r12
from ._base import reference_adapter, service_variant
from .certify import (
    assert_narrowed_run_names_the_fault,
    assert_rejected_for_its_requirement_alone,
    certify,
)
from .test_variants import scoped_outcome
from .variants import VARIANTS

ONE_ACCOUNT = "play.money.concurrent_one_account"
ROUND_12 = (
    "play_heavy_cold_session_burst_lost_update",
    "play_heavy_old_ticket_double_auto_empty_settlement",
    "play_history_recent_set_ties_by_play_id",
)
#: each variant and the requirements a run narrowed to it may name (the sorted set's page
#: holds the right plays out of order, or, when a tie falls at its end, an older one: order or
#: limit, as the ids fall)
NARROWED = {
    "play_heavy_cold_session_burst_lost_update": [ONE_ACCOUNT],
    "play_heavy_old_ticket_double_auto_empty_settlement": ["play.auto.answer"],
    "play_history_recent_set_ties_by_play_id": ["play.history.limit", "play.history.order"],
}


def test_every_round_12_variant_is_registered() -> None:
    assert set(ROUND_12) <= set(VARIANTS)


@pytest.mark.slow
@pytest.mark.parametrize("name", ROUND_12)
def test_round_12_variant_rejected_for_its_requirement_and_no_other(name: str) -> None:
    assert_rejected_for_its_requirement_alone(VARIANTS[name], scoped_outcome(name))


@pytest.mark.slow
@pytest.mark.parametrize("name", ROUND_12)
def test_a_narrowed_run_names_the_fault(name: str) -> None:
    assert_narrowed_run_names_the_fault(VARIANTS[name].factory(), NARROWED[name], name)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("control", "requirements"),
    [
        (r12.HeavyColdSessionLocked, [ONE_ACCOUNT, "play.money.exact", "play.money.balance_read"]),
        (r12.HeavyOldTicketDoubleAutoLocked, ["play.auto.answer", ONE_ACCOUNT]),
        (
            r12.RecentSetInOrderBought,
            ["play.history.order", "play.history.limit", "play.history.complete"],
        ),
    ],
)
def test_a_correct_control_stays_certified(control: type, requirements: list[str]) -> None:
    # the controls: a heavy account's cold session loaded under the account's lock; an old
    # ticket's AUTO waiting for the one in flight; a recent set scored in the order bought
    factory = service_variant(f"faulty:{control.__name__}", control)
    outcome = certify(factory(), requirements=requirements)
    assert outcome.failed == [] and outcome.errored == [], (outcome.failed, outcome.errored)


def test_the_old_accounts_take_turns_at_a_long_pause() -> None:
    for span in (5.0, 6.0, 30.0, 1200.0):
        for long_at in (0, 1):
            kinds = overlap.old_kinds(span, long_at)
            assert len(kinds) == overlap.OLD_ROUNDS
            idle = {n: pause for n, (_, pause) in enumerate(kinds) if pause is not None}
            assert set(idle) == set(overlap.IDLE_ROUNDS)
            assert idle[overlap.IDLE_ROUNDS[long_at]] == overlap.long_idle(span)
            assert idle[overlap.IDLE_ROUNDS[1 - long_at]] == overlap.IDLE_PAUSE_S
    # one idle round at one instant, the other spread: two old accounts meet both kinds long
    spreads = [overlap.old_kinds(6.0, 0)[n][0] for n in overlap.IDLE_ROUNDS]
    assert sorted(spreads) == [0.0, overlap.STAGGER_S]


def _answer(ticket: str, prize: int) -> dict[str, Any]:
    return {"play_id": "p", "ticket": ticket, "prize_cents": prize, "wins": []}


def test_a_won_ticket_auto_twice_is_its_ticket_and_prize_or_a_refusal() -> None:
    won = overlap.Won("p", "robots", "T", 500)
    sent: list[tuple[str, int] | str] = [("robots", 100), overlap.WON, "read", overlap.WON]

    def found(requirement: str, expected: Any, got: Any, note: str) -> Any:
        return (requirement, note)

    refusal = ErrorReply(409, "conflict", "finished")
    for right in ([_answer("T", 500)] * 2, [_answer("T", 500), refusal]):
        answers = [None, right[0], 100, right[1]]
        assert overlap._won_twice(won, sent, answers, found) is None
    answers = [None, _answer("T", 500), 100, _answer("T", 0)]
    assert overlap._won_twice(won, sent, answers, found)[0] == "play.auto.answer"
    answers = [None, _answer("T", 500), 100, ErrorReply(500, "internal", "x")]
    assert overlap._won_twice(won, sent, answers, found)[0] == "play.auto.answer"
    assert overlap._won_twice(None, sent, answers, found) is None


class _Named(Exception):
    def __init__(self, requirement: str) -> None:
        super().__init__(requirement)
        self.requirement = requirement


def _pages_below(service: type, seeds: range) -> list[str]:
    """An account of 105 plays bought one after another (many in one second), its history
    asked below its count as the way back asks it, once per seed: the requirements named."""
    adapter = reference_adapter(service, name="x")
    named: list[str] = []
    try:
        session = Session.of(adapter, adapter.describe())
        account = session.open(100 * 200)
        for _ in range(105):
            session.play(account, "robots", 100)
        player = players.Player(account, "robots", 100, 100 * 200, paced=False)
        listed = [str(p["play_id"]) for p in session.history(account, 1000)]

        def fault(requirement: str, *_: object) -> _Named:
            return _Named(requirement)

        for seed in seeds:
            try:
                players._pages_judged_below(session, player, listed, random.Random(seed), fault)
            except _Named as caught:
                named.append(caught.requirement)
    finally:
        adapter.close()
    return named


def test_a_heavy_players_pages_are_judged_in_their_order() -> None:
    named = _pages_below(r12.RecentSetTiesByPlayId, range(6))
    assert named and set(named) <= {"play.history.order", "play.history.limit"}, named
    assert _pages_below(r12.RecentSetInOrderBought, range(6)) == []
