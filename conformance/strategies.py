"""The suite's hypothesis strategies that hold for every game, and the helpers the games'
own strategies draw with.

Each game's strategies are its own (``conformance/games/_<game>_strategies.py``, aimed at the
edges where implementations of that game go wrong, rules.md article 4) and reach the checks
through the game's kit: ``valid_tickets(game)`` and ``invalid_tickets(game)`` here ask it.
The strategies are tested in ``tests/conformance/test_strategies.py``.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TypeVar

from hypothesis import strategies as st

import reference

from . import _hypothesis  # noqa: F401  (draws depend on the seed alone: see the module)
from .games import kit

T = TypeVar("T")


@functools.cache
def integers_between(low: int, high: int) -> st.SearchStrategy[int]:
    """``st.integers(low, high)``, one object per range: a strategy is validated the first
    time it is drawn from, so strategies made per draw pay that per draw."""
    return st.integers(low, high)


def pick(draw: st.DrawFn, options: Sequence[T]) -> T:
    """One of ``options`` (a list built per example), drawn as ``st.sampled_from`` draws it
    (one index, shrinking towards the first) without building a strategy per draw."""
    return options[draw(integers_between(0, len(options) - 1))]


def stakes(game: str) -> st.SearchStrategy[int]:
    """The stakes of ``game``, from its rules."""
    return st.sampled_from(reference.load_rules(game).stakes_cents)


BOOLEANS = st.booleans()


@functools.cache
def kinds_of(kinds: tuple[str, ...]) -> st.SearchStrategy[str]:
    return st.sampled_from(kinds)


def invalid_tickets_of(game: str, kind: str) -> st.SearchStrategy[str]:
    """Invalid tickets of ``game`` of one ``kind`` only (the game's kit, ``conformance.games``)."""
    return kit(game).invalid_tickets_of(kind)


def invalid_tickets(game: str) -> st.SearchStrategy[tuple[str, str]]:
    """Invalid tickets of ``game``, with their kind."""
    found = kit(game)
    return found.invalid_tickets(tuple(found.invalid_kinds))


def valid_tickets(game: str) -> st.SearchStrategy[str]:
    """Valid tickets of ``game``, aimed at the edges."""
    return kit(game).valid_tickets()
