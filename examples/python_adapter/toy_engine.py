"""A vendor's own engine, with its own API: what ``adapter.py`` wraps for instantcert.

It stands for whatever the vendor really has (a C library behind ``ctypes``, a gRPC client, a
Java service): its names, its errors and its units are its own, not the contract's. To stay
short it scores tickets with the reference's rules engine; ``x2_bug=True`` makes it count an X2
as one notch (robots article 4.6), to show what a failure looks like.
"""

from __future__ import annotations

from typing import Any

import reference


class Rejected(Exception):
    """The engine refuses a ticket: ``reason`` is its own short code."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


class ToyEngine:
    name = "toy-engine"
    version = "1.0"

    def __init__(self, *, x2_bug: bool = False) -> None:
        self.x2_bug = x2_bug

    def price_list(self) -> dict[str, list[int]]:
        """The stakes it sells, in cents, per game."""
        return {game: list(reference.load_rules(game).stakes_cents) for game in reference.GAMES}

    def score(self, game: str, stake_cents: int, ticket: str) -> tuple[int, list[dict[str, Any]]]:
        """(prize in cents, the winning lines) of one ticket; ``Rejected`` if it is invalid."""
        try:
            result = reference.evaluate(game, stake_cents, ticket)
        except reference.GameError as exc:
            raise Rejected(exc.code, str(exc)) from None
        if self.x2_bug and game == "robots":  # the bug: the same reveals without their X2s
            board, reveals = ticket.split("|", 1)
            result = reference.evaluate(game, stake_cents, board + "|" + reveals.replace("2", ""))
        return result["prize_cents"], result["wins"]
