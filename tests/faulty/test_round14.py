"""The fourteenth red team's faults (tests/faulty/_round14_faults.py): each rejected for the
requirement it breaks and for no other, and correct controls that stay certified.

All three passed before this round: units sold from another draw than the block served, the
units already sold served as sold (every sale was tied to a read of its block made after it:
the block checks run first, alone, and read a sample far from the units on sale); a neighbour's
token let in when the Bearer scheme is spelled otherwise than ``Bearer`` and one space (every
request of the suite spelled it so, the probes that must be refused too); tokens that are the
clock and 20 random bits for accounts opened with money (the tokens judged were those of
accounts opened empty, one after another).

What changed: ``play.units_shown_ahead`` (a block check: alone and first, before any play)
reads every listed block's first ``AHEAD_UNITS`` units, and every tie of a sale to its unit
(``Session.settle``) compares the sale with them too (``Tied.unlike``); the ``token`` and
``neighbour`` families of ``security.ways_in_*`` also send their tokens over HTTP with the
scheme spelled as HTTP allows (``ways_in._spelled_bearer``); ``security.tokens_unguessable``
opens its sample in three interleaved groups, empty and at two deposits drawn from the seed,
each group judged on its own (``tokens.deposits``).
"""

from __future__ import annotations

import pytest

from conformance._registry import CheckFailure
from conformance.checks import tokens
from conformance.checks._scenarios import case_of
from conformance.checks._scenarios.client import Session, note_shown_ahead, shown_ahead
from conformance.checks._scenarios.ways_in import (
    SCHEME_SPELLINGS,
    _spelled_bearer,
    scenario_ways_in,
)
from conformance.checks.play import _units_read

from . import _round14_faults as r14
from ._base import reference_adapter, service_variant
from .certify import (
    assert_narrowed_run_names_the_fault,
    assert_rejected_for_its_requirement_alone,
    certify,
)
from .test_variants import scoped_outcome
from .variants import VARIANTS

ROUND_14 = (
    "play_sold_units_from_another_draw",
    "http_bearer_spelled_otherwise_legacy_key",
    "play_funded_accounts_clock_tokens",
)
NARROWED = {
    "play_sold_units_from_another_draw": ["play.sales.block_unit"],
    "http_bearer_spelled_otherwise_legacy_key": ["security.tokens.isolation"],
    "play_funded_accounts_clock_tokens": ["security.tokens.unguessable"],
}


def test_every_round_14_variant_is_registered() -> None:
    assert set(ROUND_14) <= set(VARIANTS)


@pytest.mark.slow
@pytest.mark.parametrize("name", ROUND_14)
def test_round_14_variant_rejected_for_its_requirement_and_no_other(name: str) -> None:
    assert_rejected_for_its_requirement_alone(VARIANTS[name], scoped_outcome(name))


@pytest.mark.slow
@pytest.mark.parametrize("name", ROUND_14)
def test_a_narrowed_run_names_the_fault(name: str) -> None:
    assert_narrowed_run_names_the_fault(VARIANTS[name].factory(), NARROWED[name], name)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("factory", "requirements"),
    [
        (
            service_variant("correct:shown", r14.SalesFromTheBlockShown),
            ["play.sales.block_unit"],
        ),
        (
            r14.scheme_variant(legacy=False, kind="correct")("bearer_read"),
            ["security.tokens.isolation", "security.tokens.required", "security.paths.guarded"],
        ),
        (
            service_variant("correct:cashier", r14.FundedAccountsRandomTokens),
            ["security.tokens.unguessable"],
        ),
    ],
)
def test_a_correct_control_stays_certified(factory: object, requirements: list[str]) -> None:
    outcome = certify(factory(), requirements=requirements)  # type: ignore[operator]
    assert outcome.failed == [] and outcome.errored == [], (outcome.failed, outcome.errored)


# -- units sold from another draw: a read before the sale, tied to it --------------------------


def _sold_and_settled(service: type) -> list[str]:
    """Units 0 .. 49 of eldorado 50's first block read before any play, then 20 plays sold,
    AUTO'd and tied to their units (``Session.settle``): the requirements named."""
    adapter = reference_adapter(service, name="x")
    try:
        (entry, *_) = adapter.list_blocks("eldorado", 50)
        block_id = str(entry["block_id"])
        note_shown_ahead(adapter, block_id, _units_read(adapter, block_id, 50))
        assert shown_ahead(adapter)[block_id].get(49) is not None
        session = Session.of(adapter, adapter.describe())
        account = session.open(50 * 40)
        for _ in range(20):
            played = session.play(account, "eldorado", 50)
            session.auto(account, played["play_id"])
        try:
            session.settle()
        except CheckFailure as failure:
            return list(failure.requirements)
        return []
    finally:
        adapter.close()


def test_a_sale_is_tied_to_its_unit_as_read_before_it() -> None:
    assert _sold_and_settled(r14.SalesFromAnotherDraw) == ["play.sales.block_unit"]
    assert _sold_and_settled(r14.SalesFromTheBlockShown) == []


def test_the_block_after_the_sale_shows_the_units_sold() -> None:
    # what hid the fault: read after the sale, the block shows what was sold
    adapter = reference_adapter(r14.SalesFromAnotherDraw, name="x")
    try:
        (entry, *_) = adapter.list_blocks("robots", 100)
        block_id = str(entry["block_id"])
        before = _units_read(adapter, block_id, 5)
        session = Session.of(adapter, adapter.describe())
        account = session.open(100 * 10)
        plays = [session.play(account, "robots", 100) for _ in range(5)]
        tickets = [session.auto(account, p["play_id"])[0] for p in plays]
        after = _units_read(adapter, block_id, 5)
        assert [after[i]["ticket"] for i in range(5)] == tickets
        assert [before[i]["ticket"] for i in range(5)] != tickets
    finally:
        adapter.close()


# -- the Bearer scheme spelled otherwise ---------------------------------------------------------


def test_a_spelled_bearer_is_never_the_suites_own_spelling() -> None:
    import random

    rng = random.Random(1)
    seen = set()
    for _ in range(200):
        header = _spelled_bearer("tok", rng)["Authorization"]
        scheme, _, rest = header.partition(" ")
        assert scheme.lower() == "bearer" and rest.strip() == "tok"
        assert header != "Bearer tok"
        seen.add(scheme)
    assert set(SCHEME_SPELLINGS) - {"Bearer"} <= seen


def _ways_in(legacy: bool, ways: str) -> object:
    adapter = r14.scheme_variant(legacy=legacy, kind="x")("bearer")()
    try:
        session = Session.of(adapter, adapter.describe())
        case = case_of("ways_in", game="robots", stake_cents=100, ways=ways, seed=7)
        return scenario_ways_in(session, case)
    finally:
        adapter.close()


def test_a_neighbours_token_spelled_otherwise_is_refused() -> None:
    found = _ways_in(True, "neighbour")
    assert found is not None and "scheme" in found.note, found  # type: ignore[attr-defined]
    assert _ways_in(False, "neighbour") is None
    assert _ways_in(False, "token") is None


# -- tokens of accounts opened with money ---------------------------------------------------------


def _judged(service: type) -> object:
    adapter = reference_adapter(service, name="x")
    try:
        session = Session.of(adapter, adapter.describe())
        return tokens.scenario_tokens(session, case_of("tokens", accounts=24, seed=3))
    finally:
        adapter.close()


def test_tokens_are_judged_for_each_way_an_account_is_opened() -> None:
    assert tokens.deposits({"seed": 3}, 24) and tokens.deposits({"seed": 3}, 12) == []
    found = _judged(r14.FundedAccountsClockTokens)
    assert found is not None and "opened with" in found.note  # type: ignore[attr-defined]
    assert _judged(r14.FundedAccountsRandomTokens) is None


class _FundedNinetySixBits(r14.FundedAccountsRandomTokens):
    """The cashier's tokens of 96 random bits: short of the project's 128 (a reading)."""

    def _cashier_token(self) -> str:
        import secrets

        return secrets.token_hex(12)


def test_a_reading_of_one_group_is_reserved_whatever_the_others() -> None:
    adapter = reference_adapter(_FundedNinetySixBits, name="x")
    reserved: list[object] = []
    try:
        session = Session.of(adapter, adapter.describe())
        case = case_of("tokens", accounts=24, seed=3)
        assert tokens.scenario_tokens(session, case, reserved.append) is None
    finally:
        adapter.close()
    assert len(reserved) == 1 and "96 bits" in reserved[0].note  # type: ignore[attr-defined]
