"""Which requirement does a disagreement break? Diagnosis by probes, not by guesswork.

A shrunk counterexample says *that* the target is wrong; the report must say *which rule* it
breaks. Each game's classifier (its kit's ``diagnosis``: ``_<game>_classify.py``) sends a few
probe tickets to the target, each exercising one rule of the game in isolation, and reads which
probe the target gets wrong; only when nothing narrows it does a disagreement stay on the
game's general requirement. This module holds what every classifier asks with.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .._evaluation import check_shape, difference, expected_result


def ask(adapter: Any, game: str, stake: int, tickets: Sequence[str]) -> list[dict[str, Any]]:
    return check_shape(adapter.evaluate(game, stake, list(tickets)), tickets)


def agrees(game: str, stake: int, ticket: str, got: Mapping[str, Any]) -> bool:
    return difference(game, expected_result(game, stake, ticket), got) is None
