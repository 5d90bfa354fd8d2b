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

from collections.abc import Callable
from typing import Any

from reference._strict_json import INTEGRAL_MOST_DIGITS, integral, strict_float

from ._field_counts import FieldCounts

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
