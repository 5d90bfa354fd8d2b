"""The event stream folded into one document: what every report format renders.

Each format is an event handler (``Collector``) that keeps the events it sees and, on
``close``, renders ``document(record)``; so every field of every report comes from one event
(docs/reports.md lists which).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .._clause_coverage import coverage
from .._events import (
    BlockAudited,
    CheckFinished,
    Event,
    RunFinished,
    RunStarted,
    SmokeFinished,
)

REPORT_FORMAT = "instantcert-report/1"
OUTCOMES = ("pass", "fail", "error", "reserved", "not_supported", "not_run")


@dataclass
class RunRecord:
    started: RunStarted | None = None
    smoke: SmokeFinished | None = None
    checks: list[CheckFinished] = field(default_factory=list)
    blocks: list[BlockAudited] = field(default_factory=list)
    finished: RunFinished | None = None

    def add(self, event: Event) -> None:
        if isinstance(event, RunStarted):
            self.started = event
        elif isinstance(event, SmokeFinished):
            self.smoke = event
        elif isinstance(event, CheckFinished):
            self.checks.append(event)
        elif isinstance(event, BlockAudited):
            self.blocks.append(event)
        elif isinstance(event, RunFinished):
            self.finished = event

    def events(self) -> tuple[object, ...]:
        return (self.started, self.smoke, self.finished, *self.checks, None, *self.blocks)


_last: list[tuple[tuple[object, ...], dict[str, Any]]] = []  # the last document and its events


def document(record: RunRecord) -> dict[str, Any]:
    """The whole run as one JSON-able document (the schema: harness/schemas/report.schema.json).

    Every report format renders the same events: the document of the last record is kept with
    those very events (held, so that no other object can take their identity) and given again
    to a record of the same events, instead of being built once per format. Writers read it and
    never change it (``tests/harness/test_reports.py`` checks)."""
    events = record.events()
    if _last and len(_last[0][0]) == len(events):
        seen, doc = _last[0]
        if all(a is b for a, b in zip(seen, events, strict=True)):
            return doc
    doc = _document(record)
    _last[:] = [(events, doc)]
    return doc


def _document(record: RunRecord) -> dict[str, Any]:
    started, finished, smoke = record.started, record.finished, record.smoke
    if started is None or finished is None or smoke is None:
        raise ValueError("a report needs the RunStarted, SmokeFinished and RunFinished events")
    requirements = [asdict(v) for v in finished.requirements]
    counts = {o: sum(1 for r in requirements if r["outcome"] == o) for o in OUTCOMES}
    checks = [asdict(c) for c in record.checks]
    failures = [
        {
            "check_id": c["check_id"],
            "requirements": c["requirements"],
            "message": c["message"],
            "evidence": c["evidence"],
            "case_files": c["case_files"],
        }
        for c in checks
        if c["outcome"] == "fail"
    ]
    waivers = [
        {"requirement": r["id"], "outcome": r["outcome"], **r["waiver"]}
        for r in requirements
        if r["waiver"] is not None
    ]
    return {
        "format": REPORT_FORMAT,
        "harness_version": started.harness_version,
        "run_id": started.run_id,
        "started_at": started.started_at,
        "finished_at": finished.finished_at,
        "suite_sha256": started.suite_sha256,
        "rules_sha256": started.rules_sha256,
        "target": started.target,
        "implementation": started.implementation,
        "config": started.config,
        "seed": started.seed,
        "profile": started.profile,
        "filtered": started.filtered,
        "smoke": asdict(smoke),
        "verdict": {
            "overall": finished.verdict,
            "note": finished.verdict_note,
            "exit_code": finished.exit_code,
            "counts": counts,
            "reservations": finished.reservations,
            "scope": finished.scope,
        },
        "requirements": requirements,
        "checks": checks,
        "failures": failures,
        "blocks": [_block(b) for b in record.blocks],
        "interpretations": started.interpretations,
        "waivers": waivers,
        "clauses": coverage(started.clauses, {r["id"]: r["outcome"] for r in requirements}),
        "transport": finished.transport,
    }


def _block(block: BlockAudited) -> dict[str, Any]:
    """A block's entry: ``audited_by`` only where an engine elsewhere audited it."""
    entry = asdict(block)
    if entry["audited_by"] is None:
        del entry["audited_by"]
    return entry


class Collector:
    """Base of the report handlers: keeps the events, renders on ``close``."""

    def __init__(self, out_dir: Path) -> None:
        self.out_dir = out_dir
        self.record = RunRecord()

    def handle(self, event: Event) -> None:
        self.record.add(event)

    def close(self) -> None:
        if self.record.finished is None:
            return  # the run did not finish: nothing truthful to write
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self.write(document(self.record))

    def write(self, doc: dict[str, Any]) -> None:
        raise NotImplementedError


def evidence_summary(value: Any, limit: int = 300) -> str:
    """A value of evidence as one short line for tables and JUnit messages."""
    from reference._strict_json import dumps

    text = value if isinstance(value, str) else dumps(value, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 1] + "…"
