"""Eldorado's metamorphic relations (its kit's ``relations``): the rows of a grid in another
order (eldorado 4.1), the cells of a row in another order (4.4, E-I1)."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from .._lazy import suite_strategies
from ._relations import Relation

if TYPE_CHECKING:
    from ..games import _eldorado_strategies as ES
else:  # imported on first use (conformance._lazy): it imports hypothesis
    ES = suite_strategies("conformance.games._eldorado_strategies")


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


RELATIONS = (
    Relation(
        "eldorado.4.1.row_order",
        "eldorado",
        shuffle_rows,
        lambda: ES.eldorado_tickets(),
        check="eldorado_row_order",
        doc="The rows of each grid in another order: same prize, each win at its row's new place.",
        keys_of=lambda ticket, transformed, seed: row_order_keys(ticket, seed),
    ),
    Relation(
        "eldorado.4.4.cell_order",
        "eldorado",
        shuffle_cells,
        lambda: ES.eldorado_tickets(),
        check="eldorado_cell_order",
        doc="The cells of each row in another order: same prize, same wins (E-I1).",
    ),
)
