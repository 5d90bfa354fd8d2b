"""The runner's event stream. Every report is a handler of these events, nothing else.

A report field can therefore always be traced to the event that produced it; the JSON report
is little more than these events folded into one document.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class RunStarted:
    run_id: str
    started_at: str  # ISO 8601, UTC
    harness_version: str
    suite_sha256: str  # over the conformance package's files (checks and catalogue)
    rules_sha256: dict[str, str]  # game -> SHA-256 of its rules YAML
    target: str
    implementation: dict[str, Any] | None  # /v1/implementation, None if not reached
    config: dict[str, Any]  # the effective configuration (flags and file merged)
    seed: int
    profile: str  # "quick" | "full" | "audit"
    filtered: bool  # games/stakes/requirements narrowed: never CERTIFIED
    interpretations: list[dict[str, Any]]  # rules.md interpretations: id, game, text, requirements
    # the clause catalogue's clauses in scope: id, article, requirements, untestable (bool)
    clauses: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class SmokeFinished:
    """The adapter works at all (describe answers, in shape) before any check runs."""

    ok: bool
    message: str
    capabilities: list[str] = field(default_factory=list)
    checks: int = 0  # how many checks the run will execute (for progress displays)


@dataclass(frozen=True)
class CheckStarted:
    check_id: str
    requirements: list[str]


@dataclass(frozen=True)
class Progress:
    check_id: str
    done: int
    total: int | None
    what: str


@dataclass(frozen=True)
class CheckFinished:
    check_id: str
    requirements: list[str]
    outcome: str  # pass | fail | error | reserved | not_supported | not_run
    duration_s: float
    message: str
    evidence: list[dict[str, Any]] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)
    case_files: list[str] = field(default_factory=list)  # replayable cases written for it
    # its reservations (conformance.Reservation.to_dict): kind, basis, message, lift,
    # requirements, evidence
    reservations: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class BlockAudited:
    """One block read whole (or sampled) and audited; feeds lot tables, payout and plots."""

    block_id: str
    game: str
    stake_cents: int
    units: int
    audited_units: int
    sha256: str  # of the block document's bytes as read
    header: dict[str, Any]
    lots_expected: dict[str, int]  # prize_cents (as string key) -> units
    lots_observed: dict[str, int]
    payout_cents: int
    face_value_cents: int
    p_values: dict[str, float]
    cumulative_payout: list[list[int]]  # [[index, cumulative prize cents], ...] downsampled
    # where it was audited when not in this process: engine, scheduler, worker (audit-block
    # --scheduler); None for a local audit, and then absent from report.json
    audited_by: dict[str, Any] | None = None


@dataclass(frozen=True)
class RequirementVerdict:
    id: str
    article: str
    title: str
    outcome: str
    required: bool
    checks: list[str]
    waiver: dict[str, Any] | None = None
    message: str = ""
    # the rules' own words: article, language, document, clauses, text (None: no clause)
    wording: dict[str, Any] | None = None
    # what it rests on: {"letter": [clause ids], "readings": [docs/contract-decisions.md rows]}
    basis: dict[str, list[str]] | None = None
    reservations: list[dict[str, Any]] = field(default_factory=list)  # outcome "reserved"


@dataclass(frozen=True)
class RunFinished:
    finished_at: str
    verdict: str  # CERTIFIED | CERTIFIED WITH RESERVATIONS | NOT CERTIFIED | INCOMPLETE
    verdict_note: str  # e.g. "quick run: passed, not valid for certification"
    requirements: list[RequirementVerdict]
    exit_code: int
    # every reservation of the run: the requirements' and the certificate's scope's
    reservations: list[dict[str, Any]] = field(default_factory=list)
    # what the certificate covers: {"capabilities": [...], "games": [...], "left_out": [...]}
    scope: dict[str, Any] | None = None
    # what the HTTP transport did to get answers (harness._transport.Counts); None: not HTTP
    transport: dict[str, int] | None = None


Event = (
    RunStarted
    | SmokeFinished
    | CheckStarted
    | Progress
    | CheckFinished
    | BlockAudited
    | RunFinished
)


def event_to_dict(event: Event) -> dict[str, Any]:
    return {"event": type(event).__name__, **asdict(event)}


class EventHandler(Protocol):
    """A report format: sees every event in order; ``close`` writes its files."""

    def handle(self, event: Event) -> None: ...

    def close(self) -> None: ...
