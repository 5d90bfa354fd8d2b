"""Ids written as JSON integers (docs/contract-decisions.md, ``id-numbers``).

Contract 4 names ``account_id``, ``play_id`` and ``block_id`` without a type. The project reads
them as strings (its schemas; contract 3 writes a block id ``"robots-100-0001"``, and an id goes
in a path, which is text). A vendor whose ids are integer primary keys (``{"account_id": 42}``)
breaks no sentence of the contract: over HTTP, an integer id is taken as the text a path
carries (``42`` is ``"42"``), the same everywhere it is seen, and the run gets one reservation
(``IdNumbers``), never an error. A JSON integer is exact in this harness's parser at any size;
past 2^53 a JavaScript client would round it, which the reservation says.
"""

from __future__ import annotations

import threading
from typing import Any

BASIS = "id-numbers"

ID_FIELDS: dict[str, tuple[str, ...]] = {
    "account": ("account_id",),
    "balance": ("account_id",),
    "play": ("play_id", "block_id"),
    "auto": ("play_id",),
    "block-header": ("block_id",),
}
"""The answers (by schema) whose own fields are ids."""

LISTED_ID_FIELDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "history": ("plays", ("play_id", "block_id")),
    "block-list": ("blocks", ("block_id",)),
}
"""The answers whose listed entries carry ids: (the list's field, the ids of an entry)."""

JS_EXACT = 2**53


class IdNumbers:
    """Turns the integer ids of an answer into their text, counting them per field, and words
    the run's reservation about them (thread-safe)."""

    def __init__(self) -> None:
        self._seen: dict[str, int] = {}
        self._largest = 0
        self._lock = threading.Lock()

    def as_text(self, value: Any, shape: str | None) -> Any:
        """``value`` (an answer of schema ``shape``) with its integer ids as text; anything
        else as it is (the shape check then judges it)."""
        if type(value) is not dict:
            return value
        if shape in ID_FIELDS:
            return self._entry(value, ID_FIELDS[shape])
        if shape in LISTED_ID_FIELDS:
            field, names = LISTED_ID_FIELDS[shape]
            entries = value.get(field)
            if type(entries) is list and any(
                type(e) is dict and any(type(e.get(n)) is int for n in names) for e in entries
            ):
                listed = [self._entry(e, names) if type(e) is dict else e for e in entries]
                return {**value, field: listed}
        return value

    def _entry(self, entry: dict[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
        numbers = {n: entry[n] for n in names if type(entry.get(n)) is int}
        if not numbers:
            return entry
        with self._lock:
            for name, number in numbers.items():
                self._seen[name] = self._seen.get(name, 0) + 1
                self._largest = max(self._largest, abs(number))
        return {**entry, **{n: str(v) for n, v in numbers.items()}}

    def reservations(self) -> list[dict[str, Any]]:
        """One reservation naming the ids seen as numbers, or none."""
        with self._lock:
            seen, largest = sorted(self._seen.items()), self._largest
        if not seen:
            return []
        fields = ", ".join(f"{name} ({count:,} times)" for name, count in seen)
        rounded = (
            f"; the largest, {largest}, is past 2^53, where a JavaScript client rounds it"
            if largest > JS_EXACT
            else ""
        )
        return [
            {
                "kind": "reading",
                "basis": BASIS,
                "message": (
                    f"ids answered as JSON numbers, not strings: {fields}; each was taken as "
                    f"the text a path carries{rounded}"
                ),
                "lift": "answer account_id, play_id and block_id as JSON strings",
                "requirements": [],
                "evidence": [],
            }
        ]
