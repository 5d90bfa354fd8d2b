"""A metamorphic relation: a change to a ticket that the rules say changes nothing, and how the
two answers must then agree. Each game's relations are its own (``_<game>_relations.py``, on its
kit's ``relations``); ``metamorphic`` registers one check per relation of every kit.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hypothesis import strategies as st

WinKey = Callable[[Mapping[str, Any]], Any]
Keys = Callable[[str, str, int], tuple[WinKey, WinKey]]
"""(ticket, transformed, seed) -> the keys of the two answers' wins that must match."""


def _identity(win: Mapping[str, Any]) -> Any:
    return sorted(
        (k, v)
        for k, v in win.items()
        if k in ("robot", "grid", "row", "symbol", "count", "amount_cents")
    )


def identity_keys(ticket: str, transformed: str, seed: int) -> tuple[WinKey, WinKey]:
    """Each win kept as it is: the transform moves no win."""
    return _identity, _identity


@dataclass(frozen=True)
class Relation:
    name: str  # the requirement id
    game: str
    transform: Callable[[str, int], str]
    tickets: Callable[[], st.SearchStrategy[str]]
    check: str  # the check's id after ``metamorphic.``
    doc: str  # what the check verifies, for the reports
    keys_of: Keys = identity_keys

    def keys(self, ticket: str, transformed: str, seed: int) -> tuple[WinKey, WinKey]:
        return self.keys_of(ticket, transformed, seed)


__all__ = ["Keys", "Relation", "WinKey", "identity_keys"]
