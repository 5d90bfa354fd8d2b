"""Metamorphic checks: properties of the target's own answers that need no oracle.

A ticket and a transformed ticket that the rules say are worth the same go to the target in
one batch; the two answers must agree, with each win following its symbol, row or robot. The
relations are each game's own (its kit's ``relations``: ``_<game>_relations.py``); one check
``metamorphic.<relation.check>`` is registered per relation of every kit.
A target can be consistently wrong and still pass these (the differential checks catch that);
what they catch is an answer that depends on something the rules say does not matter.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from .._drawing import Recipe
from .._evaluation import check_shape, difference, expected_result, is_error
from .._evidence import ReplayError, Serialised, evaluate_request, require
from .._lazy import strategies_module
from .._registry import CheckContext, CheckFailure, check
from .._replay import register_kind
from ..games import GameKit, each_kit, kit, kits
from ._batch_order import raise_if_reordered
from ._differential import Disagreement, hunt
from ._relations import Relation

if TYPE_CHECKING:
    from hypothesis import strategies as st

else:  # imported on first use (conformance._lazy): a run of block checks never needs them
    st = strategies_module()

Result = Mapping[str, Any]


# -- what must stay the same ------------------------------------------------------------------


def _wins(result: Result, key: Callable[[Mapping[str, Any]], Any]) -> Counter[str]:
    return Counter(json.dumps(key(w)) for w in result.get("wins", []))


def _same(
    a: Result,
    b: Result,
    key_a: Callable[[Mapping[str, Any]], Any],
    key_b: Callable[[Mapping[str, Any]], Any],
) -> bool:
    if is_error(a) or is_error(b):
        return is_error(a) == is_error(b)
    return a.get("prize_cents") == b.get("prize_cents") and _wins(a, key_a) == _wins(b, key_b)


@dataclass(frozen=True)
class MetamorphicEvidence(Serialised):
    """A ticket and its transform (a change the rules ignore) that the target answers
    differently: evidence of kind ``metamorphic``, breaking the relation's requirement."""

    KIND: ClassVar[str] = "metamorphic"

    relation: str  # the requirement id the relation checks
    game: str
    stake_cents: int
    ticket: str
    seed: int
    transformed: str
    first: Any  # the target's answer for ``ticket``
    second: Any  # its answer for ``transformed``

    @property
    def input(self) -> dict[str, Any]:
        return metamorphic_case(self.relation, self.game, self.stake_cents, self.ticket, self.seed)

    @property
    def expected(self) -> Any:
        return self.first

    @property
    def got(self) -> Any:
        return self.second

    @property
    def request(self) -> dict[str, Any]:
        return evaluate_request(self.game, self.stake_cents, [self.ticket, self.transformed])

    @property
    def note(self) -> str:
        return (
            f"{self.relation}: the target's answer for {self.transformed!r} "
            f"does not match its answer for {self.ticket!r}"
        )

    @property
    def requirements(self) -> tuple[str, ...]:
        return (self.relation,)

    @classmethod
    def replay(cls, adapter: Any, case: Mapping[str, Any]) -> MetamorphicEvidence | None:
        """The ticket and its transform again, in one batch."""
        require(case, "relation", "stake_cents", "ticket", "seed")
        relation = relation_named(case["relation"])
        found = examine(adapter, relation, [(case["stake_cents"], case["ticket"], case["seed"])])
        return found[0][1] if found else None


def metamorphic_case(
    relation: str, game: str, stake: int, ticket: str, seed: int
) -> dict[str, Any]:
    return {
        "kind": "metamorphic",
        "relation": relation,
        "game": game,
        "stake_cents": stake,
        "ticket": ticket,
        "seed": seed,
    }


def examine(
    adapter: Any, relation: Relation, cases: list[tuple[int, str, int]]
) -> list[tuple[tuple[int, str, int], MetamorphicEvidence]]:
    """Send each ticket and its transform in one batch per stake; the violations found."""
    found = []
    for stake in sorted({c[0] for c in cases}):
        mine = [c for c in cases if c[0] == stake]
        tickets = [
            t for _, ticket, seed in mine for t in (ticket, relation.transform(ticket, seed))
        ]
        answers = check_shape(adapter.evaluate(relation.game, stake, tickets), tickets)
        for n, case in enumerate(mine):
            a, b = answers[2 * n], answers[2 * n + 1]
            key_a, key_b = relation.keys(case[1], tickets[2 * n + 1], case[2])
            if not _same(a, b, key_a, key_b):
                found.append(
                    (
                        case,
                        MetamorphicEvidence(
                            relation.name,
                            relation.game,
                            stake,
                            case[1],
                            case[2],
                            tickets[2 * n + 1],
                            a,
                            b,
                        ),
                    )
                )
        if found:  # right results at other tickets' places are one finding about order
            raise_if_reordered(relation.game, stake, tickets, answers)
    return found


register_kind(MetamorphicEvidence)


def relation_named(name: str) -> Relation:
    """The relation whose requirement id is ``name``, among every kit's relations."""
    for game_kit in kits():
        for relation in game_kit.relations:
            if relation.name == name:
                return relation
    known = [r.name for k in kits() for r in k.relations]
    raise ReplayError(f"no metamorphic relation {name!r}; known: {', '.join(known)}")


def relation_cases(name: str, stakes: tuple[int, ...]) -> st.SearchStrategy[tuple[int, str, int]]:
    """(stake, ticket, seed of the transform) cases of the relation ``name``."""
    tickets = relation_named(name).tickets()
    return st.tuples(st.sampled_from(stakes), tickets, st.integers(1, 2**31))


def _run(ctx: CheckContext, name: str) -> None:
    relation = relation_named(name)
    stakes = ctx.stakes(relation.game)
    if not stakes:  # the game offered at no stake: stakes.<game> fails that (the rules'
        return  # stakes), or the run's own stakes left it out; as every rules check does
    examples = ctx.settings.hypothesis_max_examples
    found = hunt(
        ctx,
        Recipe(relation_cases, (name, tuple(stakes))),
        lambda chunk: examine(ctx.adapter, relation, chunk),
        examples=examples,
        batch=250,
        what=name,
    )
    ctx.details["examples"] = examples
    if found:
        named = named_by_the_oracle(ctx.adapter, relation, found)
        breaks = f" (the oracle names {', '.join(named)})" if named else ""
        raise CheckFailure(
            f"{name}: the answer changed under a change the rules ignore{breaks}",
            found,
            requirements=named or (name,),
        )


def named_by_the_oracle(
    adapter: Any, relation: Relation, found: list[MetamorphicEvidence]
) -> tuple[str, ...]:
    """The requirements the game's classifier names for the answers of ``found`` that the
    reference disagrees with (at least one of each pair does: the reference keeps every
    relation), looking at the structure of the ticket before the relation's own name; () when
    it narrows nothing. An answer that names a robot by the rules' order, not the screen's, is
    ``robots.4.2.robot_positions`` on its own ticket, whatever order it came in."""
    game_kit = kit(relation.game)
    diagnose = game_kit.diagnosis()
    for evidence in found[:3]:
        pairs = ((evidence.ticket, evidence.first), (evidence.transformed, evidence.second))
        for ticket, answer in pairs:
            want = expected_result(relation.game, evidence.stake_cents, ticket)
            if is_error(want) or difference(relation.game, want, answer) is None:
                continue
            wrong = Disagreement(relation.game, evidence.stake_cents, ticket, want, answer, "")
            ids = [i for i in diagnose(adapter, wrong) if i != game_kit.general_requirement]
            if ids:
                return tuple(ids)
    return ()


def _register(game_kit: GameKit) -> None:
    """One check per relation of ``game_kit``: ``metamorphic.<relation.check>``."""
    for relation in game_kit.relations:

        def run(ctx: CheckContext, name: str = relation.name) -> None:
            _run(ctx, name)

        run.__doc__ = relation.doc
        check(
            f"metamorphic.{relation.check}",
            covers=[relation.name],
            capability="evaluate",
            games=(game_kit.name,),
        )(run)


each_kit(_register)
