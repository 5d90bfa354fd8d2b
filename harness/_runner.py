"""Runs the suite against one target and turns check outcomes into verdicts, as events.

Order of a run: a smoke step (``describe()`` answers, in the contract's shape), then every
registered check in scope, in id order, through ``conformance._execute.execute``. The runner
knows nothing of report formats: it emits events (``harness._events``) to handlers.

Each check runs in a worker thread within its budget (``check_budget_s``) and what is left of
the run's (``run_budget_s``), through a ``GuardedAdapter`` that refuses every call once the
check is cut (``harness._budget``); a cut check, and every check the run budget leaves no time
for, is *error* naming the budget, and the run goes on to its verdict and reports.

The smoke step tells two faults apart that a vendor must not confuse: *the adapter is broken*
(nothing or garbage answers ``describe``: no requirement could be checked) and *the
implementation is wrong* (it answers, and a check proves a rule broken).
"""

from __future__ import annotations

import datetime as dt
import json
import random
import sys
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import MISSING, dataclass, field, fields, replace
from pathlib import Path
from typing import Any, NamedTuple

from conformance import Check, CheckContext, Requirement, load_catalogue, registered_checks
from conformance._clauses import basis as basis_of
from conformance._clauses import letters
from conformance._drawing import for_a_run as draw_workers_for_a_run
from conformance._execute import CheckOutcome, execute, seamless
from conformance._settings import Settings, coerce
from conformance.games import kit, kit_names
from contract import CAPABILITIES, Adapter, ProtocolViolation, Validated
from contract._validated import check

from . import __version__
from ._budget import CancelToken, GuardedAdapter, Stalls, run_within
from ._cases import write_cases
from ._clause_coverage import clause_entries, requirement_wording
from ._errors import TargetError, TargetUnreachable
from ._events import (
    BlockAudited,
    CheckFinished,
    CheckStarted,
    Event,
    EventHandler,
    Progress,
    RequirementVerdict,
    RunFinished,
    RunStarted,
    SmokeFinished,
)
from ._parallel import Task, run_ordered
from ._provenance import interpretations, rules_sha256, suite_sha256
from ._smoke import probe, stand_in
from ._streams import StreamGate, offered_streams
from ._waivers import Waiver, active

# worst first: a requirement's outcome is the worst of its checks'
SEVERITY: tuple[str, ...] = ("fail", "error", "reserved", "not_supported", "not_run", "pass")

CERTIFIED = "CERTIFIED"
CERTIFIED_WITH_RESERVATIONS = "CERTIFIED WITH RESERVATIONS"
NOT_CERTIFIED = "NOT CERTIFIED"
INCOMPLETE = "INCOMPLETE"
VERDICTS: tuple[str, ...] = (CERTIFIED, CERTIFIED_WITH_RESERVATIONS, NOT_CERTIFIED, INCOMPLETE)

EXIT_OK, EXIT_FAILED, EXIT_NOT_STARTED = 0, 1, 2

_PROGRESS_INTERVAL_S = 0.25
OUT_OF_SCOPE = "outside this run's scope (filtered)"


GUARDED_REACH = 0.5
"""How far into the side-by-side checks' start order an ``exclusive`` check's place is drawn
(uniformly, from the run's seed): at most halfway. They run one after another (seconds each
in a full run of the reference, ``play.top_lots`` tens of them), so drawn anywhere they could
start last and run alone as the run's tail; halfway, the checks started after them outlast
them.
Their correctness does not depend on the place: what one watches is held at the stream gate
whenever it runs, and the block audits, whose lots ``play.top_lots`` reads, still run first."""


def guarded_place(seed: int, check: Check) -> float | None:
    """Where an ``exclusive`` check starts among the side-by-side checks (``Task.place``), drawn
    from the run's ``seed`` and the check's id in [0, ``GUARDED_REACH``); None for the others
    (a block check, even exclusive, runs alone first)."""
    if not check.exclusive or check.cost == "block":
        return None
    return random.Random(f"{seed}:place:{check.id}").uniform(0, GUARDED_REACH)


CERTIFYING_PROFILES = ("full", "soak")
"""The profiles whose unfiltered passing run certifies: soak is full and player sessions over
its duration (issue 27)."""


def worst(outcomes: Iterable[str]) -> str:
    """The worst outcome (``fail`` > ``error`` > ``reserved`` > ``not_supported`` >
    ``not_run`` > ``pass``)."""
    ranked = [SEVERITY.index(o) for o in outcomes]
    return SEVERITY[min(ranked)] if ranked else "not_run"


NAME_CHARS = 256
"""A ``name`` or ``version`` longer than this is cut in every report (both are printed in each
report's heading) and gives a reservation (docs/contract-decisions.md, ``name-length``): the
contract bounds neither, and an 8 MB name made 34 MB reports."""

MESSAGE_CHARS = 20_000
"""A check's message (and a traceback) is cut to this many characters in its event: messages
quote what a target sent, and whatever a hostile target sends, each report stays readable and
bounded (a legitimate message, even listing 20 faults with their evidence, is far shorter)."""


def bounded(text: str, limit: int) -> str:
    """``text``, or its first ``limit`` characters and how long it was."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… (cut: {len(text):,} characters in all)"


class Found(NamedTuple):
    """One check's outcome for one requirement."""

    outcome: str
    check_id: str
    message: str
    reservations: tuple[dict[str, Any], ...] = ()


NO_LETTER = "no-clause"
"""The basis of a reservation the runner makes of a failure of a requirement that no clause of
the contract or the rules maps to: only the letter can fail a run."""


@dataclass(frozen=True)
class RunPlan:
    """Everything a run needs besides the target: built by the CLI from config and flags."""

    target: str
    profile: str  # quick | full | audit (audit-block) or a custom profile name
    settings: Settings  # a mapping given here (a test's) is validated into Settings, once
    seed: int
    config: Mapping[str, Any]
    filtered: bool = False
    requirements: tuple[str, ...] | None = None  # only these requirement ids (a filter)
    capabilities: tuple[str, ...] | None = None  # only requirements needing these (audit-block)
    waivers: Sequence[Waiver] = ()
    out_dir: Path | None = None  # where case files go; None: no case files
    fail_on_reservation: bool = False  # CERTIFIED WITH RESERVATIONS exits 1 (--fail-on)
    today: dt.date = field(default_factory=lambda: dt.datetime.now(dt.UTC).date())

    def __post_init__(self) -> None:
        object.__setattr__(self, "settings", coerce(self.settings, "run plan settings"))


@dataclass(frozen=True)
class RunResult:
    verdict: str
    note: str
    exit_code: int
    requirements: list[RequirementVerdict]
    reservations: list[dict[str, Any]] = field(default_factory=list)
    scope: dict[str, Any] | None = None


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def describe_problem(document: object) -> str | None:
    """What is wrong with a ``/v1/implementation`` document, or None if nothing: its schema
    (``contract/schemas/implementation.schema.json``), as the seam holds ``describe`` to it."""
    try:
        check("describe()", "implementation", document, shape=False)
    except ProtocolViolation as exc:
        return str(exc)
    return None


REVEAL = "reveal"
NO_BUTTON_GAME = "a game played button by button (capability reveal)"
"""Why the reveal capability's requirements are outside a certificate whose declared games
have no buttons: the contract's reveal is for the game played button by button only, so a
target selling only games shown at once has nothing to reveal, whether it lists the
capability or not (docs/contract-decisions.md, ``capability-skipped``)."""


def _button_games(offered: Iterable[str]) -> list[str]:
    """The games of ``offered`` played button by button (their kit has reveal rules)."""
    known = set(kit_names())
    return [g for g in offered if g in known and kit(g).reveals is not None]


def _requirement_games(rid: str) -> tuple[str, ...]:
    """The game a requirement id belongs to (its first word, a game with a kit), or every
    game for a requirement of the contract or the law."""
    head = rid.split(".", 1)[0]
    games = kit_names()
    return (head,) if head in games else games


class Runner:
    """One run: call ``run(adapter)`` once; events go to every handler, in order."""

    def __init__(
        self,
        plan: RunPlan,
        handlers: Sequence[EventHandler],
        *,
        checks: Mapping[str, Check] | None = None,
        catalogue: Mapping[str, Requirement] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.plan = plan
        self.handlers = list(handlers)
        self.checks = dict(checks) if checks is not None else registered_checks(plan.capabilities)
        self.catalogue = dict(catalogue) if catalogue is not None else load_catalogue()
        self._clock = clock
        self._run_ends = time.monotonic() + float(self.plan.settings.run_budget_s)
        self._stalls = Stalls()
        self._reach: list[tuple[str, list[str]]] = []  # each check's ages reached (``reach``)
        self._calls: Counter[str] = Counter()  # the run's target calls by operation
        self._began = time.monotonic()
        self._gate = StreamGate(())  # the run's, over the target's streams (``_run_checks``)
        self._letters = letters()  # each requirement's clauses: what can fail it
        self._implementation: Mapping[str, Any] | None = None  # describe()'s, once answered
        # what describe() gave (NAME_CHARS), and what the wire showed (``wire_reservations``)
        self._smoke_reservations: list[dict[str, Any]] = []

    # -- events -------------------------------------------------------------------------------

    def emit(self, event: Event) -> None:
        for handler in self.handlers:
            handler.handle(event)

    # -- scope --------------------------------------------------------------------------------

    def games(self) -> list[str]:
        wanted = self.plan.settings.games
        return [g for g in kit_names() if wanted is None or g in wanted]

    def requirements(self, implementation: Mapping[str, Any] | None = None) -> list[Requirement]:
        """The requirements this run reports on.

        A restricted run (audit-block: ``plan.capabilities``) keeps only the requirements of
        those capabilities and of the games the target offers; a certification keeps them all,
        so what a target lacks shows as *not supported*, never as absent.
        """
        caps = self.plan.capabilities
        if caps is None:
            return list(self.catalogue.values())
        offered = set((implementation or {}).get("games", {})) or set(kit_names())
        return [
            r
            for r in self.catalogue.values()
            if r.capability in caps and offered.intersection(_requirement_games(r.id))
        ]

    def in_scope(self, requirement: Requirement) -> bool:
        if self.plan.requirements is not None and requirement.id not in self.plan.requirements:
            return False
        return any(g in self.games() for g in _requirement_games(requirement.id))

    def selected_checks(self, implementation: Mapping[str, Any] | None = None) -> list[Check]:
        wanted = {r.id for r in self.requirements(implementation) if self.in_scope(r)}
        return [
            self.checks[cid]
            for cid in sorted(self.checks)
            if wanted.intersection(self.checks[cid].requirements)
        ]

    # -- the run ------------------------------------------------------------------------------

    def _smoke(self, adapter: Adapter) -> tuple[dict[str, Any] | None, SmokeFinished, bool]:
        """(implementation, event, reachable)."""
        budget = float(self.plan.settings.check_budget_s)
        try:
            answered, document = run_within(adapter.describe, budget, "instantcert-smoke")
            if not answered:
                message = (
                    f"the adapter is broken: describe() did not return within the check budget "
                    f"of {budget:g} s (check_budget_s)"
                )
                return None, SmokeFinished(False, message), True
        except TargetUnreachable as exc:
            return None, SmokeFinished(False, f"target unreachable: {exc}"), False
        except TargetError as exc:
            return None, SmokeFinished(False, f"the adapter is broken ({exc.kind}): {exc}"), True
        except Exception as exc:  # a vendor adapter that crashes: broken, not wrong
            message = f"the adapter is broken: describe() raised {type(exc).__name__}: {exc}"
            return None, SmokeFinished(False, message), True
        # Validated checked it, for an unwrapped adapter; the harness's own block-file target
        # writes its answer from a header the audit has already read (the rules' game and
        # stake), so holding it to the schema would only cost the jsonschema import (0.09 s)
        problem = None if seamless(adapter) else describe_problem(document)
        if problem is not None:
            return None, SmokeFinished(False, f"the adapter is broken: {problem}"), True
        assert isinstance(document, dict)
        document = self._named(document)
        capabilities = list(document["capabilities"])
        offered = ", ".join(
            f"{g} {entry.get('stakes_cents') if isinstance(entry, dict) else entry}"
            for g, entry in document["games"].items()
        )
        message = f"{document['name']} {document['version']}: {offered}; {', '.join(capabilities)}"
        return dict(document), SmokeFinished(True, message, capabilities), True

    def _named(self, document: dict[str, Any]) -> dict[str, Any]:
        """``document`` with a ``version`` written as a JSON number taken as its text, a
        ``name`` or ``version`` over ``NAME_CHARS`` cut, and a reservation saying each."""
        document = self._version_text(document)
        long = [k for k in ("name", "version") if len(document[k]) > NAME_CHARS]
        if not long:
            return document
        self._smoke_reservations.append(
            {
                "kind": "reading",
                "basis": "name-length",
                "message": "; ".join(
                    f"the implementation's {k} is {len(document[k]):,} characters long, cut to "
                    f"{NAME_CHARS} in every report"
                    for k in long
                ),
                "lift": f"a name and a version of at most {NAME_CHARS} characters each",
                "requirements": [],
                "evidence": [],
            }
        )
        return {**document, **{k: bounded(document[k], NAME_CHARS) for k in long}}

    def _version_text(self, document: dict[str, Any]) -> dict[str, Any]:
        """``document`` with a ``version`` answered as a JSON number (``1.4``) written as its
        JSON text, and a reservation saying so (docs/contract-decisions.md,
        ``describe-version``): the contract names the field and gives it no type."""
        version = document["version"]
        if isinstance(version, str):
            return document
        text = json.dumps(version)
        self._smoke_reservations.append(
            {
                "kind": "reading",
                "basis": "describe-version",
                "message": f"the implementation's version is the JSON number {text}, not a "
                "string: taken as its text",
                "lift": 'a version written as a JSON string ("version": "1.4")',
                "requirements": [],
                "evidence": [],
            }
        )
        return {**document, "version": text}

    def _smoke_cases(
        self,
        adapter: Adapter,
        implementation: Mapping[str, Any],
        selected: list[Check],
        smoke: SmokeFinished,
    ) -> tuple[list[Check], SmokeFinished]:
        """The smoke step's real cases (``harness._smoke``): a capability they show broken
        has its checks stood in by that error, told in the smoke message too."""
        games = [g for g in self.games() if g in implementation.get("games", {})]
        faults, lines = probe(
            adapter, implementation, games, float(self.plan.settings.check_budget_s)
        )
        if not lines:
            return selected, smoke
        message = f"{smoke.message}; smoke cases: {'; '.join(lines)}"
        for capability, fault in faults.items():
            message += f"; {capability}: {fault}"
        checks = [
            stand_in(c, faults[c.capability]) if c.capability in faults else c for c in selected
        ]
        return checks, replace(smoke, message=message)

    def run(self, adapter: Adapter) -> RunResult:
        plan = self.plan
        if not seamless(adapter):  # a block file's header is judged by the block checks
            adapter = Validated(adapter)  # every answer held to its schema, once, here
        started_at = _now()
        self._began = time.monotonic()
        self._run_ends = time.monotonic() + float(self.plan.settings.run_budget_s)
        reseed_clients(adapter, plan.seed)  # before the first request: the smoke's
        implementation, smoke, reachable = self._smoke(adapter)
        self._implementation = implementation
        scope = self.requirements(implementation)
        selected = self.selected_checks(implementation) if implementation is not None else []
        if implementation is not None:
            selected, smoke = self._smoke_cases(adapter, implementation, selected, smoke)
            self._run_ends = time.monotonic() + float(self.plan.settings.run_budget_s)
        smoke = replace(smoke, checks=len(selected))
        self.emit(
            RunStarted(
                run_id=uuid.uuid4().hex,
                started_at=started_at,
                harness_version=__version__,
                suite_sha256=suite_sha256(),
                rules_sha256=rules_sha256(kit_names()),
                target=plan.target,
                implementation=implementation,
                config=dict(plan.config),
                seed=plan.seed,
                profile=plan.profile,
                filtered=plan.filtered,
                interpretations=interpretations(
                    self.games(),
                    {r.id: r.interpretations for r in scope if self.in_scope(r)},
                ),
                clauses=clause_entries(self.games()),
            )
        )
        self.emit(smoke)
        outcomes: dict[str, list[Found]] = {r.id: [] for r in scope}
        if implementation is not None:
            with draw_workers_for_a_run():  # the processes drawing the checks' examples
                self._run_checks(adapter, selected, implementation, outcomes)
            self._smoke_reservations += wire_reservations(adapter)
        result = self.verdicts(scope, outcomes, smoke, reachable, implementation)
        self.emit(
            RunFinished(
                finished_at=_now(),
                verdict=result.verdict,
                verdict_note=result.note,
                requirements=result.requirements,
                exit_code=result.exit_code,
                reservations=result.reservations,
                scope=result.scope,
                transport=transport_counts(adapter),
            )
        )
        return result

    def _run_checks(
        self,
        adapter: Adapter,
        selected: Sequence[Check],
        implementation: Mapping[str, Any],
        outcomes: dict[str, list[Found]],
    ) -> None:
        """Every selected check, up to ``check_concurrency`` at once (``harness._parallel``):
        block checks alone (and first), then the others side by side, the long ones early, the
        ``exclusive`` ones one at a time at places among them drawn from the run's seed
        (``GUARDED_REACH``); events and outcomes taken in check order, so the reports are those
        of a run of one check at a time. What an exclusive check watches, no other check buys
        meanwhile: its plays wait at the run's stream gate (``harness._streams``)."""

        def task(check: Check) -> Task[Event]:
            mine: dict[str, list[Found]] = {rid: [] for rid in outcomes}

            def finish() -> None:
                for rid, found in mine.items():
                    outcomes[rid].extend(found)

            return Task(
                run=lambda emit: self._run_check(adapter, check, implementation, mine, emit),
                finish=finish,
                solo=check.cost == "block",
                guarded=check.exclusive,
                early=check.cost == "long",
                first=check.first,
                rank=random.Random(f"{self.plan.seed}:start:{check.id}").random(),
                place=guarded_place(self.plan.seed, check),
            )

        self._gate = StreamGate(offered_streams(implementation))
        workers = self.plan.settings.check_concurrency
        run_ordered([task(c) for c in selected], self.emit, workers=workers)

    def _run_check(
        self,
        adapter: Adapter,
        check: Check,
        implementation: Mapping[str, Any],
        outcomes: dict[str, list[Found]],
        emit: Callable[[Event], None] | None = None,
    ) -> None:
        plan = self.plan
        emit = self.emit if emit is None else emit
        emit(CheckStarted(check.id, list(check.requirements)))
        last = [0.0]
        token = CancelToken()  # a cut check reports nothing more: the lock orders the two

        def progress(done: int, total: int | None, what: str) -> None:
            now = self._clock()
            if now - last[0] >= _PROGRESS_INTERVAL_S or (total is not None and done >= total):
                last[0] = now
                with token.lock:
                    if not token.cancelled:
                        emit(Progress(check.id, done, total, what))

        def block_sink(block: Mapping[str, Any]) -> None:
            names = [f.name for f in fields(BlockAudited)]
            required = [f.name for f in fields(BlockAudited) if f.default is MISSING]
            missing = [n for n in required if n not in block]
            if missing:
                raise ValueError(f"check {check.id}: block report lacks {missing}")
            with token.lock:
                if not token.cancelled:
                    emit(BlockAudited(**{n: block[n] for n in names if n in block}))

        guard = GuardedAdapter(adapter, token, self._stalls, self._gate, self._calls)
        ctx = CheckContext(
            adapter=guard,
            implementation=implementation,
            settings=plan.settings,
            seed=plan.seed,
            progress=progress,
            block_sink=block_sink,
            stream_gate=guard.hold,
        )
        outcome = self._execute_within(check, ctx, guard, token)
        outcome = replace(outcome, message=bounded(outcome.message, MESSAGE_CHARS))
        reach = outcome.details.get("reach")
        if isinstance(reach, list):  # the ages this check reached, and what it did not
            self._reach.append((check.id, [str(line) for line in reach]))
        blamed = outcome.requirements or check.requirements
        foreign = not set(blamed) & set(check.requirements)
        if foreign and not any(rid in outcomes for rid in blamed):  # out of this run's scope
            blamed = check.requirements
        cases: list[str] = []
        if outcome.outcome == "fail" and outcome.evidence and plan.out_dir is not None:
            cases = write_cases(
                plan.out_dir,
                check_id=check.id,
                requirements=blamed,
                message=outcome.message,
                evidence=outcome.evidence,
                target=plan.target,
                seed=plan.seed,
                profile=plan.profile,
                settings=plan.settings.to_dict(),
            )
        message = outcome.message
        if outcome.traceback:
            message = bounded(f"{message}\n{outcome.traceback}".strip(), MESSAGE_CHARS)
        emit(
            CheckFinished(
                check_id=check.id,
                requirements=list(blamed),
                outcome=outcome.outcome,
                duration_s=round(outcome.duration_s, 3),
                message=message,
                evidence=list(outcome.evidence),
                details=dict(outcome.details),
                case_files=cases,
                reservations=list(outcome.reservations),
            )
        )
        for rid in blamed:  # a fault found on the way may break a requirement not covered
            if rid in outcomes and rid not in check.requirements:
                outcomes[rid].append(self._found(rid, check.id, outcome))
        for rid in check.requirements:
            if rid not in outcomes:
                continue
            if rid in blamed:
                outcomes[rid].append(self._found(rid, check.id, outcome))
            elif outcome.outcome == "reserved":  # the check went on to its end
                outcomes[rid].append(Found("pass", check.id, ""))
            else:  # the check stopped at another requirement's failure
                note = f"{check.id} stopped at a failure of {', '.join(blamed)}"
                outcomes[rid].append(Found("not_run", check.id, note))

    def _found(self, rid: str, check_id: str, outcome: CheckOutcome) -> Found:
        """``outcome`` for requirement ``rid``, with the reservations about it; a failure of a
        requirement that no clause maps to is a reservation: only the letter fails a run."""
        mine = tuple(r for r in outcome.reservations if rid in r["requirements"])
        if outcome.outcome == "fail" and not self._letters.get(rid):
            requirement = self.catalogue.get(rid)
            readings = requirement.readings if requirement is not None else ()
            made = {
                "kind": "reading",
                "basis": readings[0] if readings else NO_LETTER,
                "message": outcome.message,
                "lift": "meet the reading, or show the letter that permits what was seen",
                "requirements": [rid],
                "evidence": list(outcome.evidence),
            }
            return Found("reserved", check_id, outcome.message, (*mine, made))
        if outcome.outcome == "reserved" and not mine:
            return Found("pass", check_id, "")
        return Found(outcome.outcome, check_id, outcome.message, mine)

    def _execute_within(
        self, check: Check, ctx: CheckContext, guard: GuardedAdapter, token: CancelToken
    ) -> CheckOutcome:
        """``execute(check, ctx)`` within the check's budget and the run's; cut, an error."""
        budget, run_budget = (
            float(self.plan.settings.check_budget_s),
            float(self.plan.settings.run_budget_s),
        )
        left = self._run_ends - time.monotonic()
        if left <= 0:
            message = (
                f"not run: the run budget of {run_budget:g} s (run_budget_s) was spent before "
                "this check could start"
            )
            return CheckOutcome("error", message, requirements=check.requirements)
        began = time.perf_counter()
        done, outcome = run_within(
            lambda: execute(check, ctx),
            budget,
            f"check {check.id}",
            paused=guard.waited_s,  # its plays held up at the stream gate
            until=self._run_ends,
        )
        if done and outcome is not None:
            return outcome
        ran, waited = time.perf_counter() - began, guard.waited_s()
        if time.monotonic() >= self._run_ends:
            reason = (
                f"cut when the run budget of {run_budget:g} s (run_budget_s) was spent, after "
                f"{ran:.1f} s of this check"
            )
        else:
            reason = f"cut at its budget of {budget:g} s (check_budget_s): it had not ended"
        if waited >= 0.05:  # not counted against its budget
            reason += f" ({waited:.1f} s of it waiting at the stream gate, not counted)"
        hung = guard.in_flight()
        if hung:
            reason += "; still waiting on " + ", ".join(f"{op}() for {s:.1f} s" for op, s in hung)
        token.cancel(reason)
        self._gate.release(guard)  # what it held: the others' plays go on
        for operation, seconds in hung:
            if seconds >= budget / 2:
                self._stalls.record(
                    operation, f"{operation}() still running after {seconds:.1f} s in {check.id}"
                )
        try:
            details = dict(ctx.details)
        except RuntimeError:  # the cut check's thread is still writing them
            details = {}
        return CheckOutcome(
            "error",
            reason,
            details=details,
            duration_s=time.perf_counter() - began,
            requirements=check.requirements,
        )

    # -- verdicts -----------------------------------------------------------------------------

    def verdicts(
        self,
        scope: Sequence[Requirement],
        outcomes: Mapping[str, list[Found]],
        smoke: SmokeFinished,
        reachable: bool,
        implementation: Mapping[str, Any] | None = None,
    ) -> RunResult:
        """Each requirement's verdict, then the run's (see docs/certify.md, "Verdicts")."""
        plan = self.plan
        waivers = {w.requirement: w for w in plan.waivers}
        honoured = active(plan.waivers, plan.today)
        verdicts: list[RequirementVerdict] = []
        for req in scope:
            results = outcomes.get(req.id, [])
            reservations: list[dict[str, Any]] = []
            if not smoke.ok:
                outcome = "not_run" if not reachable else "error"
                message = smoke.message
            elif not self.in_scope(req):
                outcome, message = "not_run", OUT_OF_SCOPE
            elif not results:
                outcome, message = "not_run", "no check covers this requirement"
            else:
                outcome = worst(f.outcome for f in results)
                message = "; ".join(
                    f"{f.check_id}: {f.message}"
                    for f in results
                    if f.outcome == outcome and f.message
                )
                if outcome == "reserved":
                    reservations = [r for f in results for r in f.reservations]
            waiver = None
            if req.id in waivers:
                w = waivers[req.id]
                waiver = {
                    **w.to_dict(plan.today),
                    "applied": req.id in honoured and outcome != "pass",
                    "unnecessary": outcome == "pass",
                }
            verdicts.append(
                RequirementVerdict(
                    id=req.id,
                    article=req.article,
                    title=req.title,
                    outcome=outcome,
                    required=req.required,
                    checks=sorted({f.check_id for f in results}),
                    waiver=waiver,
                    message=message,
                    wording=requirement_wording(req),
                    basis=basis_of(req),
                    reservations=reservations,
                )
            )
        certified_scope = self.certificate_scope(scope, implementation) if smoke.ok else None
        reservations = self.reservations(verdicts, certified_scope)
        verdict, note, code = self.overall(
            verdicts, smoke, reachable, certified_scope, len(reservations)
        )
        return RunResult(verdict, note, code, verdicts, reservations, certified_scope)

    # -- the certificate's scope and its reservations -----------------------------------------

    def left_out(self, requirement: Requirement, implementation: Mapping[str, Any]) -> str | None:
        """Why ``requirement`` is outside the certificate, or None: the contract lets a target
        skip a whole capability ("it says which it has in /v1/implementation"), and a target
        offers the games it offers."""
        declared = set(implementation.get("capabilities", []))
        if requirement.capability not in declared:
            return f"capability {requirement.capability}"
        offered = set(implementation.get("games", {}))
        if not offered.intersection(_requirement_games(requirement.id)):
            return f"game {_requirement_games(requirement.id)[0]}"
        if requirement.capability == REVEAL and not _button_games(offered):
            return NO_BUTTON_GAME
        return None

    def certificate_scope(
        self, scope: Sequence[Requirement], implementation: Mapping[str, Any] | None
    ) -> dict[str, Any] | None:
        """What the certificate covers: the capabilities and games the target declares (of
        those the run checks), and what it leaves out, with how many requirements each."""
        if implementation is None or self.plan.profile == "audit":
            return None
        left: dict[str, int] = {}
        for requirement in scope:
            reason = self.left_out(requirement, implementation)
            if reason is not None and self.in_scope(requirement):
                left[reason] = left.get(reason, 0) + 1
        declared = list(implementation.get("capabilities", []))
        if not _button_games(implementation.get("games", {})):
            declared = [c for c in declared if c != REVEAL]  # nothing of it to certify
        capabilities = [c for c in CAPABILITIES if c in declared]
        games = [g for g in self.games() if g in implementation.get("games", {})]
        return {
            "capabilities": capabilities,
            "games": games,
            "left_out": [{"what": what, "requirements": n} for what, n in left.items()],
            "covers": scope_words(capabilities, games),
            "reach": self.reach(),
        }

    def reach(self) -> list[str]:
        """The ages the run reached (docs/certify.md, "Ages a run reaches"): each check's
        ``reach`` lines, in check order, then the server's uptime; what a line says "not
        covered" no check of this run judged."""
        lines = [f"{check_id}: {line}" for check_id, found in sorted(self._reach) for line in found]
        uptime = time.monotonic() - self._began
        opened, sold = self._calls["open_account"], self._calls["play"]
        lines.append(
            f"accounts: {opened} opened and {sold} plays bought by the run; a fault only past "
            "more accounts or plays since the target started: not covered"
        )
        lines.append(
            f"uptime: the run lasted {uptime:.0f} s; a fault after longer uptime: not covered"
        )
        return lines

    def reservations(
        self, verdicts: Sequence[RequirementVerdict], certified_scope: Mapping[str, Any] | None
    ) -> list[dict[str, Any]]:
        """Every reservation of the run, the scope's first, then the requirements', each once
        (a reservation about several requirements is listed once, with all of them)."""
        found: list[dict[str, Any]] = []
        if certified_scope is not None and certified_scope["left_out"]:
            found.append(scope_reservation(certified_scope))
        found += self._smoke_reservations
        seen: dict[tuple[str, str, str], dict[str, Any]] = {}
        for verdict in verdicts:
            for reservation in verdict.reservations:
                key = (reservation["kind"], reservation["basis"], reservation["message"])
                if key in seen:
                    kept = seen[key]["requirements"]
                    kept += [r for r in reservation["requirements"] if r not in kept]
                    continue
                seen[key] = {**reservation, "requirements": list(reservation["requirements"])}
                found.append(seen[key])
        return found

    def overall(
        self,
        verdicts: Sequence[RequirementVerdict],
        smoke: SmokeFinished,
        reachable: bool,
        certified_scope: Mapping[str, Any] | None = None,
        reservation_count: int = 0,
    ) -> tuple[str, str, int]:
        """The run's verdict, its note and its exit code (docs/certify.md, "Verdicts"): only
        a failure (the letter) gives NOT CERTIFIED; an error, a quick or filtered run, or a
        required requirement left unchecked though in scope gives INCOMPLETE; a full run
        with reservations (readings not met, what the target may leave out, a narrower
        scope) is CERTIFIED WITH RESERVATIONS, exit 0 unless ``fail_on_reservation``."""
        plan = self.plan
        if not reachable:
            return INCOMPLETE, f"the run could not start: {smoke.message}", EXIT_NOT_STARTED
        if not smoke.ok:  # something answers, but not the contract: the run could not start
            note = (
                f"the run could not start: {smoke.message}. No requirement was checked: this "
                "is a fault of the adapter or its connection, not a verdict on the "
                "implementation's rules"
            )
            return INCOMPLETE, note, EXIT_NOT_STARTED

        def open_(v: RequirementVerdict) -> bool:
            return not (v.waiver is not None and v.waiver["applied"])

        outside = {
            v.id
            for v in verdicts
            if plan.profile != "audit"
            and v.outcome in ("not_supported", "not_run")
            and self._outside_certificate(v.id)
        }
        failed = [v.id for v in verdicts if v.outcome == "fail" and open_(v)]
        errored = [v.id for v in verdicts if v.outcome == "error" and open_(v)]
        reserved = [v.id for v in verdicts if v.outcome == "reserved" and open_(v)]
        missing = [
            v.id
            for v in verdicts
            if v.required
            and v.outcome in ("not_supported", "not_run")
            and open_(v)
            and v.id not in outside
            and self.in_scope(self.catalogue[v.id])
        ]
        if failed:
            return NOT_CERTIFIED, f"{len(failed)} requirement(s) failed: {_ids(failed)}", 1
        if errored:
            note = (
                f"{len(errored)} requirement(s) could not be decided because the target or the "
                f"harness misbehaved (error): {_ids(errored)}"
            )
            return INCOMPLETE, note, EXIT_FAILED
        waived = [v.id for v in verdicts if v.waiver is not None and v.waiver["applied"]]
        with_waivers = f"; waived: {_ids(waived)}" if waived else ""
        with_reserved = f"; reserved: {_ids(reserved)}" if reserved else ""
        if plan.profile == "audit":
            unchecked = f"; not checkable from this file: {_ids(missing)}" if missing else ""
            note = (
                f"block audit: every block requirement checked passed{unchecked}"
                f"{with_reserved}{with_waivers}; a block audit alone does not certify an "
                "implementation"
            )
            return INCOMPLETE, note, EXIT_OK
        covers = certified_scope["covers"] if certified_scope is not None else ""
        if missing:
            note = (
                f"{len(missing)} required requirement(s) not checked (not supported by the "
                f"target, or not run): {_ids(missing)}{with_reserved}{with_waivers}"
            )
            return INCOMPLETE, note, EXIT_OK
        decided = [v for v in verdicts if v.id not in outside and v.outcome in ("pass", "reserved")]
        if not decided:
            note = "no requirement in the certificate's scope was checked: " + (
                covers or "the target declares no capability the suite checks"
            )
            return INCOMPLETE, note, EXIT_OK
        if plan.profile not in CERTIFYING_PROFILES:
            note = f"{plan.profile} run: passed{with_reserved}, not valid for certification"
            return INCOMPLETE, note, EXIT_OK
        if plan.filtered:
            note = "filtered full run (games, stakes or requirements narrowed): passed, not valid "
            return INCOMPLETE, note + "for certification", EXIT_OK
        scope_left = bool(certified_scope and certified_scope["left_out"])
        if reserved or scope_left or self._smoke_reservations:
            note = (
                f"full run: {covers}; no requirement failed; {reservation_count} reservation(s)"
                f"{with_reserved}{with_waivers}"
            )
            code = EXIT_FAILED if plan.fail_on_reservation else EXIT_OK
            return CERTIFIED_WITH_RESERVATIONS, note, code
        note = f"full run: {covers}; every required requirement passed"
        if waived:
            note += f" or is waived; waived: {_ids(waived)}"
        return CERTIFIED, note, EXIT_OK

    def _outside_certificate(self, rid: str) -> bool:
        requirement = self.catalogue.get(rid)
        implementation = self._implementation
        if requirement is None or implementation is None:
            return False
        return self.left_out(requirement, implementation) is not None


def scope_words(capabilities: Sequence[str], games: Sequence[str]) -> str:
    """``certified for evaluate, blocks, play (robots, eldorado)``: what a certificate covers."""
    return f"certified for {', '.join(capabilities) or 'nothing'} ({', '.join(games) or 'no game'})"


def scope_reservation(certified_scope: Mapping[str, Any]) -> dict[str, Any]:
    """The reservation of a certificate narrower than the suite: what it leaves out."""
    left = certified_scope["left_out"]
    what = ", ".join(f"{x['what']} ({x['requirements']} requirements)" for x in left)
    return {
        "kind": "scope",
        "basis": "capability-skipped",
        "message": (
            f"{certified_scope['covers']}: the target does not declare {what}; those "
            "requirements are outside the certificate"
        ),
        "lift": (
            "implement and declare what is left out in GET /v1/implementation (capabilities, "
            "games), then certify again"
        ),
        "requirements": [],
        "evidence": [],
    }


def transport_counts(adapter: object) -> dict[str, int] | None:
    """The HTTP transport's counts of an HTTP target (``HttpAdapter``; through ``Validated``)."""
    http = sys.modules.get("harness._http_adapter")  # not loaded: no HTTP target (and no
    adapter = getattr(adapter, "unchecked", adapter)  # import of requests for a run without)
    if http is None or not isinstance(adapter, http.HttpAdapter):
        return None
    counts: dict[str, int] = adapter.transport_counts()
    return counts


def reseed_clients(adapter: object, seed: int) -> None:
    """An HTTP target's devices drawn from the run's seed (``harness._clients``): the clients
    a run's requests come from are the run's, reproducible, and no two runs' alike."""
    http = sys.modules.get("harness._http_adapter")
    adapter = getattr(adapter, "unchecked", adapter)
    if http is not None and isinstance(adapter, http.HttpAdapter):
        adapter.reseed(seed)


def wire_reservations(adapter: object) -> list[dict[str, Any]]:
    """The reservations of what an HTTP target's wire showed against the project's readings:
    a success status the contract does not name (``harness._statuses``), ids as JSON numbers
    (``harness._ids``), a reveal's flags as 0 and 1 (``harness._flags``)."""
    http = sys.modules.get("harness._http_adapter")
    adapter = getattr(adapter, "unchecked", adapter)
    if http is None or not isinstance(adapter, http.HttpAdapter):
        return []
    found: list[dict[str, Any]] = adapter.wire_reservations()
    return found


def _ids(ids: Sequence[str], limit: int = 8) -> str:
    shown = ", ".join(ids[:limit])
    return shown + (f" and {len(ids) - limit} more" if len(ids) > limit else "")
