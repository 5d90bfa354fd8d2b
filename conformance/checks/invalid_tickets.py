"""Invalid tickets (contract 1 and 4): each must come back as an error object in its place,
never as a prize, and never fail the rest of its batch; a stake the game does not sell is
refused whole.

Every kind of invalid ticket (its game kit's ``invalid_kinds``, ``conformance.games``) belongs
to the requirement of the rule it breaks, so a target that evaluates, say, a 19-button robots
ticket fails ``robots.4.3.invalid_buttons`` and nothing else.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, ClassVar

import reference
from contract import ErrorReply

from .._drawing import Recipe
from .._evaluation import check_shape, difference
from .._evidence import BatchEvidence, Counterexample, Serialised, require
from .._pool import map_in_order, workers_of
from .._registry import CheckContext, CheckFailure, check
from .._replay import evaluate_request, register_kind
from ..games import GameKit, each_kit, kit
from ._batch_order import raise_if_reordered
from ._differential import Disagreement, compare, search

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

NOT_STAKES = (0, -100, 1, 75, 150, 300, 100000)


def stake_case(game: str, stake_cents: int, ticket: str) -> dict[str, Any]:
    return {"kind": "evaluate_stake", "game": game, "stake_cents": stake_cents, "ticket": ticket}


INVALID_STAKE = {"error": {"code": "invalid_stake"}}


@dataclass(frozen=True)
class StakeEvidence(Serialised):
    """A stake the game does not sell, evaluated instead of refused (kind ``evaluate_stake``):
    it breaks ``<game>.contract.invalid_stake``."""

    KIND: ClassVar[str] = "evaluate_stake"

    game: str
    stake_cents: int
    ticket: str
    got: Any
    note: str = ""

    @property
    def input(self) -> dict[str, Any]:
        return stake_case(self.game, self.stake_cents, self.ticket)

    @property
    def expected(self) -> Any:
        return INVALID_STAKE

    @property
    def request(self) -> dict[str, Any]:
        return evaluate_request(self.game, self.stake_cents, [self.ticket])

    @property
    def requirements(self) -> tuple[str, ...]:
        return (f"{self.game}.contract.invalid_stake",)

    @classmethod
    def replay(cls, adapter: Any, case: Mapping[str, Any]) -> StakeEvidence | None:
        """The stake again: it must be refused with a 4xx error."""
        require(case, "game", "stake_cents", "ticket")
        game, stake, ticket = case["game"], case["stake_cents"], case["ticket"]
        try:
            got: Any = adapter.evaluate(game, stake, [ticket])
        except ErrorReply as exc:
            if 400 <= exc.status < 500:
                return None
            got = {"status": exc.status, "code": exc.code}
        return cls(game, stake, ticket, got, f"stake {stake} was not refused")


register_kind(StakeEvidence)


@dataclass(frozen=True)
class NeighbourEvidence(BatchEvidence):
    """A [valid, invalid, valid] batch refused whole, or its valid tickets answered unlike
    alone (kind ``evaluate_batch``)."""

    KIND: ClassVar[str] = "evaluate_batch"

    @classmethod
    def replay(cls, adapter: Any, case: Mapping[str, Any]) -> Counterexample | None:
        """The [valid, invalid, valid] batch again."""
        require(case, "game", "stake_cents", "tickets")
        return spoiled(adapter, case["game"], case["stake_cents"], list(case["tickets"]))


register_kind(NeighbourEvidence)


def spoiled(adapter: Any, game: str, stake: int, batch: list[str]) -> NeighbourEvidence | None:
    """``batch`` is [valid, invalid, valid]: Evidence if the batch is refused whole or a valid
    ticket's answer differs from the target's own answer for it without the invalid one (its
    correctness is the rules checks' business; here only the invalid neighbour matters)."""
    alone = [batch[0], batch[2]]
    baseline = check_shape(adapter.evaluate(game, stake, alone), alone)
    expected = [baseline[0], {"error": {"code": "invalid_ticket"}}, baseline[1]]

    def found(got: Any, note: str) -> NeighbourEvidence:
        breaks = (f"{game}.contract.invalid_per_ticket",)
        return NeighbourEvidence(game, stake, tuple(batch), expected, got, note, breaks)

    try:
        got = check_shape(adapter.evaluate(game, stake, batch), batch)
    except ErrorReply as exc:
        refused = [{"refused": f"{exc.status} {exc.code}: {exc.message}"}]
        return found(refused, "the whole batch was refused")
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
    return found(got, note)


def _fail(message: str, evidence: list[Counterexample], requirements: list[str]) -> None:
    raise CheckFailure(message, evidence, requirements=tuple(dict.fromkeys(requirements)))


def invalid_tickets_of_kind(game: str, kind: str) -> SearchStrategy[str]:
    """Invalid tickets of ``game`` of one ``kind`` (the game's kit, found by name)."""
    return kit(game).invalid_tickets_of(kind)


def _invalid_tickets(ctx: CheckContext, game: str) -> None:
    game_kit = kit(game)
    kinds = game_kit.invalid_kinds
    stakes = ctx.stakes(game)
    per_kind = max(10, ctx.settings.hypothesis_max_examples // len(kinds))
    evidence: list[Counterexample] = []
    broken: list[str] = []
    try:
        for kind in sorted(kinds):
            fixed = [t for k, t in game_kit.invalid_examples if k == kind]
            found: list[Disagreement] = []
            for stake in stakes:
                found += compare(ctx.adapter, game, stake, fixed)
            tickets = Recipe(invalid_tickets_of_kind, (game, kind))
            shrunk = search(ctx, game, tickets, examples=per_kind) if not found else []
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


@each_kit
def _register(game_kit: GameKit) -> None:
    """``invalid_tickets.<game>`` for each game's kit, covering the requirements of its kinds
    of invalid ticket and ``<game>.contract.invalid_per_ticket``."""
    game = game_kit.name

    def invalid(ctx: CheckContext) -> None:
        _invalid_tickets(ctx, game)

    invalid.__doc__ = (
        f"Every kind of invalid {game} ticket ({', '.join(sorted(game_kit.invalid_kinds))}), "
        "from a fixed catalogue and from hypothesis, gets an error object, never a prize."
    )
    covers = set(game_kit.invalid_kinds.values()) | {f"{game}.contract.invalid_per_ticket"}
    check(f"invalid_tickets.{game}", covers=sorted(covers), capability="evaluate", games=(game,))(
        invalid
    )


@check(
    "invalid_tickets.per_ticket",
    per_game=lambda kit: [f"{kit.name}.contract.invalid_per_ticket"],
    capability="evaluate",
)
def per_ticket(ctx: CheckContext) -> None:
    """An invalid ticket between two valid ones: an error object in its place, the valid ones
    evaluated as usual, the batch not refused (contract 4)."""
    evidence: list[Counterexample] = []
    broken: list[str] = []
    for game in ctx.games():
        before, after = kit(game).examples
        batches = [
            (game, stake, kind, [before, invalid, after])
            for stake in ctx.stakes(game)
            for kind, invalid in kit(game).invalid_examples
        ]  # evaluated side by side (they change nothing), the first fault taken in this order
        answers = map_in_order(
            lambda b: spoiled(ctx.adapter, b[0], b[1], b[3]), batches, workers_of(ctx.settings)
        )
        for (_, _, kind, _), found in zip(batches, answers, strict=True):
            if found is not None:
                evidence.append(replace(found, note=f"{found.note} ({kind})"))
                broken.append(f"{game}.contract.invalid_per_ticket")
                break
    if evidence:
        _fail("an invalid ticket spoiled its batch", evidence, broken)


@check(
    "invalid_tickets.stakes",
    per_game=lambda kit: [f"{kit.name}.contract.invalid_stake"],
    capability="evaluate",
)
def invalid_stakes(ctx: CheckContext) -> None:
    """Evaluating at a stake the game does not sell is refused with a 4xx error, not
    evaluated (contract 4: 422 invalid stake)."""
    evidence: list[Counterexample] = []
    broken: list[str] = []
    for game in ctx.games():
        ticket = kit(game).examples[0]
        sold = reference.load_rules(game).stakes_cents
        for stake in NOT_STAKES:
            if stake in sold:
                continue
            got: object
            try:
                got = ctx.adapter.evaluate(game, stake, [ticket])
            except ErrorReply as exc:
                if 400 <= exc.status < 500:
                    continue
                got = {"status": exc.status, "code": exc.code}
            evidence.append(
                StakeEvidence(
                    game,
                    stake,
                    ticket,
                    got,
                    f"{game} sells {list(sold)} cents; {stake} was not refused",
                )
            )
            broken.append(f"{game}.contract.invalid_stake")
            break
    if evidence:
        _fail("a stake the game does not sell was evaluated", evidence, broken)
