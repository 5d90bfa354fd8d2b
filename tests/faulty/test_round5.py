"""The fifth red team's faults (tests/faulty/_round5_faults.py): each rejected for the
requirement it breaks and for no other.

Every one is certified in-process over the requirements of its area with the test profile and
the settings its class needs (``Variant.settings``: a run of more than 256 or 1 000 accounts
before its end, the test profile's old account of 200 plays past a 100th); the two that tell a
client by its headers are served over HTTP through the bridge (``http_bridge``), so the
harness's own requests are what their gateway reads. One runs in the fast tier (``FAST``;
test_variants.py's sample leaves it to this module); the header set and order the harness sends
are asserted in tests/harness/test_user_agent.py. docs/certify.md has the table: what each class
is, at which profile a lab catches it, and what was missed before.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from ._base import Delegating, service_variant
from ._round5_faults import AuditQuietWinsQueued
from .certify import assert_rejected_for_its_requirement_alone, certify
from .test_soak import failed, sessions, soak
from .test_variants import scoped_outcome
from .variants import VARIANTS

ROUND_5 = (
    "play_audit_quiet_wins_queued",
    "play_wins_queued_past_1000_accounts",
    "play_every_100th_play_free",
    "play_emptied_account_lot_lost",
    "play_reveal_session_per_account",
    "play_half_revealed_sibling_lot_held",
    "play_isolation_only_when_cached",
    "play_resumed_ticket_plus_one_lost",
    "play_exhausted_click_answered_200",
    "play_history_same_ms_ties",
    "play_history_limit_per_game",
    "play_eldorado_rare_tier_typo",
    "eldorado_evaluation_cache_without_stake",
    "http_acceptless_traffic_wins_queued",
    "http_header_order_wins_queued",
)


def test_every_round_5_variant_is_registered() -> None:
    assert set(ROUND_5) <= set(VARIANTS)


#: a history's ties broken by another key than the order bought: the fifth red team's member
#: (milliseconds) and the one a usual column makes (whole seconds), caught at any pace
TIES = ("play_history_same_ms_ties", "play_history_same_second_ties")


#: the fast tier's (a second ticket clicked beside a first); the others in the slow tier
FAST = "play_reveal_session_per_account"


@pytest.mark.parametrize(
    "name",
    [
        n if n == FAST else pytest.param(n, marks=pytest.mark.slow)
        for n in (*(n for n in ROUND_5 if not VARIANTS[n].soak), TIES[1])
    ],
)
def test_round_5_variant_rejected_for_its_requirement_and_no_other(name: str) -> None:
    assert_rejected_for_its_requirement_alone(VARIANTS[name], scoped_outcome(name))


@pytest.mark.slow  # a whole-suite run each, 10 s
@pytest.mark.parametrize("name", TIES)
def test_history_ties_rejected_for_the_order_alone_by_the_whole_suite(name: str) -> None:
    """Every requirement in scope, the checks side by side (so each play slower than alone):
    the ties still show, and as ``play.history.order`` only (docs/contract-decisions.md,
    ``history-ties``)."""
    outcome = certify(VARIANTS[name].factory())
    assert outcome.verdict == "NOT CERTIFIED", outcome.note
    assert outcome.failed == ["play.history.order"], outcome.failed
    assert outcome.errored == [], outcome.errored


class AuditQuietSoon(AuditQuietWinsQueued):
    """Audit mode for 3 seconds after an audit's request."""

    QUIET_S = 3.0


audit_quiet_soon = service_variant("faulty:audit_quiet_soon", AuditQuietSoon)
PRIZE = "robots.4.10.prize_credited"


@pytest.mark.slow  # a soak of 18 s
def test_a_soak_rejects_a_wallet_honest_only_while_an_audit_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A full run's plays all come while its block audits and evaluations run (so the
    registered variant, 10 seconds of audit mode, is CERTIFIED by it); a soak's player
    sessions go on long after them. Here the audit is the evaluations of robots 4.6, at the
    soak's start, and audit mode lasts 3 seconds."""
    target = "python:tests.faulty.test_round5:audit_quiet_soon"
    code, report, _ = soak(target, "0.3", tmp_path, capsys, (PRIZE, "robots.4.6.x2"))
    assert code == 1
    assert failed(report) == [PRIZE], failed(report)
    assert VARIANTS["play_audit_quiet_wins_queued"].caught_by(failed(report))
    assert sessions(report)["outcome"] == "fail"


class Unhurried(Delegating):
    """Every play answered ``PACE_S`` later: a target over HTTP, a few ms a request, where no
    two plays one after another fall in one millisecond."""

    PACE_S = 0.004

    def play(self, account_id: str, token: str | None, game: str, stake_cents: int) -> Any:
        time.sleep(self.PACE_S)
        return super().play(account_id, token, game, stake_cents)


@pytest.mark.slow  # the checks of play.history.order, 8 s
def test_ties_of_a_second_broken_by_id_are_caught_at_an_http_pace() -> None:
    """A history's ties broken by a random id show whatever the pace when ``created_at`` has
    a column's precision (docs/contract-decisions.md, ``history-ties``): plays a few ms apart
    share their second, and one player's are judged in the order bought."""
    variant = VARIANTS["play_history_same_second_ties"]
    slow = Unhurried(variant.factory(), "faulty:unhurried_same_second_ties")
    outcome = certify(slow, games=["robots"], requirements=["play.history.order"])
    assert outcome.failed == ["play.history.order"], outcome.note
    assert outcome.errored == []
