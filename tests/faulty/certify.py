"""Certify an adapter through the harness's own engine and sum up what it decided.

The tests and ``scripts/strength_table.py`` share this: one ``certify(adapter, ...)`` call runs
``harness._runner.Runner`` exactly as ``instantcert certify`` does (with every report written
when ``out`` is given), and returns the verdict, the failed and errored requirement ids and the
messages, for a test to assert on.
"""

from __future__ import annotations

import fnmatch
import io
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from conformance import load_catalogue
from conformance._profiles import check_settings, load_profile
from harness._events import Event, RunFinished
from harness._reports import report_handlers
from harness._runner import Runner, RunPlan
from reference import GAMES

SEED = 20261129

#: Small enough to certify a variant in seconds, strong enough to catch every fault that does
#: not need a whole 2,000,000-unit block: rules checks stay exhaustive, blocks are sampled.
TEST_SETTINGS: dict[str, Any] = {
    "hypothesis_max_examples": 60,
    "exhaustive": True,
    "block_mode": "sample",
    "block_sample_units": 6000,
    "blocks_per_stake": 1,
    "play_count": 12,
    "concurrency_threads": 6,
    "concurrent_plays_per_thread": 5,
    "history_plays": 23,  # past a page of 10 and of 20
    "reveal_resume_plays": 150,  # past the reveal-session cache of play_reveal_session_evicted
    "player_span_s": 5,  # paced players for 5 s (pauses of 0.5 to 3 s), beside the other checks
    "player_accounts": 16,  # a win among their paced plays in every run
    "old_account_plays": 200,  # past play_history_keeps_newest's 150
}

#: The full profile's block audit (every block whole) with the test profile's play and rules
#: settings: for the faults only a whole block shows (lot counts, payout, clustering). One
#: eldorado stake, so that a run reads one 900,000-unit block rather than three.
WHOLE_BLOCK_SETTINGS: dict[str, Any] = {
    **TEST_SETTINGS,
    "block_mode": "whole",
    "block_sample_units": None,
    "stakes": {"eldorado": [100]},
}


@dataclass(frozen=True)
class Outcome:
    """What one certify run decided."""

    verdict: str
    exit_code: int
    note: str
    outcomes: dict[str, str]  # requirement id -> pass | fail | error | not_supported | not_run
    messages: dict[str, str]  # requirement id -> its verdict message
    duration_s: float
    failed_checks: list[str] = field(default_factory=list)
    first_failed: list[str] = field(default_factory=list)  # the first failing check's blame
    reservations: list[dict[str, Any]] = field(default_factory=list)  # RunFinished's

    @property
    def failed(self) -> list[str]:
        return sorted(r for r, o in self.outcomes.items() if o == "fail")

    @property
    def errored(self) -> list[str]:
        return sorted(r for r, o in self.outcomes.items() if o == "error")

    @property
    def reserved(self) -> list[str]:
        return sorted(r for r, o in self.outcomes.items() if o == "reserved")


class _Collector:
    def __init__(self) -> None:
        self.finished: RunFinished | None = None
        self.failed_checks: list[str] = []
        self.first_failed: list[str] = []

    def handle(self, event: Event) -> None:
        if isinstance(event, RunFinished):
            self.finished = event
        elif getattr(event, "outcome", None) == "fail" and hasattr(event, "check_id"):
            self.failed_checks.append(str(event.check_id))
            if not self.first_failed:  # the requirements the first failing check blamed
                self.first_failed = [str(r) for r in getattr(event, "requirements", [])]

    def close(self) -> None:
        pass


AREA_CAPABILITIES: dict[str, tuple[str, ...]] = {
    "robots_rules": ("evaluate",),
    "eldorado_rules": ("evaluate",),
    "blocks": ("blocks",),
    "play": ("play", "reveal"),
}


def area_requirements(area: str, games: tuple[str, ...]) -> list[str]:
    """The requirement ids of an area (by capability) that concern ``games``: the scope of a
    variant's fast run (the full suite runs in the slow tier and the strength table)."""
    wanted = AREA_CAPABILITIES[area]
    ids = []
    for rid, requirement in load_catalogue().items():
        head = rid.split(".", 1)[0]
        if requirement.capability in wanted and (head in games or head not in GAMES):
            ids.append(rid)
    return sorted(ids)


def variant_scope(
    area: str, games: tuple[str, ...], whole_blocks: bool = False, expected: Iterable[str] = ()
) -> dict[str, Any]:
    """``certify`` keyword arguments for a variant's scoped run: its area's requirements on
    its games; a whole-block run leaves out the requirements that read a second whole block
    (comparing two blocks, pooling top tiers) unless the variant is expected to fail one."""
    requirements = area_requirements(area, games)
    patterns = list(expected)
    if whole_blocks:
        requirements = [
            r
            for r in requirements
            if not r.endswith((".unrelated_blocks", ".top_tiers"))
            or any(fnmatch.fnmatchcase(r, p) for p in patterns)
        ]
    return {
        "games": list(games),
        "requirements": requirements,
        "settings": whole_block_settings(patterns) if whole_blocks else None,
    }


def whole_block_settings(expected: Iterable[str]) -> dict[str, Any]:
    """``WHOLE_BLOCK_SETTINGS`` for a variant that must fail ``expected``; every stake's blocks,
    every listed block, read when that is a comparison of blocks (blocks are compared across
    stakes, and any two of a stake)."""
    if any(p.endswith(".unrelated_blocks") for p in expected):
        every = {k: v for k, v in WHOLE_BLOCK_SETTINGS.items() if k != "stakes"}
        return {**every, "blocks_per_stake": None}  # every listed block, not the first two
    return WHOLE_BLOCK_SETTINGS


def settings_for(
    overrides: Mapping[str, Any] | None = None,
    games: list[str] | None = None,
    profile: str = "quick",
) -> dict[str, Any]:
    """The quick profile with the test overrides, narrowed to ``games`` (``full``: the full
    profile as it is, plus ``overrides``)."""
    base = TEST_SETTINGS if profile == "quick" else {}
    merged = {**load_profile(profile), **base, **(overrides or {})}
    if games is not None:
        merged["games"] = list(games)
    return check_settings(merged, "tests/faulty test profile")


def certify(
    adapter: Any,
    *,
    target: str = "python:tests.faulty",
    settings: Mapping[str, Any] | None = None,
    games: list[str] | None = None,
    seed: int = SEED,
    out: Path | None = None,
    requirements: list[str] | None = None,
    profile: str = "quick",
) -> Outcome:
    """Run the suite on ``adapter`` (closed afterwards); every report is written to ``out``
    if given, as ``instantcert certify`` writes them."""
    effective = settings_for(settings, games, profile)
    plan = RunPlan(
        target=target,
        profile=profile,
        settings=effective,
        seed=seed,
        config={"target": target, "effective_settings": effective},
        filtered=games is not None or requirements is not None,
        requirements=tuple(requirements) if requirements is not None else None,
        out_dir=out,
    )
    collector = _Collector()
    start = time.perf_counter()
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        runner_exit = _run_with_reports(adapter, plan, out, collector)
    else:
        try:
            Runner(plan, [collector]).run(adapter)
        finally:
            adapter.close()
        runner_exit = None
    duration = time.perf_counter() - start
    finished = collector.finished
    assert finished is not None, "the run emitted no RunFinished"
    return Outcome(
        verdict=finished.verdict,
        exit_code=finished.exit_code if runner_exit is None else runner_exit,
        note=finished.verdict_note,
        outcomes={r.id: r.outcome for r in finished.requirements},
        messages={r.id: r.message for r in finished.requirements},
        duration_s=duration,
        failed_checks=collector.failed_checks,
        first_failed=collector.first_failed,
        reservations=list(finished.reservations),
    )


class Expecting(Protocol):
    """A faulty variant as far as its verdict goes (``variants.Variant``)."""

    name: str

    def caught_by(self, failed: Iterable[str]) -> list[str]: ...


def first_failing_run(
    factory: Callable[[], Any], requirement: str, tries: int = 1, **kwargs: Any
) -> Outcome:
    """``factory()`` certified narrowed to ``requirement``, from ``SEED`` then seeds 1, 2, ...
    (``tries`` runs at most): the first run that fails a requirement, else the last. For a
    fault only a race or a win shows, met most runs, not every run; no run may end in error."""
    for seed in (SEED, *range(1, tries)):
        outcome = certify(factory(), requirements=[requirement], seed=seed, **kwargs)
        assert outcome.errored == [], outcome.errored
        if outcome.failed:
            break
    return outcome


def assert_rejected_for_its_requirement_alone(variant: Expecting, outcome: Outcome) -> None:
    """``outcome`` rejects ``variant`` for a requirement it breaks and for no other: NOT
    CERTIFIED, at least one requirement failed, every failed one among those the variant is
    expected to fail, none errored."""
    assert outcome.verdict == "NOT CERTIFIED", (variant.name, outcome.note)
    assert outcome.failed and variant.caught_by(outcome.failed) == outcome.failed, (
        variant.name,
        outcome.failed,
    )
    assert outcome.errored == [], (variant.name, outcome.errored)


def assert_narrowed_run_names_the_fault(adapter: Any, requirements: list[str], name: str) -> None:
    """``adapter`` (a faulty variant) certified over ``requirements`` alone, a narrowed run,
    fails at least one of them and no other, and errs on none."""
    outcome = certify(adapter, requirements=requirements, target=name)
    assert outcome.failed and set(outcome.failed) <= set(requirements), outcome.failed
    assert outcome.errored == [], outcome.errored


def _run_with_reports(adapter: Any, plan: RunPlan, out: Path, collector: _Collector) -> int:
    """As ``instantcert certify`` runs: every report handler, closed in order, plus ours."""
    handlers = report_handlers(out, io.StringIO())
    try:
        result = Runner(plan, [collector, *handlers]).run(adapter)
    finally:
        adapter.close()
    for handler in handlers:
        handler.close()
    return result.exit_code
