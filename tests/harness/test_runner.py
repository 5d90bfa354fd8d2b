"""The runner: smoke step, verdicts per requirement and per run, events, case files."""

from __future__ import annotations

import datetime as dt
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from conformance import Check, CheckContext
from conformance._profiles import load_profile
from harness._adapter import Adapter
from harness._errors import ProtocolViolation
from harness._events import (
    BlockAudited,
    CheckFinished,
    CheckStarted,
    Event,
    Progress,
    RunFinished,
    RunStarted,
    SmokeFinished,
)
from harness._progress import ProgressHandler
from harness._reference_adapter import ReferenceAdapter
from harness._runner import (
    MESSAGE_CHARS,
    Runner,
    RunPlan,
    RunResult,
    bounded,
    describe_problem,
    worst,
)
from harness._waivers import Waiver
from tests.faulty._wrapped import GarbageDescribeAdapter, SlowEvaluateAdapter, ViolatingAdapter

from . import _support as support


class Recorder:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def handle(self, event: Event) -> None:
        self.events.append(event)

    def close(self) -> None:
        pass


def run(
    adapter: Adapter, tmp_path: Path | None = None, *, profile: str = "full", **plan: Any
) -> tuple[RunResult, list[Event]]:
    recorder = Recorder()
    settings = {
        **load_profile("full" if profile == "audit" else profile),
        **plan.pop("settings", {}),
    }
    runner = Runner(
        RunPlan(
            target=adapter.name,
            profile=profile,
            settings=settings,
            seed=7,
            config={"profile": profile},
            out_dir=tmp_path,
            **plan,
        ),
        [recorder],
        checks=support.make_checks(),
        catalogue=support.CATALOGUE,
    )
    try:
        return runner.run(adapter), recorder.events
    finally:
        adapter.close()


def outcomes(result: RunResult) -> dict[str, str]:
    return {v.id: v.outcome for v in result.requirements}


def test_worst_orders_outcomes() -> None:
    assert worst(["pass", "not_run", "error"]) == "error"
    assert worst(["pass", "fail", "error"]) == "fail"
    assert worst(["pass", "not_supported", "not_run"]) == "not_supported"
    assert worst(["pass"]) == "pass"
    assert worst([]) == "not_run"


def test_reference_events_in_order(tmp_path: Path) -> None:
    result, events = run(ReferenceAdapter(), tmp_path)
    kinds = [type(e).__name__ for e in events]
    assert kinds[:2] == ["RunStarted", "SmokeFinished"] and kinds[-1] == "RunFinished"
    started = events[0]
    assert isinstance(started, RunStarted)
    assert started.seed == 7 and started.implementation is not None
    assert {i["id"] for i in started.interpretations} >= {"R-I3", "E-I1"}
    assert next(i for i in started.interpretations if i["id"] == "R-I3")["requirements"] == [
        "robots.4.6.x2"
    ]
    checks = [e.check_id for e in events if isinstance(e, CheckStarted)]
    assert checks == sorted(checks)  # stable order
    assert any(isinstance(e, BlockAudited) for e in events)
    assert outcomes(result) == {
        "robots.4.6.x2": "pass",
        "robots.4.8.gauge": "pass",
        "eldorado.4.4.rows": "pass",
        "robots.3.lot_table": "pass",
        "play.4.1.history": "not_supported",
        "robots.9.optional": "not_run",
    }
    # a required requirement not supported: no failure, no error, so exit 0 but not certified
    assert (result.verdict, result.exit_code) == ("INCOMPLETE", 0)
    assert "play.4.1.history" in result.note
    assert not list(tmp_path.iterdir())  # nothing failed: no case file


def test_certified_only_when_full_and_unfiltered() -> None:
    waiver = Waiver("play.4.1.history", "no play in this product", dt.date(2999, 1, 1))
    result, _ = run(ReferenceAdapter(), waivers=[waiver])
    assert (result.verdict, result.exit_code) == ("CERTIFIED", 0)
    assert "waived: play.4.1.history" in result.note
    quick, _ = run(ReferenceAdapter(), profile="quick", waivers=[waiver])
    assert (quick.verdict, quick.note) == (
        "INCOMPLETE",
        "quick run: passed, not valid for certification",
    )
    filtered, _ = run(
        ReferenceAdapter(), waivers=[waiver], filtered=True, settings={"games": ["robots"]}
    )
    assert filtered.verdict == "INCOMPLETE" and "filtered" in filtered.note
    assert outcomes(filtered)["eldorado.4.4.rows"] == "not_run"


def test_a_fault_fails_its_requirement_with_a_case(tmp_path: Path) -> None:
    result, events = run(support.broken_x2(), tmp_path)
    assert (result.verdict, result.exit_code) == ("NOT CERTIFIED", 1)
    got = outcomes(result)
    assert got["robots.4.6.x2"] == "fail"
    assert got["robots.4.8.gauge"] == "not_run"  # the check stopped before it was shown
    assert got["eldorado.4.4.rows"] == "pass"
    finished = next(e for e in events if isinstance(e, CheckFinished) and e.outcome == "fail")
    assert finished.requirements == ["robots.4.6.x2"]
    assert finished.case_files == ["cases/robots_rules.x2-1.json"]
    case = json.loads((tmp_path / finished.case_files[0]).read_text())
    assert case["evidence"]["input"]["kind"] == "evaluate"
    assert case["seed"] == 7 and case["requirements"] == ["robots.4.6.x2"]
    assert case["evidence"]["expected"]["prize_cents"] == 100


def test_waivers_expire_and_are_flagged() -> None:
    today = dt.date(2027, 6, 1)
    waivers = [
        Waiver("robots.4.6.x2", "fix due", dt.date(2027, 6, 1)),
        Waiver("eldorado.4.4.rows", "not needed", dt.date(2027, 12, 1)),
        Waiver("play.4.1.history", "old", dt.date(2027, 5, 31)),
    ]
    result, _ = run(support.broken_x2(), waivers=waivers, today=today)
    by_id = {v.id: v for v in result.requirements}
    assert by_id["robots.4.6.x2"].outcome == "fail"
    assert by_id["robots.4.6.x2"].waiver is not None
    assert by_id["robots.4.6.x2"].waiver["applied"]
    assert by_id["eldorado.4.4.rows"].waiver == {
        "requirement": "eldorado.4.4.rows",
        "reason": "not needed",
        "expires": "2027-12-01",
        "expired": False,
        "applied": False,
        "unnecessary": True,
    }
    expired = by_id["play.4.1.history"].waiver
    assert expired is not None and expired["expired"] and not expired["applied"]
    # the x2 failure is waived; the expired waiver leaves play.4.1.history not supported
    assert (result.verdict, result.exit_code) == ("INCOMPLETE", 0)
    assert "play.4.1.history" in result.note


def test_unreachable_target_exits_2() -> None:
    result, events = run(support.unreachable())
    smoke = next(e for e in events if isinstance(e, SmokeFinished))
    assert not smoke.ok and "unreachable" in smoke.message
    assert not any(isinstance(e, CheckStarted) for e in events)
    assert (result.verdict, result.exit_code) == ("INCOMPLETE", 2)
    assert set(outcomes(result).values()) == {"not_run"}


@pytest.mark.parametrize("adapter", [GarbageDescribeAdapter, ViolatingAdapter])
def test_a_broken_adapter_is_told_apart(adapter: type[ReferenceAdapter]) -> None:
    result, events = run(adapter())
    assert (result.verdict, result.exit_code) == ("INCOMPLETE", 2)  # the run could not start
    assert result.note.startswith("the run could not start")
    assert "the adapter is broken" in result.note
    assert "not a verdict on the implementation" in result.note
    assert set(outcomes(result).values()) == {"error"}
    assert not any(isinstance(e, CheckStarted) for e in events)


def test_audit_scope_keeps_block_requirements_of_the_offered_games() -> None:
    result, events = run(ReferenceAdapter(), profile="audit", capabilities=("blocks",))
    assert outcomes(result) == {"robots.3.lot_table": "pass"}
    assert "block audit" in result.note and result.exit_code == 0
    assert isinstance(events[-1], RunFinished)


@pytest.mark.parametrize(
    ("document", "fault"),
    [
        ([], "at $: must be of JSON type object, got []"),
        (
            {"name": 1, "version": "1", "games": {}, "capabilities": []},
            "at $.name: must be of JSON type string, got 1",
        ),
        (
            {
                "name": "n",
                "version": "1",
                "games": {"robots": {"stakes_cents": ["100"]}},
                "capabilities": [],
            },
            "at $.games.robots.stakes_cents[0]: must be of JSON type integer, got '100'",
        ),
        (
            {"name": "n", "version": "1", "games": {}, "capabilities": [7]},
            "at $.capabilities[0]: must be of JSON type string, got 7",
        ),
    ],
)
def test_describe_shape(document: object, fault: str) -> None:
    problem = describe_problem(document)
    assert problem is not None and fault in problem


def test_a_capability_the_contract_does_not_name_is_ignored_not_a_fault() -> None:
    """A vendor's own capability beside the contract's (row ``capabilities-unknown``): the
    certificate covers the contract's it declares."""
    document = {"name": "n", "version": "1", "games": {}, "capabilities": ["play", "webhooks"]}
    assert describe_problem(document) is None


def test_reference_describe_has_the_shape() -> None:
    adapter = ReferenceAdapter()
    try:
        assert describe_problem(adapter.describe()) is None
    finally:
        adapter.close()


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_progress_lines_when_not_a_terminal() -> None:
    stream = io.StringIO()
    clock = FakeClock()
    handler = ProgressHandler(2, stream, tty=False, interval_s=10, clock=clock)
    handler.handle(CheckStarted("blocks.audit", ["robots.3.lot_table"]))
    clock.now = 5
    handler.handle(Progress("blocks.audit", 100, 1000, "units"))  # too soon: silent
    clock.now = 11
    handler.handle(Progress("blocks.audit", 500, 1000, "units"))
    handler.handle(CheckFinished("blocks.audit", ["robots.3.lot_table"], "pass", 12.0, ""))
    handler.close()
    assert stream.getvalue().splitlines() == [
        "[1/2] blocks.audit: 500/1,000 (50%) units",
        "[1/2] blocks.audit: pass (12.0 s)",
    ]
    assert "\r" not in stream.getvalue()


def test_progress_bar_on_a_terminal() -> None:
    stream = io.StringIO()
    handler = ProgressHandler(1, stream, tty=True)
    handler.handle(CheckStarted("blocks.audit", []))
    handler.handle(Progress("blocks.audit", 250, 1000, "units"))
    assert handler.bar is not None and handler.bar.n == 250 and handler.bar.total == 1000
    handler.handle(CheckFinished("blocks.audit", [], "fail", 1.0, "x"))
    assert handler.bar is None
    assert "\r" in stream.getvalue() and "[1/1] blocks.audit: fail (1.0 s)" in stream.getvalue()


def read_a_block(ctx: CheckContext) -> None:
    """Reads the first robots block: the target's refusal ends the check."""
    ctx.adapter.read_block("robots-100-0001", 0, 1)


class HugeRefusalAdapter(ReferenceAdapter):
    """Refuses every block read with a 1 MB message: what a hostile target makes us quote."""

    def read_block(self, block_id: str, start: int | None = None, count: int | None = None) -> Any:
        raise ProtocolViolation("GET /v1/blocks/robots-100-0001: " + "x" * 1_000_000)


def test_a_check_message_is_bounded_whatever_the_target_sends() -> None:
    recorder = Recorder()
    check = Check("blocks.read", ("robots.3.lot_table",), "blocks", ("robots",), read_a_block, "")
    runner = Runner(
        RunPlan(target="t", profile="quick", settings=load_profile("quick"), seed=7, config={}),
        [recorder],
        checks={check.id: check},
        catalogue=support.CATALOGUE,
    )
    result = runner.run(HugeRefusalAdapter())
    finished = [e for e in recorder.events if isinstance(e, CheckFinished)]
    assert [e.outcome for e in finished] == ["error"]
    assert len(finished[0].message) <= MESSAGE_CHARS + 100
    assert finished[0].message.startswith("target error (protocol_violation): GET /v1/blocks/")
    assert re.search(r"… \(cut: 1,0\d\d,\d\d\d characters in all\)$", finished[0].message)
    verdict = next(r for r in result.requirements if r.id == "robots.3.lot_table")
    assert verdict.outcome == "error" and len(verdict.message) <= 2 * MESSAGE_CHARS


def test_bounded_keeps_short_text_and_says_how_long_a_cut_one_was() -> None:
    assert bounded("short", 10) == "short"
    assert bounded("x" * 11, 10) == "x" * 10 + "… (cut: 11 characters in all)"


def test_a_misbehaving_target_errors_not_fails() -> None:
    result, events = run(SlowEvaluateAdapter())
    got = outcomes(result)
    assert got["robots.4.6.x2"] == got["robots.4.8.gauge"] == got["eldorado.4.4.rows"] == "error"
    assert (result.verdict, result.exit_code) == ("INCOMPLETE", 1)
    assert "misbehaved" in result.note
    finished = [e for e in events if isinstance(e, CheckFinished) and e.outcome == "error"]
    assert finished and all("timeout" in e.message for e in finished)
