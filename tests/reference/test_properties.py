"""Properties of the notation and the evaluator, over tickets aimed at the rules' edges.

The strategies come from the suite (``conformance.strategies`` and each game's own), so the
reference is exercised by exactly the tickets the suite sends to vendors.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TypeVar

from hypothesis import given, settings
from hypothesis import strategies as st

import reference
import reference.eldorado
import reference.robots
from conformance import strategies
from conformance.games import _eldorado_strategies as ES
from conformance.games import _robots_strategies as RS

EXAMPLES = settings(max_examples=200, deadline=None)
T = TypeVar("T")


def _game_and(strategy: Callable[[str], st.SearchStrategy[T]]) -> st.SearchStrategy[tuple[str, T]]:
    return st.sampled_from(reference.GAMES).flatmap(lambda g: strategy(g).map(lambda t: (g, t)))


@EXAMPLES
@given(_game_and(strategies.valid_tickets))
def test_format_of_parse_is_the_ticket(case: tuple[str, str]) -> None:
    game, ticket = case
    assert reference.format_ticket(reference.parse_ticket(game, ticket)) == ticket


@EXAMPLES
@given(RS.robots_tickets())
def test_robots_prize_is_the_sum_of_its_wins(ticket: str) -> None:
    result = reference.evaluate("robots", 100, ticket)
    assert result["prize_cents"] == sum(win["amount_cents"] for win in result["wins"])
    assert len({win["robot"] for win in result["wins"]}) == len(result["wins"])


@EXAMPLES
@given(ES.eldorado_tickets(), st.sampled_from((50, 100, 200)))
def test_eldorado_prize_is_the_sum_of_its_wins(ticket: str, stake: int) -> None:
    result = reference.evaluate("eldorado", stake, ticket)
    assert result["prize_cents"] == sum(win["amount_cents"] for win in result["wins"])
    assert reference.prize_cents("eldorado", stake, ticket) == result["prize_cents"]


@EXAMPLES
@given(RS.robots_tickets(), st.randoms(use_true_random=False))
def test_permuting_robots_or_buttons_never_changes_a_robots_prize(
    ticket: str, rng: random.Random
) -> None:
    parsed = reference.parse_ticket("robots", ticket)
    assert isinstance(parsed, reference.robots.RobotsTicket)
    robots, buttons = list(parsed.robots), list(parsed.buttons)
    rng.shuffle(robots)
    rng.shuffle(buttons)
    shuffled = reference.format_ticket(reference.robots.RobotsTicket(tuple(robots), tuple(buttons)))
    assert reference.prize_cents("robots", 100, shuffled) == reference.prize_cents(
        "robots", 100, ticket
    )


@EXAMPLES
@given(
    ES.eldorado_tickets(),
    st.sampled_from((50, 100, 200)),
    st.randoms(use_true_random=False),
)
def test_swapping_rows_never_changes_an_eldorado_prize(
    ticket: str, stake: int, rng: random.Random
) -> None:
    parsed = reference.parse_ticket("eldorado", ticket)
    assert isinstance(parsed, reference.eldorado.EldoradoTicket)
    grids = []
    for grid in parsed.grids:
        rows = list(grid)
        rng.shuffle(rows)
        grids.append(tuple(rows))
    swapped = reference.format_ticket(reference.eldorado.EldoradoTicket(tuple(grids)))
    assert reference.prize_cents("eldorado", stake, swapped) == reference.prize_cents(
        "eldorado", stake, ticket
    )


@EXAMPLES
@given(
    st.sampled_from(reference.GAMES).flatmap(
        lambda g: strategies.invalid_tickets(g).map(lambda k: (g, k))
    )
)
def test_every_invalid_ticket_is_refused_with_a_message(case: tuple[str, tuple[str, str]]) -> None:
    game, (kind, ticket) = case
    try:
        reference.evaluate(game, 100, ticket)
    except reference.TicketError as error:
        assert str(error), kind
    else:
        raise AssertionError(f"{game} ticket of kind {kind!r} was accepted: {ticket!r}")
