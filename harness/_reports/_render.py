"""Counterexamples drawn as the game shows them, in HTML: a person sees the unit, not a string.

The drawing is the game kit's (``conformance.games``: ``GameKit.board``, e.g. robots' row of
gauges over its buttons, eldorado's grids); this module holds no game of its own. Shapes are
inline SVG, so the page stays one self-contained file.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Mapping
from typing import Any

import reference
from conformance.games import UnknownGame, kit, kit_names
from conformance.games._boards import euros
from reference import _strict_json as strict_json

from .._escape import html_text as escape
from . import _diff

__all__ = ["breakable", "euros", "pretty", "render_evidence", "render_unit"]


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


def breakable(text: str) -> str:
    """Escaped text where a long token (an id, a path, a check name) may wrap after its dots,
    underscores, colons and slashes (``<wbr>``), never inside a word."""

    out, last = [], 0
    for token in _LONG.finditer(text):
        out.append(escape(text[last : token.start()]))
        out.append("<wbr>".join(escape(part) for part in _JOINTS.split(token.group(0)) if part))
        last = token.end()
    out.append(escape(text[last:]))
    return "".join(out)


_LONG = re.compile(r"\S{16,}")
_JOINTS = re.compile(r"(?<=[._:/=,])(?=.)")


def _values(evidence: Mapping[str, Any], open_: bool) -> str:
    """Input, expected, got and request in full, one under the other, folded unless ``open_``."""
    parts = []
    for key, title in (
        ("input", "input"),
        ("expected", "expected (the rules)"),
        ("got", "got (the target)"),
        ("request", "request"),
    ):
        if key == "request" and evidence.get(key) is None:
            continue
        parts.append(f"<h5>{title}</h5>{pretty(evidence.get(key))}")
    state = " open" if open_ else ""
    return (
        f'<details class="values"{state}><summary>full values: input, expected, got'
        f"{', request' if evidence.get('request') is not None else ''}</summary>"
        f"{''.join(parts)}</details>"
    )


def render_evidence(evidence: Mapping[str, Any]) -> str:
    """One counterexample: the unit drawn (when it is a ticket), then what differs between
    expected and got (``_diff``), the note, and the full values folded below."""
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
    difference = _diff.render(evidence.get("expected"), got)
    parts.append(difference)
    if evidence.get("note"):
        parts.append(f'<p class="note">{breakable(str(evidence["note"]))}</p>')
    parts.append(_values(evidence, open_=not difference))
    return "".join(parts)
