"""The stakes each game is sold at (robots 2: 1 €; eldorado 2: 0,5 €, 1 € or 2 €).

Every other check runs at the stakes the target declares in ``/v1/implementation``; a target
declaring fewer would have the lot tables, paytables and plays of the missing stakes checked
by nothing, and pass them. This check holds the declaration to the rules, and evaluates one
valid ticket at each of the rules' stakes, so a stake declared but refused is caught here, for
the article that fixes it, rather than as the other checks' errors.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import reference
from contract import ErrorReply

from .._evaluation import check_shape, difference, expected_result
from .._evidence import EvaluationEvidence, ReplayError, Serialised, evaluate_request
from .._registry import CheckContext, CheckFailure, check
from .._replay import register_kind
from ..games import GameKit, UnknownGame, each_kit, kit

# what is evaluated at each stake: the first of the kit's examples (contract 1's example)


def stakes_case(game: str) -> dict[str, Any]:
    return {"kind": "stakes", "game": game}


@dataclass(frozen=True)
class StakesEvidence(Serialised):
    """A game declared or evaluated at other stakes than its article 2's (kind ``stakes``):
    it breaks ``<game>.2.stakes``."""

    KIND: ClassVar[str] = "stakes"

    game: str
    expected: Any
    got: Any
    request: Mapping[str, Any]
    note: str = ""

    @property
    def input(self) -> dict[str, Any]:
        return stakes_case(self.game)

    @property
    def requirements(self) -> tuple[str, ...]:
        return (f"{self.game}.2.stakes",)

    @classmethod
    def replay(cls, adapter: Any, case: Mapping[str, Any]) -> StakesEvidence | None:
        """Describe the target again and evaluate at each of the rules' stakes."""
        try:
            kit(case.get("game"))
        except UnknownGame as exc:
            raise ReplayError(
                f"'stakes' evidence input needs a known 'game' ({exc}): {dict(case)!r}"
            ) from None
        return stake_problem(adapter, adapter.describe(), str(case["game"]))


register_kind(StakesEvidence)


def stake_problem(
    adapter: Any,
    implementation: Mapping[str, Any],
    game: str,
    answers: dict[int, Any] | None = None,
) -> StakesEvidence | None:
    """Evidence when ``implementation`` declares other stakes than the rules' for ``game``, or
    ``adapter`` refuses to evaluate a valid ticket at one of the rules' stakes."""
    game_kit = kit(game)
    rules = sorted(reference.load_rules(game).stakes_cents)
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
        note = f"{game_kit.stakes_article}: the target declares {declared!r}"
        note += f"; not sold: {missing}" if missing else ""
        note += f"; not in the rules: {extra}" if extra else ""
        return StakesEvidence(
            game, {"stakes_cents": rules}, {"stakes_cents": declared}, request, note
        )
    for stake in rules:
        ticket = game_kit.examples[0]
        try:
            answer = adapter.evaluate(game, stake, [ticket])
            if answers is not None:
                answers[stake] = answer
        except ErrorReply as exc:
            return StakesEvidence(
                game,
                {"stakes_cents": rules, "evaluated_at": stake},
                {"status": exc.status, "code": exc.code, "message": exc.message},
                evaluate_request(game, stake, [ticket]),
                f"{game_kit.stakes_article}: a valid ticket at the declared stake {stake} was "
                "refused",
            )
    return None


def _judge(ctx: CheckContext, game: str) -> None:
    for _ in ctx.games((game,)):
        answers: dict[int, Any] = {}
        found = stake_problem(ctx.adapter, ctx.implementation, game, answers)
        ctx.details["stakes_cents"] = list(reference.load_rules(game).stakes_cents)
        if found is not None:
            raise CheckFailure(
                f"{game} is not sold at the stakes of article 2",
                [found],
                requirements=(f"{game}.2.stakes",),
            )
        _judge_answers(ctx.adapter, game, answers)


def _judge_answers(adapter: Any, game: str, answers: Mapping[int, Any]) -> None:
    """The single-ticket evaluations the stakes were tried with are judged like any other
    (issue 27: a batch of one ticket is a player's client's, never a probe left unjudged). A
    wrong answer is asked again beside another ticket: wrong there too, the rules checks name
    the article it breaks; right there, the ticket is evaluated wrong only alone, which fails
    the game's evaluation requirement here."""
    examples = kit(game).examples
    ticket = examples[0]
    for stake, answer in answers.items():
        got = check_shape(answer, [ticket])[0]
        fault = difference(game, expected_result(game, stake, ticket), got)
        if fault is not None:
            beside = [ticket, examples[-1]]
            again = check_shape(adapter.evaluate(game, stake, beside), beside)[0]
            if difference(game, expected_result(game, stake, ticket), again) is not None:
                continue  # wrong in a batch too: the rules checks' to name
            general = kit(game).general_requirement
            shown = EvaluationEvidence(
                game=game,
                stake_cents=stake,
                ticket=ticket,
                expected=expected_result(game, stake, ticket),
                got=got,
                note=f"a ticket evaluated alone: {fault}",
                requirements=(general,),
            )
            raise CheckFailure(
                f"{game} at {stake} cents: a ticket evaluated alone was answered wrong",
                [shown],
                requirements=(general,),
            )


@each_kit
def _register(game_kit: GameKit) -> None:
    """``stakes.<game>`` for each game's kit, covering ``<game>.2.stakes``."""
    game = game_kit.name

    def judge(ctx: CheckContext) -> None:
        _judge(ctx, game)

    judge.__doc__ = (
        f"{game} is declared and evaluated at exactly the stakes of {game_kit.stakes_article}."
    )
    check(f"stakes.{game}", covers=[f"{game}.2.stakes"], capability="evaluate", games=(game,))(
        judge
    )
