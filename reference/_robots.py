"""Le Retour des Robots' engine: ticket notation (contract section 1), evaluation (article 4),
the reveal by button, and its generator (``_robots_make``) behind the ``GameEngine`` interface.

The hot path works on the ticket string itself: one compiled regular expression validates the
notation, ``str.count`` fills the gauges. Only an invalid ticket takes the slow path, which
walks it piece by piece to say exactly what is wrong and where.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ._errors import TicketError
from ._gains import Decomposition, check_prize
from ._games import GameEngine, game_engine, load_rules
from ._robots_make import RobotsMaker, RobotsPools, robots_sums
from ._robots_rules import PLUS_ONE_MARK, X2_MARK, RobotsRules, parse_robots_rules
from ._rules import RulesNode, stake_error

__all__ = [
    "PLUS_ONE_MARK",
    "X2_MARK",
    "Reveal",
    "RobotsEngine",
    "RobotsTicket",
    "engine",
    "format_ticket",
    "parse_ticket",
    "robots_rules",
]


@dataclass(frozen=True)
class Reveal:
    """One symbol revealed under a button (article 4.3), with its X2 (4.6) and +1 (4.7) marks.

    ``plus_one`` means a +1 shows above the button after this reveal, so the button can be
    clicked again: every reveal of a button but its last carries it.
    """

    symbol: str
    x2: bool = False
    plus_one: bool = False


@dataclass(frozen=True)
class RobotsTicket:
    """A robots unit as the player sees it: the robots left to right, then the 18 buttons."""

    robots: tuple[str, ...]
    buttons: tuple[tuple[Reveal, ...], ...]

    def format(self) -> str:
        return format_ticket(self)


class RobotsEngine(GameEngine):
    """The robots engine (``GameEngine``) for one set of robots rules (the packaged ones by
    default): notation, evaluation, generation, and the reveal by button."""

    TICKET_TYPE = RobotsTicket
    rules: RobotsRules

    @classmethod
    def parse_rules(cls, root: RulesNode, common: dict[str, Any]) -> RobotsRules:
        return parse_robots_rules(root, common)

    def __init__(self, rules: RobotsRules) -> None:
        super().__init__(rules)
        letters = "".join(s.letter for s in rules.symbols)
        self._letters = frozenset(letters)
        reveal = f"[{letters}]{X2_MARK}?"
        button = rf"{reveal}(?:\{PLUS_ONE_MARK}{reveal})*"
        self._match = re.compile(
            rf"[{letters}]{{{rules.robots}}}\|{button}(?: {button}){{{rules.buttons - 1}}}"
        ).fullmatch
        # article 4.8: (letter, letter with X2, notches to fill, half of them rounded up, amount,
        # symbol name). A gauge with fewer plain reveals than half its notches cannot be full
        # even if every reveal had an X2, so its X2s need not be counted: the hot loop's shortcut.
        self._gauges = tuple(
            (
                s.letter,
                s.letter + X2_MARK,
                s.gauge_notches,
                (s.gauge_notches + 1) // 2,
                s.amount_cents,
                s.name,
            )
            for s in rules.symbols
        )
        self._split = rules.robots
        self._stakes = frozenset(rules.stakes_cents)
        self._sums: dict[int, tuple[Decomposition, ...]] | None = None
        self._maker: RobotsMaker | None = None

    def _check_stake(self, stake_cents: object) -> None:
        if type(stake_cents) is not int or stake_cents not in self._stakes:
            raise stake_error(self.rules.game, stake_cents, self.rules.stakes_cents)

    # -- evaluation -------------------------------------------------------------------------

    def _checked_body(self, ticket: object) -> str:
        if type(ticket) is not str or self._match(ticket) is None:
            raise self._diagnose(ticket)
        if frozenset(ticket[: self._split]) != self._letters:  # R-I1: each symbol once
            raise self._diagnose(ticket)
        return ticket[self._split + 1 :]

    def prize_cents(self, stake_cents: int, ticket: str) -> int:
        """The ticket's prize: the hot loop of every block audit."""
        self._check_stake(stake_cents)
        body = self._checked_body(ticket)
        prize = 0
        for letter, doubled, notches, half, amount, _ in self._gauges:
            # 4.5 one notch per reveal, 4.6 one more for an X2; R-I3 a gauge wins once
            plain = body.count(letter)
            if plain >= notches or (plain >= half and plain + body.count(doubled) >= notches):
                prize += amount  # 4.8 a full gauge wins its amount; 4.9/4.10 gains add up
        return prize

    def evaluate(self, stake_cents: int, ticket: str) -> dict[str, Any]:
        """The evaluation result of contract section 2 (robots pays the same at its one stake)."""
        self._check_stake(stake_cents)
        body = self._checked_body(ticket)
        wins = []
        for letter, doubled, notches, half, amount, name in self._gauges:
            plain = body.count(letter)
            if plain >= notches or (plain >= half and plain + body.count(doubled) >= notches):
                wins.append({"robot": ticket.index(letter), "symbol": name, "amount_cents": amount})
        return {"prize_cents": sum(w["amount_cents"] for w in wins), "wins": wins}

    #: every kind of win a unit can show (see ``win_kinds``)
    WIN_KINDS = frozenset({"one gain", "gains added"})

    def win_kinds(self, stake_cents: int, ticket: str) -> frozenset[str]:
        """The kinds of win ``ticket`` shows: a play check goes on until it has paid each, so
        a fault in one way of winning (4.10: gains add up) cannot hide behind the others."""
        wins = self.evaluate(stake_cents, ticket)["wins"]
        if not wins:
            return frozenset()
        return frozenset({"gains added" if len(wins) > 1 else "one gain"})

    def gauges(self, ticket: str) -> dict[str, int]:
        """Notches each symbol's gauge received, uncapped (R-I3 caps only the win)."""
        body = self._checked_body(ticket)
        return {g[0]: body.count(g[0]) + body.count(g[1]) for g in self._gauges}

    # -- generation -------------------------------------------------------------------------

    def _decompositions(self) -> dict[int, tuple[Decomposition, ...]]:
        if self._sums is None:
            self._sums = robots_sums(self.rules)
        return self._sums

    def prize_decompositions(self, stake_cents: int, prize_cents: int) -> tuple[Decomposition, ...]:
        """The sets of full gauges whose amounts add up to the prize (each gauge wins once)."""
        self._check_stake(stake_cents)
        return self._decompositions().get(check_prize(prize_cents), ())

    @property
    def maker(self) -> RobotsMaker:
        """The slow generator (one for every stake: robots pays the same at each)."""
        if self._maker is None:
            self._maker = RobotsMaker(self.rules, self._decompositions())
        return self._maker

    def ticket_maker(self, stake_cents: int) -> Callable[[int, random.Random], str]:
        self._check_stake(stake_cents)
        return self.maker.make

    def scenario_pools(
        self, stake_cents: int, pool_key: bytes, sizes: Mapping[int, int]
    ) -> RobotsPools:
        maker = self.ticket_maker(stake_cents)
        return RobotsPools(self.rules, stake_cents, maker, pool_key, sizes)

    # -- play -------------------------------------------------------------------------------

    @property
    def buttons(self) -> int:
        return self.rules.buttons

    def reveal_symbols(self) -> dict[str, str]:
        """Names (``blue_diamond``) and letters (``D``) alike, each to its letter."""
        symbols = self.rules.symbols
        return {**{s.name: s.letter for s in symbols}, **{s.letter: s.letter for s in symbols}}

    def button_reveals(self, ticket: str) -> tuple[tuple[dict[str, Any], ...], ...]:
        """Each button's reveals as ``POST /reveal`` shows them: symbol name, X2, +1."""
        names = {s.letter: s.name for s in self.rules.symbols}
        return tuple(
            tuple({"symbol": names[r.symbol], "x2": r.x2, "plus_one": r.plus_one} for r in button)
            for button in self.parse(ticket).buttons
        )

    # -- notation ---------------------------------------------------------------------------

    def parse(self, ticket: str) -> RobotsTicket:
        body = self._checked_body(ticket)
        buttons = []
        for text in body.split(" "):
            parts = text.split(PLUS_ONE_MARK)
            last = len(parts) - 1
            buttons.append(
                tuple(
                    Reveal(part[0], x2=len(part) == 2, plus_one=i < last)
                    for i, part in enumerate(parts)
                )
            )
        return RobotsTicket(tuple(ticket[: self._split]), tuple(buttons))

    def format(self, ticket: RobotsTicket) -> str:
        """The notation of a structured ticket; refuses one that could not have been parsed."""
        if not isinstance(ticket, RobotsTicket):
            raise TicketError(f"expected a RobotsTicket, got {type(ticket).__name__}: {ticket!r}")
        buttons = []
        for number, button in enumerate(ticket.buttons):
            for k, reveal in enumerate(button):
                expected = k < len(button) - 1
                if not isinstance(reveal, Reveal) or reveal.plus_one is not expected:
                    raise TicketError(
                        f"button {number}, reveal {k}: a +1 must follow every reveal but the "
                        f"button's last, got {reveal!r}"
                    )
            buttons.append(PLUS_ONE_MARK.join(r.symbol + (X2_MARK if r.x2 else "") for r in button))
        text = "".join(ticket.robots) + "|" + " ".join(buttons)
        self._checked_body(text)
        return text

    def _diagnose(self, ticket: object) -> TicketError:
        """Walk an invalid ticket and name its first fault."""
        fail = TicketError
        if not isinstance(ticket, str):
            return fail(f"a ticket is a string, got {type(ticket).__name__}: {ticket!r}")
        if not ticket.isascii() or not ticket.isprintable():
            bad = next(c for c in ticket if not (c.isascii() and c.isprintable()))
            return fail(f"position {ticket.index(bad)}: {bad!r} has no place in a ticket")
        if "|" not in ticket:
            return fail("no '|' between the robots and the buttons")
        robots, body = ticket.split("|", 1)
        letters = "".join(s.letter for s in self.rules.symbols)
        for position, letter in enumerate(robots):
            if letter not in self._letters:
                return fail(f"robot {position}: {letter!r} is not a robots symbol ({letters})")
        if len(robots) != self.rules.robots:
            return fail(
                f"expected {self.rules.robots} robots before '|', got {len(robots)}: {robots!r}"
            )
        for letter in self._letters:
            if robots.count(letter) > 1:
                return fail(
                    f"robots {robots!r}: {letter!r} stands on {robots.count(letter)} robots; "
                    f"the {self.rules.robots} robots carry each symbol once (R-I1)"
                )
        buttons = body.split(" ")
        for number, button in enumerate(buttons):
            if button == "":
                return fail(f"button {number} is empty: buttons are separated by single spaces")
            for k, reveal in enumerate(button.split(PLUS_ONE_MARK)):
                where = f"button {number}" + (f", reveal {k}" if k else "")
                if reveal == "":
                    return fail(f"{where}: a '+' (a +1) must be followed by the next reveal")
                if reveal[0] not in self._letters:
                    return fail(f"{where}: {reveal[0]!r} is not a robots symbol ({letters})")
                if reveal[1:] not in ("", X2_MARK):
                    return fail(
                        f"{where}: {reveal!r} is not a reveal: a symbol letter, then '2' for an X2"
                    )
        if len(buttons) != self.rules.buttons:
            return fail(f"expected {self.rules.buttons} buttons, got {len(buttons)}")
        return fail(f"{ticket!r} is not a robots ticket")  # pragma: no cover - regex and walk agree


def robots_rules() -> RobotsRules:
    """The registered robots rules (``reference/rules/robots.yaml``)."""
    rules = load_rules("robots")
    assert isinstance(rules, RobotsRules)
    return rules


def engine() -> RobotsEngine:
    """The registered robots engine."""
    found = game_engine("robots")
    assert isinstance(found, RobotsEngine)
    return found


def parse_ticket(ticket: str) -> RobotsTicket:
    return engine().parse(ticket)


def format_ticket(ticket: RobotsTicket) -> str:
    return engine().format(ticket)
