"""One entry point over every registered game: ``evaluate(game, stake_cents, ticket)``.

Each function looks the game's engine up in the registry (``_games``): an unknown game is an
``UnknownGameError`` showing the value, never another game's path.
"""

from __future__ import annotations

from typing import Any

from ._errors import TicketError
from ._games import check_stake, engine_of_ticket, game_engine, games

__all__ = [
    "Ticket",
    "check_stake",
    "evaluate",
    "format_ticket",
    "game_win_kinds",
    "parse_ticket",
    "prize_cents",
    "win_kinds",
]

#: a structured ticket of any game (its engine's ``TICKET_TYPE``)
Ticket = Any


def evaluate(game: str, stake_cents: int, ticket: str) -> dict[str, Any]:
    """The evaluation result of contract section 2: ``{"prize_cents", "wins"}``."""
    return game_engine(game).evaluate(stake_cents, ticket)


def prize_cents(game: str, stake_cents: int, ticket: str) -> int:
    """Only the prize: the fast path for block audits."""
    return game_engine(game).prize_cents(stake_cents, ticket)


def win_kinds(game: str, stake_cents: int, ticket: str) -> frozenset[str]:
    """The kinds of win ``ticket`` shows (empty for a losing one), from ``game_win_kinds``."""
    return game_engine(game).win_kinds(stake_cents, ticket)


def game_win_kinds(game: str) -> frozenset[str]:
    """Every kind of win a unit of ``game`` can show."""
    return game_engine(game).WIN_KINDS


def parse_ticket(game: str, ticket: str) -> Ticket:
    """The structured form of a ticket of ``game``; TicketError names the fault and where."""
    return game_engine(game).parse(ticket)


def format_ticket(ticket: Ticket) -> str:
    """The notation of a structured ticket (the inverse of parse_ticket, loss-free)."""
    engine = engine_of_ticket(ticket)
    if engine is None:
        kinds = ", ".join(game_engine(g).TICKET_TYPE.__name__ for g in games())
        raise TicketError(
            f"expected a ticket of a game ({kinds}), got {type(ticket).__name__}: {ticket!r}"
        )
    return engine.format(ticket)
