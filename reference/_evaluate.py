"""One entry point over both games: ``evaluate(game, stake_cents, ticket)``."""

from __future__ import annotations

from typing import Any

from . import _eldorado, _robots
from ._rules import check_game, load_rules, stake_error

Ticket = _robots.RobotsTicket | _eldorado.EldoradoTicket


def check_stake(game: str, stake_cents: object) -> int:
    """The stake if ``game`` sells it; a StakeError that shows the value otherwise."""
    stakes = load_rules(check_game(game)).stakes_cents
    if type(stake_cents) is not int or stake_cents not in stakes:
        raise stake_error(game, stake_cents, stakes)
    return stake_cents


def _engine(game: str) -> _robots.RobotsEngine | _eldorado.EldoradoEngine:
    if game == "robots":
        return _robots.engine()
    if game == "eldorado":
        return _eldorado.engine()
    check_game(game)  # raises UnknownGameError naming the value
    raise AssertionError(f"no engine for {game!r}")  # pragma: no cover


def evaluate(game: str, stake_cents: int, ticket: str) -> dict[str, Any]:
    """The evaluation result of contract section 2: ``{"prize_cents", "wins"}``."""
    return _engine(game).evaluate(stake_cents, ticket)


def prize_cents(game: str, stake_cents: int, ticket: str) -> int:
    """Only the prize: the fast path for block audits."""
    return _engine(game).prize_cents(stake_cents, ticket)


def win_kinds(game: str, stake_cents: int, ticket: str) -> frozenset[str]:
    """The kinds of win ``ticket`` shows (empty for a losing one), from ``game_win_kinds``."""
    return _engine(game).win_kinds(stake_cents, ticket)


def game_win_kinds(game: str) -> frozenset[str]:
    """Every kind of win a unit of ``game`` can show."""
    return _engine(game).WIN_KINDS


def parse_ticket(game: str, ticket: str) -> Ticket:
    """The structured form of a ticket of ``game``; TicketError names the fault and where."""
    return _engine(game).parse(ticket)


def format_ticket(ticket: Ticket) -> str:
    """The notation of a structured ticket (the inverse of parse_ticket, loss-free)."""
    if isinstance(ticket, _robots.RobotsTicket):
        return _robots.engine().format(ticket)
    return _eldorado.engine().format(ticket)
