"""A limit of the account's own (row ``stake-own-limit`` of docs/contract-decisions.md), read
from the letter: a play refused with a status that fits (409, 403, 422) after any number of
plays, while a new account is sold one at the same (game, stake), is the account's limit: the
check is reserved for what it had left to do on that account, never in *error*; the player
sessions judge every other player, and what the limited one did, all the same. A refusal a new
account meets too, or one with a status that says something false (400, 402), stays the
target's.

A file of its own beside ``test_freedoms.py`` (already minutes of wall on one worker), so that
xdist runs it on another worker.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

from harness._errors import ErrorReply

from ._base import Delegating, reference_adapter
from .freedom_variants import FREEDOMS, PlayCountLimit, StakeLimit20Eur
from .test_freedoms import check_outcome
from .variants import VARIANTS

#: handed to an xdist worker first (tests/conftest.py): few tests, player-session runs at a
#: person's pace (40 s)
pytestmark = pytest.mark.early

LIMIT = "stake-own-limit"


class Limited(PlayCountLimit):
    """``PlayCountLimit`` after ``limit`` plays, refused with ``status``."""

    status = 409

    def play(self, account_id: str, token: str | None, game: str, stake_cents: int) -> Any:
        try:
            return super().play(account_id, token, game, stake_cents)
        except ErrorReply as refusal:
            if refusal.code != "play_limit_reached":
                raise
            raise ErrorReply(self.status, "limit_reached", "your limit is reached") from None


def limited(status: int, plays: int) -> Limited:
    adapter = Limited(reference_adapter(name="t"), "t")
    adapter.status, adapter.limit = status, plays
    return adapter


@pytest.mark.parametrize(("status", "plays"), [(409, 1), (422, 3), (403, 3)])
def test_a_limit_with_a_status_that_fits_is_reserved(status: int, plays: int) -> None:
    outcome = check_outcome(limited(status, plays), "play.auto_answer")
    assert outcome.outcome == "reserved", outcome.message
    assert {r["basis"] for r in outcome.reservations} == {LIMIT}
    assert f"refused ({status} limit_reached" in outcome.message


@pytest.mark.parametrize("status", [400, 402])
def test_a_limit_whose_status_says_something_false_is_not_reserved(status: int) -> None:
    """400 says the request is malformed (the same request was taken before), 402 that the
    funds are short (they are not)."""
    outcome = check_outcome(limited(status, 3), "play.auto_answer")
    assert outcome.outcome in ("error", "fail"), outcome.message
    assert LIMIT not in {r["basis"] for r in outcome.reservations}


class PairStopsSelling(Delegating):
    """After ``sold`` plays in all at a (game, stake), every play there is refused with
    ``status``, whichever account asks: the pair stops selling (a block ended and never
    followed by the next), no limit of an account's."""

    sold = 3
    status = 409

    def __init__(self, inner: Any, name: str) -> None:
        super().__init__(inner, name)
        self._sold: dict[tuple[str, int], int] = {}
        self._lock = threading.Lock()

    def play(self, account_id: str, token: str | None, game: str, stake_cents: int) -> Any:
        with self._lock:
            made = self._sold.get((game, stake_cents), 0)
            self._sold[(game, stake_cents)] = made + 1
        if made >= self.sold:
            self.inner.balance(account_id, token)
            raise ErrorReply(self.status, "sold_out", "nothing left on sale")
        return self.inner.play(account_id, token, game, stake_cents)


@pytest.mark.parametrize("status", [409, 422, 403])
def test_a_refusal_a_new_account_meets_too_is_no_limit(status: int) -> None:
    adapter = PairStopsSelling(reference_adapter(name="t"), "t")
    adapter.status = status
    outcome = check_outcome(adapter, "play.auto_answer")
    assert outcome.outcome in ("error", "fail"), outcome.message
    assert LIMIT not in {r["basis"] for r in outcome.reservations}


@pytest.mark.parametrize("name", ["stake_limit_422", "play_count_limit_3"])
def test_the_player_sessions_judge_the_rest_past_a_limit(name: str) -> None:
    """Every player, and what the limited ones bought, judged: the check is reserved for the
    limited accounts only, never in *error*."""
    outcome = check_outcome(FREEDOMS[name].factory(), "play.player_sessions")
    assert outcome.outcome == "reserved", outcome.message
    assert {r["basis"] for r in outcome.reservations} == {LIMIT}


def test_a_fault_beside_a_limit_still_fails_the_player_sessions() -> None:
    """A balance read served from a cache, behind a stake limit of 20 EUR: the accounts that
    reach their limit stop, the others' reads and the limited ones' earlier reads are judged
    (the whole check was reserved when one account reached its limit)."""
    faulty = VARIANTS["play_balance_read_cached"].factory()
    outcome = check_outcome(StakeLimit20Eur(faulty, "t"), "play.player_sessions")
    assert outcome.outcome == "fail", outcome.message
    assert "play.money.balance_read" in outcome.requirements, outcome.requirements


def test_a_reveal_symbol_written_as_its_letter_is_read() -> None:
    outcome = check_outcome(FREEDOMS["reveal_symbol_letters"].factory(), "play.robots_reveal_order")
    assert (outcome.outcome, outcome.reservations) == ("pass", []), outcome.message


@pytest.mark.parametrize("check_id", ["play.reveal_bounds", "play.concurrent_one_account"])
def test_a_reveal_without_buttons_refused_with_422_is_read(check_id: str) -> None:
    """Contract 4's reveal is "(robots only)" and names no status for an eldorado play: any
    4xx (row ``reveal-no-buttons``)."""
    outcome = check_outcome(FREEDOMS["eldorado_reveal_refused_422"].factory(), check_id)
    assert (outcome.outcome, outcome.reservations) == ("pass", []), outcome.message
