"""Limits of the target's own (a history limit, a wallet limit, a stake limit) and AUTO refused
with nothing left, against the player sessions (``play.player_sessions``): the second half of
the tests of ``test_freedoms.py`` that run that check (the first: ``test_freedoms_sessions.py``,
which says why they are apart), so that the two halves' pauses overlap on two xdist workers.
"""

from __future__ import annotations

from typing import Any

import pytest

from harness._errors import ErrorReply

from ._base import Delegating, reference_adapter
from .freedom_variants import FREEDOMS, HistoryOwnLimit, StakeLimit, reservations_of
from .test_freedoms import SESSIONS, one_check

#: handed to an xdist worker first: few tests, most of their time a person's pauses
pytestmark = pytest.mark.early


def test_auto_refused_with_nothing_left_passes_the_sessions() -> None:
    """The paced players' tickets clicked through take the history's ticket when AUTO is
    refused on a play with nothing left."""
    outcome, _, message = one_check(FREEDOMS["auto_refused_nothing_left"].factory(), SESSIONS)
    assert outcome == "pass", message


HistoryLimit100 = HistoryOwnLimit  # a limit above 100 refused (400), as many APIs cap a page


def test_an_old_account_past_the_targets_own_limit_is_reserved_not_an_error() -> None:
    """The old accounts' 200 plays are listed up to the target's own limit (100): the newest
    100 judged, the rest a reservation (row history-own-limit), never an error."""
    outcome, reservations, message = one_check(
        HistoryLimit100(reference_adapter(name="x"), "x"), "play.player_sessions"
    )
    assert outcome == "reserved", message
    assert reservations_of(reservations) == {("play.history.complete", "history-own-limit")}


class HistoryDropsTheNewest(HistoryLimit100):
    """Refuses limits above 100, and leaves the newest play out of every listing."""

    def history(self, account_id: str, token: str | None, limit: int | None = None) -> Any:
        answer = dict(super().history(account_id, token, None if limit is None else limit + 1))
        answer["plays"] = answer["plays"][1:]
        return answer


def test_a_listing_under_the_targets_own_limit_is_still_judged() -> None:
    adapter = HistoryDropsTheNewest(reference_adapter(name="x"), "x")
    outcome, _, message = one_check(adapter, "play.player_sessions")
    assert outcome == "fail", message


def test_a_wallet_limit_opens_the_old_accounts_funded_once_over() -> None:
    """The player sessions' old accounts are funded at the dearest stake in scope three times
    over (132 000 cents with the tests' 200 plays): past a wallet limit of 1 000 EUR they are
    opened with their plays paid once over, not an *error* of the check (a merge of the
    excursions at the dearest stake with the wallet limit ended a full run INCOMPLETE)."""
    factory = FREEDOMS["wallet_limit_1000_eur"].factory
    outcome, _, message = one_check(factory(), "play.player_sessions")
    assert outcome == "pass", message


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


@pytest.mark.parametrize("cls", [FirstPlayRefused409, LimitRefusedAs402])
def test_a_refused_play_that_is_no_limit_of_the_account_is_not_reserved(
    cls: type[Delegating],
) -> None:
    outcome, reservations, message = one_check(
        cls(reference_adapter(), "t"), "play.player_sessions"
    )
    assert outcome in ("error", "fail"), message
    assert not [r for r in reservations if r["basis"] == "stake-own-limit"]
