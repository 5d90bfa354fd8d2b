"""A batch's results in another order: ``permuted`` tells results returned at other tickets'
places (each one right) from wrong evaluations, and ``order_failure`` is the one finding such a
batch makes (``evaluate.batch.order``, evidence kind ``evaluate_order``). The evaluate checks
(``_differential.compare``, metamorphic relations, a ticket beside an invalid one) ask it before
they report any disagreement, so a target that reorders a batch fails one requirement with one
piece of evidence, not the rules requirements with many.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from .._evaluation import check_shape, expected_result, result_key
from .._evidence import BatchEvidence, Counterexample, require
from .._registry import CheckFailure
from .._replay import register_kind

ORDER = "evaluate.batch.order"


SHOWN = 20  # tickets kept in an order evidence (enough to replay a reordering)


def permuted(
    game: str, expected: Sequence[Mapping[str, Any]], got: Sequence[Mapping[str, Any]]
) -> list[int] | None:
    """When ``got`` holds exactly the results of ``expected`` but some at other places: for
    each position of ``got``, the position of the ticket whose result it is. None when the
    results are in order, or are not those results at all."""
    if len(got) != len(expected):
        return None
    places: dict[str, list[int]] = defaultdict(list)
    for j, result in enumerate(expected):
        places[result_key(game, result)].append(j)
    keys = [result_key(game, r) for r in got]
    if sorted(keys) != sorted(k for k, js in places.items() for _ in js):
        return None
    mapping = []
    for i, key in enumerate(keys):
        js = places[key]
        mapping.append(i if i in js else js[0])
        js.remove(mapping[-1])
    return None if mapping == list(range(len(got))) else mapping


def order_failure(
    game: str, stake: int, tickets: Sequence[str], mapping: list[int]
) -> CheckFailure:
    """The one finding a reordered batch makes: which ticket's result came where."""
    moved = [(i, j) for i, j in enumerate(mapping) if i != j]
    first = moved[0][0]
    low = max(0, first - 2)
    shown = list(tickets[low : low + SHOWN])
    evidence = OrderEvidence(
        game=game,
        stake_cents=stake,
        tickets=tuple(shown),
        expected="result i is ticket i's",
        got={"result_of_ticket": mapping[low : low + SHOWN], "first_moved": first - low},
        note=(
            f"{len(moved)} of {len(tickets)} results are right but at another ticket's place: "
            f"result {first} is ticket {mapping[first]}'s"
        ),
        requirements=(ORDER,),
    )
    return CheckFailure(
        f"the batch's results are not in request order: {evidence.note}",
        [evidence],
        requirements=(ORDER,),
    )


def raise_if_reordered(
    game: str, stake: int, tickets: Sequence[str], got: Sequence[Mapping[str, Any]]
) -> None:
    """Raise the order finding when ``got`` holds the reference's results of ``tickets`` at
    other places: checks that compare answers among themselves (metamorphic relations, a
    ticket beside an invalid one) call it before reporting what they found."""
    mapping = permuted(game, [expected_result(game, stake, t) for t in tickets], got)
    if mapping is not None:
        raise order_failure(game, stake, tickets, mapping)


@dataclass(frozen=True)
class OrderEvidence(BatchEvidence):
    """Right results at other tickets' places (kind ``evaluate_order``)."""

    KIND: ClassVar[str] = "evaluate_order"

    @classmethod
    def replay(cls, adapter: Any, case: Mapping[str, Any]) -> Counterexample | None:
        """The tickets again, in one batch: each result in its ticket's place."""
        require(case, "game", "stake_cents", "tickets")
        game, stake, tickets = case["game"], case["stake_cents"], list(case["tickets"])
        got = check_shape(adapter.evaluate(game, stake, tickets), tickets)
        mapping = permuted(game, [expected_result(game, stake, t) for t in tickets], got)
        return None if mapping is None else order_failure(game, stake, tickets, mapping).evidence[0]


register_kind(OrderEvidence)
