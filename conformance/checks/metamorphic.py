"""Metamorphic checks: properties of the target's own answers that need no oracle.

A ticket and a transformed ticket that the rules say are worth the same go to the target in
one batch; the two answers must agree, with each win following its symbol, row or robot:
buttons in another order (robots 4.4, R-I5), robots in another order (4.2, R-I1), the rows of a
grid in another order (eldorado 4.1), the cells of a row in another order (4.4, E-I1).
A target can be consistently wrong and still pass these (the differential checks catch that);
what they catch is an answer that depends on something the rules say does not matter.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from .._drawing import Recipe
from .._evaluation import check_shape, difference, expected_result, is_error
from .._evidence import Serialised, evaluate_request, require
from .._lazy import strategies_module, suite_strategies
from .._registry import CheckContext, CheckFailure, check
from .._replay import register_kind
from ..games import kit
from ._batch_order import raise_if_reordered
from ._differential import Disagreement, hunt

if TYPE_CHECKING:
    from hypothesis import strategies as st

    from ..games import _eldorado_strategies as ES
    from ..games import _robots_strategies as RS
else:  # imported on first use (conformance._lazy): a run of block checks never needs them
    st = strategies_module()
    RS = suite_strategies("conformance.games._robots_strategies")
    ES = suite_strategies("conformance.games._eldorado_strategies")

Result = Mapping[str, Any]


# -- the transformations ----------------------------------------------------------------------


def shuffle_buttons(ticket: str, seed: int) -> str:
    robots, body = ticket.split("|")
    buttons = body.split(" ")
    random.Random(seed).shuffle(buttons)
    return robots + "|" + " ".join(buttons)


def shuffle_robots(ticket: str, seed: int) -> str:
    robots, body = ticket.split("|")
    order = list(robots)
    random.Random(seed).shuffle(order)
    return "".join(order) + "|" + body


def _row_orders(ticket: str, seed: int) -> list[list[int]]:
    """For each grid, the old row index of each new row."""
    shuffle = random.Random(seed)
    orders = []
    for _ in ticket.split("|"):
        order = list(range(ES.ROWS))
        shuffle.shuffle(order)
        orders.append(order)
    return orders


def shuffle_rows(ticket: str, seed: int) -> str:
    grids = [g.split("/") for g in ticket.split("|")]
    orders = _row_orders(ticket, seed)
    return ES.eldorado_ticket(
        [[rows[k] for k in order] for rows, order in zip(grids, orders, strict=True)]
    )


def shuffle_cells(ticket: str, seed: int) -> str:
    shuffle = random.Random(seed)
    grids = []
    for grid in ticket.split("|"):
        rows = []
        for row in grid.split("/"):
            cells = list(row)
            shuffle.shuffle(cells)
            rows.append("".join(cells))
        grids.append(rows)
    return ES.eldorado_ticket(grids)


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


def _identity(win: Mapping[str, Any]) -> Any:
    return sorted(
        (k, v)
        for k, v in win.items()
        if k in ("robot", "grid", "row", "symbol", "count", "amount_cents")
    )


def robots_order_keys(
    ticket: str, transformed: str
) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """Wins keyed by symbol and amount, and the robot mapped to where its symbol went."""
    before, after = ticket.split("|")[0], transformed.split("|")[0]

    def key_a(win: Mapping[str, Any]) -> Any:
        robot = win.get("robot")
        moved = (
            after.index(before[robot])
            if isinstance(robot, int) and 0 <= robot < len(before)
            else robot
        )
        return [moved, win.get("symbol"), win.get("amount_cents")]

    def key_b(win: Mapping[str, Any]) -> Any:
        return [win.get("robot"), win.get("symbol"), win.get("amount_cents")]

    return key_a, key_b


def row_order_keys(ticket: str, seed: int) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """Wins with each row mapped to where the shuffle put it."""
    orders = _row_orders(ticket, seed)

    def key_a(win: Mapping[str, Any]) -> Any:
        grid, row = win.get("grid"), win.get("row")
        if (
            isinstance(grid, int)
            and isinstance(row, int)
            and 0 <= grid < len(orders)
            and row in orders[grid]
        ):
            row = orders[grid].index(row)
        return [grid, row, win.get("symbol"), win.get("count"), win.get("amount_cents")]

    def key_b(win: Mapping[str, Any]) -> Any:
        return [
            win.get("grid"),
            win.get("row"),
            win.get("symbol"),
            win.get("count"),
            win.get("amount_cents"),
        ]

    return key_a, key_b


@dataclass(frozen=True)
class Relation:
    name: str  # the requirement id
    game: str
    transform: Callable[[str, int], str]
    tickets: Callable[[], st.SearchStrategy[str]]

    def keys(
        self, ticket: str, transformed: str, seed: int
    ) -> tuple[Callable[..., Any], Callable[..., Any]]:
        if self.name == "robots.4.2.robot_order":
            return robots_order_keys(ticket, transformed)
        if self.name == "eldorado.4.1.row_order":
            return row_order_keys(ticket, seed)
        return _identity, _identity


RELATIONS: dict[str, Relation] = {
    r.name: r
    for r in (
        Relation("robots.4.4.button_order", "robots", shuffle_buttons, lambda: RS.robots_tickets()),
        Relation("robots.4.2.robot_order", "robots", shuffle_robots, lambda: RS.robots_tickets()),
        Relation("eldorado.4.1.row_order", "eldorado", shuffle_rows, lambda: ES.eldorado_tickets()),
        Relation(
            "eldorado.4.4.cell_order", "eldorado", shuffle_cells, lambda: ES.eldorado_tickets()
        ),
    )
}


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
        relation = RELATIONS[case["relation"]]
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


def relation_cases(name: str, stakes: tuple[int, ...]) -> st.SearchStrategy[tuple[int, str, int]]:
    """(stake, ticket, seed of the transform) cases of the relation ``name``."""
    tickets = RELATIONS[name].tickets()
    return st.tuples(st.sampled_from(stakes), tickets, st.integers(1, 2**31))


def _run(ctx: CheckContext, name: str) -> None:
    relation = RELATIONS[name]
    stakes = ctx.stakes(relation.game)
    if not stakes:
        return
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


@check(
    "metamorphic.robots_button_order",
    covers=["robots.4.4.button_order"],
    capability="evaluate",
    games=("robots",),
)
def robots_button_order(ctx: CheckContext) -> None:
    """The buttons of a ticket in another order: same prize, same wins (robots 4.4, R-I5)."""
    _run(ctx, "robots.4.4.button_order")


@check(
    "metamorphic.robots_robot_order",
    covers=["robots.4.2.robot_order"],
    capability="evaluate",
    games=("robots",),
)
def robots_robot_order(ctx: CheckContext) -> None:
    """The robots in another order: same prize, each win at its symbol's new robot (R-I1)."""
    _run(ctx, "robots.4.2.robot_order")


@check(
    "metamorphic.eldorado_row_order",
    covers=["eldorado.4.1.row_order"],
    capability="evaluate",
    games=("eldorado",),
)
def eldorado_row_order(ctx: CheckContext) -> None:
    """The rows of each grid in another order: same prize, each win at its row's new place."""
    _run(ctx, "eldorado.4.1.row_order")


@check(
    "metamorphic.eldorado_cell_order",
    covers=["eldorado.4.4.cell_order"],
    capability="evaluate",
    games=("eldorado",),
)
def eldorado_cell_order(ctx: CheckContext) -> None:
    """The cells of each row in another order: same prize, same wins (E-I1)."""
    _run(ctx, "eldorado.4.4.cell_order")
