"""Robots' metamorphic relations (its kit's ``relations``): the buttons of a ticket in another
order (robots 4.4, R-I5), the robots in another order (4.2, R-I1)."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from .._lazy import suite_strategies
from ._relations import Relation

if TYPE_CHECKING:
    from ..games import _robots_strategies as RS
else:  # imported on first use (conformance._lazy): it imports hypothesis
    RS = suite_strategies("conformance.games._robots_strategies")


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


RELATIONS = (
    Relation(
        "robots.4.4.button_order",
        "robots",
        shuffle_buttons,
        lambda: RS.robots_tickets(),
        check="robots_button_order",
        doc="The buttons of a ticket in another order: same prize, same wins (robots 4.4, R-I5).",
    ),
    Relation(
        "robots.4.2.robot_order",
        "robots",
        shuffle_robots,
        lambda: RS.robots_tickets(),
        check="robots_robot_order",
        doc="The robots in another order: same prize, each win at its symbol's new robot (R-I1).",
        keys_of=lambda ticket, transformed, seed: robots_order_keys(ticket, transformed),
    ),
)
