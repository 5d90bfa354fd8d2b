"""The stakes each game is sold at (robots 2: 1 €; eldorado 2: 0,5 €, 1 € or 2 €).

Every other check runs at the stakes the target declares in ``/v1/implementation``; a target
declaring fewer would have the lot tables, paytables and plays of the missing stakes checked
by nothing, and pass them. This check holds the declaration to the rules, and evaluates one
valid ticket at each of the rules' stakes, so a stake declared but refused is caught here, for
the article that fixes it, rather than as the other checks' errors.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from contract import ErrorReply

from .. import strategies as S
from .._registry import CheckContext, CheckFailure, Evidence, check
from .._replay import ReplayError, evaluate_request, replayer

# a valid ticket of each game (contract 1's examples): what is evaluated at each stake
TICKETS = {
    "robots": "OHPSCTQD|C D2+P S S C S D T S P H O C S T D C C",
    "eldorado": "YYSYY/VBPSX/BBPPS|SSSSS/PVBYP/BYVPS",
}
ARTICLE = {"robots": "robots 2 (1 €)", "eldorado": "eldorado 2 (0,5 €, 1 € or 2 €)"}


def stakes_case(game: str) -> dict[str, Any]:
    return {"kind": "stakes", "game": game}


def stake_problem(adapter: Any, implementation: Mapping[str, Any], game: str) -> Evidence | None:
    """Evidence when ``implementation`` declares other stakes than the rules' for ``game``, or
    ``adapter`` refuses to evaluate a valid ticket at one of the rules' stakes."""
    rules = sorted(S.STAKES[game])
    entry = implementation.get("games", {}).get(game, {})
    declared = entry.get("stakes_cents") if isinstance(entry, Mapping) else None
    request = {"operation": "describe"}
    if (
        not isinstance(declared, list)
        or sorted(set(declared)) != rules
        or len(declared) != len(rules)
    ):
        missing = [s for s in rules if not isinstance(declared, list) or s not in declared]
        extra = [s for s in declared or [] if s not in rules]
        note = f"{ARTICLE[game]}: the target declares {declared!r}"
        note += f"; not sold: {missing}" if missing else ""
        note += f"; not in the rules: {extra}" if extra else ""
        return Evidence(
            stakes_case(game), {"stakes_cents": rules}, {"stakes_cents": declared}, request, note
        )
    for stake in rules:
        ticket = TICKETS[game]
        try:
            adapter.evaluate(game, stake, [ticket])
        except ErrorReply as exc:
            return Evidence(
                stakes_case(game),
                {"stakes_cents": rules, "evaluated_at": stake},
                {"status": exc.status, "code": exc.code, "message": exc.message},
                evaluate_request(game, stake, [ticket]),
                f"{ARTICLE[game]}: a valid ticket at the declared stake {stake} was refused",
            )
    return None


def _judge(ctx: CheckContext, game: str) -> None:
    for _ in ctx.games((game,)):
        found = stake_problem(ctx.adapter, ctx.implementation, game)
        ctx.details["stakes_cents"] = list(S.STAKES[game])
        if found is not None:
            raise CheckFailure(
                f"{game} is not sold at the stakes of article 2",
                [found],
                requirements=(f"{game}.2.stakes",),
            )


@check("stakes.robots", covers=["robots.2.stakes"], capability="evaluate", games=("robots",))
def robots_stakes(ctx: CheckContext) -> None:
    """robots is declared and evaluated at exactly 1 € (robots 2)."""
    _judge(ctx, "robots")


@check("stakes.eldorado", covers=["eldorado.2.stakes"], capability="evaluate", games=("eldorado",))
def eldorado_stakes(ctx: CheckContext) -> None:
    """eldorado is declared and evaluated at exactly 0,5 €, 1 € and 2 € (eldorado 2)."""
    _judge(ctx, "eldorado")


@replayer("stakes")
def replay_stakes(adapter: Any, case: Mapping[str, Any]) -> Evidence | None:
    """Describe the target again and evaluate at each of the rules' stakes."""
    if case.get("game") not in S.STAKES:
        raise ReplayError(f"'stakes' evidence input needs a known 'game': {dict(case)!r}")
    return stake_problem(adapter, adapter.describe(), str(case["game"]))
