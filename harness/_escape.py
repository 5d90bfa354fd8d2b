"""Text from outside, made safe for each format it reaches: one function per format.

A target chooses its name, version, block ids, error messages, tickets and every value of its
evidence; a case file or a config chooses more. None of it may become markup, mathematics,
terminal commands, invalid XML or a path: each writer passes every such string through the
function of its format here (docs/reports.md lists the rules).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from typing import Any

# C0 controls but tab and newline, DEL, C1 controls, bidi overrides ("Trojan source"), lone
# surrogates: none is shown as itself anywhere.
_INVISIBLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_INVISIBLE_OR_NEWLINE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\x1b": "\\x1b"}


def _show(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    return _NAMED.get(char) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def visible(text: object, *, one_line: bool = False) -> str:
    """``text`` with every control character, bidi override and lone surrogate written as a
    visible escape (``\\x1b``, ``\\x00``, ``\\ud800``); with ``one_line`` newlines and tabs too."""
    pattern = _INVISIBLE_OR_NEWLINE if one_line else _INVISIBLE
    return pattern.sub(_show, str(text))


def shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


# -- HTML --------------------------------------------------------------------------------------


_HTML_ESCAPES = (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ('"', "&quot;"), ("'", "&#x27;"))
"""``html.escape(text, quote=True)``'s replacements, in its order (``&`` first): the same text
without loading ``html``, whose package loads every named entity (a few ms of the start-up of
every command that writes reports)."""


def html_text(text: object) -> str:
    """Text for an HTML element or a quoted attribute: ``& < > " '`` escaped, controls shown."""
    out = visible(text)
    for char, entity in _HTML_ESCAPES:
        out = out.replace(char, entity)
    return out


# -- Markdown ----------------------------------------------------------------------------------

_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~])")
_MD_LINE_START = re.compile(r"^(\s*)([#+=-])")
_MD_NUMBERED = re.compile(r"^(\s*\d+)([.)])")


def md_text(text: object, limit: int | None = None) -> str:
    """Text for a Markdown paragraph or table cell: one line, no raw HTML (``& < >`` as
    entities), the Markdown control characters backslash-escaped (``|`` and backticks
    included), and no heading, list or quote marker at its start."""
    line = visible(text, one_line=True)
    if limit is not None:
        line = shorten(line, limit)
    line = line.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    line = _MD_SPECIAL.sub(r"\\\1", line)
    line = _MD_LINE_START.sub(r"\1\\\2", line)
    return _MD_NUMBERED.sub(r"\1\\\2", line)


def _fence_for(text: str, least: int) -> str:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(least, longest + 1)


def md_code(text: object, limit: int | None = None, *, in_table: bool = False) -> str:
    """Inline code its content cannot close: a fence longer than any backtick run in it (a
    code span shows ``<`` and ``&`` literally); ``in_table``: ``|`` escaped as GFM tables need."""
    line = visible(text, one_line=True)
    if limit is not None:
        line = shorten(line, limit)
    fence = _fence_for(line, 1)
    pad = " " if line.startswith("`") or line.endswith("`") or not line.strip() else ""
    if in_table:
        line = line.replace("|", "\\|")
    return f"{fence}{pad}{line}{pad}{fence}"


def md_block(text: object, limit: int | None = None) -> str:
    """A fenced code block its content cannot close: the fence is longer than any backtick run
    in the content (at least three)."""
    body = visible(text)
    if limit is not None:
        body = shorten(body, limit)
    fence = _fence_for(body, 3)
    return f"{fence}text\n{body}\n{fence}"


# -- XML (JUnit) -------------------------------------------------------------------------------

_XML_FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_text(text: object) -> str:
    """Text XML 1.0 can hold: each character it forbids (most C0 controls, lone surrogates,
    U+FFFE/U+FFFF) written as a visible escape; ElementTree escapes ``& < > "`` itself."""
    return _XML_FORBIDDEN.sub(_show, str(text))


# -- terminal ----------------------------------------------------------------------------------


def terminal(text: object) -> str:
    """Text for a terminal or CI log: no escape sequence, carriage return or other control can
    act (all shown as ``\\x1b``-style escapes); newlines and tabs kept."""
    return visible(text)


# -- plot labels (matplotlib) ------------------------------------------------------------------


def plot_text(text: object, limit: int = 80) -> str:
    """A label matplotlib draws as written: ``$`` escaped (no mathtext), controls shown,
    bounded in length so a long id cannot make a figure of kilometres."""
    return shorten(visible(text, one_line=True), limit).replace("$", r"\$")


# -- file names --------------------------------------------------------------------------------

_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._-]")


def safe_filename(text: object, limit: int = 80) -> str:
    """A file name from outside text: ``[A-Za-z0-9._-]`` only, no leading dot (so no ``..``,
    no hidden file, no separator), at most ``limit`` characters; a short hash of the original
    is appended whenever anything was changed, so two different texts stay two files."""
    original = str(text)
    name = _UNSAFE_NAME.sub("_", original).lstrip(".") or "_"
    if name == original and len(name) <= limit:
        return name
    digest = hashlib.sha256(original.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return f"{name[: limit - 11]}-{digest}"


# -- whole documents ---------------------------------------------------------------------------


def map_strings(value: Any, function: Callable[[str], str]) -> Any:
    """A copy of a JSON-like ``value`` with ``function`` applied to every string, keys too."""
    if isinstance(value, str):
        return function(value)
    if isinstance(value, dict):
        return {
            (function(k) if isinstance(k, str) else k): map_strings(v, function)
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [map_strings(v, function) for v in value]
    return value
