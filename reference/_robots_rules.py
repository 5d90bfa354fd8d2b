"""Le Retour des Robots: its own part of the rules file (board, symbols), and its notation marks.

``RobotsEngine.parse_rules`` reads these keys of ``reference/rules/robots.yaml`` after the
parts common to every game (``_rules.common_rules``); the ticket generator (``_robots_make``)
and the engine (``_robots``) share the marks of the notation (contract section 1).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._rules import GameRules, RulesNode, unique

X2_MARK = "2"
PLUS_ONE_MARK = "+"


@dataclass(frozen=True)
class RobotSymbol:
    letter: str
    name: str
    english: str
    french: str
    gauge_notches: int
    amount_cents: int


@dataclass(frozen=True)
class RobotsRules(GameRules):
    robots: int
    buttons: int
    symbols: tuple[RobotSymbol, ...]

    def symbol(self, letter: str) -> RobotSymbol:
        return next(s for s in self.symbols if s.letter == letter)


def parse_robots_rules(root: RulesNode, common: dict[str, Any]) -> RobotsRules:
    """The robots rules: ``common`` plus the board (article 4.2) and the symbols (4.8)."""
    nodes = root.key("symbols").key("list").items()
    symbols = tuple(
        RobotSymbol(
            letter=n.key("letter").letter(),
            name=n.key("name").text(),
            english=n.key("english").text(),
            french=n.key("french").text(),
            gauge_notches=n.key("gauge_notches").positive_int(),
            amount_cents=n.key("amount_cents").positive_int(),
        )
        for n in nodes
    )
    unique(nodes, [s.letter for s in symbols], "letter")
    unique(nodes, [s.name for s in symbols], "name")
    board = root.key("board")
    robots = board.key("robots").positive_int()
    if robots != len(symbols):
        raise board.key("robots").fail(
            f"{robots} robots but {len(symbols)} symbols: each robot carries one symbol (R-I1)"
        )
    if X2_MARK in {s.letter for s in symbols}:
        raise root.key("symbols").fail("'2' is the X2 mark and cannot be a symbol letter")
    return RobotsRules(
        **common, robots=robots, buttons=board.key("buttons").positive_int(), symbols=symbols
    )
