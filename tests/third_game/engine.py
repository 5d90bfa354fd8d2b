"""The engine of Coins, the test-only third game: the whole ``reference.GameEngine`` interface.

A ticket is ``GGS|BBB``: two purses of three coins (``rules.yaml``), separated by ``|``. A purse
of three identical coins pays that coin's amount at the stake played; both purses' gains add up
(so 300 cents at stake 100 is two bronze purses, at stake 200 one). A play is revealed purse by
purse (article 6): each purse is a button, each click shows its next coin, and every coin but
the purse's last carries a +1 (the button can be clicked again), so the reveal protocol's checks
play Coins through the same code as robots. Everything here is derived
from the rules data, as the two real games' engines do, and nothing of it ships in a package:
``tests/third_game`` registers it with ``reference.register_game`` for the tests that need it.
"""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from reference.engine_kit import (
    Chooser,
    Decomposition,
    Gain,
    GameEngine,
    GameRules,
    PrizeError,
    RulesNode,
    TicketError,
    check_prize,
    decomposition_key,
    sample,
    stake_error,
    unique,
)

PURSE_SEPARATOR = "|"


@dataclass(frozen=True)
class Coin:
    letter: str
    name: str
    amount_cents: Mapping[int, int]  # stake -> what a purse of three of it pays


@dataclass(frozen=True)
class CoinsRules(GameRules):
    purses: int
    coins_per_purse: int
    coins: tuple[Coin, ...]


@dataclass(frozen=True)
class CoinsTicket:
    """The purses left to right, each a string of coin letters."""

    purses: tuple[str, ...]


def parse_coins_rules(root: RulesNode, common: dict[str, Any]) -> CoinsRules:
    """The game's own keys: ``purses`` (count, coins) and ``coins.list``."""
    stakes = common["stakes_cents"]
    purses = root.key("purses")
    nodes = root.key("coins").key("list").items()
    coins = []
    for n in nodes:
        amounts: dict[int, int] = {}
        for stake, amount in n.key("amount_cents").mapping().items():
            if stake not in stakes:
                raise amount.fail(f"{stake!r} is not one of the game's stakes {list(stakes)}")
            amounts[stake] = amount.positive_int()
        if set(amounts) != set(stakes):
            raise n.key("amount_cents").fail(f"expected an amount for every stake {list(stakes)}")
        coins.append(Coin(n.key("letter").letter(), n.key("name").text(), amounts))
    unique(nodes, [c.letter for c in coins], "letter")
    unique(nodes, [c.name for c in coins], "name")
    if len(coins) < 2:
        raise root.key("coins").fail("a losing purse needs at least two kinds of coin")
    return CoinsRules(
        **common,
        purses=purses.key("count").positive_int(),
        coins_per_purse=purses.key("coins").positive_int(),
        coins=tuple(coins),
    )


class CoinsEngine(GameEngine):
    """Notation, evaluation and generation of Coins for one set of its rules."""

    TICKET_TYPE = CoinsTicket
    WIN_KINDS = frozenset({"one purse", "purses added"})
    rules: CoinsRules

    @classmethod
    def parse_rules(cls, root: RulesNode, common: dict[str, Any]) -> CoinsRules:
        return parse_coins_rules(root, common)

    def __init__(self, rules: CoinsRules) -> None:
        super().__init__(rules)
        self._letters = "".join(c.letter for c in rules.coins)
        purse = f"[{self._letters}]{{{rules.coins_per_purse}}}"
        sep = re.escape(PURSE_SEPARATOR)
        self._match = re.compile(rf"{purse}(?:{sep}{purse}){{{rules.purses - 1}}}").fullmatch
        # a winning purse (three alike) -> (coin name, {stake: amount})
        self._winning = {
            c.letter * rules.coins_per_purse: (c.name, dict(c.amount_cents)) for c in rules.coins
        }
        self._makers: dict[int, CoinsMaker] = {}

    def _check_stake(self, stake_cents: object) -> int:
        if type(stake_cents) is not int or stake_cents not in self.rules.stakes_cents:
            raise stake_error(self.rules.game, stake_cents, self.rules.stakes_cents)
        return stake_cents

    def _purses(self, ticket: object) -> list[str]:
        if type(ticket) is not str or self._match(ticket) is None:
            raise self._diagnose(ticket)
        return ticket.split(PURSE_SEPARATOR)

    def _diagnose(self, ticket: object) -> TicketError:
        """Name the first fault of an invalid ticket, and where it is."""
        if not isinstance(ticket, str):
            return TicketError(f"a ticket is a string, got {type(ticket).__name__}: {ticket!r}")
        purses = ticket.split(PURSE_SEPARATOR)
        for p, purse in enumerate(purses):
            for c, letter in enumerate(purse):
                if letter not in self._letters:
                    return TicketError(
                        f"purse {p}, coin {c}: {letter!r} is not a coin ({self._letters})"
                    )
            if len(purse) != self.rules.coins_per_purse:
                return TicketError(
                    f"purse {p}: expected {self.rules.coins_per_purse} coins, got "
                    f"{len(purse)}: {purse!r}"
                )
        return TicketError(
            f"expected {self.rules.purses} purses separated by {PURSE_SEPARATOR!r}, "
            f"got {len(purses)}: {ticket!r}"
        )

    # -- evaluation -------------------------------------------------------------------------

    def evaluate(self, stake_cents: int, ticket: str) -> dict[str, Any]:
        stake = self._check_stake(stake_cents)
        wins = []
        for p, purse in enumerate(self._purses(ticket)):
            win = self._winning.get(purse)
            if win is not None:
                wins.append({"purse": p, "symbol": win[0], "amount_cents": win[1][stake]})
        return {"prize_cents": sum(w["amount_cents"] for w in wins), "wins": wins}

    def prize_cents(self, stake_cents: int, ticket: str) -> int:
        return int(self.evaluate(stake_cents, ticket)["prize_cents"])

    def win_kinds(self, stake_cents: int, ticket: str) -> frozenset[str]:
        wins = self.evaluate(stake_cents, ticket)["wins"]
        if not wins:
            return frozenset()
        return frozenset({"purses added" if len(wins) > 1 else "one purse"})

    # -- play (article 6) --------------------------------------------------------------------

    @property
    def buttons(self) -> int:
        """One button per purse."""
        return self.rules.purses

    def button_reveals(self, ticket: str) -> tuple[tuple[dict[str, Any], ...], ...]:
        """Each purse's coins, one a click, by name; a +1 on every coin but the last."""
        names = {c.letter: c.name for c in self.rules.coins}
        return tuple(
            tuple(
                {"symbol": names[coin], "x2": False, "plus_one": k < len(purse) - 1}
                for k, coin in enumerate(purse)
            )
            for purse in self._purses(ticket)
        )

    def reveal_symbols(self) -> dict[str, str]:
        """A coin's name (``gold``) or its letter (``G``), each to its letter."""
        coins = self.rules.coins
        return {**{c.name: c.letter for c in coins}, **{c.letter: c.letter for c in coins}}

    # -- notation ---------------------------------------------------------------------------

    def parse(self, ticket: str) -> CoinsTicket:
        return CoinsTicket(tuple(self._purses(ticket)))

    def format(self, ticket: Any) -> str:
        if not isinstance(ticket, CoinsTicket) or not all(
            isinstance(p, str) for p in ticket.purses
        ):
            raise TicketError(f"expected a CoinsTicket of purse strings, got {ticket!r}")
        text = PURSE_SEPARATOR.join(ticket.purses)
        self._purses(text)
        return text

    # -- contract ---------------------------------------------------------------------------

    def win_schema(self) -> dict[str, Any]:
        """One entry of ``wins``: the purse (0-based, left to right), its coin, its amount."""
        return {
            "type": "object",
            "required": ["purse", "symbol", "amount_cents"],
            "properties": {
                "purse": {"type": "integer", "minimum": 0, "maximum": self.rules.purses - 1},
                "symbol": {"enum": [c.name for c in self.rules.coins]},
                "amount_cents": {"type": "integer", "minimum": 1},
            },
            "additionalProperties": False,
        }

    # -- generation -------------------------------------------------------------------------

    def gains(self, stake_cents: int) -> tuple[Gain, ...]:
        """One gain per coin: a purse of three of it."""
        stake = self._check_stake(stake_cents)
        n = self.rules.coins_per_purse
        return tuple(
            sorted(
                (Gain(c.amount_cents[stake], c.letter, n) for c in self.rules.coins), reverse=True
            )
        )

    def prize_decompositions(self, stake_cents: int, prize_cents: int) -> tuple[Decomposition, ...]:
        """The multisets of at most ``purses`` winning purses adding up to the prize."""
        prize = check_prize(prize_cents)
        gains = self.gains(stake_cents)
        found = [
            dec
            for size in range(self.rules.purses + 1)
            for dec in itertools.combinations_with_replacement(gains, size)
            if sum(g.amount_cents for g in dec) == prize
        ]
        return tuple(sorted(found, key=decomposition_key))

    def ticket_maker(self, stake_cents: int) -> Callable[[int, random.Random], str]:
        stake = self._check_stake(stake_cents)
        found = self._makers.get(stake)
        if found is None:
            found = self._makers[stake] = CoinsMaker(self, stake)
        return found.make


class CoinsMaker:
    """Coins tickets of a prize at one stake: a decomposition (``Chooser``), its winning purses
    at uniformly chosen places, every other purse uniform over the purses that win nothing."""

    def __init__(self, engine: CoinsEngine, stake_cents: int) -> None:
        self.engine = engine
        self.stake = stake_cents
        rules = engine.rules
        self.purses = rules.purses
        letters = [c.letter for c in rules.coins]
        self.losing = [
            "".join(p)
            for p in itertools.product(letters, repeat=rules.coins_per_purse)
            if len(set(p)) > 1
        ]
        self._choosers: dict[int, Chooser] = {}

    def chooser(self, prize: int) -> Chooser:
        found = self._choosers.get(prize)
        if found is None:
            decompositions = self.engine.prize_decompositions(self.stake, prize)
            if not decompositions:
                raise PrizeError(
                    f"prize_cents {prize!r}: no {self.purses} or fewer winning purses add up to "
                    f"it at stake {self.stake}"
                )
            found = self._choosers[prize] = Chooser(decompositions)
        return found

    def make(self, prize: int, rng: random.Random) -> str:
        rand = rng.random
        dec = self.chooser(prize)(rand)
        purses = [self.losing[int(rand() * len(self.losing))] for _ in range(self.purses)]
        size = self.engine.rules.coins_per_purse
        for at, gain in zip(sample(range(self.purses), len(dec), rand), dec, strict=True):
            purses[at] = gain.symbol * size
        return PURSE_SEPARATOR.join(purses)
