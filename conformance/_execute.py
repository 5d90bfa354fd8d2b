"""Run one check and turn whatever happens into an outcome: the one place verdicts are made.

Both faces of the suite (the pytest plugin and ``instantcert certify``) call ``execute``, so a
check means the same thing in either: it returns (*pass*), raises ``CheckFailure`` (*fail*),
meets a ``harness.TargetError`` (*error*: the target misbehaved), raises ``NotSupported``
(*not_supported*), raises ``Reservation`` or records one with ``ctx.reserve`` and otherwise
passes (*reserved*: a reading of the project not met, or what the contract lets a target leave
out missing; never a failure), or crashes (*error* with the traceback: a harness bug, never a pass).
A target that lacks the check's capability, or all of its games, is *not_supported* without
the check being called: never a false pass.
"""

from __future__ import annotations

import time
import traceback as tb
from dataclasses import dataclass, field
from typing import Any

from contract import ContractBreach, TargetError, Validated

from ._evidence import BreachEvidence
from ._lazy import prepare_hypothesis_thread
from ._registry import (
    EVERY_STREAM,
    Check,
    CheckContext,
    CheckFailure,
    NotSupported,
    Reservation,
)


@dataclass(frozen=True)
class CheckOutcome:
    """The result of one check: the fields of ``harness.CheckFinished`` the check decides.

    ``requirements`` are the requirement ids the outcome applies to: the check's own, or on a
    failure the narrower set the check named in ``CheckFailure.requirements`` (the requirement
    the fault breaks); runners attribute the outcome to exactly these.
    """

    outcome: str  # pass | fail | error | reserved | not_supported | not_run
    message: str
    evidence: list[dict[str, Any]] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)
    duration_s: float = 0.0
    traceback: str | None = None
    requirements: tuple[str, ...] = ()
    reservations: list[dict[str, Any]] = field(default_factory=list)
    """Every reservation the check raised or recorded (``Reservation.to_dict``), whatever its
    outcome: a failure found after a reservation does not hide it."""


def scope_problem(check: Check, ctx: CheckContext) -> tuple[str, str] | None:
    """Why ``check`` cannot run on this target/profile, as (outcome, message), or None."""
    if not ctx.supports(check.capability):
        return "not_supported", f"the target does not declare the {check.capability!r} capability"
    offered = ctx.implementation.get("games", {})
    if not any(game in offered for game in check.games):
        return "not_supported", f"the target offers none of the games {', '.join(check.games)}"
    if not ctx.games(check.games):
        return "not_run", f"games {', '.join(check.games)} are outside this run's scope"
    return None


def _narrowed(check: Check, failure: CheckFailure) -> tuple[str, ...]:
    """The requirements a failure names: those among the check's own; else, when it names
    only others (a fault found on the way that breaks another requirement: results in
    another order, a balance read lagging), those; else the check's own."""
    if not failure.requirements:
        return check.requirements
    kept = tuple(r for r in failure.requirements if r in check.requirements)
    return kept or tuple(failure.requirements)


def breach_evidence(check: Check, breach: ContractBreach) -> BreachEvidence:
    """A contract breach met by ``check`` as evidence: the answer seen, replayed by the
    ``contract_breach`` replayer (which provokes every refusal again)."""
    return BreachEvidence.of(check.id, breach)


def _validated(adapter: object) -> bool:
    """The adapter checks its answers already: ``contract.Validated``, or the harness's guard
    around one (``harness._budget.GuardedAdapter.underlying``); or it needs no seam: the
    harness's own block-file target (``seamless``)."""
    return (
        isinstance(adapter, Validated)
        or isinstance(getattr(adapter, "underlying", None), Validated)
        or seamless(adapter)
    )


def seamless(adapter: object) -> bool:
    """The harness's own block-file target answers with its own code (describe, the block
    list) and hands on a file's header line as data: the block checks judge that header
    (``blocks.contract3.header``: a *fail* of the file), where the seam would call a bad field
    the target's misbehaviour and end every block check in *error*."""
    from ._file_target import block_file_of  # the block audit, loaded where a check needs it

    return block_file_of(adapter) is not None


def execute(check: Check, ctx: CheckContext) -> CheckOutcome:
    """Run ``check`` with ``ctx`` and classify the result; never raises for a check's fault."""
    problem = scope_problem(check, ctx)
    if problem is not None:
        return CheckOutcome(problem[0], problem[1], requirements=check.requirements)
    start = time.perf_counter()
    outcome, message, evidence, trace = "pass", "", [], None
    requirements = check.requirements
    if not _validated(ctx.adapter):
        ctx.adapter = Validated(ctx.adapter)  # every answer checked at the seam, once
    try:
        if check.capability != "blocks":  # it may import hypothesis: not two threads at once
            prepare_hypothesis_thread()
        if check.exclusive and not check.holds_streams:  # it watches every stream, throughout
            with ctx.hold(EVERY_STREAM):
                check.function(ctx)
        else:
            check.function(ctx)
    except CheckFailure as failure:
        outcome, message = "fail", failure.message
        evidence = [e.to_dict() for e in failure.evidence]
        requirements = _narrowed(check, failure)
    except Reservation as reservation:
        ctx.reservations.append(reservation)
    except NotSupported as exc:
        outcome, message = "not_supported", str(exc) or "not supported by the target"
    except ContractBreach as breach:  # answered in shape, wrongly: a fail, not an error
        outcome, message = "fail", f"contract breach: {breach}"
        evidence = [breach_evidence(check, breach).to_dict()]
        requirements = (breach.requirement,)
    except TargetError as exc:
        limit = getattr(exc, "reservation", None)  # a limit of the target's own, met
        if isinstance(limit, Reservation):  # (row stake-own-limit): what is left unjudged
            ctx.reservations.append(limit)
        else:
            outcome, message = "error", f"target error ({exc.kind}): {exc}"
            trace = tb.format_exc()
    except Exception as exc:  # a harness bug: reported, never a pass, never a crash
        outcome, message = "error", f"check crashed: {type(exc).__name__}: {exc}"
        trace = tb.format_exc()
    for ending in ctx.endings:  # what the check's sessions met and could not judge
        ending()
    reservations = [r.to_dict(_reserved(check, r)) for r in ctx.reservations]
    if outcome == "pass" and reservations:
        outcome = "reserved"
        message = "; ".join(r["message"] for r in reservations)
        requirements = tuple(dict.fromkeys(rid for r in reservations for rid in r["requirements"]))
    return CheckOutcome(
        outcome=outcome,
        message=message,
        evidence=evidence,
        details=dict(ctx.details),
        duration_s=time.perf_counter() - start,
        traceback=trace,
        requirements=requirements,
        reservations=reservations,
    )


def _reserved(check: Check, reservation: Reservation) -> tuple[str, ...]:
    """The requirements a reservation is about: those it names among the check's own, else
    the check's own."""
    named = [r for r in reservation.requirements or () if r in check.requirements]
    return tuple(named) or check.requirements
