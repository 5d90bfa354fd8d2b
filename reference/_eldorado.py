"""Eldorado's engine: ticket notation (contract section 1), evaluation (article 4), and its
generator (``_eldorado_make``) behind the ``GameEngine`` interface.

Every row of every grid starts at a multiple of 6 in the ticket string (5 cells and a '/', three
rows and a '|' make 18), so the hot path slices rows straight out of the validated string and
looks each one up in a table of all 6^5 possible rows, built once per stake from the paytable.
"""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from ._eldorado_make import EldoradoMaker, EldoradoPools, EldoradoSums
from ._eldorado_rules import (
    GRID_SEPARATOR,
    ROW_SEPARATOR,
    EldoradoRules,
    _row_judge,
    parse_eldorado_rules,
    row_combination,
)
from ._errors import TicketError
from ._gains import Decomposition, check_prize
from ._games import GameEngine, game_engine, load_rules
from ._rules import RulesNode, stake_error

__all__ = [
    "GRID_SEPARATOR",
    "ROW_SEPARATOR",
    "EldoradoEngine",
    "EldoradoTicket",
    "eldorado_rules",
    "engine",
    "format_ticket",
    "parse_ticket",
    "row_combination",
]


@dataclass(frozen=True)
class EldoradoTicket:
    """The main grid, then each Extra stage grid in the order played (E-I4); rows are strings."""

    grids: tuple[tuple[str, ...], ...]

    def format(self) -> str:
        return format_ticket(self)

    def cell(self, grid: int, row: int, column: int) -> str:
        return self.grids[grid][row][column]


class EldoradoEngine(GameEngine):
    """The eldorado engine (``GameEngine``) for one set of eldorado rules (the packaged ones by
    default): notation, evaluation and generation; a play is shown whole (no buttons)."""

    TICKET_TYPE = EldoradoTicket
    rules: EldoradoRules

    @classmethod
    def parse_rules(cls, root: RulesNode, common: dict[str, Any]) -> EldoradoRules:
        return parse_eldorado_rules(root, common)

    def __init__(self, rules: EldoradoRules) -> None:
        super().__init__(rules)
        self._letters = "".join(s.letter for s in rules.symbols)
        self._extra = rules.extra_letter
        self._row_width = rules.cells + 1
        self._grid_width = self._row_width * rules.rows
        row = f"[{self._letters}]{{{rules.cells}}}"
        grid = re.escape(ROW_SEPARATOR).join([row] * rules.rows)
        sep = re.escape(GRID_SEPARATOR)
        self._match = re.compile(rf"{grid}(?:{sep}{grid})*").fullmatch
        names = {s.letter: s.name for s in rules.symbols}
        amounts = {(c.symbol, c.count): c.amount_cents for c in rules.combinations}
        # every possible row that wins: row -> (symbol name, count, {stake: amount})
        self._winning_rows: dict[str, tuple[str, int, dict[int, int]]] = {}
        judge = _row_judge(rules)  # row_combination's, looked up once for the 7 776 rows
        for text in map("".join, itertools.product(self._letters, repeat=rules.cells)):
            combination = judge(text)
            if combination is not None:
                name = names[combination[0]]
                self._winning_rows[text] = (name, combination[1], dict(amounts[combination]))
        self._row_prize = {
            stake: {row: win[2][stake] for row, win in self._winning_rows.items()}
            for stake in rules.stakes_cents
        }
        self._sums = EldoradoSums(rules)
        self._makers: dict[int, EldoradoMaker] = {}

    def _check_stake(self, stake_cents: object) -> dict[str, int]:
        table = self._row_prize.get(stake_cents) if type(stake_cents) is int else None
        if table is None:
            raise stake_error(self.rules.game, stake_cents, self.rules.stakes_cents)
        return table

    def _check(self, ticket: object) -> str:
        if type(ticket) is not str or self._match(ticket) is None:
            raise self._diagnose(ticket)
        extras = ticket.count(self._extra)
        if extras:
            grids = (len(ticket) + 1) // self._grid_width
            if grids != extras + 1 or any(
                ticket.count(self._extra, 0, k * self._grid_width) < k for k in range(1, grids)
            ):
                raise self._diagnose(ticket)
        elif len(ticket) > self._grid_width:
            raise self._diagnose(ticket)
        return ticket

    def row_prizes(self, stake_cents: int) -> Mapping[str, int]:
        """Every row that wins (its letters) and what it pays at that stake (4.4); every other
        row pays nothing. ``prize_cents`` adds these up over a ticket's rows and grids; the
        block audit's vectorised kernel reads the same table."""
        return MappingProxyType(self._check_stake(stake_cents))

    def prize_cents(self, stake_cents: int, ticket: str) -> int:
        """The ticket's prize at that stake (E-I6: one paytable for all its grids)."""
        table = self._check_stake(stake_cents)
        text = self._check(ticket)
        get = table.get
        width = self._row_width
        cells = self.rules.cells
        # 4.4 rows win; 4.5 Extra grids win by the same table; 4.6 gains add up
        return sum(get(text[i : i + cells], 0) for i in range(0, len(text), width))

    def evaluate(self, stake_cents: int, ticket: str) -> dict[str, Any]:
        """The evaluation result of contract section 2."""
        self._check_stake(stake_cents)
        text = self._check(ticket)
        wins = []
        rows = self.rules.rows
        for n, i in enumerate(range(0, len(text), self._row_width)):
            win = self._winning_rows.get(text[i : i + self.rules.cells])
            if win is not None:
                name, count, amounts = win
                wins.append(
                    {
                        "grid": n // rows,
                        "row": n % rows,
                        "symbol": name,
                        "count": count,
                        "amount_cents": amounts[stake_cents],
                    }
                )
        return {"prize_cents": sum(w["amount_cents"] for w in wins), "wins": wins}

    #: every kind of win a unit can show (see ``win_kinds``)
    WIN_KINDS = frozenset({"main grid", "Extra grid", "gains added"})

    def win_kinds(self, stake_cents: int, ticket: str) -> frozenset[str]:
        """The kinds of win ``ticket`` shows: a play check goes on until it has paid each, so
        a fault in one way of winning (4.5: an Extra grid; 4.6: gains add up) cannot hide
        behind the others."""
        wins = self.evaluate(stake_cents, ticket)["wins"]
        kinds = {"Extra grid" if w["grid"] > 0 else "main grid" for w in wins}
        if len(wins) > 1:
            kinds.add("gains added")
        return frozenset(kinds)

    # -- generation -------------------------------------------------------------------------

    def prize_decompositions(self, stake_cents: int, prize_cents: int) -> tuple[Decomposition, ...]:
        """The multisets of row combinations adding up to the prize, at most
        ``ELDORADO_MAX_WINS`` of them (``_eldorado_make``)."""
        self._check_stake(stake_cents)
        return self._sums.sorted(stake_cents, check_prize(prize_cents))

    def maker(self, stake_cents: int) -> EldoradoMaker:
        """The slow generator at that stake (its tables built once)."""
        self._check_stake(stake_cents)
        found = self._makers.get(stake_cents)
        if found is None:
            found = self._makers[stake_cents] = EldoradoMaker(self.rules, stake_cents, self._sums)
        return found

    def ticket_maker(self, stake_cents: int) -> Callable[[int, random.Random], str]:
        return self.maker(stake_cents).make

    def scenario_pools(
        self, stake_cents: int, pool_key: bytes, sizes: Mapping[int, int]
    ) -> EldoradoPools:
        maker = self.ticket_maker(stake_cents)
        return EldoradoPools(self.rules, stake_cents, maker, pool_key, sizes)

    # -- notation ---------------------------------------------------------------------------

    def parse(self, ticket: str) -> EldoradoTicket:
        text = self._check(ticket)
        return EldoradoTicket(
            tuple(tuple(grid.split(ROW_SEPARATOR)) for grid in text.split(GRID_SEPARATOR))
        )

    def format(self, ticket: EldoradoTicket) -> str:
        """The notation of a structured ticket; refuses one that could not have been parsed."""
        if not isinstance(ticket, EldoradoTicket):
            raise TicketError(
                f"expected an EldoradoTicket, got {type(ticket).__name__}: {ticket!r}"
            )
        for number, grid in enumerate(ticket.grids):
            if not isinstance(grid, tuple) or not all(isinstance(row, str) for row in grid):
                raise TicketError(f"grid {number}: expected a tuple of row strings, got {grid!r}")
        return self._check(GRID_SEPARATOR.join(ROW_SEPARATOR.join(grid) for grid in ticket.grids))

    def _diagnose(self, ticket: object) -> TicketError:
        """Walk an invalid ticket and name its first fault."""
        fail = TicketError
        if not isinstance(ticket, str):
            return fail(f"a ticket is a string, got {type(ticket).__name__}: {ticket!r}")
        rows_per_grid, cells = self.rules.rows, self.rules.cells
        grids = ticket.split(GRID_SEPARATOR)
        for g, grid in enumerate(grids):
            rows = grid.split(ROW_SEPARATOR)
            for r, row in enumerate(rows):
                for c, letter in enumerate(row):
                    if letter not in self._letters:
                        return fail(
                            f"grid {g}, row {r}, cell {c}: {letter!r} is not an eldorado symbol "
                            f"({self._letters})"
                        )
                if len(row) != cells:
                    return fail(
                        f"grid {g}, row {r}: expected {cells} cells, got {len(row)}: {row!r}"
                    )
            if len(rows) != rows_per_grid:
                return fail(
                    f"grid {g}: expected {rows_per_grid} rows separated by "
                    f"{ROW_SEPARATOR!r}, got {len(rows)}"
                )
        extras = ticket.count(self._extra)
        for k in range(1, len(grids)):
            granted = GRID_SEPARATOR.join(grids[:k]).count(self._extra)
            if granted < k:
                return fail(
                    f"grid {k} was not granted by an EXTRA: grids 0 to {k - 1} hold "
                    f"{granted} EXTRA, so they grant {granted} Extra stage(s) (E-I4)"
                )
        return fail(
            f"{len(grids)} grid(s), but the ticket's {extras} EXTRA grant {extras} Extra stage(s): "
            f"{extras + 1} grids expected (article 4.5, E-I4)"
        )


def eldorado_rules() -> EldoradoRules:
    """The registered eldorado rules (``reference/rules/eldorado.yaml``)."""
    rules = load_rules("eldorado")
    assert isinstance(rules, EldoradoRules)
    return rules


def engine() -> EldoradoEngine:
    """The registered eldorado engine."""
    found = game_engine("eldorado")
    assert isinstance(found, EldoradoEngine)
    return found


def parse_ticket(ticket: str) -> EldoradoTicket:
    return engine().parse(ticket)


def format_ticket(ticket: EldoradoTicket) -> str:
    return engine().format(ticket)
