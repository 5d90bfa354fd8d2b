"""The smoke step's real cases: before any requirement is judged, is the adapter usable at all?

After ``describe`` (its schema checked at the seam), the runner sends, for each game the target
declares and the run covers, at the first stake the reference sells too: one known winning
ticket (drawn by the reference from a fixed seed; its prize is the reference's) if the target
evaluates, and the block list if it has blocks. Both change nothing on the target.

Only a fault that says *the adapter is broken* counts here: nothing answers, an answer that is
not a document of the contract, or an adapter that crashes. A slow answer proves nothing
either way (the checks are cut at their own budgets, as before). Then the
checks of that capability are not run: each requirement they cover is *error*, with the
smoke case as its evidence (``stand_in``), and the other capabilities are checked as usual. A
well-formed answer is never judged here, however wrong (a wrong prize, a refusal of a valid
ticket, a breach of a named requirement): that is the implementation's, and the checks report
it against the requirement it breaks.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import reference
from conformance import Check, CheckContext
from contract import Adapter, ContractBreach, ErrorReply, TargetError, TargetTimeout

from ._budget import run_within

SMOKE_SEED = 20261201
"""The seed of the known tickets: the same cases every run, reproducible from the report."""
SMOKE_WAIT_S = 10.0
"""The longest the step waits for one case (at most the check budget): a case still running
then proves nothing, and the run goes on to the checks, which have their own budgets."""


@dataclass(frozen=True)
class SmokeCase:
    """One real call of the smoke step, and what the reference says it should answer."""

    capability: str  # what a broken answer says cannot be used
    operation: str  # as a person reads it: evaluate('robots', 100, [ticket])
    call: Callable[[Adapter], object]
    expected: str  # what the reference answers, for the message


def known_ticket(game: str, stake_cents: int) -> tuple[str, int]:
    """A winning ticket of ``game`` at ``stake_cents`` and its prize, from the reference: the
    smallest prize of the lot table, drawn from ``SMOKE_SEED``."""
    prize = min(lot.prize_cents for lot in reference.load_rules(game).lot_table(stake_cents).lots)
    ticket = reference.generate_ticket(game, stake_cents, prize, random.Random(SMOKE_SEED))
    return ticket, reference.prize_cents(game, stake_cents, ticket)


def _evaluate(game: str, stake_cents: int, ticket: str) -> Callable[[Adapter], object]:
    return lambda adapter: adapter.evaluate(game, stake_cents, [ticket])


def _list_blocks(game: str, stake_cents: int) -> Callable[[Adapter], object]:
    return lambda adapter: adapter.list_blocks(game, stake_cents)


def smoke_cases(implementation: Mapping[str, Any], games: Sequence[str]) -> list[SmokeCase]:
    """The cases for a target that described itself as ``implementation``, over ``games``."""
    capabilities = implementation.get("capabilities", [])
    offered = implementation.get("games", {})
    cases: list[SmokeCase] = []
    for game in games:
        if game not in offered or game not in reference.GAMES:
            continue
        sold = reference.load_rules(game).stakes_cents
        stakes = [s for s in offered[game].get("stakes_cents", []) if s in sold]
        if not stakes:
            continue
        stake = stakes[0]
        if "evaluate" in capabilities:
            ticket, prize = known_ticket(game, stake)
            cases.append(
                SmokeCase(
                    "evaluate",
                    f"evaluate({game!r}, {stake}, [{ticket!r}])",
                    _evaluate(game, stake, ticket),
                    f"a result of prize_cents {prize}",
                )
            )
        if "blocks" in capabilities:
            cases.append(
                SmokeCase(
                    "blocks",
                    f"list_blocks({game!r}, {stake})",
                    _list_blocks(game, stake),
                    "the block list",
                )
            )
    return cases


def probe(
    adapter: Adapter,
    implementation: Mapping[str, Any],
    games: Sequence[str],
    budget_s: float,
) -> tuple[dict[str, TargetError], list[str]]:
    """Every smoke case run within ``budget_s`` each: (the fault that shows the adapter broken,
    per capability, first case first; a line per case for the smoke message)."""
    faults: dict[str, TargetError] = {}
    slow: set[str] = set()  # a capability that did not answer in time: not asked again
    lines: list[str] = []
    wait_s = min(budget_s, SMOKE_WAIT_S)
    for case in smoke_cases(implementation, games):
        if case.capability in faults or case.capability in slow:
            continue
        answered, fault = _broken(case, adapter, wait_s)
        if fault is not None:
            faults[case.capability] = fault
            lines.append(f"{case.operation}: broken")
        elif answered:
            lines.append(f"{case.operation}: answered")
        else:
            slow.add(case.capability)
            lines.append(f"{case.operation}: no answer within {wait_s:g} s, left to the checks")
    return faults, lines


def _broken(case: SmokeCase, adapter: Adapter, wait_s: float) -> tuple[bool, TargetError | None]:
    """(whether ``case`` was answered in time, the fault that shows the adapter broken or
    None). No answer in time says nothing either way: the checks are cut at their budgets, as
    they would be without this step."""
    head = f"the adapter is broken (smoke step, before any check): {case.operation}"
    head += f", expected {case.expected}"
    try:
        answered, _ = run_within(lambda: case.call(adapter), wait_s, "instantcert-smoke")
    except (ErrorReply, ContractBreach):
        return True, None  # a well-formed answer: the checks judge it
    except TargetTimeout:
        return False, None
    except TargetError as exc:
        fault = type(exc).__new__(type(exc))  # the same kind, the smoke's evidence first
        TargetError.__init__(fault, f"{head}: {exc}")
        return True, fault
    except Exception as exc:  # a vendor adapter that crashes: broken, not wrong
        return True, TargetError(f"{head}: it raised {type(exc).__name__}: {exc}")
    return answered, None


def stand_in(check: Check, fault: TargetError) -> Check:
    """``check`` run as the error ``fault``, without calling the target: its capability is
    broken, and every requirement it covers says so with the smoke's evidence."""

    def broken(ctx: CheckContext) -> None:
        raise fault

    return replace(check, function=broken)
