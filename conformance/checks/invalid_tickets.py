"""Invalid tickets (contract 1 and 4): each must come back as an error object in its place,
never as a prize, and never fail the rest of its batch; a stake the game does not sell is
refused whole.

Every kind of invalid ticket (``strategies.ROBOTS_INVALID_KINDS`` / ``ELDORADO_INVALID_KINDS``)
belongs to the requirement of the rule it breaks, so a target that evaluates, say, a 19-button
robots ticket fails ``robots.4.3.invalid_buttons`` and nothing else.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from contract import ErrorReply

from .. import strategies as S
from .._evaluation import check_shape, difference
from .._evidence import Counterexample
from .._registry import CheckContext, CheckFailure, Evidence, check
from .._replay import evaluate_request, replayer
from ._differential import Disagreement, compare, search
from .evaluate_batch import raise_if_reordered

KINDS: dict[str, dict[str, str]] = {
    "robots": S.ROBOTS_INVALID_KINDS,
    "eldorado": S.ELDORADO_INVALID_KINDS,
}
VALID_NEIGHBOURS: dict[str, tuple[str, str]] = {
    "robots": (
        "OHPSCTQD|C D2+P S S C S D T S P H O C S T D C C",
        "DQTCSPHO|Q O O2 H H T2 S S S S S S S D D D C C",
    ),
    "eldorado": ("YYSYY/VBPSX/BBPPS|SSSSS/PVBYP/BYVPS", "VVVVB/PPPPP/YSVBP"),
}
NOT_STAKES = (0, -100, 1, 75, 150, 300, 100000)


def batch_case(game: str, stake_cents: int, tickets: list[str]) -> dict[str, Any]:
    return {"kind": "evaluate_batch", "game": game, "stake_cents": stake_cents, "tickets": tickets}


def stake_case(game: str, stake_cents: int, ticket: str) -> dict[str, Any]:
    return {"kind": "evaluate_stake", "game": game, "stake_cents": stake_cents, "ticket": ticket}


def spoiled(adapter: Any, game: str, stake: int, batch: list[str]) -> Evidence | None:
    """``batch`` is [valid, invalid, valid]: Evidence if the batch is refused whole or a valid
    ticket's answer differs from the target's own answer for it without the invalid one (its
    correctness is the rules checks' business; here only the invalid neighbour matters)."""
    request = evaluate_request(game, stake, batch)
    alone = [batch[0], batch[2]]
    baseline = check_shape(adapter.evaluate(game, stake, alone), alone)
    expected = [baseline[0], {"error": {"code": "invalid_ticket"}}, baseline[1]]
    case = batch_case(game, stake, batch)
    try:
        got = check_shape(adapter.evaluate(game, stake, batch), batch)
    except ErrorReply as exc:
        refused = [{"refused": f"{exc.status} {exc.code}: {exc.message}"}]
        return Evidence(case, expected, refused, request, "the whole batch was refused")
    raise_if_reordered(game, stake, batch, got)
    raise_if_reordered(game, stake, alone, baseline)
    faults = [
        f"ticket {n}: {fault}"
        for n, fault in (
            (0, difference(game, baseline[0], got[0])),
            (2, difference(game, baseline[1], got[2])),
        )
        if fault is not None
    ]
    if not faults:
        return None
    note = "valid tickets answered differently beside an invalid one: " + "; ".join(faults)
    return Evidence(case, expected, got, request, note)


@replayer("evaluate_batch")
def replay_batch(adapter: Any, case: Mapping[str, Any]) -> Evidence | None:
    """The [valid, invalid, valid] batch again."""
    return spoiled(adapter, case["game"], case["stake_cents"], list(case["tickets"]))


@replayer("evaluate_stake")
def replay_stake(adapter: Any, case: Mapping[str, Any]) -> Evidence | None:
    """The stake again: it must be refused with a 4xx error."""
    game, stake, ticket = case["game"], case["stake_cents"], case["ticket"]
    try:
        got: Any = adapter.evaluate(game, stake, [ticket])
    except ErrorReply as exc:
        if 400 <= exc.status < 500:
            return None
        got = {"status": exc.status, "code": exc.code}
    return Evidence(
        dict(case),
        {"error": {"code": "invalid_stake"}},
        got,
        evaluate_request(game, stake, [ticket]),
        f"stake {stake} was not refused",
    )


def _fail(message: str, evidence: list[Counterexample], requirements: list[str]) -> None:
    raise CheckFailure(message, evidence, requirements=tuple(dict.fromkeys(requirements)))


def _invalid_tickets(ctx: CheckContext, game: str) -> None:
    kinds = KINDS[game]
    stakes = ctx.stakes(game)
    per_kind = max(10, ctx.settings.hypothesis_max_examples // len(kinds))
    evidence: list[Counterexample] = []
    broken: list[str] = []
    try:
        for kind in sorted(kinds):
            fixed = [t for k, t in S.INVALID_EXAMPLES[game] if k == kind]
            found: list[Disagreement] = []
            for stake in stakes:
                found += compare(ctx.adapter, game, stake, fixed)
            strategy = S.invalid_tickets_of(game, kind)
            shrunk = search(ctx, game, strategy, examples=per_kind) if not found else []
            found = sorted(found, key=lambda d: len(d.ticket))[:1] + shrunk
            if found:
                broken.append(kinds[kind])
                evidence.append(found[0].evidence([kinds[kind]], f"invalid ticket ({kind})"))
    except ErrorReply as exc:
        _fail(
            f"a batch holding invalid tickets was refused whole ({exc.status} {exc.code}): "
            "each invalid ticket must get an error object in its place",
            [],
            [f"{game}.contract.invalid_per_ticket"],
        )
    ctx.details["kinds"] = sorted(kinds)
    if evidence:
        _fail(
            f"{len(evidence)} kind(s) of invalid {game} ticket given a result instead of an error",
            evidence,
            broken,
        )


@check(
    "invalid_tickets.robots",
    covers=sorted(set(S.ROBOTS_INVALID_KINDS.values()) | {"robots.contract.invalid_per_ticket"}),
    capability="evaluate",
    games=("robots",),
)
def robots_invalid(ctx: CheckContext) -> None:
    """Every kind of invalid robots ticket (board, buttons, symbols, notation), from a fixed
    catalogue and from hypothesis, gets an error object, never a prize."""
    _invalid_tickets(ctx, "robots")


@check(
    "invalid_tickets.eldorado",
    covers=sorted(
        set(S.ELDORADO_INVALID_KINDS.values()) | {"eldorado.contract.invalid_per_ticket"}
    ),
    capability="evaluate",
    games=("eldorado",),
)
def eldorado_invalid(ctx: CheckContext) -> None:
    """Every kind of invalid eldorado ticket (grid shape, symbols, Extra grids not granted or
    missing, notation), from a fixed catalogue and from hypothesis, gets an error object."""
    _invalid_tickets(ctx, "eldorado")


@check(
    "invalid_tickets.per_ticket",
    covers=("robots.contract.invalid_per_ticket", "eldorado.contract.invalid_per_ticket"),
    capability="evaluate",
)
def per_ticket(ctx: CheckContext) -> None:
    """An invalid ticket between two valid ones: an error object in its place, the valid ones
    evaluated as usual, the batch not refused (contract 4)."""
    evidence: list[Counterexample] = []
    broken: list[str] = []
    for game in ctx.games(("robots", "eldorado")):
        before, after = VALID_NEIGHBOURS[game]
        for stake in ctx.stakes(game):
            found = None
            for kind, invalid in S.INVALID_EXAMPLES[game]:
                found = spoiled(ctx.adapter, game, stake, [before, invalid, after])
                if found is not None:
                    evidence.append(replace(found, note=f"{found.note} ({kind})"))
                    broken.append(f"{game}.contract.invalid_per_ticket")
                    break
            if found is not None:
                break
    if evidence:
        _fail("an invalid ticket spoiled its batch", evidence, broken)


@check(
    "invalid_tickets.stakes",
    covers=("robots.contract.invalid_stake", "eldorado.contract.invalid_stake"),
    capability="evaluate",
)
def invalid_stakes(ctx: CheckContext) -> None:
    """Evaluating at a stake the game does not sell is refused with a 4xx error, not
    evaluated (contract 4: 422 invalid stake)."""
    evidence: list[Counterexample] = []
    broken: list[str] = []
    for game in ctx.games(("robots", "eldorado")):
        ticket = VALID_NEIGHBOURS[game][0]
        for stake in NOT_STAKES:
            if stake in S.STAKES[game]:
                continue
            got: object
            try:
                got = ctx.adapter.evaluate(game, stake, [ticket])
            except ErrorReply as exc:
                if 400 <= exc.status < 500:
                    continue
                got = {"status": exc.status, "code": exc.code}
            evidence.append(
                Evidence(
                    stake_case(game, stake, ticket),
                    {"error": {"code": "invalid_stake"}},
                    got,
                    evaluate_request(game, stake, [ticket]),
                    f"{game} sells {list(S.STAKES[game])} cents; {stake} was not refused",
                )
            )
            broken.append(f"{game}.contract.invalid_stake")
            break
    if evidence:
        _fail("a stake the game does not sell was evaluated", evidence, broken)
