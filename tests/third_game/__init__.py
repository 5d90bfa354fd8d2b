"""Coins, the test-only third game: its rules (``rules.yaml``) and engine (``engine.py``).

Nothing of it ships: a test registers it for as long as it needs it,

    with third_game.registered():
        reference.evaluate("coins", 100, "GGG|GSB")

and the registry, the blocks, the service and the HTTP server serve it like robots and
eldorado. ``docs/adding-a-game.md`` walks through it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import reference
from reference import GameDefinition

from .engine import CoinsEngine, CoinsRules, CoinsTicket

NAME = "coins"
RULES_PATH = Path(__file__).with_name("rules.yaml")

__all__ = ["NAME", "RULES_PATH", "CoinsEngine", "CoinsRules", "CoinsTicket", "registered"]


def register() -> GameDefinition:
    """Register Coins (again: nothing changes); its rules are read and checked now."""
    return reference.register_game(NAME, CoinsEngine, RULES_PATH)


@contextlib.contextmanager
def registered() -> Iterator[GameDefinition]:
    """Coins registered inside the block, removed after (unless it was registered before)."""
    already = NAME in reference.GAMES
    definition = register()
    try:
        yield definition
    finally:
        if not already:
            reference.unregister_game(NAME)
