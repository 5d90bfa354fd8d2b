"""Cells of the short Markdown reports (summary.md, compare): text from outside made inert.

A target's messages reach pull-request comments. In a code span nothing renders: no HTML, no
``@mention``, no link, no emphasis; ``harness/_escape.py`` builds spans their content cannot
close, with ``|`` escaped for tables. These reports show a message's first line only.
"""

from __future__ import annotations

from .._escape import md_code, md_text


def first_line(text: str) -> str:
    return text.splitlines()[0] if text else ""


def code(text: str, limit: int = 200) -> str:
    """The first line of ``text``, at most ``limit`` characters, as an inert code span safe in
    a table cell; empty text gives the empty string."""
    line = first_line(text)
    return md_code(line, limit, in_table=True) if line.strip() else ""


def plain(text: str, limit: int = 200) -> str:
    """The first line of ``text`` as escaped Markdown text, for words of the suite's own
    (articles, profile names) that read better outside a code span."""
    return md_text(first_line(text), limit)
