"""Counterexamples drawn as the game shows them, in HTML: a person sees the unit, not a string.

robots: the row of 8 robots (symbol, gauge notches filled, amount) over the 18 buttons with
their reveals, X2 and +1 marks; eldorado: every grid as a 3×5 table, winning rows highlighted.
Shapes are inline SVG, so the page stays one self-contained file.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Mapping
from typing import Any

import reference
from reference import _strict_json as strict_json

from .._escape import html_text as escape

COLOURS = {
    "blue": "#1f63c6",
    "green": "#2e9d3a",
    "orange": "#ef8a00",
    "purple": "#8a3fc6",
    "red": "#d62a2a",
    "yellow": "#e9b800",
}
SIDES = {"triangle": 3, "diamond": 4, "square": 4, "pentagon": 5, "hexagon": 6, "octagon": 8}
ELDORADO_LOOK = {  # letter name -> (glyph, colour)
    "pyramid": ("▲", "#c99a06"),
    "sun": ("☀", "#ef8a00"),
    "vase": ("⚱", "#8a5a2b"),
    "bracelet": ("◯", "#1f63c6"),
    "pendant": ("♦", "#8a3fc6"),
    "extra": ("EXTRA", "#2e9d3a"),
}


def euros(cents: int) -> str:
    """Cents as the game shows euros: 750 -> '7,50 €', 100000 -> '1 000 €'."""
    whole, part = divmod(cents, 100)
    text = f"{whole:,}".replace(",", " ")
    return f"{text},{part:02d} €" if part else f"{text} €"


def shape_svg(name: str, size: int = 22) -> str:
    """An inline SVG of a robots symbol from its name (``blue_diamond``, ``purple_star``, ...)."""
    colour_word, _, shape = name.partition("_")
    colour = COLOURS.get(colour_word, "#555")
    r, c = size / 2 - 1.5, size / 2
    if shape == "circle":
        body = f'<circle cx="{c}" cy="{c}" r="{r:.1f}"/>'
    else:
        if shape == "star":
            points = [
                (
                    c + (r if k % 2 == 0 else r * 0.45) * math.sin(math.pi * k / 5),
                    c - (r if k % 2 == 0 else r * 0.45) * math.cos(math.pi * k / 5),
                )
                for k in range(10)
            ]
        else:
            n = SIDES.get(shape, 4)
            turn = math.pi / 4 if shape == "square" else (math.pi / n if n == 8 else 0.0)
            points = [
                (
                    c + r * math.sin(2 * math.pi * k / n + turn),
                    c - r * math.cos(2 * math.pi * k / n + turn),
                )
                for k in range(n)
            ]
        pts = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
        body = f'<polygon points="{pts}"/>'
    return (
        f'<svg class="shape" width="{size}" height="{size}" viewBox="0 0 {size} {size}" '
        f'role="img" aria-label="{escape(name)}"><g fill="{colour}" stroke="#222" '
        f'stroke-width="0.8">{body}</g><title>{escape(name.replace("_", " "))}</title></svg>'
    )


def _robot_wins(result: object) -> set[int] | None:
    """The robots a result says win; None if it is not an evaluation result."""
    if not isinstance(result, Mapping) or not isinstance(result.get("wins"), list):
        return None
    return {
        w["robot"] for w in result["wins"] if isinstance(w, Mapping) and type(w.get("robot")) is int
    }


def _robots(ticket: str, got: object) -> str:
    rules = reference.robots_rules()
    claimed = _robot_wins(got)
    parsed = reference.parse_ticket("robots", ticket)
    assert isinstance(parsed, reference.RobotsTicket)
    notches: dict[str, int] = {s.letter: 0 for s in rules.symbols}
    for button in parsed.buttons:
        for reveal in button:
            notches[reveal.symbol] += 2 if reveal.x2 else 1
    robots = []
    for position, letter in enumerate(parsed.robots):
        symbol = rules.symbol(letter)
        filled = min(notches[letter], symbol.gauge_notches)
        full = notches[letter] >= symbol.gauge_notches
        gauge = "".join(
            f'<span class="notch{" on" if k < filled else ""}"></span>'
            for k in range(symbol.gauge_notches)
        )
        over = notches[letter] - symbol.gauge_notches
        extra = f'<span class="over">+{over}</span>' if over > 0 else ""
        marks = " full" if full else ""
        if claimed is not None and full != (position in claimed):
            marks += " missed" if full else " claimed"
        robots.append(
            f'<div class="robot{marks}" title="{escape(symbol.english)}: '
            f'{notches[letter]} of {symbol.gauge_notches} notches">{shape_svg(symbol.name)}'
            f'<div class="gauge">{gauge}{extra}</div>'
            f'<div class="amount">{euros(symbol.amount_cents)}</div></div>'
        )
    buttons = []
    for n, button in enumerate(parsed.buttons):
        reveals = []
        for reveal in button:
            marks = '<span class="x2">X2</span>' if reveal.x2 else ""
            marks += '<span class="plus">+1</span>' if reveal.plus_one else ""
            reveals.append(
                f'<span class="reveal">{shape_svg(rules.symbol(reveal.symbol).name, 18)}'
                f"{marks}</span>"
            )
        buttons.append(f'<div class="button"><span class="bn">{n}</span>{"".join(reveals)}</div>')
    return (
        f'<div class="robots-unit"><div class="robots">{"".join(robots)}</div>'
        f'<div class="buttons">{"".join(buttons)}</div></div>'
    )


def _win_rows(result: object) -> set[tuple[int, int]] | None:
    """The (grid, row) a result says win; None if it is not an evaluation result."""
    if not isinstance(result, Mapping) or not isinstance(result.get("wins"), list):
        return None
    return {
        (w["grid"], w["row"])
        for w in result["wins"]
        if isinstance(w, Mapping)
        and isinstance(w.get("grid"), int)
        and isinstance(w.get("row"), int)
    }


def _eldorado(ticket: str, expected: object, got: object, stake_cents: object) -> str:
    rules = reference.eldorado_rules()
    parsed = reference.parse_ticket("eldorado", ticket)
    assert isinstance(parsed, reference.EldoradoTicket)
    wins = _win_rows(expected)
    if wins is None and stake_cents in rules.stakes_cents:  # e.g. a block unit's evidence
        wins = _win_rows(reference.evaluate("eldorado", int(str(stake_cents)), ticket))
    wins = wins or set()
    claimed = _win_rows(got)
    grids = []
    for g, grid in enumerate(parsed.grids):
        rows = []
        for r, row in enumerate(grid):
            marks = []
            if (g, r) in wins:
                marks.append("win")
            if claimed is not None and (g, r) in claimed and (g, r) not in wins:
                marks.append("claimed")
            if claimed is not None and (g, r) in wins and (g, r) not in claimed:
                marks.append("missed")
            cells = []
            for letter in row:
                glyph, colour = ELDORADO_LOOK.get(rules.symbol(letter).name, (letter, "#333"))
                cls = "cell extra" if glyph == "EXTRA" else "cell"
                cells.append(
                    f'<td class="{cls}" style="color:{colour}" title="{escape(letter)}: '
                    f'{escape(rules.symbol(letter).english)}">{escape(glyph)}</td>'
                )
            rows.append(f'<tr class="{" ".join(marks)}">{"".join(cells)}</tr>')
        title = "main grid" if g == 0 else f"Extra stage {g}"
        grids.append(
            f'<div class="grid"><div class="gt">{title}</div><table>{"".join(rows)}</table></div>'
        )
    return f'<div class="eldorado-unit">{"".join(grids)}</div>'


def render_unit(
    game: str, ticket: str, expected: object = None, got: object = None, stake_cents: object = None
) -> str:
    """The unit as the game would show it; the raw ticket with the reason if it is invalid.

    Winning robots / rows are the rules' (``expected``, or the reference's own evaluation);
    where ``got`` is an evaluation result, what it pays wrongly or misses is marked.
    """
    try:
        if game == "robots":
            drawing = _robots(ticket, got)
        else:
            drawing = _eldorado(ticket, expected, got, stake_cents)
    except (reference.GameError, KeyError, AssertionError) as exc:
        return (
            f'<div class="invalid">not a valid {escape(game)} ticket ({escape(str(exc))}):'
            f"<code>{escape(ticket)}</code></div>"
        )
    return f'{drawing}<div class="notation"><code>{escape(ticket)}</code></div>'


def pretty(value: Any) -> str:
    """A value of evidence as preformatted JSON."""
    text = value if isinstance(value, str) else strict_json.dumps(value, indent=2, sort_keys=True)
    if len(text) > 20000:
        text = text[:20000] + "\n… (shortened; report.json has it whole)"
    return f"<pre>{escape(text)}</pre>"


def render_evidence(evidence: Mapping[str, Any]) -> str:
    """One counterexample: the unit drawn (when it is a ticket), then expected / got / request."""
    data = evidence.get("input")
    got = evidence.get("got")
    if isinstance(got, str) and got.startswith("{"):  # a unit line quoted as the target sent it
        with contextlib.suppress(strict_json.JsonError):
            got = strict_json.loads(got)
    parts = []
    if isinstance(data, Mapping) and data.get("game") in reference.GAMES:
        ticket = data.get("ticket")
        if not isinstance(ticket, str) and isinstance(got, Mapping):
            ticket = got.get("ticket")  # a block unit: the ticket is what the target served
        if isinstance(ticket, str):
            parts.append(
                render_unit(
                    data["game"], ticket, evidence.get("expected"), got, data.get("stake_cents")
                )
            )
    request = evidence.get("request")
    expected, shown = pretty(evidence.get("expected")), pretty(evidence.get("got"))
    table = (
        f'<tr><th colspan="2">input</th></tr><tr><td colspan="2">{pretty(data)}</td></tr>'
        "<tr><th>expected (the rules)</th><th>got (the target)</th></tr>"
        f"<tr><td>{expected}</td><td>{shown}</td></tr>"
    )
    if request is not None:
        table += (
            f'<tr><th colspan="2">request</th></tr><tr><td colspan="2">{pretty(request)}</td></tr>'
        )
    parts.append(f'<table class="evidence">{table}</table>')
    if evidence.get("note"):
        parts.append(f'<p class="note">{escape(str(evidence["note"]))}</p>')
    return "".join(parts)
