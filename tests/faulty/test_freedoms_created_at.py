"""Freedoms and faults against ``play.history_created_at``: the tests of ``test_freedoms.py``
that run that check, in a file of their own, their runs made side by side.

A run of the check is about 3.5 s, nearly all asleep: its plays are ``created_at.PAUSE_S``
(1.1 s) apart so that whole-second times differ, a pause the faults it catches need (an order
of two plays shows only across a second). Fourteen of them one after another were 62 s of a
worker's time; each on its own target, they are run at once, on threads, by the module's
``ran`` fixture (each bracket is the harness's clock around its own play, so runs side by side
judge as runs alone: ``test_freedoms.side_by_side``), and each test judges its own run's
outcome: the file is about 7 s.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from conformance import CheckOutcome

from ._base import Delegating, reference_adapter
from .freedom_variants import FREEDOMS, CreatedAt
from .test_freedoms import (
    CREATED_AT,
    ONE_TICKET_CASES,
    OWN_LIMIT_CHECKS,
    Runs,
    assert_no_failure_of_its_check,
    assert_no_failure_under_a_history_limit,
    assert_no_failure_under_one_open_ticket,
    judged_by,
    side_by_side,
)

FREEDOM_NAMES = judged_by(CREATED_AT)
OWN_LIMITS = [c for c in OWN_LIMIT_CHECKS if c[1] == CREATED_AT]
ONE_TICKET = [c for c in ONE_TICKET_CASES if c[1] == CREATED_AT]


# -- created_at: the letter still fails ---------------------------------------------------------


class LocalTimeAsUtc(CreatedAt):
    """A Paris wall-clock time labelled UTC: an hour off (winter)."""

    form = staticmethod(
        lambda t: (t + dt.timedelta(hours=1)).astimezone(dt.UTC).isoformat().replace("+00:00", "Z")
    )


class AccountOpening(CreatedAt):
    """Every entry the same fixed instant (the account's, or a constant)."""

    form = staticmethod(lambda t: "2026-01-01T00:00:00Z")


class OldestFirstTimes(Delegating):
    """The listing is newest first, but the times are given in the other order."""

    def history(self, account_id: str, token: str | None, limit: int | None = None) -> Any:
        answer = self.inner.history(account_id, token, limit)
        times = [p["created_at"] for p in answer["plays"]][::-1]
        return {
            "plays": [{**p, "created_at": t} for p, t in zip(answer["plays"], times, strict=True)]
        }


class SecondsSince2000(CreatedAt):
    """Seconds counted from 2000-01-01 (another epoch), read as a Unix time: 30 years off."""

    form = staticmethod(lambda t: int(t.timestamp()) - 946_684_800)


class Unreadable(CreatedAt):
    """A day-first local date no reader understands."""

    form = staticmethod(lambda t: t.strftime("%d/%m/%Y %H:%M:%S"))


WRONG_TIMES = [LocalTimeAsUtc, AccountOpening, OldestFirstTimes, SecondsSince2000]


def _runs() -> Runs:
    """Every run of this file: its key, the target it judges and the overrides."""
    runs: Runs = {}
    for name in FREEDOM_NAMES:
        runs[name] = (FREEDOMS[name].factory, {})
    for name, _, overrides in OWN_LIMITS:
        runs[("own limit", name)] = (FREEDOMS[name].factory, overrides)
    for name, _, _, overrides in ONE_TICKET:
        runs[("one ticket", name)] = (FREEDOMS[name].factory, overrides)
    for cls in [*WRONG_TIMES, Unreadable]:
        label = f"faulty:{cls.__name__}"
        runs[cls] = (lambda cls=cls, label=label: cls(reference_adapter(name=label), label), {})
    return runs


@pytest.fixture(scope="module")
def ran() -> dict[object, CheckOutcome]:
    """``play.history_created_at`` on every target of ``_runs`` at once: each test below reads
    its own outcome."""
    return side_by_side(CREATED_AT, _runs())


@pytest.mark.parametrize("name", FREEDOM_NAMES)
def test_a_freedom_is_no_failure_of_the_created_at_check(
    name: str, ran: dict[object, CheckOutcome]
) -> None:
    assert_no_failure_of_its_check(name, ran[name])


@pytest.mark.parametrize(("name", "check_id", "overrides"), OWN_LIMITS)
def test_a_history_limit_of_the_targets_own_is_no_failure_of_the_created_at_check(
    name: str, check_id: str, overrides: dict[str, Any], ran: dict[object, CheckOutcome]
) -> None:
    assert_no_failure_under_a_history_limit(name, check_id, overrides, ran[("own limit", name)])


@pytest.mark.parametrize(("name", "check_id", "want", "overrides"), ONE_TICKET)
def test_one_unfinished_ticket_per_account_is_no_failure_of_the_created_at_check(
    name: str, check_id: str, want: str, overrides: dict[str, Any], ran: dict[object, CheckOutcome]
) -> None:
    outcome = ran[("one ticket", name)]
    assert_no_failure_under_one_open_ticket(name, check_id, want, overrides, outcome)


@pytest.mark.parametrize("cls", WRONG_TIMES)
def test_a_created_at_that_is_not_the_purchase_time_fails(
    cls: type[Delegating], ran: dict[object, CheckOutcome]
) -> None:
    assert ran[cls].outcome == "fail", ran[cls].message


def test_an_unreadable_created_at_is_reserved_not_failed(ran: dict[object, CheckOutcome]) -> None:
    outcome = ran[Unreadable]
    assert outcome.outcome == "reserved", outcome.message
    assert "no format the suite reads" in outcome.reservations[0]["message"]
