"""Strict JSON in, valid JSON out: the one parser for every JSON document that comes from outside.

Python's ``json`` accepts what RFC 8259 does not (``NaN``, ``Infinity``), turns ``1e99999`` into
``inf`` (which ``json.dumps`` then writes as the non-JSON ``Infinity``), raises
``RecursionError`` on deep nesting and a bare ``ValueError`` on integers over 4 300 digits. A
target, a case file or a block file chosen by someone else can send any of these, so
``loads`` refuses each with a ``JsonError`` naming the fault, within bounds on size, depth and
integer digits, and (``max_cost``) the memory its value would take, estimated from its
structure before anything is built (``structure``); ``dumps`` writes any value as valid
JSON (non-finite floats as strings, lone surrogates as ``\\uXXXX`` escapes). It lives in
``reference`` (stdlib only) so that the server, the suite and the harness all use it without
layering cycles.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import Any, NamedTuple

import numpy as np

MAX_DEPTH = 64  # no document of the contract nests deeper than 5
MAX_INT_DIGITS = 4300  # Python's own limit (sys.get_int_max_str_digits): parsed in C up to it
_PYTHON_DIGITS = 4300
MAX_BYTES = 256 * 1024 * 1024
SPLIT_MAX_BYTES = 256 * 1024  # a text up to this long has its strings removed by a split


class JsonError(ValueError):
    """A document that is not strict, bounded JSON; the message names the fault."""


class OverCost(JsonError):
    """A document whose value would take more memory than its ``max_cost``."""


def _constant(name: str) -> Any:
    raise JsonError(f"{name} is not a JSON number")


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise JsonError(f"the number {text[:40]!r} overflows a double")
    return value


strict_float = _float
"""A number with a fraction or an exponent as a float; ``JsonError`` when no double holds it."""


def _int_parser(max_digits: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        if len(text.lstrip("-")) > max_digits:
            raise JsonError(f"an integer of {len(text.lstrip('-'))} digits (limit {max_digits})")
        return int(text)

    return parse


# a string, escapes and all, matched without backtracking (possessive: no state kept per
# character, so a string of 24 MiB costs no more than its bytes)
_STRING = re.compile(rb'"(?:[^"\\]++|\\.)*+"', re.DOTALL)
_STRING_TEXT = re.compile(r'"(?:[^"\\]++|\\.)*+"', re.DOTALL)
# brackets to steps of depth, as int8: an opening one +1, a closing one -1
_STEPS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")
#: the running sum of the steps is taken this many brackets at a time (``_highest_sum``)
DEPTH_CHUNK = 1 << 16
_BRACKETS = bytes.maketrans(b"{}", b"[]")  # both kinds alike: depth counts them alike
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")

# What a parsed value holds, per piece of its text, at most (measured on CPython 3.11: an empty
# dict or list 56 to 72 bytes and its slot in its parent 8, a one-key dict 184, a string 49 plus
# its characters, a float 24, an int 28 to 32; the text itself, decoded, up to 4 bytes a
# character): an estimate that is never below what ``json.loads`` takes (benchmarks/memory.py).
COST_PER_CONTAINER = 100
COST_PER_VALUE = 64
COST_PER_BYTE = 4


class Structure(NamedTuple):
    """What a JSON text would build, counted on its text: objects and arrays, values and keys
    (the commas and colons outside strings), and how deep it nests."""

    containers: int
    values: int
    depth: int

    def cost(self, size: int) -> int:
        """About the most bytes of memory the parsed value of a text of ``size`` bytes takes."""
        return (
            COST_PER_CONTAINER * self.containers
            + COST_PER_VALUE * self.values
            + COST_PER_BYTE * size
        )


def structure(data: bytes | str, *, max_cost: int | None = None) -> Structure:
    """The ``Structure`` of ``data``, at C speed, in one copy of it at most: the strings
    removed (their content is no structure), then the brackets, commas and colons counted;
    the depth is the highest running sum of the brackets (+1 opening, -1 closing), taken by
    iterators, with no copy per nesting level. Far over ``max_cost`` already (4 times), the
    depth is not counted (1): the text is refused anyway, and counting it would cost time."""
    if isinstance(data, str):
        bare = _bare_text(data).encode("utf-8", "surrogatepass")
    else:
        bare = _bare(data)
    containers = bare.count(b"{") + bare.count(b"[")
    values = bare.count(b",") + bare.count(b":") + containers
    shape = Structure(containers, values, min(containers, 1))
    if containers <= 1 or (max_cost is not None and shape.cost(len(data)) > 4 * max_cost):
        return shape
    depth = _nested_depth(bare.translate(_BRACKETS, _NOT_BRACKETS))
    if depth is None:
        steps = bare.translate(_STEPS, _NOT_BRACKETS)
        del bare
        depth = _highest_sum(steps)
    return shape._replace(depth=depth)


def _highest_sum(steps: bytes) -> int:
    """The highest running sum of ``steps`` (int8 bytes; 0 when there is none), taken
    ``DEPTH_CHUNK`` steps at a time in numpy: a few arrays of that size whatever the text's
    length, and no Python object per bracket (the running sum by ``itertools.accumulate``, the
    same number, made one int per bracket: 0.5 s for a 2 MiB text)."""
    if not steps:
        return 0
    values = np.frombuffer(steps, dtype=np.int8)
    highest, level = None, 0
    for start in range(0, len(values), DEPTH_CHUNK):
        sums = np.cumsum(values[start : start + DEPTH_CHUNK], dtype=np.int64)
        top = level + int(sums.max())
        highest = top if highest is None else max(highest, top)
        level += int(sums[-1])
    assert highest is not None
    return highest


def _bare(data: bytes) -> bytes:
    """``data`` with every string's content removed (``""`` left in its place). Without a
    backslash and with an even number of quotes, each string is the text between a quote and
    the next, so a split does what the string pattern does, three times faster; only for a
    short text (``SPLIT_MAX_BYTES``): its pieces take memory, about 36 bytes each."""
    if len(data) <= SPLIT_MAX_BYTES and b"\\" not in data:
        parts = data.split(b'"')
        if len(parts) % 2:
            return b'""'.join(parts[::2])
    return _STRING.sub(b'""', data)


def _bare_text(data: str) -> str:
    """``_bare`` of a text."""
    if len(data) <= SPLIT_MAX_BYTES and "\\" not in data:
        parts = data.split('"')
        if len(parts) % 2:
            return '""'.join(parts[::2])
    return _STRING_TEXT.sub('""', data)


def _nested_depth(brackets: bytes) -> int | None:
    """How deep ``brackets`` (only ``[`` and ``]``) nest, if they are balanced and nest at most
    ``MAX_DEPTH + 1`` levels (None otherwise): each pass removes the innermost pairs, at C
    speed, so a document nesting 5 levels costs 5 passes, not a step per bracket."""
    passes = 0
    while brackets:
        inner = brackets.replace(b"[]", b"")
        if len(inner) == len(brackets) or passes > MAX_DEPTH:
            return None
        brackets, passes = inner, passes + 1
    return passes


def loads(
    data: bytes | str,
    *,
    max_bytes: int = MAX_BYTES,
    max_depth: int = MAX_DEPTH,
    max_int_digits: int = MAX_INT_DIGITS,
    max_cost: int | None = None,
    object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None,
    parse_float: Callable[[str], Any] | None = None,
) -> Any:
    """``data`` (UTF-8 bytes, no BOM, or text) parsed strictly; ``JsonError`` names the fault.

    Its structure is counted first (``structure``): nested deeper than ``max_depth``, or a
    value that would take more than ``max_cost`` bytes of memory (None: no bound but
    ``max_bytes``), is refused before anything is built. ``parse_float`` reads a number with a
    fraction or an exponent (default: a finite float, ``strict_float``)."""
    if len(data) > max_bytes:
        raise JsonError(f"the document exceeds {max_bytes} bytes ({len(data)})")
    shape = structure(data, max_cost=max_cost)
    if shape.depth > max_depth:  # the first fault to name: no document of the contract is deep
        raise JsonError(f"nested deeper than {max_depth} levels")
    if max_cost is not None and shape.cost(len(data)) > max_cost:
        raise OverCost(
            f"the document would take about {_mib(shape.cost(len(data)))} of memory to hold "
            f"({shape.containers} objects and arrays, {shape.values} values in "
            f"{len(data)} bytes), over its limit of {_mib(max_cost)}"
        )
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
        return json.loads(
            text,
            parse_constant=_constant,
            parse_float=parse_float or _float,
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


def no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An ``object_pairs_hook`` that refuses an object naming a key twice (RFC 8259 4: its
    meaning is unpredictable; ``json`` keeps the last), naming the keys, in linear time (an
    object of a million keys is a line of 10 MB)."""
    value = dict(pairs)
    if len(value) != len(pairs):
        twice = sorted(k for k, n in Counter(k for k, _ in pairs).items() if n > 1)
        shown = ", ".join(repr(k[:40]) for k in twice[:5])
        more = f" and {len(twice) - 5} more" if len(twice) > 5 else ""
        raise JsonError(f"key(s) {shown}{more} appear more than once in an object")
    return value


# -- integers written with a fraction or an exponent (docs/contract-decisions.md, integer-forms)

INTEGRAL_MOST_DIGITS = 40
"""An integer written with more digits than this (``1E+400``) is left a float: no contract
value is that large, and reading it would cost the reader, not tell it anything."""


def integral(text: str) -> int | None:
    """The integer a JSON number written with a fraction or an exponent equals (``"100.0"``,
    ``"1E+2"``, ``"-0.0"``), or None (``"100.5"``, a value past ``INTEGRAL_MOST_DIGITS``
    digits). Read exactly from its text, never through a double (``9007199254740993.0``)."""
    try:
        number = Decimal(text)
    except InvalidOperation:
        return None
    if not number.is_finite() or number.adjusted() >= INTEGRAL_MOST_DIGITS:
        return None
    whole = number.to_integral_value()
    return int(whole) if whole == number else None


BLOCK_INTEGERS = frozenset(("count", "index", "prize_cents", "stake_cents", "start", "units"))
"""The members of a block line (header or unit, contract 3) that hold integers."""


class _Integral(int):
    """A number written with a fraction or an exponent that equals an integer, until placed."""


def loads_block_line(
    data: bytes | str, *, integers: frozenset[str] = BLOCK_INTEGERS, **options: Any
) -> Any:
    """A block line (contract 3) parsed as ``loads`` does, with a number written ``100.0`` or
    ``1E+2`` in one of its own ``integers`` members read as the integer it equals (JSON has one
    number type, RFC 8259 section 6, and contract 3's integers are values: row
    ``integer-forms``); such a number anywhere else (a header field of the generator's own, a
    member of ``generator``) stays a float, as does a fraction that is not zero (``100.5``)."""
    met = False

    def parse(text: str) -> Any:
        nonlocal met
        value = integral(text)
        if value is None:
            return _float(text)
        met = True
        return _Integral(value)

    value = loads(data, parse_float=parse, **options)
    if not met:
        return value
    if type(value) is dict:
        return {
            k: int(v) if type(v) is _Integral and k in integers else _floats(v)
            for k, v in value.items()
        }
    return _floats(value)


def _floats(value: Any) -> Any:
    if type(value) is _Integral:
        return float(value)
    if type(value) is dict:
        return {k: _floats(v) for k, v in value.items()}
    if type(value) is list:
        return [_floats(v) for v in value]
    return value


def _mib(size: int) -> str:
    return f"{size / 2**20:.1f} MiB" if size >= 2**20 else f"{size / 1024:.0f} KiB"


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
    options: dict[str, Any] = {
        "indent": indent,
        "sort_keys": sort_keys,
        "ensure_ascii": False,
        "allow_nan": False,
        "default": str,
    }
    try:  # the common case, no non-finite float: no copy of the whole value first
        text = json.dumps(value, **options)
    except ValueError:  # a non-finite float (or what ``sanitise`` then meets as before)
        text = json.dumps(sanitise(value), **options)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate, necessarily inside a string
        text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text
