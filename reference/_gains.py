"""What every game's ticket generator shares: gains, decompositions, and the draws it makes.

A prize is reached by cumulating gains (article 3, "cumul de gains"): a ``Gain`` is one of them
(robots: a full gauge; eldorado: a winning row; another game: whatever its rules pay), a
``Decomposition`` one way of adding them up to the prize. ``Chooser`` draws one of a prize's
decompositions, and ``shuffle``/``sample`` draw from a ``random.Random``'s ``random`` alone, so a
block that seeds one per unit can rebuild any unit by itself. Game engines build their
generators from these (``GameEngine.ticket_maker``); nothing here knows a game.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from ._errors import GameError

#: When a prize is one single gain (one gauge, one row), that form is drawn with this
#: probability; otherwise, or in the remaining draws, every other decomposition is equally likely.
SINGLE_GAIN_SHARE = 0.5

T = TypeVar("T")


class PrizeError(GameError):
    """A prize that is not an amount in cents the game's gains can add up to."""

    code = "invalid_prize"


@dataclass(frozen=True, order=True)
class Gain:
    """One gain a unit can hold.

    robots: a full gauge (``symbol`` the robot's letter, ``count`` its notches, article 4.8);
    eldorado: a winning row (``count`` identical ``symbol`` on one row, article 4.4).
    """

    amount_cents: int
    symbol: str
    count: int


Decomposition = tuple[Gain, ...]


def check_prize(prize_cents: object) -> int:
    """The prize if it is an integer number of cents, 0 or more; PrizeError otherwise."""
    if type(prize_cents) is not int or prize_cents < 0:
        raise PrizeError(
            f"prize_cents {prize_cents!r} ({type(prize_cents).__name__}) is not a prize: "
            "expected an integer number of cents, 0 or more"
        )
    return prize_cents


def decomposition_key(dec: Decomposition) -> tuple[int, tuple[Gain, ...]]:
    """Fewest gains first, then the gains in descending order: the order decompositions come in."""
    return len(dec), tuple(sorted(dec, reverse=True))


Rand = Callable[[], float]


# A uniform integer in 0..n-1 is drawn as ``int(rand() * n)`` throughout: one ``random()``,
# bias below n / 2^53 (as Python's own shuffle had it until 3.11), several times cheaper than
# ``randrange``, which matters at 2 000 000 tickets a block.


def shuffle(items: list[Any], rand: Rand) -> None:
    """Fisher-Yates, in place."""
    for i in range(len(items) - 1, 0, -1):
        j = int(rand() * (i + 1))
        items[i], items[j] = items[j], items[i]


def sample(items: Sequence[T], k: int, rand: Rand) -> list[T]:
    """``k`` distinct positions' items, uniformly: the first k steps of a Fisher-Yates."""
    pool = list(items)
    n = len(pool)
    for i in range(k):
        j = i + int(rand() * (n - i))
        pool[i], pool[j] = pool[j], pool[i]
    return pool[:k]


class Chooser:
    """Draws a decomposition: the single-gain one with SINGLE_GAIN_SHARE, else uniformly."""

    def __init__(self, decompositions: Sequence[Decomposition]) -> None:
        self.singles = [d for d in decompositions if len(d) <= 1]
        self.others = [d for d in decompositions if len(d) > 1]
        if not self.others:
            self.others = self.singles
        elif not self.singles:
            self.singles = self.others

    def __call__(self, rand: Rand) -> Decomposition:
        pool = self.singles if rand() < SINGLE_GAIN_SHARE else self.others
        return pool[int(rand() * len(pool))] if len(pool) > 1 else pool[0]
