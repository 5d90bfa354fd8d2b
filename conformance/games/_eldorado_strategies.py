"""Eldorado's hypothesis strategies, and the deterministic ticket builders beside them.

The strategies aim at the edges where implementations go wrong (rules.md, article 4): rows of
3, 4 and 5 of a kind, adjacent or not, EXTRA beside winning rows, Extra grids inside Extra
grids, every stake; and invalid tickets of every kind. Choices are laid out so that hypothesis
shrinks towards simple tickets: losing rows, a single grid.

Numbers (grid shape, letters) come from the reference's rules data, never from literals here.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence

from hypothesis import strategies as st

import reference
import reference.eldorado

from ..strategies import integers_between, kinds_of, pick
from ._eldorado_invalid import ELDORADO_INVALID_KINDS

_ELDORADO = reference.eldorado.eldorado_rules()


PAYING: str = "".join(s.letter for s in _ELDORADO.symbols if s.paying)


EXTRA: str = _ELDORADO.extra_letter


ELDORADO_LETTERS: str = PAYING + EXTRA


ROWS: int = _ELDORADO.rows


CELLS: int = _ELDORADO.cells


LOSING_ROWS: tuple[str, ...] = ("YSVBP", "SVBPY", "VBPYS")  # no symbol twice, no EXTRA


def eldorado_ticket(grids: Sequence[Sequence[str]]) -> str:
    return "|".join("/".join(rows) for rows in grids)


def eldorado_row_ticket(row: str, position: int = 0) -> str:
    """A ticket whose only possible win is ``row``, at ``position`` of the main grid; each
    EXTRA in the row is granted its Extra grid, losing and X-free."""
    rows = [LOSING_ROWS[(position + k) % ROWS] for k in range(ROWS)]
    rows[position] = row
    extra = [LOSING_ROWS] * row.count(EXTRA)
    return eldorado_ticket([rows, *extra])


def eldorado_extra_ticket(row: str, position: int, depth: int) -> str:
    """A ticket with ``row`` at ``position`` of an Extra grid ``depth`` levels deep (1: granted
    by the main grid, 2: granted by the first Extra grid, ...), every other row losing."""
    granting = EXTRA + LOSING_ROWS[0][1:]
    grids = [[granting, *LOSING_ROWS[1:]] for _ in range(depth)]
    rows = list(LOSING_ROWS)
    rows[position] = row
    grids.append(rows)
    grids += [list(LOSING_ROWS)] * row.count(EXTRA)
    return eldorado_ticket(grids)


def row_kind(row: str) -> str:
    """The edge a row sits on (article 4.4, E-I1..E-I3): the kinds of ``ROW_KINDS``."""
    counts = sorted(((row.count(c), c) for c in PAYING), reverse=True)
    top, symbol = counts[0]
    extras = row.count(EXTRA)
    if extras >= 3:
        return "extras"  # E-I3: 3 to 5 EXTRA, among them rows of 4 and 5 EXTRA that pay nothing
    if top == 5:
        return "five"
    if top == 4:
        if extras:
            return "four_extra"  # EXTRA beside a winning combination
        run = symbol * 4
        return "four_adjacent" if run in row else "four_apart"  # E-I1
    if top == 3:
        return "three"
    return "mixed"


ROW_KINDS: tuple[str, ...] = (
    "mixed",
    "three",
    "four_adjacent",
    "four_apart",
    "five",
    "four_extra",
    "extras",
)


@functools.cache
def _rows_by_kind() -> dict[tuple[str, int], tuple[str, ...]]:
    """Every row of each kind with at most ``k`` EXTRA; losing, X-free rows first, so that
    hypothesis shrinks towards them."""
    rows = ["".join(cells) for cells in itertools.product(ELDORADO_LETTERS, repeat=CELLS)]
    table: dict[tuple[str, int], tuple[str, ...]] = {}
    for kind in ROW_KINDS:
        of_kind = [r for r in rows if row_kind(r) == kind]
        for budget in range(CELLS + 1):
            kept = [r for r in of_kind if r.count(EXTRA) <= budget]
            kept.sort(key=lambda r: (r.count(EXTRA), r not in LOSING_ROWS))
            table[kind, budget] = tuple(kept)
    return table


@functools.cache
def _row_table(max_extra: int, kinds: tuple[str, ...]) -> tuple[tuple[tuple[str, ...], ...], int]:
    """The rows of each of ``kinds`` with at most ``max_extra`` EXTRA (kinds with none
    dropped), and the width of the widest: built on first use (all 6^5 rows sorted by kind),
    so a command that runs no eldorado rules check, such as ``audit-block``, does not pay."""
    table = _rows_by_kind()
    usable = tuple(table[k, max_extra] for k in kinds if table[k, max_extra])
    return usable, max(len(rows) for rows in usable)


@functools.cache
def _row_index(max_extra: int, kinds: tuple[str, ...]) -> st.SearchStrategy[int]:
    usable, width = _row_table(max_extra, kinds)
    return st.integers(0, len(usable) * width - 1)


def _draw_row(draw: st.DrawFn, max_extra: int, kinds: tuple[str, ...]) -> str:
    """A kind, then a row of that kind, as one draw of an index into the table of rows by kind:
    each kind takes ``width`` consecutive indices (kinds equally likely, the rows of a kind as
    good as equally likely), so the index shrinks as (kind, row) would, towards the first kind
    and its first row (a losing row). One draw from a strategy built once: hypothesis spends
    far more per draw, and on a strategy made per draw, than on the rest of a ticket."""
    usable, width = _row_table(max_extra, kinds)
    i = draw(_row_index(max_extra, kinds))
    rows = usable[i // width]
    return rows[(i % width) * len(rows) // width]


@st.composite
def eldorado_rows(draw: st.DrawFn, max_extra: int = CELLS, kinds: Sequence[str] = ROW_KINDS) -> str:
    """A row of 5 cells aimed at article 4.4 and E-I1..E-I3: 3, 4 or 5 of a kind placed
    adjacent or apart, EXTRA beside a winning combination, rows of 3 to 5 EXTRA. ``max_extra``
    bounds the EXTRA in the row (the ticket's grid budget). Shrinks towards a losing row."""
    return _draw_row(draw, max_extra, tuple(kinds))


@st.composite
def eldorado_tickets(draw: st.DrawFn, max_grids: int = 6, kinds: Sequence[str] = ROW_KINDS) -> str:
    """Valid eldorado tickets: rows from ``eldorado_rows``; every EXTRA grants an Extra grid,
    itself drawn the same way, so Extra grids hold EXTRA of their own (E-I4), up to
    ``max_grids`` grids in all."""
    kinds = tuple(kinds)
    grids: list[list[str]] = []
    pending = 1
    extras = 0
    while pending:
        rows = []
        for _ in range(ROWS):
            budget = min(CELLS, max_grids - 1 - extras)
            row = _draw_row(draw, budget, kinds)
            extras += row.count(EXTRA)
            pending += row.count(EXTRA)
            rows.append(row)
        grids.append(rows)
        pending -= 1
    return eldorado_ticket(grids)


_NOT_ELDORADO = "ACDEFGHIJKLMNOQRTUWZysvbpx0"


_NOT_ELDORADO_STRATEGY = st.sampled_from(_NOT_ELDORADO)


@functools.cache
def _small_eldorado_tickets() -> st.SearchStrategy[str]:
    return eldorado_tickets(max_grids=4)


def _ungranted_grids(draw: st.DrawFn) -> list[list[str]]:
    """2 to 5 losing grids holding one EXTRA fewer than grids, the right count, of which grid
    ``late`` (1 or later) is the first that the EXTRA of the grids before it do not grant: they
    hold ``late - 1``, and grid ``late`` and those after it hold the rest (an EXTRA grants the
    next grid, never its own). ``late`` 1 is a main grid without EXTRA; a later one is what an
    implementation that checks only the main grid, or only the count, lets through."""
    count = draw(integers_between(2, 5))
    late = draw(integers_between(1, count - 1))
    places = [draw(integers_between(0, late - 1)) for _ in range(late - 1)]
    places += [draw(integers_between(late, count - 1)) for _ in range(count - late)]
    grids = [list(LOSING_ROWS) for _ in range(count)]
    held = [0] * count  # EXTRA placed in each grid so far: at most 4, one cell each
    for at in places:
        r, c = held[at] % ROWS, held[at] // ROWS
        grids[at][r] = grids[at][r][:c] + EXTRA + grids[at][r][c + 1 :]
        held[at] += 1
    return grids


@st.composite
def eldorado_invalid_tickets(
    draw: st.DrawFn, kinds: Sequence[str] = tuple(ELDORADO_INVALID_KINDS)
) -> tuple[str, str]:
    """An invalid eldorado ticket and its kind (a key of ``ELDORADO_INVALID_KINDS``)."""
    kind = draw(kinds_of(tuple(kinds)))
    ticket = draw(_small_eldorado_tickets())
    grids = [g.split("/") for g in ticket.split("|")]
    g = draw(integers_between(0, len(grids) - 1))
    r = draw(integers_between(0, ROWS - 1))
    if kind == "row_cells":
        row = grids[g][r]
        grids[g][r] = pick(draw, [row[:-1], row + row[0], row[:1], ""])
    elif kind == "grid_rows":
        grids[g] = pick(draw, [grids[g][:-1], [*grids[g], LOSING_ROWS[0]]])
    elif kind == "symbol":
        c = draw(integers_between(0, CELLS - 1))
        row = grids[g][r]
        grids[g][r] = row[:c] + draw(_NOT_ELDORADO_STRATEGY) + row[c + 1 :]
    elif kind == "missing_extra_grid":  # an EXTRA whose grid is not there
        if ticket.count(EXTRA):
            grids = grids[:-1]
        else:
            grids[0][r] = EXTRA + grids[0][r][1:]
    elif kind == "surplus_grid":  # a grid no EXTRA granted
        grids.append(list(LOSING_ROWS))
    elif kind == "ungranted_grid":  # enough EXTRA, but one arrives after the grid it grants
        grids = _ungranted_grids(draw)
    elif kind == "separator":
        text = eldorado_ticket(grids)
        return kind, pick(
            draw,
            [
                text.replace("/", "", 1),
                text.replace("/", "|", 1),
                text + "|",
                "|" + text,
                text.replace("/", "//", 1),
                text.replace("/", " ", 1),
                text + " ",
            ],
        )
    else:  # characters
        return kind, pick(draw, ["", ticket.lower(), ticket + "\n", "\u00c9" + ticket[1:]])
    return kind, eldorado_ticket(grids)
