"""Tickets for a given prize: a random, valid and varied scenario that evaluates to exactly it.

Everything is derived from the game's rules data by its engine (``GameEngine.ticket_maker``,
``GameEngine.prize_decompositions``; robots in ``_robots_make``, eldorado in ``_eldorado_make``,
the shared draws in ``_gains``). The distribution each draw follows is stated next to the code
and in ``docs/blocks.md``; all randomness comes from the ``random.Random`` passed in, so a
block seeds one per unit and any unit can be rebuilt alone.
"""

from __future__ import annotations

import random

from ._errors import GameError
from ._gains import SINGLE_GAIN_SHARE, Decomposition, Gain, PrizeError, check_prize
from ._games import check_game, check_stake, game_engine

__all__ = [
    "SINGLE_GAIN_SHARE",
    "Decomposition",
    "Gain",
    "PrizeError",
    "TicketMaker",
    "generate_ticket",
    "prize_decompositions",
]


def prize_decompositions(
    game: str, stake_cents: int, prize_cents: int
) -> tuple[Decomposition, ...]:
    """Every way ``prize_cents`` is reached by cumulating gains (article 3, "cumul de gains").

    robots: the sets of full gauges whose amounts add up to it; eldorado: the multisets of row
    combinations, at most ``ELDORADO_MAX_WINS`` of them. Each decomposition lists its gains in
    descending order; decompositions come fewest gains first. ``((),)`` for 0; ``()`` when the
    amount cannot be reached.
    """
    check_stake(game, stake_cents)
    prize = check_prize(prize_cents)
    return game_engine(game).prize_decompositions(stake_cents, prize)


class TicketMaker:
    """The fast path for blocks: one game and stake, arguments checked once, tables built once."""

    def __init__(self, game: str, stake_cents: int) -> None:
        check_stake(game, stake_cents)
        self.game = game
        self.stake_cents = stake_cents
        self._make = game_engine(game).ticket_maker(stake_cents)

    def __call__(self, prize_cents: int, rng: random.Random) -> str:
        return self._make(prize_cents, rng)


def generate_ticket(game: str, stake_cents: int, prize_cents: int, rng: random.Random) -> str:
    """A random valid ticket of ``game`` that evaluates to exactly ``prize_cents`` at that stake.

    Works for 0 and for every amount the game's gains can add up to (every lot of every lot
    table among them); the draw follows the distribution documented in ``docs/blocks.md``.
    """
    check_game(game)
    check_stake(game, stake_cents)
    prize = check_prize(prize_cents)
    if not isinstance(rng, random.Random):
        raise GameError(
            f"rng {rng!r} ({type(rng).__name__}) is not a random source: "
            "expected a random.Random (seed it to reproduce the ticket)"
        )
    return TicketMaker(game, stake_cents)(prize, rng)
