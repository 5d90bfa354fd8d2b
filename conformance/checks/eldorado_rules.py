"""Eldorado, article 4 and E-I1..E-I6, by evaluation: every check is differential.

All 6^5 rows are swept at every stake, each alone in a ticket (the other rows losing and
X-free, each of its EXTRA granted a losing Extra grid); every winning combination is moved into
Extra grids one, two and three levels deep; a hypothesis search aims at whole tickets (rows of
3/4/5 of a kind adjacent or apart, EXTRA beside wins, Extra grids inside Extra grids). Each
disagreement shown is diagnosed (``_classify.EldoradoDiagnosis``) down to the rule it breaks.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

from .._drawing import Recipe
from .._lazy import suite_strategies
from .._registry import CheckContext, check
from ._differential import compare_all, fail_with, search
from ._eldorado_classify import ELDORADO_GENERAL, EldoradoDiagnosis

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

    from ..games import _eldorado_strategies as S
else:  # imported on first use (conformance._lazy): it imports hypothesis
    S = suite_strategies("conformance.games._eldorado_strategies")


def edge_tickets() -> SearchStrategy[str]:
    """Whole tickets at the edges of the rules (``strategies.eldorado_tickets``)."""
    return S.eldorado_tickets()


ELDORADO_RULES: tuple[str, ...] = (
    ELDORADO_GENERAL,
    "eldorado.4.1.rows",
    "eldorado.4.3.every_cell",
    "eldorado.4.4.four_or_five",
    "eldorado.4.4.not_adjacent",
    "eldorado.4.4.five_pays_once",
    "eldorado.4.4.paytable",
    "eldorado.4.4.combinations_add",
    "eldorado.4.5.extra_pays_nothing",
    "eldorado.4.5.extra_stage",
    "eldorado.4.5.extra_in_extra",
    "eldorado.4.5.extra_same_stake",
    "eldorado.4.6.one_lot",
    "eldorado.4.7.losing",
)

EXTRA_DEPTHS = (1, 2, 3, 6, 9, 15)
"""How deep an Extra grid is: 1 to 3, and past the 6 grids a hand-made table or a fixed array
of Extra stages would stop at (E-I4 sets no bound: a unit has 1 + its EXTRA grids)."""


def all_row_tickets() -> list[str]:
    """Every row of 5 cells over the 6 letters, alone in a ticket, at row (index mod 3)."""
    rows = ("".join(c) for c in itertools.product(S.ELDORADO_LETTERS, repeat=S.CELLS))
    return [S.eldorado_row_ticket(row, n % S.ROWS) for n, row in enumerate(rows)]


def winning_rows() -> list[str]:
    """One row of each combination of the paytable, adjacent and apart, and with an EXTRA."""
    rows = []
    for symbol in S.PAYING:
        other = next(c for c in S.PAYING if c != symbol)
        rows += [symbol * 5, symbol * 4 + other, symbol + other + symbol * 3, symbol * 4 + S.EXTRA]
    return rows


def extra_stage_tickets() -> list[str]:
    """Every winning row in an Extra grid 1, 2 and 3 levels deep, at every row position; and
    main grids whose every row wins beside Extra grids that win too (gains add up)."""
    tickets = [
        S.eldorado_extra_ticket(row, position, depth)
        for row in winning_rows()
        for position in range(S.ROWS)
        for depth in EXTRA_DEPTHS
    ]
    wins = winning_rows()
    for k, row in enumerate(wins):
        main = [row, wins[(k + 4) % len(wins)], S.EXTRA + S.LOSING_ROWS[0][1:]]
        extra = [wins[(k + 8) % len(wins)], wins[(k + 12) % len(wins)], S.LOSING_ROWS[2]]
        grids = [main, extra]
        grids += [list(S.LOSING_ROWS)] * sum(r.count(S.EXTRA) for r in main[:2] + extra)
        tickets.append(S.eldorado_ticket(grids))
    tickets += wide_extra_tickets(wins)
    return tickets


def wide_extra_tickets(wins: list[str]) -> list[str]:
    """A main grid of 15 EXTRA (16 grids), each Extra grid winning on one row; and a main grid
    of 6 EXTRA whose last Extra grid alone wins (the 7th grid: past a cap of 6 grids)."""
    plain = [row for row in wins if S.EXTRA not in row]
    losing = list(S.LOSING_ROWS)
    full = [S.EXTRA * S.CELLS] * S.ROWS
    tickets = []
    for k, row in enumerate(plain[:5]):
        extra = [
            [row if r == (k + g) % S.ROWS else losing[r] for r in range(S.ROWS)]
            for g in range(S.CELLS * S.ROWS)
        ]
        tickets.append(S.eldorado_ticket([full, *extra]))
    two = S.EXTRA * 2 + S.LOSING_ROWS[0][2:]
    for row in plain[:5]:
        tickets.append(S.eldorado_ticket([[two, two, two], *[losing] * 5, [row, *losing[1:]]]))
    return tickets


@check("eldorado_rules.all_rows", covers=ELDORADO_RULES, capability="evaluate", games=("eldorado",))
def all_rows(ctx: CheckContext) -> None:
    """Exhaustive: all 6^5 rows at every stake (article 4.4, E-I1, E-I2, E-I3, 4.7)."""
    tickets = all_row_tickets()
    ctx.details["rows"] = len(tickets)
    for stake in ctx.stakes("eldorado"):
        found = compare_all(ctx, "eldorado", stake, tickets, f"eldorado rows at {stake} cents")
        if found:
            found.sort(key=lambda d: (len(d.ticket), d.ticket))
            fail_with(
                f"rows at {stake} cents",
                found,
                EldoradoDiagnosis(),
                ctx.adapter,
                general=ELDORADO_GENERAL,
            )


@check(
    "eldorado_rules.extra_stages", covers=ELDORADO_RULES, capability="evaluate", games=("eldorado",)
)
def extra_stages(ctx: CheckContext) -> None:
    """Every combination in Extra grids 1 to 3 levels deep, at every stake (article 4.5, E-I4,
    E-I6), and wins across grids adding up (4.4, 4.6)."""
    tickets = extra_stage_tickets()
    ctx.details["tickets"] = len(tickets)
    for stake in ctx.stakes("eldorado"):
        found = compare_all(ctx, "eldorado", stake, tickets, f"Extra stages at {stake} cents")
        if found:
            fail_with(
                f"Extra stages at {stake} cents",
                found,
                EldoradoDiagnosis(),
                ctx.adapter,
                general=ELDORADO_GENERAL,
            )


@check(
    "eldorado_rules.differential_edges",
    covers=ELDORADO_RULES,
    capability="evaluate",
    games=("eldorado",),
)
def differential_edges(ctx: CheckContext) -> None:
    """Hypothesis: whole tickets at every stake, rows at the edges of 4.4, EXTRA beside wins,
    Extra grids inside Extra grids; every disagreement shrunk to a minimal ticket."""
    examples = ctx.settings.hypothesis_max_examples
    found = search(ctx, "eldorado", Recipe(edge_tickets), examples=examples)
    ctx.details["examples"] = examples
    if found:
        fail_with(
            "edge tickets",
            found,
            EldoradoDiagnosis(),
            ctx.adapter,
            general=ELDORADO_GENERAL,
        )
