"""Issue 27 item 4: gauges pushed to every count a ticket can reach, and the classifier's
probes far past full."""

from __future__ import annotations

import pytest

import reference
import reference.robots
from conformance.checks._robots_classify import RobotsDiagnosis, robots_probes
from conformance.checks.robots_rules import far_fill_tickets, far_notches
from conformance.games import _robots_strategies as RS

ENGINE = reference.robots.RobotsEngine(reference.robots.robots_rules())


@pytest.mark.parametrize("letter", list(RS.ROBOT_LETTERS))
def test_every_count_far_past_full_is_reached_alone(letter: str) -> None:
    counts = set()
    for ticket in far_fill_tickets():
        gauges = ENGINE.gauges(ticket)
        full = [s for s, n in gauges.items() if n >= RS.NOTCHES[s]]
        if full == [letter]:
            counts.add(gauges[letter])
            assert reference.prize_cents("robots", 100, ticket) > 0
    assert set(range(RS.NOTCHES[letter] + 3, far_notches() + 1)) <= counts


@pytest.mark.parametrize("letter", list(RS.ROBOT_LETTERS))
def test_probes_reach_counts_where_small_counters_wrap(letter: str) -> None:
    reached = {ENGINE.gauges(t)[letter] for c, t in robots_probes(letter) if c.startswith("far")}
    assert {8, 16, 32} <= reached and max(reached) >= 20


def test_far_probes_name_gauge_capped_only_when_x2_and_plus_are_right() -> None:
    name = RobotsDiagnosis._from_probes
    assert name({"far_x2": {"presence"}}) == ("robots.4.8.gauge_capped",)
    assert name({"far_plus": {"presence"}}) == ("robots.4.8.gauge_capped",)
    assert "robots.4.8.gauge_capped" not in name({"far_x2": {"presence"}, "x2": {"presence"}})
    assert "robots.4.8.gauge_capped" not in name({"far_plus": {"presence"}, "plus": {"presence"}})
