"""The eleventh red team's faults (tests/faulty/_round11_faults.py): each rejected for the
requirement it breaks and for no other, and correct controls that stay certified.

All five passed before this round: a wallet that loses updates only between the requests of
an account idle 5 s or more (a session cache of 5 s: the suite's pauses before requests that
overlap were 0.5 to 3 s); an AUTO that answers a settlement still being made (no wins, no
prize) to an AUTO of the same ticket in flight only on a ticket bought 5 s or more before
(every double AUTO came within 3 s of the purchase); a balance read 5 s or more after the
account's last play that lacks that play's lot (a replica; the suite's reads came at most 3 s
after a play, but by chance); a history cut by a ``limit`` past its
first internal page of 128 that reads the second page one entry late (every ``limit`` asked
below an account's count was 101 at most); an auth guard that matches its routes against the
path and its query string, so that any query parameter it does not know lets a request
through without a token (the path probes sent none beyond the history's ``limit``).

What changed: every paced player has its first overlapping round after a long pause
(``overlap.long_idle``: 5 to 8 s, a tenth of the span when longer, two minutes at most), spent
beside the old accounts' longer way back; the serial replay that tells a race from a fault of
plays one after another goes side by side after a pause (each round on its account); an
account listed deeper than 102 plays is asked its history with a ``limit`` past 101 and below
its count, one of the sizes a history is commonly paged by and one drawn anywhere between
(``players._deep_pages_judged``, since the twelfth round ``_pages_judged_below``); every
play endpoint's path is also probed with a query parameter the contract does not name
(``ways_in.QUERY_NAMES``, its value and its place beside ``limit`` drawn).
"""

from __future__ import annotations

import random
from urllib.parse import parse_qs, urlsplit

import pytest

from conformance.checks._scenarios import overlap
from conformance.checks._scenarios.ways_in import QUERY_NAMES, _with_query
from conformance.checks.sessions import SESSIONS_COVER

from . import _round11_faults as r11
from . import _ways_in_faults as wf
from ._base import service_variant
from .certify import certify, first_failing_run
from .test_variants import scoped_outcome
from .variants import VARIANTS

ONE_ACCOUNT = "play.money.concurrent_one_account"
GUARDED = "security.paths.guarded"
ROUND_11 = (
    "play_long_idle_burst_lost_update",
    "play_old_ticket_double_auto_empty_settlement",
    "play_history_second_page_one_late",
    "play_long_quiet_read_misses_lot",
    "http_query_string_unguarded",
)
#: each variant and the requirement a run narrowed to it names
NARROWED = {
    "play_long_idle_burst_lost_update": ONE_ACCOUNT,
    "play_old_ticket_double_auto_empty_settlement": "play.auto.answer",
    "play_history_second_page_one_late": "play.history.limit",
    "play_long_quiet_read_misses_lot": "play.money.balance_read",
    "http_query_string_unguarded": GUARDED,
}
FAST = ("http_query_string_unguarded",)
RACY = {"play_long_quiet_read_misses_lot": 3}
"""Runs narrowed to the requirement that may pass before one fails: a balance read 5 s after
the account's last play lacks that play's lot only when it won; a long round's reads come 5 s
and more after its first tickets, and name the fault when the last of them won (about one
round in four; every paced player has such a round), so three runs that all miss it
fail the test."""


def test_every_round_11_variant_is_registered() -> None:
    assert set(ROUND_11) <= set(VARIANTS)


def test_the_player_sessions_name_a_history_limit() -> None:
    assert "play.history.limit" in SESSIONS_COVER


@pytest.mark.slow
@pytest.mark.parametrize("name", ROUND_11)
def test_round_11_variant_rejected_for_its_requirement_and_no_other(name: str) -> None:
    variant, outcome = VARIANTS[name], scoped_outcome(name)
    assert outcome.verdict == "NOT CERTIFIED", outcome.note
    assert outcome.failed and variant.caught_by(outcome.failed) == outcome.failed, outcome.failed
    assert outcome.errored == [], outcome.errored


@pytest.mark.parametrize(
    "name", [n if n in FAST else pytest.param(n, marks=pytest.mark.slow) for n in ROUND_11]
)
def test_a_narrowed_run_names_the_fault(name: str) -> None:
    requirement = NARROWED[name]
    tries = RACY.get(name, 1)  # a win met most runs: see RACY
    outcome = first_failing_run(VARIANTS[name].factory, requirement, tries, target=name)
    assert outcome.failed == [requirement], (outcome.failed, outcome.errored)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("control", "requirements"),
    [
        (r11.LongIdleLocked, [ONE_ACCOUNT, "play.money.exact", "play.money.balance_read"]),
        (r11.OldTicketDoubleAutoLocked, ["play.auto.answer", ONE_ACCOUNT]),
        (r11.HistoryPagedInOrder, ["play.history.limit", "play.history.complete"]),
    ],
)
def test_a_correct_lock_stays_certified(control: type, requirements: list[str]) -> None:
    # the controls: a cold session (5 s of silence) loaded under the account's lock; an old
    # ticket's AUTO waiting for the one in flight; a history read in pages, each in its place
    factory = service_variant(f"faulty:{control.__name__}", control)
    outcome = certify(factory(), requirements=requirements)
    assert outcome.failed == [] and outcome.errored == [], (outcome.failed, outcome.errored)


def test_a_guard_that_cuts_the_query_off_stays_certified() -> None:
    name = "correct:guard_on_path_only"
    factory = wf.vendor_http_variant(r11.guard_on_path_only, "correct")(name)
    outcome = certify(factory(), target=name, games=["robots"], requirements=[GUARDED])
    assert outcome.failed == [] and outcome.errored == [], (outcome.failed, outcome.errored)


def test_a_query_parameter_the_contract_does_not_name_beside_limit() -> None:
    drawn = [_with_query("/v1/accounts/a/history", "limit=10", random.Random(s)) for s in range(40)]
    for url in drawn:
        query = parse_qs(urlsplit(url).query)
        assert urlsplit(url).path == "/v1/accounts/a/history"
        assert query.pop("limit") == ["10"]
        assert len(query) == 1 and set(query) <= set(QUERY_NAMES), url
    assert len(set(drawn)) > 30
    assert any(u.split("?")[1].startswith("limit") for u in drawn)
    assert any(not u.split("?")[1].startswith("limit") for u in drawn)
    assert "?" in _with_query("/v1/accounts/a", "", random.Random(1))


def test_a_paced_player_pauses_seconds_before_its_first_round() -> None:
    assert overlap.long_idle(6) == (5.0, 8.0) and overlap.long_idle(30) == (5.0, 8.0)
    assert overlap.long_idle(1200) == (5.0, 120.0) and overlap.long_idle(10**6)[1] == 120.0
    firsts = [overlap.paced_kinds(random.Random(s), 6.0)[0] for s in range(40)]
    assert all(pause == overlap.long_idle(6.0) for _, pause in firsts)
    assert 10 <= sum(1 for spread, _ in firsts if spread == 0.0) <= 30  # at one instant or not
    assert all(
        k[1] is None for s in range(40) for k in overlap.paced_kinds(random.Random(s), 6)[1:]
    )
