"""A reveal's flags written as 0 and 1 (docs/contract-decisions.md, ``flag-numbers``).

Contract 4 names the reveal answer's ``x2`` and ``plus_one`` without a type. The project reads
them as JSON booleans (its schema); a vendor whose flags come from an integer column (MySQL's
``TINYINT(1)``, written ``0`` and ``1`` by PHP's ``json_encode``) breaks no sentence of the
contract: over HTTP, ``0`` and ``1`` there are taken as false and true, and the run gets one
reservation (``FlagNumbers``), never an error. Any other number, or another type, stays the
shape check's to refuse.
"""

from __future__ import annotations

from typing import Any

from ._field_counts import FieldCounts, reading_reservation

BASIS = "flag-numbers"

FLAG_FIELDS: dict[str, tuple[str, ...]] = {"reveal": ("x2", "plus_one")}
"""The answers (by schema) whose own fields are flags."""


class FlagNumbers:
    """Turns the 0 and 1 flags of an answer into booleans, counting them per field, and words
    the run's reservation about them (thread-safe)."""

    def __init__(self) -> None:
        self._seen = FieldCounts()

    def as_booleans(self, value: Any, shape: str | None) -> Any:
        """``value`` (an answer of schema ``shape``) with its 0 and 1 flags as booleans;
        anything else as it is (the shape check then judges it)."""
        names = FLAG_FIELDS.get(shape or "")
        if names is None or type(value) is not dict:
            return value
        numbers = {n: value[n] for n in names if type(value.get(n)) is int and value[n] in (0, 1)}
        if not numbers:
            return value
        self._seen.add(dict.fromkeys(numbers, 1))
        return {**value, **{n: bool(v) for n, v in numbers.items()}}

    def reservations(self) -> list[dict[str, Any]]:
        """One reservation naming the flags seen as numbers, or none."""
        fields = self._seen.listed()
        if not fields:
            return []
        message = (
            f"a reveal's flags answered as the numbers 0 and 1, not JSON booleans: {fields}; "
            "each was taken as false or true"
        )
        lift = "answer a reveal's x2 and plus_one as JSON booleans (true, false)"
        return [reading_reservation(BASIS, message, lift)]
