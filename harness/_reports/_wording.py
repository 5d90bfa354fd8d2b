"""The rules' own words beside a requirement, and the clause coverage line, for every format.

``requirements[].wording`` (RunFinished, from the clause catalogue) holds the text of the
clauses of the article a requirement rests on: the French original for the rules' articles, so a
French lab can cite it verbatim; the contract's or rules.md's English where no French text
exists (``contract 4``, ``law 70 %``, ``lab practice``), labelled as such.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._clause_coverage import summary


def label(wording: Mapping[str, Any]) -> str:
    """``robots 4.6, French original`` or ``contract 4, in English (no French text exists)``."""
    if wording["language"] == "fr":
        return f"{wording['article']}, French original"
    return f"{wording['article']}, in English (no French text exists)"


def line(requirement: Mapping[str, Any]) -> str:
    """``robots 4.6, French original: « Si le joueur ... »``, or "" without wording."""
    wording = requirement.get("wording")
    if not wording:
        return ""
    text = wording["text"]
    quoted = f"« {text} »" if wording["language"] == "fr" else f'"{text}"'
    return f"{label(wording)}: {quoted}"


def coverage_line(doc: Mapping[str, Any]) -> str:
    """The clause coverage of a report document, in one line ("" for a document without it)."""
    clauses = doc.get("clauses")
    return summary(clauses) if clauses and clauses.get("total") else ""
