"""Robots' hypothesis strategies, and the deterministic ticket builders beside them.

The strategies aim at the edges where implementations go wrong (rules.md, article 4):
gauges one notch short, exactly full, pushed past full by an X2, filled through +1 chains,
several full at once, in every robot order; and invalid tickets of every kind. Choices are
laid out so that hypothesis shrinks towards simple tickets: robots in table order, no X2, no +1.

Numbers (gauge sizes, letters, grid shape) come from the reference's rules data, never from
literals here. The strategies are tested in ``tests/conformance/test_strategies.py``.
"""

from __future__ import annotations

import functools
import itertools
import random
from collections.abc import Sequence
from dataclasses import dataclass

from hypothesis import strategies as st

import reference
import reference.robots

from ..strategies import BOOLEANS, integers_between, kinds_of, pick
from ._robots_invalid import ROBOTS_INVALID_KINDS

_ROBOTS = reference.robots.robots_rules()

ROBOT_LETTERS: str = "".join(s.letter for s in _ROBOTS.symbols)
NOTCHES: dict[str, int] = {s.letter: s.gauge_notches for s in _ROBOTS.symbols}
ROBOT_AMOUNTS: dict[str, int] = {s.letter: s.amount_cents for s in _ROBOTS.symbols}
BUTTONS: int = _ROBOTS.buttons

# gauge levels, relative to a gauge's size n (the edges of articles 4.8 and R-I3)
LEVELS: tuple[str, ...] = ("below", "short", "full", "past1", "past2")


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
        gauge = draw(integers_between(0, n - 2))
    else:
        gauge = {"short": n - 1, "full": n, "past1": n + 1, "past2": n + 2}[level]
    doubles = draw(integers_between(0, gauge // 2)) if x2 and gauge >= 2 else 0
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
    seed = draw(integers_between(0, 2**32 - 1))
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
# invalid tickets: (kind, ticket), every kind a rule of the notation (contract 1) breaks
# --------------------------------------------------------------------------------------------

_NOT_ROBOT = "ABEFGIJKLMNRUVWXYZdqtcsphox0"

# built once, not per draw (see ``integers_between``)
_NOT_ROBOT_STRATEGY = st.sampled_from(_NOT_ROBOT)
_TWO_ROBOTS = st.lists(st.integers(0, 7), min_size=2, max_size=2, unique=True)
_SURPLUS_BUTTONS = st.lists(st.sampled_from(ROBOT_LETTERS), min_size=1, max_size=3)


@functools.cache
def _plain_robots_tickets() -> st.SearchStrategy[str]:
    return robots_tickets()


@st.composite
def robots_invalid_tickets(
    draw: st.DrawFn, kinds: Sequence[str] = tuple(ROBOTS_INVALID_KINDS)
) -> tuple[str, str]:
    """An invalid robots ticket and its kind (a key of ``ROBOTS_INVALID_KINDS``), made by
    breaking one rule of a valid ticket."""
    kind = draw(kinds_of(tuple(kinds)))
    ticket = draw(_plain_robots_tickets())
    robots, body = ticket.split("|", 1)
    buttons = body.split(" ")
    if kind == "robots_count":
        robots = pick(draw, [robots[:-1], robots + robots[0], robots[:4], ""])
    elif kind == "robot_twice":
        i, j = draw(_TWO_ROBOTS)
        robots = robots[:j] + robots[i] + robots[j + 1 :]
    elif kind == "robot_symbol":
        i = draw(integers_between(0, 7))
        robots = robots[:i] + draw(_NOT_ROBOT_STRATEGY) + robots[i + 1 :]
    elif kind == "button_count":
        if draw(BOOLEANS):
            buttons = buttons[: draw(integers_between(1, BUTTONS - 1))]
        else:
            buttons = buttons + draw(_SURPLUS_BUTTONS)
    elif kind == "empty_button":
        i = draw(integers_between(0, BUTTONS - 1))
        buttons[i] = ""
    elif kind == "reveal_symbol":
        i = draw(integers_between(0, BUTTONS - 1))
        buttons[i] = draw(_NOT_ROBOT_STRATEGY) + buttons[i][1:]
    elif kind == "mark":
        i = draw(integers_between(0, BUTTONS - 1))
        buttons[i] = (
            buttons[i][0]
            + pick(draw, ["3", "22", "x2", "X2", "1", "2X"])
            + (buttons[i][2:] if buttons[i][1:2] == "2" else buttons[i][1:])
        )
    elif kind == "dangling_plus":
        i = draw(integers_between(0, BUTTONS - 1))
        buttons[i] = pick(draw, ["{}+", "+{}", "{}++" + ROBOT_LETTERS[0]]).format(buttons[i])
    elif kind == "separator":
        return kind, pick(
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
        return kind, pick(
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
