"""Freedoms against the player sessions (``play.player_sessions``): half of the tests of
``test_freedoms.py`` that run that check, in a file of their own (the other half, the
target's own limits: ``test_freedoms_sessions_limits.py``).

A run of the sessions is 5 to 20 s at the tests' profile, most of it asleep (a person's
pauses); eleven of them in ``test_freedoms.py`` were 150 s of its worker's 200. Marked
``early`` and in two files apart from ``test_freedoms.py`` and ``test_freedoms_created_at.py``,
their pauses overlap other files' work on other xdist workers (docs/architecture.md, "The fast
tier's time"). The helpers and the tables (``JUDGED_BY``, ``MINIMUM_DEPOSIT``,
``ONE_TICKET_CASES``) stay in ``test_freedoms.py``; this file runs their rows for
``play.player_sessions``.
"""

from __future__ import annotations

from typing import Any

import pytest

from .test_freedoms import (
    MINIMUM_DEPOSIT,
    ONE_TICKET_CASES,
    SESSIONS,
    assert_no_failure_of_its_check,
    assert_no_failure_under_a_minimum_deposit,
    assert_no_failure_under_one_open_ticket,
    judged_by,
)

#: handed to an xdist worker first: few tests, most of their time a person's pauses
pytestmark = pytest.mark.early


@pytest.mark.parametrize("name", judged_by(SESSIONS))
def test_a_freedom_is_no_failure_of_the_sessions(name: str) -> None:
    assert_no_failure_of_its_check(name)


@pytest.mark.parametrize("check_id", [c for c in MINIMUM_DEPOSIT if c == SESSIONS])
def test_a_minimum_deposit_is_no_failure_of_the_sessions(check_id: str) -> None:
    assert_no_failure_under_a_minimum_deposit(check_id)


@pytest.mark.parametrize(
    ("name", "check_id", "want", "overrides"), [c for c in ONE_TICKET_CASES if c[1] == SESSIONS]
)
def test_one_unfinished_ticket_per_account_is_no_failure_of_the_sessions(
    name: str, check_id: str, want: str, overrides: dict[str, Any]
) -> None:
    assert_no_failure_under_one_open_ticket(name, check_id, want, overrides)
