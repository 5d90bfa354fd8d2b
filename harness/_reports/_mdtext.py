"""Untrusted text made inert in Markdown: for PR comments, job summaries and ``compare``.

A target's messages reach GitHub or GitLab comments. Put as text, a message could open HTML,
ping ``@someone``, link ``#123`` or break a table. Every such string goes in a code span
(``code``): nothing inside one renders, mentions and autolinks included. The span's fence is
longer than any backtick run inside it; ``|`` is escaped as GFM tables require (even in code
spans) and line breaks become spaces, so a cell stays one cell.
"""

from __future__ import annotations

import re

_BACKTICKS = re.compile(r"`+")
_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~&@:])")


def one_line(text: str, limit: int) -> str:
    """The first line of ``text``, at most ``limit`` characters (an ellipsis says it was cut)."""
    line = text.splitlines()[0] if text else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"


def code(text: str, limit: int = 200) -> str:
    """``text`` (its first line, shortened) as an inert code span, safe in a table cell."""
    line = one_line(text, limit).replace("\t", " ")
    if not line.strip():
        return ""
    longest = max((len(m.group()) for m in _BACKTICKS.finditer(line)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if line.startswith("`") or line.endswith("`") else ""
    return f"{fence}{pad}{line.replace('|', chr(92) + '|')}{pad}{fence}"


def plain(text: str, limit: int = 200) -> str:
    """``text`` (first line, shortened) as plain Markdown text: every special character escaped.

    For short words of our own (verdicts, articles) that read better without a code span;
    ``@`` and ``:`` are escaped too, but mentions are only safe for certain in a code span.
    """
    return _SPECIAL.sub(r"\\\1", one_line(text, limit))
