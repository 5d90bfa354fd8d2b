"""Counterexamples drawn as the game shows them, in HTML: a person sees the unit, not a string.

The drawing is the game kit's (``conformance.games``: ``GameKit.board``, e.g. robots' row of
gauges over its buttons, eldorado's grids); this module holds no game of its own. Shapes are
inline SVG, so the page stays one self-contained file.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any

import reference
from conformance.games import UnknownGame, kit, kit_names
from conformance.games._boards import euros
from reference import _strict_json as strict_json

from .._escape import html_text as escape

__all__ = ["euros", "pretty", "render_evidence", "render_unit"]


def render_unit(
    game: str, ticket: str, expected: object = None, got: object = None, stake_cents: object = None
) -> str:
    """The unit as the game would show it; the raw ticket with the reason if it is invalid.

    Drawn by the game's kit: wins are the rules' (``expected``, or the reference's own
    evaluation); where ``got`` is an evaluation result, what it pays wrongly or misses is
    marked.
    """
    try:
        draw = kit(game).board
        if draw is None:  # a kit without a drawing: the notation alone
            return f'<div class="notation"><code>{escape(ticket)}</code></div>'
        drawing = draw(ticket, expected, got, stake_cents, escape)
    except UnknownGame as exc:
        return f'<div class="invalid">{escape(str(exc))}:<code>{escape(ticket)}</code></div>'
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
    if isinstance(data, Mapping) and data.get("game") in kit_names():
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
