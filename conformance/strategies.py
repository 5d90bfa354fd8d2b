"""Every hypothesis strategy of the suite, and the deterministic ticket builders beside them.

The strategies aim at the edges where implementations go wrong (rules.md, article 4):
robots gauges one notch short, exactly full, pushed past full by an X2, filled through +1
chains, several full at once, in every robot order; eldorado rows of 3, 4 and 5 of a kind,
adjacent or not, EXTRA beside winning rows, Extra grids inside Extra grids, every stake;
and invalid tickets of every kind. Choices are laid out so that hypothesis shrinks towards
simple tickets: robots in table order, no X2, no +1, losing rows, a single grid.

Numbers (gauge sizes, letters, grid shape) come from the reference's rules data, never from
literals here. The strategies are tested in ``tests/conformance/test_strategies.py``.
"""

from __future__ import annotations

import functools
import itertools
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from hypothesis import strategies as st

import reference

from . import _hypothesis  # noqa: F401  (draws depend on the seed alone: see the module)
from ._invalid_catalogue import ELDORADO_INVALID_KINDS as ELDORADO_INVALID_KINDS
from ._invalid_catalogue import INVALID_EXAMPLES as INVALID_EXAMPLES
from ._invalid_catalogue import ROBOTS_INVALID_KINDS as ROBOTS_INVALID_KINDS

_ROBOTS = reference.robots_rules()
_ELDORADO = reference.eldorado_rules()

ROBOT_LETTERS: str = "".join(s.letter for s in _ROBOTS.symbols)
NOTCHES: dict[str, int] = {s.letter: s.gauge_notches for s in _ROBOTS.symbols}
ROBOT_AMOUNTS: dict[str, int] = {s.letter: s.amount_cents for s in _ROBOTS.symbols}
BUTTONS: int = _ROBOTS.buttons
PAYING: str = "".join(s.letter for s in _ELDORADO.symbols if s.paying)
EXTRA: str = _ELDORADO.extra_letter
ELDORADO_LETTERS: str = PAYING + EXTRA
ROWS: int = _ELDORADO.rows
CELLS: int = _ELDORADO.cells
STAKES: dict[str, tuple[int, ...]] = {
    "robots": _ROBOTS.stakes_cents,
    "eldorado": _ELDORADO.stakes_cents,
}

# gauge levels, relative to a gauge's size n (the edges of articles 4.8 and R-I3)
LEVELS: tuple[str, ...] = ("below", "short", "full", "past1", "past2")

T = TypeVar("T")


# --------------------------------------------------------------------------------------------
# robots: deterministic builders
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SymbolReveal:
    """One reveal of a symbol: its X2 mark (4.6) and whether it follows a +1 (4.7)."""

    x2: bool = False
    after_plus: bool = False


def _filler(symbol: str, needed: int) -> list[str]:
    """``needed`` plain reveals of symbols other than ``symbol``, every gauge left below full.

    Each other gauge is first filled to two notches short, then to one short, so a filler
    gauge sits as far from its edge as the 18 buttons allow.
    """
    others = [s for s in ROBOT_LETTERS if s != symbol]
    counts = dict.fromkeys(others, 0)
    for margin in (2, 1):
        for letter in sorted(others, key=lambda s: -NOTCHES[s]):
            while needed > 0 and counts[letter] < NOTCHES[letter] - margin:
                counts[letter] += 1
                needed -= 1
    if needed:
        raise ValueError(f"no room to fill {needed} more buttons below full beside {symbol!r}")
    return [letter for letter in others for _ in range(counts[letter])]


def robots_isolated_ticket(
    symbol: str, reveals: Sequence[SymbolReveal], robots: str = ROBOT_LETTERS
) -> str:
    """A ticket in which only ``symbol``'s gauge can be full: its reveals as given, laid out
    one button each (a reveal ``after_plus`` is chained behind the reveal before it, or behind
    a filler reveal); every other button reveals filler that keeps its gauge below full, with
    no X2 and no +1.
    """
    placeholder = ""
    buttons: list[list[str]] = []
    for reveal in reveals:
        text = symbol + ("2" if reveal.x2 else "")
        if reveal.after_plus:
            if not buttons:
                buttons.append([placeholder])  # a filler reveal shows the +1 first
            buttons[-1].append(text)
        else:
            buttons.append([text])
    if len(buttons) > BUTTONS:
        raise ValueError(f"{len(buttons)} buttons needed for {len(reveals)} reveals of {symbol!r}")
    holes = sum(1 for b in buttons if b[0] == placeholder)
    filler = _filler(symbol, BUTTONS - len(buttons) + holes)
    for button in buttons:
        if button[0] == placeholder:
            button[0] = filler.pop()
    buttons += [[letter] for letter in filler]
    return robots + "|" + " ".join("+".join(b) for b in buttons)


def robots_ticket(robots: str, buttons: Sequence[Sequence[str]]) -> str:
    """The notation of a robots ticket from its robots and its buttons' reveals ("D", "D2")."""
    return robots + "|" + " ".join("+".join(b) for b in buttons)


def robots_all_full_body() -> list[list[str]]:
    """Buttons in which every gauge is exactly full (31 reveals: 13 of them after a +1)."""
    reveals = [s for s in ROBOT_LETTERS for _ in range(NOTCHES[s])]
    buttons = [[r] for r in reveals[:BUTTONS]]
    for k, extra in enumerate(reveals[BUTTONS:]):
        buttons[k % BUTTONS].append(extra)
    return buttons


# --------------------------------------------------------------------------------------------
# robots: strategies
# --------------------------------------------------------------------------------------------


ORDERS: tuple[str, ...] = tuple("".join(p) for p in itertools.permutations(ROBOT_LETTERS))
_ORDER_STRATEGY = st.sampled_from(ORDERS)


def robot_orders() -> st.SearchStrategy[str]:
    """Every order of the 8 robots (R-I1), one draw each; shrinks towards the table order."""
    return _ORDER_STRATEGY


@functools.cache
def _integers(low: int, high: int) -> st.SearchStrategy[int]:
    """``st.integers(low, high)``, one object per range: a strategy is validated the first
    time it is drawn from, so strategies made per draw pay that per draw."""
    return st.integers(low, high)


def _pick(draw: st.DrawFn, options: Sequence[T]) -> T:
    """One of ``options`` (a list built per example), drawn as ``st.sampled_from`` draws it
    (one index, shrinking towards the first) without building a strategy per draw."""
    return options[draw(_integers(0, len(options) - 1))]


@functools.cache
def _levels_of(letter: str, levels: tuple[str, ...]) -> st.SearchStrategy[str] | None:
    """The levels a gauge of ``letter`` can be drawn at (below needs a gauge of 2 or more)."""
    allowed = [lv for lv in levels if not (lv == "below" and NOTCHES[letter] < 2)]
    return st.sampled_from(allowed) if allowed else None


def _draw_gauge(draw: st.DrawFn, letter: str, levels: tuple[str, ...], x2: bool) -> list[str]:
    """The reveals of one symbol: a level (edge) of its gauge, then how X2s make it up."""
    n = NOTCHES[letter]
    allowed = _levels_of(letter, levels)
    level = draw(allowed) if allowed is not None else "short"
    if level == "below":
        gauge = draw(_integers(0, n - 2))
    else:
        gauge = {"short": n - 1, "full": n, "past1": n + 1, "past2": n + 2}[level]
    doubles = draw(_integers(0, gauge // 2)) if x2 and gauge >= 2 else 0
    return [letter + "2"] * doubles + [letter] * (gauge - 2 * doubles)


def layout_buttons(reveals: Sequence[str], seed: int) -> list[list[str]]:
    """Lay ``reveals`` out on the 18 buttons; those beyond 18 follow a +1 (R-I4).

    Seed 0 keeps the given order and chains the surplus behind the first buttons; any other
    seed shuffles the reveals and spreads the +1 over random buttons (chains included).
    """
    flat = list(reveals)
    joins = len(flat) - BUTTONS
    gaps = [True] * joins + [False] * (len(flat) - 1 - joins)
    if seed:
        shuffle = random.Random(seed)
        shuffle.shuffle(flat)
        shuffle.shuffle(gaps)
    buttons: list[list[str]] = [[flat[0]]]
    for reveal, join in zip(flat[1:], gaps, strict=True):
        if join:
            buttons[-1].append(reveal)
        else:
            buttons.append([reveal])
    return buttons


@st.composite
def robots_tickets(
    draw: st.DrawFn,
    *,
    levels: Sequence[str] = LEVELS,
    x2: bool = True,
    plus_one: bool = True,
    robots: st.SearchStrategy[str] | None = None,
    min_full: int = 0,
) -> str:
    """Valid robots tickets aimed at the edges of articles 4.5-4.10 and R-I3/R-I4.

    Each gauge is drawn at a level (``LEVELS``: below, one notch short, exactly full, one or
    two past full) and made of plain and X2 reveals; reveals beyond the 18 buttons ride on
    +1 chains (R-I4: a reveal after a +1 may carry X2 and another +1). Too few reveals are
    topped up below full. ``min_full`` asks for at least that many full gauges (article 4.9).
    Without ``plus_one``, gauges are trimmed so that the reveals fit the 18 buttons.
    """
    order = draw(robots if robots is not None else robot_orders())
    levels = tuple(levels)
    reveals: dict[str, list[str]] = {}
    for letter in ROBOT_LETTERS:
        reveals[letter] = _draw_gauge(draw, letter, levels, x2)
    if min_full:
        forced = draw(_full_sets(min_full))
        for letter in forced:
            if _gauge_of(reveals[letter]) < NOTCHES[letter]:
                reveals[letter] = [letter] * NOTCHES[letter]
    total = sum(map(len, reveals.values()))
    if total < BUTTONS:  # top up gauges, keeping them below full
        for letter, more in zip(
            ROBOT_LETTERS, _filler_counts(reveals, BUTTONS - total), strict=True
        ):
            reveals[letter] += [letter] * more
    flat = [r for letter in ROBOT_LETTERS for r in reveals[letter]]
    if not plus_one and len(flat) > BUTTONS:
        flat = _trim(reveals, len(flat) - BUTTONS)
    seed = draw(_integers(0, 2**32 - 1))
    return robots_ticket(order, layout_buttons(flat, seed))


_FULL_SETS: dict[int, list[str]] = {
    k: ["".join(c) for c in itertools.combinations(ROBOT_LETTERS, k)]
    for k in range(1, len(ROBOT_LETTERS) + 1)
}


@functools.cache
def _full_sets(k: int) -> st.SearchStrategy[str]:
    return st.sampled_from(_FULL_SETS[k])


@functools.cache
def robots_tickets_min_full(k: int) -> st.SearchStrategy[str]:
    """``robots_tickets(min_full=k)``, built once per ``k`` (for ``st.integers().flatmap``,
    which would otherwise build, and validate, a new strategy per draw)."""
    return robots_tickets(min_full=k)


def _gauge_of(reveals: Sequence[str]) -> int:
    return sum(2 if r.endswith("2") else 1 for r in reveals)


def _filler_counts(reveals: dict[str, list[str]], needed: int) -> list[int]:
    """Plain reveals to add to each symbol so that ``needed`` more fit, gauges not crossing
    from below full to full (a symbol already full or past may take the rest)."""
    more = dict.fromkeys(ROBOT_LETTERS, 0)
    for letter in sorted(ROBOT_LETTERS, key=lambda s: -NOTCHES[s]):
        room = NOTCHES[letter] - 1 - _gauge_of(reveals[letter])
        take = max(0, min(room, needed))
        more[letter] += take
        needed -= take
    if needed:  # every gauge is one short or more: a full one takes the rest
        full = [s for s in ROBOT_LETTERS if _gauge_of(reveals[s]) >= NOTCHES[s]] or ["S"]
        more[full[0]] += needed
    return [more[s] for s in ROBOT_LETTERS]


def _trim(reveals: dict[str, list[str]], surplus: int) -> list[str]:
    """Drop ``surplus`` reveals, from the gauges furthest past full first, then the largest."""
    pool = {s: list(r) for s, r in reveals.items()}
    while surplus:
        letter = max(ROBOT_LETTERS, key=lambda s: (_gauge_of(pool[s]) - NOTCHES[s], len(pool[s])))
        pool[letter].pop()
        surplus -= 1
    return [r for s in ROBOT_LETTERS for r in pool[s]]


def robots_buttons(ticket: str) -> list[str]:
    """The 18 buttons of a robots ticket, as written."""
    return ticket.split("|", 1)[1].split(" ")


def robots_click_orders(reveals_per_button: Sequence[int]) -> st.SearchStrategy[list[int]]:
    """Orders in which a player may click every reveal of a unit (robots 4.4, R-I5): each
    button appears as often as it has reveals; shrinks towards button order."""
    clicks = [b for b, count in enumerate(reveals_per_button) for _ in range(count)]
    return st.permutations(clicks)


def robots_partial_click_orders(
    reveals_per_button: Sequence[int],
) -> st.SearchStrategy[tuple[list[int], int]]:
    """A click order and the number of clicks made before switching to AUTO (robots 4.4)."""
    total = sum(reveals_per_button)
    return st.tuples(robots_click_orders(reveals_per_button), st.integers(0, total))


# --------------------------------------------------------------------------------------------
# eldorado: builders and strategies
# --------------------------------------------------------------------------------------------

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


def stakes(game: str) -> st.SearchStrategy[int]:
    return st.sampled_from(STAKES[game])


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


# --------------------------------------------------------------------------------------------
# invalid tickets: (kind, ticket), every kind a rule of the notation (contract 1) breaks
# --------------------------------------------------------------------------------------------

_NOT_ROBOT = "ABEFGIJKLMNRUVWXYZdqtcsphox0"
_NOT_ELDORADO = "ACDEFGHIJKLMNOQRTUWZysvbpx0"

# built once, not per draw (see ``_integers``)
_NOT_ROBOT_STRATEGY = st.sampled_from(_NOT_ROBOT)
_NOT_ELDORADO_STRATEGY = st.sampled_from(_NOT_ELDORADO)
_TWO_ROBOTS = st.lists(st.integers(0, 7), min_size=2, max_size=2, unique=True)
_SURPLUS_BUTTONS = st.lists(st.sampled_from(ROBOT_LETTERS), min_size=1, max_size=3)
_BOOLEANS = st.booleans()


@functools.cache
def _plain_robots_tickets() -> st.SearchStrategy[str]:
    return robots_tickets()


@functools.cache
def _small_eldorado_tickets() -> st.SearchStrategy[str]:
    return eldorado_tickets(max_grids=4)


@functools.cache
def _kinds_of(kinds: tuple[str, ...]) -> st.SearchStrategy[str]:
    return st.sampled_from(kinds)


@st.composite
def robots_invalid_tickets(
    draw: st.DrawFn, kinds: Sequence[str] = tuple(ROBOTS_INVALID_KINDS)
) -> tuple[str, str]:
    """An invalid robots ticket and its kind (a key of ``ROBOTS_INVALID_KINDS``), made by
    breaking one rule of a valid ticket."""
    kind = draw(_kinds_of(tuple(kinds)))
    ticket = draw(_plain_robots_tickets())
    robots, body = ticket.split("|", 1)
    buttons = body.split(" ")
    if kind == "robots_count":
        robots = _pick(draw, [robots[:-1], robots + robots[0], robots[:4], ""])
    elif kind == "robot_twice":
        i, j = draw(_TWO_ROBOTS)
        robots = robots[:j] + robots[i] + robots[j + 1 :]
    elif kind == "robot_symbol":
        i = draw(_integers(0, 7))
        robots = robots[:i] + draw(_NOT_ROBOT_STRATEGY) + robots[i + 1 :]
    elif kind == "button_count":
        if draw(_BOOLEANS):
            buttons = buttons[: draw(_integers(1, BUTTONS - 1))]
        else:
            buttons = buttons + draw(_SURPLUS_BUTTONS)
    elif kind == "empty_button":
        i = draw(_integers(0, BUTTONS - 1))
        buttons[i] = ""
    elif kind == "reveal_symbol":
        i = draw(_integers(0, BUTTONS - 1))
        buttons[i] = draw(_NOT_ROBOT_STRATEGY) + buttons[i][1:]
    elif kind == "mark":
        i = draw(_integers(0, BUTTONS - 1))
        buttons[i] = (
            buttons[i][0]
            + _pick(draw, ["3", "22", "x2", "X2", "1", "2X"])
            + (buttons[i][2:] if buttons[i][1:2] == "2" else buttons[i][1:])
        )
    elif kind == "dangling_plus":
        i = draw(_integers(0, BUTTONS - 1))
        buttons[i] = _pick(draw, ["{}+", "+{}", "{}++" + ROBOT_LETTERS[0]]).format(buttons[i])
    elif kind == "separator":
        return kind, _pick(
            draw,
            [
                robots + body,  # no '|'
                robots + "||" + body,
                robots + "|" + body.replace(" ", ",", 1),
                robots + "|" + body.replace(" ", "  ", 1),
                robots + "|" + body + " ",
                " " + robots + "|" + body,
                robots + " |" + body,
            ],
        )
    else:  # characters
        return kind, _pick(
            draw,
            [
                "",
                ticket.lower(),
                ticket + "\n",
                ticket.replace(ticket[0], "É", 1),
                ticket[:12] + "\x00" + ticket[12:],
            ],
        )
    return kind, robots + "|" + " ".join(buttons)


def _ungranted_grids(draw: st.DrawFn) -> list[list[str]]:
    """2 to 5 losing grids holding one EXTRA fewer than grids, the right count, of which grid
    ``late`` (1 or later) is the first that the EXTRA of the grids before it do not grant: they
    hold ``late - 1``, and grid ``late`` and those after it hold the rest (an EXTRA grants the
    next grid, never its own). ``late`` 1 is a main grid without EXTRA; a later one is what an
    implementation that checks only the main grid, or only the count, lets through."""
    count = draw(_integers(2, 5))
    late = draw(_integers(1, count - 1))
    places = [draw(_integers(0, late - 1)) for _ in range(late - 1)]
    places += [draw(_integers(late, count - 1)) for _ in range(count - late)]
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
    kind = draw(_kinds_of(tuple(kinds)))
    ticket = draw(_small_eldorado_tickets())
    grids = [g.split("/") for g in ticket.split("|")]
    g = draw(_integers(0, len(grids) - 1))
    r = draw(_integers(0, ROWS - 1))
    if kind == "row_cells":
        row = grids[g][r]
        grids[g][r] = _pick(draw, [row[:-1], row + row[0], row[:1], ""])
    elif kind == "grid_rows":
        grids[g] = _pick(draw, [grids[g][:-1], [*grids[g], LOSING_ROWS[0]]])
    elif kind == "symbol":
        c = draw(_integers(0, CELLS - 1))
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
        return kind, _pick(
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
        return kind, _pick(draw, ["", ticket.lower(), ticket + "\n", "\u00c9" + ticket[1:]])
    return kind, eldorado_ticket(grids)


def invalid_tickets_of(game: str, kind: str) -> st.SearchStrategy[str]:
    """Invalid tickets of ``game`` of one ``kind`` only (the game's kit, ``conformance.games``)."""
    from .games import kit

    return kit(game).invalid_tickets_of(kind)


def invalid_tickets(game: str) -> st.SearchStrategy[tuple[str, str]]:
    """Invalid tickets of ``game``, with their kind."""
    from .games import kit

    found = kit(game)
    return found.invalid_tickets(tuple(found.invalid_kinds))


def valid_tickets(game: str) -> st.SearchStrategy[str]:
    """Valid tickets of ``game``, aimed at the edges."""
    from .games import kit

    return kit(game).valid_tickets()
