"""Freedoms and faults against ``play.history_created_at``: the tests of ``test_freedoms.py``
that run that check, in a file of their own.

A run of the check is about 3.5 s, nearly all asleep: its plays are ``created_at.PAUSE_S``
(1.1 s) apart so that whole-second times differ, a pause the faults it catches need (an order
of two plays shows only across a second). Fourteen of them in ``test_freedoms.py`` added up
on its worker; marked ``early`` and apart, they overlap other files' work on another xdist
worker (docs/architecture.md, "The fast tier's time").
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from ._base import Delegating, reference_adapter
from .freedom_variants import CreatedAt
from .test_freedoms import (
    CREATED_AT,
    ONE_TICKET_CASES,
    OWN_LIMIT_CHECKS,
    assert_no_failure_of_its_check,
    assert_no_failure_under_a_history_limit,
    assert_no_failure_under_one_open_ticket,
    judged_by,
    one_check,
)

#: handed to an xdist worker first: few tests, most of their time asleep
pytestmark = pytest.mark.early


@pytest.mark.parametrize("name", judged_by(CREATED_AT))
def test_a_freedom_is_no_failure_of_the_created_at_check(name: str) -> None:
    assert_no_failure_of_its_check(name)


@pytest.mark.parametrize(
    ("name", "check_id", "overrides"), [c for c in OWN_LIMIT_CHECKS if c[1] == CREATED_AT]
)
def test_a_history_limit_of_the_targets_own_is_no_failure_of_the_created_at_check(
    name: str, check_id: str, overrides: dict[str, Any]
) -> None:
    assert_no_failure_under_a_history_limit(name, check_id, overrides)


@pytest.mark.parametrize(
    ("name", "check_id", "want", "overrides"), [c for c in ONE_TICKET_CASES if c[1] == CREATED_AT]
)
def test_one_unfinished_ticket_per_account_is_no_failure_of_the_created_at_check(
    name: str, check_id: str, want: str, overrides: dict[str, Any]
) -> None:
    assert_no_failure_under_one_open_ticket(name, check_id, want, overrides)


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


@pytest.mark.parametrize(
    "cls", [LocalTimeAsUtc, AccountOpening, OldestFirstTimes, SecondsSince2000]
)
def test_a_created_at_that_is_not_the_purchase_time_fails(cls: type[Delegating]) -> None:
    adapter = cls(reference_adapter(name="faulty:created_at"), "faulty:created_at")
    outcome, _, message = one_check(adapter, "play.history_created_at")
    assert outcome == "fail", message


def test_an_unreadable_created_at_is_reserved_not_failed() -> None:
    class Unreadable(CreatedAt):
        form = staticmethod(lambda t: t.strftime("%d/%m/%Y %H:%M:%S"))

    adapter = Unreadable(reference_adapter(name="freedom:unreadable"), "freedom:unreadable")
    outcome, reservations, _ = one_check(adapter, "play.history_created_at")
    assert outcome == "reserved" and "no format the suite reads" in reservations[0]["message"]
