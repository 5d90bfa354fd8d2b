"""Expected against got, as the lines that differ: what a person reading a failure looks at first.

Both values are printed as JSON (keys sorted, two spaces of indent) and compared line by line
(``difflib``); the page shows the differing lines with ``CONTEXT`` lines around each, those of
expected marked ``-`` and those of got marked ``+``, and an ellipsis where equal lines are left
out. The full values stay in the report, folded below the difference.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

from reference import _strict_json as strict_json

from .._escape import html_text as escape

CONTEXT = 2
MAX_LINES = 400  # a difference longer than this is cut (report.json has it whole)


@dataclass(frozen=True)
class Line:
    mark: str  # "-" expected only, "+" got only, " " both, "…" equal lines left out
    text: str


def printed(value: Any) -> list[str]:
    """A value as the lines of its JSON (a string as its own lines)."""
    if isinstance(value, str):
        return value.splitlines() or [""]
    return strict_json.dumps(value, indent=2, sort_keys=True).splitlines()


def difference(expected: Any, got: Any, context: int = CONTEXT) -> list[Line]:
    """The lines where ``expected`` and ``got`` differ, with ``context`` lines around; [] when
    they print the same."""
    before, after = printed(expected), printed(got)
    matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
    groups = list(matcher.get_grouped_opcodes(context))
    lines: list[Line] = []
    for group in groups:
        if lines or group[0][1] > 0:
            lines.append(Line("…", ""))
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines += [Line(" ", t) for t in before[i1:i2]]
                continue
            lines += [Line("-", t) for t in before[i1:i2]]
            lines += [Line("+", t) for t in after[j1:j2]]
    if groups and groups[-1][-1][2] < len(before):
        lines.append(Line("…", ""))
    return lines


_CLASS = {"-": "del", "+": "add", " ": "same", "…": "gap"}


def render(expected: Any, got: Any) -> str:
    """The difference as HTML (``<pre class="diff">``, one block ``<span>`` a line), "" when
    there is none to show."""
    lines = difference(expected, got)
    if not lines:
        return ""
    shown = lines[:MAX_LINES]
    rows = "".join(
        f'<span class="{_CLASS[line.mark]}">'
        f"{escape(line.mark if line.mark != '…' else '  …')} {escape(line.text)}</span>"
        for line in shown
    )
    if len(lines) > len(shown):
        rows += f'<span class="gap">  … {len(lines) - len(shown)} more lines in report.json</span>'
    return (
        '<div class="diffhead"><span class="del">- expected (the rules)</span> '
        '<span class="add">+ got (the target)</span></div>'
        f'<pre class="diff">{rows}</pre>'
    )
