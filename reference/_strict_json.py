"""Strict JSON in, valid JSON out: the one parser for every JSON document that comes from outside.

Python's ``json`` accepts what RFC 8259 does not (``NaN``, ``Infinity``), turns ``1e99999`` into
``inf`` (which ``json.dumps`` then writes as the non-JSON ``Infinity``), raises
``RecursionError`` on deep nesting and a bare ``ValueError`` on integers over 4 300 digits. A
target, a case file or a block file chosen by someone else can send any of these, so
``loads`` refuses each with a ``JsonError`` naming the fault, within bounds on size, depth and
integer digits; ``dumps`` writes any value as valid JSON (non-finite floats as strings, lone
surrogates as ``\\uXXXX`` escapes). It lives in ``reference`` (stdlib only) so that the server,
the suite and the harness all use it without layering cycles.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import Any

MAX_DEPTH = 64  # no document of the contract nests deeper than 5
MAX_INT_DIGITS = 4300  # Python's own limit (sys.get_int_max_str_digits): parsed in C up to it
_PYTHON_DIGITS = 4300
MAX_BYTES = 256 * 1024 * 1024


class JsonError(ValueError):
    """A document that is not strict, bounded JSON; the message names the fault."""


def _constant(name: str) -> Any:
    raise JsonError(f"{name} is not a JSON number")


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise JsonError(f"the number {text[:40]!r} overflows a double")
    return value


def _int_parser(max_digits: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        if len(text.lstrip("-")) > max_digits:
            raise JsonError(f"an integer of {len(text.lstrip('-'))} digits (limit {max_digits})")
        return int(text)

    return parse


_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_INNERMOST = re.compile(rb"\[\]|\{\}")


def _too_deep(text: str, limit: int) -> bool:
    """Whether valid JSON ``text`` nests deeper than ``limit``, at C speed and without
    recursion: escapes dropped (``\\\\`` then ``\\"``, left to right as JSON pairs them), the
    strings between the remaining quotes dropped, every byte but brackets dropped, then the
    innermost ``[]``/``{}`` pairs removed once per level."""
    bare = text.replace("\\\\", "").replace('\\"', "")
    outside = "".join(bare.split('"')[::2]).encode("utf-8", "surrogatepass")
    skeleton = outside.translate(None, _NOT_BRACKETS)
    for _ in range(limit):
        if not skeleton:
            return False
        skeleton = _INNERMOST.sub(b"", skeleton)  # one pass: exactly one level
    return bool(skeleton)


def loads(
    data: bytes | str,
    *,
    max_bytes: int = MAX_BYTES,
    max_depth: int = MAX_DEPTH,
    max_int_digits: int = MAX_INT_DIGITS,
    object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None,
) -> Any:
    """``data`` (UTF-8 bytes, no BOM, or text) parsed strictly; ``JsonError`` names the fault."""
    if len(data) > max_bytes:
        raise JsonError(f"the document exceeds {max_bytes} bytes ({len(data)})")
    if isinstance(data, bytes | bytearray):
        try:
            text = bytes(data).decode("utf-8")
        except UnicodeDecodeError as exc:
            shown = data[exc.start : exc.start + 8]
            raise JsonError(f"not UTF-8 at byte {exc.start}: {shown!r}") from None
    else:
        text = data
    if text.startswith("\ufeff"):
        raise JsonError("the document starts with a byte order mark (BOM)")
    try:
        value = json.loads(
            text,
            parse_constant=_constant,
            parse_float=_float,
            parse_int=_int_parser(max_int_digits) if max_int_digits < _PYTHON_DIGITS else None,
            object_pairs_hook=object_pairs_hook,
        )
    except JsonError:
        raise
    except RecursionError:
        raise JsonError(f"nested deeper than {max_depth} levels") from None
    except json.JSONDecodeError as exc:
        raise JsonError(f"not JSON (line {exc.lineno} column {exc.colno}: {exc.msg})") from None
    except ValueError as exc:  # Python's own integer-digits limit
        if "integer string conversion" in str(exc):
            raise JsonError(f"an integer of more than {_PYTHON_DIGITS} digits") from None
        raise JsonError(f"not JSON: {str(exc)[:200]}") from None
    brackets = text.count("[") + text.count("{")
    if brackets > max_depth and _too_deep(text, max_depth):
        raise JsonError(f"nested deeper than {max_depth} levels")
    return value


def sanitise(value: Any) -> Any:
    """``value`` with every non-finite float replaced by its name as a string (``"NaN"``,
    ``"Infinity"``, ``"-Infinity"``): JSON has no such numbers. Iterative over containers."""
    if isinstance(value, float):
        return value if math.isfinite(value) else _name(value)
    if not isinstance(value, dict | list | tuple):
        return value
    out: list[Any] = [None]
    stack: list[tuple[Any, Any, Any]] = [(value, out, 0)]
    while stack:
        item, parent, key = stack.pop()
        if isinstance(item, float):
            parent[key] = item if math.isfinite(item) else _name(item)
        elif isinstance(item, dict):
            copy: dict[Any, Any] = {}
            parent[key] = copy
            for k, v in item.items():
                copy[k] = None
                stack.append((v, copy, k))
        elif isinstance(item, list | tuple):
            items: list[Any] = [None] * len(item)
            parent[key] = items
            stack.extend((v, items, n) for n, v in enumerate(item))
        else:
            parent[key] = item
    return out[0]


def _name(value: float) -> str:
    return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")


def dumps(value: Any, *, indent: int | None = None, sort_keys: bool = False) -> str:
    """``value`` as valid JSON text: non-finite floats named (``sanitise``), unknown objects as
    their ``str``, lone surrogates as ``\\uXXXX`` escapes so the text encodes as UTF-8."""
    text = json.dumps(
        sanitise(value),
        indent=indent,
        sort_keys=sort_keys,
        ensure_ascii=False,
        allow_nan=False,
        default=str,
    )
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate, necessarily inside a string
        text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text
