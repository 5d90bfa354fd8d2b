"""Integers written with a fraction or an exponent (docs/contract-decisions.md, ``integer-forms``).

Contract 4 says "money is integer cents everywhere" and gives indices; it says nothing of how a
number is written. JSON has one number type (RFC 8259 section 6): ``100.0`` and ``1E+2`` are the
number 100, and JSON Schema's ``integer`` (draft 2020-12, which the project's schemas use) takes
them. A vendor whose encoder writes a decimal column so (Jackson's ``BigDecimal``, ``1E+2`` once
its trailing zeros are stripped; a ``NUMERIC`` read as a float, ``100.0``) breaks no sentence of
the contract, and the project's own OpenAPI document takes it: over HTTP, such a number in a
field the contract names as an integer (``INTEGER_FIELDS``) is the integer it equals, read
exactly (from its text, never through a double), with no reservation and no error
(``IntegerForms``: counted, ``listed``). A
number with a fraction that is not zero (``100.5``), or one anywhere else, stays what it was (a
float), for the shape check and the requirements to judge.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from reference._strict_json import INTEGRAL_MOST_DIGITS, integral, strict_float

from ._field_counts import FieldCounts, reading_reservation

BASIS = "integer-forms"  # the row of docs/contract-decisions.md

INTEGER_FIELDS = frozenset(
    (
        "amount_cents",
        "balance_cents",
        "button",
        "count",
        "grid",
        "index",
        "prize_cents",
        "robot",
        "row",
        "stake_cents",
        "stakes_cents",
        "start",
        "units",
    )
)
"""The fields the contract's documents hold integers in (a list of them: ``stakes_cents``)."""

MOST_DIGITS = INTEGRAL_MOST_DIGITS
"""An integer written with more digits than this (``1E+400``) is left a float."""


class _Written(int):
    """An integer the target wrote with a fraction or an exponent, until it is placed."""


class IntegerForms:
    """Reads the integers of an answer written ``100.0`` or ``1E+2`` as integers, counting them
    per field (thread-safe)."""

    def __init__(self) -> None:
        self._seen = FieldCounts()

    def parser(self) -> tuple[Callable[[str], Any], Callable[[], bool]]:
        """(a ``parse_float`` for one document, whether it met an integral number)."""
        met = [False]

        def parse(text: str) -> Any:
            value = integral(text)
            if value is None:
                return strict_float(text)
            met[0] = True
            return _Written(value)

        return parse, lambda: met[0]

    def placed(self, value: Any) -> Any:
        """``value`` (parsed by ``parser``'s function) with each integral number in a field of
        ``INTEGER_FIELDS`` as an ``int``, and every other one back to a float."""
        seen: dict[str, int] = {}
        result = _placed(value, None, seen)
        self._seen.add(seen)
        return result

    def listed(self) -> str:
        """The fields seen with integers so written, each with its count ("" if none): no
        reservation, the JSON number is the integer (row ``integer-forms``)."""
        return self._seen.listed()


def _placed(value: Any, field: str | None, seen: dict[str, int]) -> Any:
    if type(value) is _Written:
        if field is None:
            return float(value)
        seen[field] = seen.get(field, 0) + 1
        return int(value)
    if type(value) is dict:
        return {k: _placed(v, k if k in INTEGER_FIELDS else None, seen) for k, v in value.items()}
    if type(value) is list:
        return [_placed(v, field if type(v) is _Written else None, seen) for v in value]
    return value


# -- integers written as JSON strings (row integer-strings) --------------------------------

STRING_BASIS = "integer-strings"  # the row of docs/contract-decisions.md

_DIGITS = re.compile(r"-?(?:0|[1-9][0-9]{0,39})\Z", re.ASCII)
_QUOTED = re.compile(
    rb'"(?:' + b"|".join(f.encode() for f in sorted(INTEGER_FIELDS)) + rb')"\s*:\s*\[?\s*"'
)


class IntegerStrings:
    """Reads the integers of an answer written as JSON strings of their decimal digits
    (``"balance_cents": "10000"``: protobuf's JSON mapping of an ``int64``, gRPC-gateway's
    answers) in a field of ``INTEGER_FIELDS`` as those integers, counting them per field, and
    words the run's reservation about them (thread-safe). A string that is no canonical
    integer (``"100.0"``, ``"007"``, ``"1e2"``) stays the string it is, for the shape check."""

    def __init__(self) -> None:
        self._seen = FieldCounts()

    def placed(self, value: Any, raw: bytes | None, fits: Callable[[Any], bool]) -> Any | None:
        """``value`` (an answer that fails its shape check, ``raw`` its bytes if at hand) with
        each such string as its integer, when that makes it fit (``fits``), counted; else
        None. Asked only of an answer that does not fit as it is: a correct one costs nothing."""
        if raw is not None and _QUOTED.search(raw) is None:
            return None
        seen: dict[str, int] = {}
        result = _strings_placed(value, None, seen)
        if not seen or not fits(result):
            return None
        self._seen.add(seen)
        return result

    def reservations(self) -> list[dict[str, Any]]:
        """One reservation naming the fields seen as strings, or none."""
        fields = self._seen.listed()
        if not fields:
            return []
        message = (
            "integers answered as JSON strings of their digits, not JSON numbers: "
            f"{fields}; each was taken as the integer it writes"
        )
        lift = 'answer money, stakes and indices as JSON numbers (10000, not "10000")'
        return [reading_reservation(STRING_BASIS, message, lift)]


def _strings_placed(value: Any, field: str | None, seen: dict[str, int]) -> Any:
    if type(value) is str:
        if field is None or _DIGITS.match(value) is None:
            return value
        seen[field] = seen.get(field, 0) + 1
        return int(value)
    if type(value) is dict:
        return {
            k: _strings_placed(v, k if k in INTEGER_FIELDS else None, seen)
            for k, v in value.items()
        }
    if type(value) is list:
        return [_strings_placed(v, field, seen) for v in value]
    return value
