"""Old, deep and late (tests/faulty/_late_faults.py): faults keyed to ages no profile reached,
each rejected for the requirement it breaks and for no other, and the ages every report lists.

Before (the suite at ``35ec4d9``) four were CERTIFIED by a full run (``instantcert certify
--profile full --seed 20261129``) and passed by the test profile with each variant's settings
(the full profile's old accounts, the soak's deep budget): the old accounts made 402 plays and
listed their history 402 deep, AUTO was sent again on their 3 oldest plays only, and
``play.deep_stream`` stopped judging where its block ran out (no check plays through a block's
end). The fifth, ``play_wins_queued_past_512_plays``, is a control: a full run's deep and
top-lot plays caught it, the test profile did not. Now the full profile's old accounts make 900
plays, AUTO is sent again on the oldest winning plays too, and ``play.deep_stream`` plays through
the end of the block on sale at every (game, stake) when it lies within ``deep_budget_s`` at the
pace measured, judging every play and the history entries around the switch. The whole runs
are slow; the fast tests below pin the mechanisms on a block with 40 units left.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from conformance._profiles import load_profile
from conformance.checks._scenarios import case_of
from conformance.checks._scenarios.client import Session
from conformance.checks._scenarios.deep import CROSS_JUDGED, RATE_EVERY, Deep, deep_plays
from conformance.checks._scenarios.players import reach_of
from conformance.checks.sessions import deep_reach
from reference._service import GameService

from . import _late_faults as lf
from ._base import reference_adapter
from .certify import assert_rejected_for_its_requirement_alone, certify, variant_scope
from .test_variants import scoped_outcome
from .variants import SOAK_DEEP, VARIANTS

LATE = (
    "play_wins_queued_past_512_plays",
    "play_history_prize_zero_past_500_entries",
    "play_auto_prize_zero_past_500_plays",
    "play_next_block_first_units_lot_lost",
    "play_block_tail_wins_queued",
)


def test_every_late_variant_is_registered() -> None:
    assert set(LATE) <= set(VARIANTS)


@pytest.mark.slow
@pytest.mark.parametrize("name", LATE)
def test_late_variant_rejected_for_its_requirement_and_no_other(name: str) -> None:
    assert_rejected_for_its_requirement_alone(VARIANTS[name], scoped_outcome(name))


def test_the_full_profile_grows_an_account_past_512_plays_under_a_limit_of_1000() -> None:
    plays = load_profile("full")["old_account_plays"] + 2  # its first ticket, the way back's
    assert plays > 512 and plays + 10 <= 1000  # its whole history asked within a usual cap
    assert load_profile("soak")["old_account_plays"] >= plays


def _session(service: type[GameService]) -> tuple[Any, Session]:
    adapter = reference_adapter(service, "late")
    return adapter, Session.of(adapter, adapter.describe())


def _near(cls: type[GameService]) -> type[GameService]:
    """``cls`` (a ``_NearBlockEnd``) with a few units left, for a deep play of seconds."""
    return type(cls.__name__, (cls,), {"LEFT": 40})


DEEP_CASE = case_of("deep", game="robots", stake_cents=100, depth=0, budget_s=60.0, judged=10)


def test_a_deep_play_crosses_a_block_end_within_reach_and_judges_both_blocks() -> None:
    adapter, target = _session(_near(lf._NearBlockEnd))
    try:
        deep = deep_plays(target, dict(DEEP_CASE))
    finally:
        adapter.close()
    assert deep.found is None, deep.found
    assert deep.crossed == "robots-100-0001's end into robots-100-0002", deep.what
    assert deep.deepest == 2_000_000 - 1 and deep.not_reached is None
    assert f"then {CROSS_JUDGED} of robots-100-0002" in deep.what


@pytest.mark.parametrize(
    ("cls", "requirement"),
    [
        (lf.NextBlockFirstUnitsLotLost, "robots.4.10.prize_credited"),
        (lf.BlockTailWinsQueued, "robots.4.10.prize_credited"),
    ],
)
def test_a_fault_at_a_block_end_is_found_by_the_deep_play(
    cls: type[GameService], requirement: str
) -> None:
    adapter, target = _session(_near(cls))
    try:
        deep = deep_plays(target, dict(DEEP_CASE))
    finally:
        adapter.close()
    assert deep.found is not None, deep.what
    assert deep.found.input["requirement"] == requirement


class _WarmingUp(lf._NearBlockEnd):
    """Its block on sale ends ``RATE_EVERY`` + 300 units on, and its first plays are slow (a
    cold cache, a connection pool filling): 0.3 s each for the first 12."""

    LEFT = RATE_EVERY + 300
    COLD = 12

    def play(self, *args: Any, **kwargs: Any) -> Any:
        with self._cold_lock:
            self.COLD -= 1
            cold = self.COLD >= 0
        if cold:
            time.sleep(0.3)
        return super().play(*args, **kwargs)

    _cold_lock = threading.Lock()


def test_a_block_end_past_the_depth_is_judged_at_the_pace_past_the_warm_up() -> None:
    """A block on sale long since (a server that has sold for weeks: the depth passed at the
    first play), whose first plays were slow: the end lies within the budget at the pace of
    the plays past the warm-up. It was said out of reach from the pace of its first dozen
    plays (about 561 s for the 788 units left, past the budget of 60 s)."""
    adapter, target = _session(_WarmingUp)
    try:
        deep = deep_plays(target, dict(DEEP_CASE))
    finally:
        adapter.close()
    assert deep.found is None, deep.found
    assert deep.not_reached is None, deep.not_reached
    assert deep.crossed == "robots-100-0001's end into robots-100-0002", deep.what


def test_a_block_end_out_of_reach_is_said_not_covered() -> None:
    adapter, target = _session(GameService)  # a fresh block: 2 000 000 units left
    try:
        deep = deep_plays(target, {**DEEP_CASE, "budget_s": 5.0})
    finally:
        adapter.close()
    assert deep.found is None and deep.crossed is None
    assert deep.not_reached is not None and "units left in robots-100-0001" in deep.not_reached


@pytest.mark.slow
def test_a_correct_target_near_its_block_end_is_certified_across_it(tmp_path: Path) -> None:
    """The reference near its blocks' end (a server that has sold for weeks), its play
    requirements with the soak's deep budget: the block end crossed, nothing failed, and the
    report's reach says so, with the ages the sessions reached."""
    scoped = variant_scope("play", ("robots",))
    outcome = certify(
        reference_adapter(lf._NearBlockEnd, "late-correct"),
        target="python:tests.faulty.late",
        games=scoped["games"],
        requirements=scoped["requirements"],
        settings=SOAK_DEEP,
        out=tmp_path,
    )
    bad = {r: outcome.messages[r][:300] for r in outcome.failed + outcome.errored}
    assert not bad, bad
    reach = json.loads((tmp_path / "report.json").read_text())["verdict"]["scope"]["reach"]
    assert any("block end crossed (robots-100-0001's end into robots-100-0002)" in r for r in reach)
    assert any(r.startswith("play.player_sessions: accounts: the oldest made") for r in reach)
    assert reach[-1].startswith("uptime: the run lasted")


def test_the_reach_lines_say_what_a_run_did_not_cover() -> None:
    crossed = Deep(deepest=1_999_999, crossed="robots-100-0001's end into robots-100-0002")
    assert deep_reach("robots", 100, crossed, 12_000) == (
        "robots at 100 cents: units judged to 1999999 of the block on sale; block end crossed "
        "(robots-100-0001's end into robots-100-0002)"
    )
    short = Deep(deepest=5_171, not_reached="the depth not reached: too slow")
    line = deep_reach("robots", 100, short, 12_000)
    assert "(depth 12000 not reached: not covered)" in line
    assert line.endswith("block end not reached (the depth not reached: too slow): not covered")
    assert deep_reach("eldorado", 50, Deep(not_reached="refused"), None).endswith("not covered")
    assert reach_of([]) == ["accounts: none judged again to the end: not covered"]


def test_every_report_lists_the_ages_reached() -> None:
    from harness._reports import html, markdown
    from harness._reports._reservations import reach

    doc: dict[str, Any] = {"verdict": {"scope": {"reach": ["uptime: 3 s; longer: not covered"]}}}
    assert reach(doc) == ["uptime: 3 s; longer: not covered"]
    assert markdown._reach(doc) == ["", "## Ages reached", "", "- uptime: 3 s; longer: not covered"]
    assert (
        html._reach(doc)
        == "<h2>Ages reached</h2><ul><li>uptime: 3 s; longer: not covered</li></ul>"
    )
    assert reach({"verdict": {"scope": None}}) == [] and html._reach({"verdict": {}}) == ""
