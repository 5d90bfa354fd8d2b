"""Issue 27 item 1: the play checks' traffic is a player's. No request names the harness; the
largest lot is bought without a read of the units ahead right before; every AUTO answer is
tied to its play's block unit; batches of one ticket are judged; paced players pause seconds.
Each test watches what the checks send (a recording adapter) or plants the fault it guards."""

from __future__ import annotations

import random
import threading
import time
from itertools import pairwise
from typing import Any

import numpy as np
import pytest

from conformance._execute import execute
from conformance._profiles import DEFAULTS
from conformance._registry import CheckContext
from conformance._suite import registered_checks
from conformance.checks._scenarios import Session, case_of
from conformance.checks._scenarios.client import misspelt, mistyped
from conformance.checks._scenarios.money import scenario_top_lot
from conformance.checks._scenarios.players import scenario_players
from harness import open_target
from tests.faulty._base import Delegating, reference_adapter

#: handed to an xdist worker first (tests/conftest.py): few tests, paced players that pause
#: seconds (20 s)
pytestmark = pytest.mark.early

Document = dict[str, Any]


class Recording(Delegating):
    """The reference, every call recorded (name, arguments, when) before it is made."""

    def __init__(self, inner: Any = None) -> None:
        super().__init__(inner or open_target("python:reference"), "recording")
        self.calls: list[tuple[str, tuple[Any, ...], float]] = []
        self.lock = threading.Lock()

    def _log(self, name: str, *args: Any) -> None:
        with self.lock:
            self.calls.append((name, args, time.monotonic()))

    def __getattr__(self, name: str) -> Any:
        inner = getattr(self.inner, name)
        if not callable(inner):
            return inner

        def call(*args: Any, **kwargs: Any) -> Any:
            self._log(name, *args, *kwargs.values())
            return inner(*args, **kwargs)

        return call

    def play(self, *args: Any) -> Document:
        self._log("play", *args)
        return dict(self.inner.play(*args))

    def auto(self, *args: Any) -> Document:
        self._log("auto", *args)
        return dict(self.inner.auto(*args))

    def read_block(self, *args: Any, **kwargs: Any) -> Any:
        self._log("read_block", *args, *kwargs.values())
        return self.inner.read_block(*args, **kwargs)

    def evaluate(self, *args: Any) -> Any:
        self._log("evaluate", *args)
        return self.inner.evaluate(*args)


def test_a_mistake_is_of_the_targets_own_format() -> None:
    token = "sk_live_9aZ"
    assert mistyped(token) == "sk_live_9aA" and len(mistyped(token)) == len(token)
    assert mistyped("abc9") == "abc0" and mistyped("x-") == "xA"
    assert misspelt("robots") == "robotss"


def test_no_request_of_the_refusal_and_token_checks_names_the_harness() -> None:
    target = Recording()
    try:
        for check_id in ("security.no_token", "protocol.refusals", "play.invalid_requests"):
            ctx = CheckContext(target, target.describe(), dict(DEFAULTS), 3)
            assert execute(registered_checks()[check_id], ctx).outcome == "pass", check_id
    finally:
        target.inner.close()
    sent = " ".join(repr(args) for _, args, _ in target.calls).lower()
    for label in ("instantcert", "poker", "not-a-token", "no-such", "harness", "test"):
        assert label not in sent, label


def test_the_largest_lot_is_bought_with_no_read_of_the_units_ahead_before() -> None:
    target = Recording()
    session = Session.of(target)
    try:
        case = case_of("top_lot", game="robots", stake_cents=100, window=300, workers=2)
        assert scenario_top_lot(session, case) is None
    finally:
        target.inner.close()
    plays = [(args, at) for name, args, at in target.calls if name == "play"]
    reads = [(args, at) for name, args, at in target.calls if name == "read_block"]
    assert reads, "the units bought are read, after"
    last_play = max(at for _, at in plays)
    assert all(at > last_play for _, at in reads)  # blind: every read after the purchases


def test_the_largest_lot_known_from_the_audit_needs_no_read() -> None:
    target = Recording()
    session = Session.of(target)
    try:
        # the lots as the run's audit read them (not through the recording adapter)
        units = Session.of(target.inner).block_units("robots-100-0001", 0, 2000)
        prizes = [int(units[i]["prize_cents"]) for i in range(2000)]
        session.known = lambda block_id: [(0, prizes)] if block_id == "robots-100-0001" else []
        target.calls.clear()
        case = case_of("top_lot", game="robots", stake_cents=100, window=300, workers=2)
        assert scenario_top_lot(session, case) is None
    finally:
        target.inner.close()
    assert [name for name, _, _ in target.calls if name == "read_block"] == []
    assert [name for name, _, _ in target.calls if name == "play"]


def test_an_auto_answer_not_its_units_fails_block_unit_whichever_check_asked() -> None:
    from conformance._registry import CheckFailure

    target = Recording()
    session = Session.of(target)
    try:
        account = session.open(10_000)
        played = session.play(account, "robots", 100)
        unit = session.block_units(played["block_id"], played["index"] + 1, 1)
        other = unit[played["index"] + 1]  # the next unit, not yet sold
        if other["ticket"] == target.inner.auto(played["play_id"], account.token)["ticket"]:
            pytest.skip("two equal tickets in a row")
        # AUTO answers another unit's ticket, consistent in itself (its own wins and prize)
        result = target.inner.evaluate("robots", 100, [other["ticket"]])[0]
        lie = {"play_id": played["play_id"], "ticket": other["ticket"], **result}
        target.auto = lambda play_id, token: lie  # type: ignore[method-assign]
        session.auto(account, played["play_id"])
        with pytest.raises(CheckFailure) as caught:
            session.settle()
    finally:
        target.inner.close()
    assert caught.value.requirements == ("play.sales.block_unit",)
    assert "another ticket" in caught.value.message


def test_an_auto_answer_of_its_units_ticket_with_another_prize_fails_auto_answer() -> None:
    # the unit's ticket, its prize answered 0 (an archive that lost the prize column): the
    # play was sold as that unit; AUTO's answer is not its own ticket's
    from conformance._registry import CheckFailure

    target = Recording()
    session = Session.of(target)
    try:
        account = session.open(10_000)
        for _ in range(200):  # a winning ticket, so that a prize of 0 is another prize
            played = session.play(account, "robots", 100)
            truth = target.inner.auto(played["play_id"], account.token)
            if truth["prize_cents"] > 0:
                break
        else:
            pytest.skip("no winning ticket in 200 plays")
        lie = {**truth, "prize_cents": 0, "wins": []}
        target.auto = lambda play_id, token: lie  # type: ignore[method-assign]
        session.took_auto(played["play_id"], lie)
        with pytest.raises(CheckFailure) as caught:
            session.settle()
    finally:
        target.inner.close()
    assert caught.value.requirements == ("play.auto.answer",)
    assert "another prize" in caught.value.message


def test_paced_players_pause_seconds_and_come_back() -> None:
    target = Recording()
    session = Session.of(target)
    try:
        case = case_of(
            "players",
            pairs=[["robots", 100]],
            accounts=2,
            span_s=4,
            old_plays=5,
            seed=5,
            workers=3,
        )
        started = time.monotonic()
        assert scenario_players(session, case) is None
        took = time.monotonic() - started
    finally:
        target.inner.close()
    assert took >= 4  # the way back comes after the whole span
    by_token: dict[str, list[float]] = {}  # every call of an account, by its token
    for name, args, at in target.calls:
        if name in ("play", "reveal", "balance", "auto", "history") and len(args) > 1:
            by_token.setdefault(str(args[1]), []).append(at)
    gaps = [b - a for times in by_token.values() for a, b in pairwise(times)]
    assert any(gap >= 0.5 for gap in gaps)  # a player's pauses, not back to back


def test_a_search_sends_some_cases_alone_at_seeded_places() -> None:
    from hypothesis import strategies as st

    from conformance.checks._differential import ALONE, hunt

    sizes: list[int] = []

    def examine(cases: list[int]) -> list[tuple[int, int]]:
        sizes.append(len(cases))
        return []

    target = open_target("python:reference")
    try:
        ctx = CheckContext(target, target.describe(), dict(DEFAULTS), 9)
        assert hunt(ctx, st.integers(0, 10**9), examine, examples=200, batch=50) == []
    finally:
        target.close()
    assert sizes.count(1) >= ALONE - 1  # a batch of 50 with one case left is rare
    assert sum(sizes) == 200


class AloneAnsweredWrong(Delegating):
    """Right for batches, wrong for a batch of one ticket (a player's client's): one cent more."""

    def __init__(self) -> None:
        super().__init__(open_target("python:reference"), "alone_wrong")

    def evaluate(self, game: str, stake_cents: int, tickets: list[str]) -> Any:
        answers = self.inner.evaluate(game, stake_cents, tickets)
        if len(tickets) != 1 or "prize_cents" not in answers[0]:
            return answers
        return [{**answers[0], "prize_cents": answers[0]["prize_cents"] + 1}]


def test_the_stakes_checks_single_ticket_answers_are_judged() -> None:
    target = AloneAnsweredWrong()
    try:
        ctx = CheckContext(target, target.describe(), dict(DEFAULTS), 9)
        outcome = execute(registered_checks()["stakes.robots"], ctx)
    finally:
        target.inner.close()
    assert outcome.outcome == "fail"
    assert outcome.requirements == ("robots.4.evaluation",)
    assert "evaluated alone" in outcome.message


def test_the_nearest_top_tier_unit_is_found_in_what_was_read() -> None:
    from conformance.checks._scenarios.top_tiers import ahead

    prizes = (10, np.array([0, 100_000, 5, 250_000, 0, 100_000], dtype=np.int32))
    assert ahead(prizes, 10, 100) == [11, 13, 15]
    assert ahead(prizes, 11, 100) == [13, 15]
    assert ahead(prizes, 11, 2) == [13]  # at most ``most`` units on
    assert ahead(prizes, 15, 100) == []


#: a reference whose first robots block holds its first lot of 1 000 EUR at unit 3 221 (the
#: tests' own seed puts it at 37 040: eleven times the plays, 20 s of this test, for the same)
NEAR_TOP_TIER = ("top-tier-0", 3221)


def test_a_top_tier_unit_is_played_through_to_with_no_read_of_the_units_ahead() -> None:
    """A reference's first robots block holds its first lot of 1 000 EUR at unit 3 221: an
    account plays through to it, knowing it from the audit, with no read of the block, and
    every play is judged (the reference passes)."""
    from conformance.checks._block_reading import read_prizes
    from conformance.checks._scenarios.top_tiers import judge_again, play_through

    name, top = NEAR_TOP_TIER
    target = Recording(reference_adapter(name=name))
    session = Session.of(target)
    try:
        known = read_prizes(target.inner, "robots", 100, "robots-100-0001")  # "the audit"
        session.known = lambda block_id: [known] if block_id == "robots-100-0001" else []
        target.calls.clear()
        case = case_of("players", pairs=[["robots", 100]], top_tier_units=2_000_000, seed=5)
        done = play_through(session, case, "robots", 100, random.Random(5), time.monotonic() + 600)
        judge_again(session, case, done)
        session.settle()  # the AUTO answers tied to their units (reads behind the cursor)
    finally:
        target.inner.close()
    assert done.top is not None and done.top["index"] == top, done.note
    assert done.lot == 100_000 and done.prize == 100_000 and "judged" in done.note
    plays = [at for call, _, at in target.calls if call == "play"]
    assert len(plays) == top + 1
    # before it was bought, the only reads are the AUTO answers' ties, of units already sold
    early = [args for call, args, at in target.calls if call == "read_block" and at < plays[-1]]
    assert all(start + count <= top for _, start, count in early), early


def test_a_top_tier_lot_credited_short_is_the_credits_fault() -> None:
    from conformance.checks._scenarios.client import credit_requirement

    before, stake = 10_000, 100
    for lot, got, want in (
        (100_000, before - stake + 100_000 - 100, "robots.4.10.prize_credited"),  # a fee
        (100_000, before - stake + 10_000, "robots.4.10.prize_credited"),  # a smaller tier
        (500, before - stake, "robots.4.10.prize_credited"),  # nothing credited
        (500, before - stake + 499, "play.money.exact"),  # a cent lost, on any play
        (0, before - stake - 1, "play.money.exact"),
        (100_000, before + 100_000, "play.money.exact"),  # the stake not debited
    ):
        assert credit_requirement("robots", before, stake, lot, got) == want, (lot, got)
