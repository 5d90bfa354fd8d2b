"""Freedoms and faults against the player sessions (``play.player_sessions``): the tests of
``test_freedoms.py`` that run that check, in a file of their own, their runs made side by side.

A run of the sessions is 5 to 20 s at the tests' profile, most of it asleep (a person's
pauses, the old accounts' idle rounds); eleven of them one after another were 147 s of
``test_freedoms.py``'s 200 on one worker. Each on its own target, they are run at once, each
in a forked process of its own (on threads, their paced players fought for one interpreter
lock: a third more CPU, twice the wall), by the module's ``ran`` fixture
(``test_freedoms.side_by_side``), and each test judges its own run's outcome. Marked
``early``: still the longest file of few tests. The helpers and the tables (``JUDGED_BY``,
``MINIMUM_DEPOSIT``, ``ONE_TICKET_CASES``) stay in ``test_freedoms.py``; this file runs their
rows for ``play.player_sessions``.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance import CheckOutcome
from harness._errors import ErrorReply

from ._base import Delegating, reference_adapter
from .freedom_variants import FREEDOMS, HistoryOwnLimit, StakeLimit, reservations_of
from .test_freedoms import (
    MINIMUM_DEPOSIT,
    ONE_TICKET_CASES,
    SESSIONS,
    Runs,
    assert_no_failure_of_its_check,
    assert_no_failure_under_one_open_ticket,
    judged_by,
    side_by_side,
)

#: handed to an xdist worker first: few tests, the longest a person's pauses
pytestmark = pytest.mark.early

FREEDOM_NAMES = judged_by(SESSIONS)
MIN_DEPOSIT = [c for c in MINIMUM_DEPOSIT if c == SESSIONS]
ONE_TICKET = [c for c in ONE_TICKET_CASES if c[1] == SESSIONS]

HistoryLimit100 = HistoryOwnLimit  # a limit above 100 refused (400), as many APIs cap a page


class HistoryDropsTheNewest(HistoryLimit100):
    """Refuses limits above 100, and leaves the newest play out of every listing."""

    def history(self, account_id: str, token: str | None, limit: int | None = None) -> Any:
        answer = dict(super().history(account_id, token, None if limit is None else limit + 1))
        answer["plays"] = answer["plays"][1:]
        return answer


# -- a limit of the account's own on its plays (row stake-own-limit) ----------------------------


class FirstPlayRefused409(Delegating):
    """Every play refused with 409 (no limit reached: no play was ever sold)."""

    def play(self, account_id: str, token: str | None, game: str, stake_cents: int) -> Any:
        self.inner.balance(account_id, token)
        raise ErrorReply(409, "stake_limit_reached", "this account's stake limit is reached")


class LimitRefusedAs402(StakeLimit):
    """The stake limit refused with 402 while the balance pays: the code says what is false."""

    def play(self, account_id: str, token: str | None, game: str, stake_cents: int) -> Any:
        try:
            return super().play(account_id, token, game, stake_cents)
        except ErrorReply as refusal:
            if refusal.status != 409:
                raise
            raise ErrorReply(402, "insufficient_funds", "not enough money") from None


NOT_A_LIMIT = [FirstPlayRefused409, LimitRefusedAs402]


def _runs() -> Runs:
    """Every run of this file: its key, the target it judges and the overrides."""
    runs: Runs = {}
    for name in FREEDOM_NAMES:
        runs[name] = (FREEDOMS[name].factory, {})
    if MIN_DEPOSIT:  # one run, read by each of its tests
        runs["minimum deposit"] = (FREEDOMS["wallet_minimum_10_eur"].factory, {})
    for name, _, _, overrides in ONE_TICKET:
        runs[("one ticket", name)] = (FREEDOMS[name].factory, overrides)
    for name in ("auto_refused_nothing_left", "wallet_limit_1000_eur"):
        runs[name] = (FREEDOMS[name].factory, {})
    for cls in [HistoryLimit100, HistoryDropsTheNewest]:
        runs[cls] = (lambda cls=cls: cls(reference_adapter(name="x"), "x"), {})
    for cls in NOT_A_LIMIT:
        runs[cls] = (lambda cls=cls: cls(reference_adapter(), "t"), {})
    return runs


@pytest.fixture(scope="module")
def ran() -> dict[object, CheckOutcome]:
    """``play.player_sessions`` on every target of ``_runs`` at once: each test below reads its
    own outcome."""
    return side_by_side(SESSIONS, _runs(), processes=True)


@pytest.mark.parametrize("name", FREEDOM_NAMES)
def test_a_freedom_is_no_failure_of_the_sessions(
    name: str, ran: dict[object, CheckOutcome]
) -> None:
    assert_no_failure_of_its_check(name, ran[name])


@pytest.mark.parametrize("check_id", MIN_DEPOSIT)
def test_a_minimum_deposit_is_no_failure_of_the_sessions(
    check_id: str, ran: dict[object, CheckOutcome]
) -> None:
    outcome = ran["minimum deposit"]
    assert outcome.outcome == "pass", (check_id, outcome.message)


@pytest.mark.parametrize(("name", "check_id", "want", "overrides"), ONE_TICKET)
def test_one_unfinished_ticket_per_account_is_no_failure_of_the_sessions(
    name: str, check_id: str, want: str, overrides: dict[str, Any], ran: dict[object, CheckOutcome]
) -> None:
    outcome = ran[("one ticket", name)]
    assert_no_failure_under_one_open_ticket(name, check_id, want, overrides, outcome)


def test_auto_refused_with_nothing_left_passes_the_sessions(
    ran: dict[object, CheckOutcome],
) -> None:
    """The paced players' tickets clicked through take the history's ticket when AUTO is
    refused on a play with nothing left."""
    outcome = ran["auto_refused_nothing_left"]
    assert outcome.outcome == "pass", outcome.message


def test_an_old_account_past_the_targets_own_limit_is_reserved_not_an_error(
    ran: dict[object, CheckOutcome],
) -> None:
    """The old accounts' 200 plays are listed up to the target's own limit (100): the newest
    100 judged, the rest a reservation (row history-own-limit), never an error."""
    outcome = ran[HistoryLimit100]
    assert outcome.outcome == "reserved", outcome.message
    assert reservations_of(outcome.reservations) == {("play.history.complete", "history-own-limit")}


def test_a_listing_under_the_targets_own_limit_is_still_judged(
    ran: dict[object, CheckOutcome],
) -> None:
    outcome = ran[HistoryDropsTheNewest]
    assert outcome.outcome == "fail", outcome.message


def test_a_wallet_limit_opens_the_old_accounts_funded_once_over(
    ran: dict[object, CheckOutcome],
) -> None:
    """The player sessions' old accounts are funded at the dearest stake in scope three times
    over (132 000 cents with the tests' 200 plays): past a wallet limit of 1 000 EUR they are
    opened with their plays paid once over, not an *error* of the check (a merge of the
    excursions at the dearest stake with the wallet limit ended a full run INCOMPLETE)."""
    outcome = ran["wallet_limit_1000_eur"]
    assert outcome.outcome == "pass", outcome.message


@pytest.mark.parametrize("cls", NOT_A_LIMIT)
def test_a_refused_play_that_is_no_limit_of_the_account_is_not_reserved(
    cls: type[Delegating], ran: dict[object, CheckOutcome]
) -> None:
    outcome = ran[cls]
    assert outcome.outcome in ("error", "fail"), outcome.message
    assert not [r for r in outcome.reservations if r["basis"] == "stake-own-limit"]


def test_a_forked_run_that_raised_or_died_fails_the_test() -> None:
    """``side_by_side``'s processes: an outcome comes back by its key; a run that raised, or
    whose process ended without an outcome, is an error of the test, never a pass."""
    import os

    from .test_freedoms import _forked

    passed = CheckOutcome("pass", "ok")
    assert _forked({"one": lambda: passed}) == {"one": passed}

    def raised() -> CheckOutcome:
        raise ValueError("the target could not be made")

    with pytest.raises(AssertionError, match=r"(?s)raised:.*the target could not be made"):
        _forked({"one": lambda: passed, "two": raised})
    with pytest.raises(AssertionError, match="ended without an outcome"):
        _forked({"three": lambda: os._exit(3)})
