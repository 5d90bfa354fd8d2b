"""An evaluator of both games written from the rules alone, without calling ``reference``.

It reads the packaged rules YAML itself and computes prizes its own way (structured parsing,
explicit gauges and rows), so the correct variant built on it is a second, independent
implementation. Every step is a small overridable method: each faulty variant of
``variants.py`` overrides exactly one of them, the way a vendor ships one bug.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

import yaml

Document = dict[str, Any]


def rules_yaml(game: str) -> dict[str, Any]:
    """The packaged rules file of ``game``, as data (the YAML, not ``reference._rules``)."""
    text = resources.files("reference").joinpath("rules", f"{game}.yaml").read_bytes()
    data: dict[str, Any] = yaml.safe_load(text)
    return data


class InvalidTicket(ValueError):
    """The ticket breaks the notation; the message says where."""


def error_document(code: str, message: str) -> Document:
    return {"error": {"code": code, "message": message}}


@dataclass(frozen=True)
class RobotSymbol:
    letter: str
    name: str
    notches: int
    amount_cents: int


@dataclass(frozen=True)
class Click:
    """One reveal under a button: its symbol letter and whether an X2 shows above it."""

    letter: str
    x2: bool


class RobotsEvaluator:
    """Le Retour des Robots, article 4, R-I1..R-I5."""

    game = "robots"

    def __init__(self) -> None:
        data = rules_yaml("robots")
        self.stakes = tuple(int(s) for s in data["stakes"]["cents"])
        self.symbols = {
            s["letter"]: RobotSymbol(
                s["letter"], s["name"], int(s["gauge_notches"]), int(s["amount_cents"])
            )
            for s in data["symbols"]["list"]
        }
        self.buttons = int(data["board"]["buttons"])
        letters = "".join(self.symbols)
        reveal = f"[{letters}]2?"
        button = rf"{reveal}(?:\+{reveal})*"
        self._pattern = re.compile(
            rf"[{letters}]{{{len(letters)}}}\|{button}(?: {button}){{{self.buttons - 1}}}"
        )

    # -- notation ---------------------------------------------------------------------------

    def parse(self, ticket: object) -> tuple[str, list[list[Click]]]:
        """(robots left to right, the reveals of each button in click order)."""
        if not isinstance(ticket, str) or self._pattern.fullmatch(ticket) is None:
            raise InvalidTicket(f"not a robots ticket: {ticket!r}")
        robots, body = ticket.split("|")
        if sorted(robots) != sorted(self.symbols):
            raise InvalidTicket(f"robots {robots!r}: each symbol must stand on one robot (R-I1)")
        buttons = [
            [Click(part[0], part.endswith("2")) for part in text.split("+")]
            for text in body.split(" ")
        ]
        return robots, buttons

    # -- evaluation, step by step -----------------------------------------------------------

    def clicks(self, buttons: list[list[Click]]) -> list[Click]:
        """Every reveal of the unit: each button's first and, after a +1, the next (4.7)."""
        return [click for button in buttons for click in button]

    def notches(self, click: Click) -> int:
        """4.5 one notch per matching symbol, 4.6 two with an X2."""
        return 2 if click.x2 else 1

    def gauges(self, clicks: list[Click]) -> dict[str, int]:
        """The notches each symbol's gauge received (4.5, 4.6), uncapped."""
        gauge = dict.fromkeys(self.symbols, 0)
        for click in clicks:
            gauge[click.letter] += self.notches(click)
        return gauge

    def full(self, symbol: RobotSymbol, notches: int) -> bool:
        """4.8 a gauge is full when it has all its notches (R-I3: more is still full, once)."""
        return notches >= symbol.notches

    def gains(self, robots: str, gauge: dict[str, int]) -> list[Document]:
        """4.8 each full gauge wins its robot's amount; 4.9 several add up."""
        return [
            {
                "robot": robots.index(letter),
                "symbol": symbol.name,
                "amount_cents": symbol.amount_cents,
            }
            for letter, symbol in self.symbols.items()
            if self.full(symbol, gauge[letter])
        ]

    def evaluate(self, stake_cents: int, ticket: object) -> Document:
        robots, buttons = self.parse(ticket)
        wins = self.gains(robots, self.gauges(self.clicks(buttons)))
        return {"prize_cents": sum(w["amount_cents"] for w in wins), "wins": wins}


class EldoradoEvaluator:
    """Eldorado, article 4, E-I1..E-I6."""

    game = "eldorado"

    def __init__(self) -> None:
        data = rules_yaml("eldorado")
        self.stakes = tuple(int(s) for s in data["stakes"]["cents"])
        self.rows = int(data["grid"]["rows"])
        self.cells = int(data["grid"]["cells"])
        self.names = {s["letter"]: s["name"] for s in data["symbols"]["list"]}
        self.extra: str = next(s["letter"] for s in data["symbols"]["list"] if not s["paying"])
        self.paytable: dict[tuple[str, int], dict[int, int]] = {
            (c["symbol"], int(c["count"])): {int(k): int(v) for k, v in c["amount_cents"].items()}
            for c in data["paytable"]["combinations"]
        }
        letters = "".join(self.names)
        row = f"[{letters}]{{{self.cells}}}"
        self._grid = re.compile("/".join([row] * self.rows))

    # -- notation ---------------------------------------------------------------------------

    def parse(self, ticket: object) -> list[list[str]]:
        """The grids in the order played, each a list of row strings (E-I4 validity)."""
        if not isinstance(ticket, str):
            raise InvalidTicket(f"a ticket is a string, got {ticket!r}")
        texts = ticket.split("|")
        for text in texts:
            if self._grid.fullmatch(text) is None:
                raise InvalidTicket(f"not a grid of {self.rows}x{self.cells}: {text!r}")
        grids = [text.split("/") for text in texts]
        granted = 0
        for number, grid in enumerate(grids):
            if number > granted:
                raise InvalidTicket(f"grid {number} was granted by no EXTRA before it (E-I4)")
            granted += sum(row.count(self.extra) for row in grid)
        if granted != len(grids) - 1:
            raise InvalidTicket(f"{granted} EXTRA symbols but {len(grids) - 1} Extra grids")
        return grids

    # -- evaluation, step by step -----------------------------------------------------------

    def played_grids(self, grids: list[list[str]]) -> list[list[str]]:
        """The grids that are played: the main one and every Extra stage (4.5, E-I4)."""
        return grids

    def count(self, row: str, letter: str) -> int:
        """E-I1: the cells of the row holding the symbol, adjacent or not."""
        return row.count(letter)

    def paying(self, letter: str) -> bool:
        """E-I3: EXTRA pays nothing."""
        return bool(letter != self.extra)

    def row_wins(self, row: str) -> list[tuple[str, int]]:
        """The row's combinations (symbol, count): E-I2, only the largest count pays."""
        found = []
        for letter in dict.fromkeys(row):
            n = self.count(row, letter)
            if self.paying(letter) and (letter, n) in self.paytable:
                found.append((letter, n))
        return found

    def stake_of_grid(self, stake_cents: int, grid: int) -> int:
        """E-I6: every grid of the unit pays at the unit's stake."""
        return stake_cents

    def amount(self, letter: str, count: int, stake_cents: int) -> int:
        return self.paytable[(letter, count)][stake_cents]

    def evaluate(self, stake_cents: int, ticket: object) -> Document:
        grids = self.played_grids(self.parse(ticket))
        wins = []
        for g, grid in enumerate(grids):
            stake = self.stake_of_grid(stake_cents, g)
            for r, row in enumerate(grid):
                for letter, n in self.row_wins(row):
                    wins.append(
                        {
                            "grid": g,
                            "row": r,
                            "symbol": self.names[letter],
                            "count": n,
                            "amount_cents": self.amount(letter, n, stake),
                        }
                    )
        return {"prize_cents": sum(w["amount_cents"] for w in wins), "wins": wins}


Evaluator = RobotsEvaluator | EldoradoEvaluator


def evaluate_batch(
    evaluators: dict[str, Evaluator], game: str, stake_cents: int, tickets: Sequence[str]
) -> list[Document] | Document:
    """The ``results`` of a batch, or one error document for the whole request (bad game or
    stake) as ``{"status": ..., "error": ...}``."""
    if game not in evaluators:
        return {"status": 422, **error_document("invalid_game", f"no game {game!r}")}
    evaluator = evaluators[game]
    if type(stake_cents) is not int or stake_cents not in evaluator.stakes:
        message = f"stake_cents {stake_cents!r} is not a stake of {game}"
        return {"status": 422, **error_document("invalid_stake", message)}
    results: list[Document] = []
    for ticket in tickets:
        try:
            results.append(evaluator.evaluate(stake_cents, ticket))
        except InvalidTicket as exc:
            results.append(error_document("invalid_ticket", str(exc)))
    return results
