"""Eldorado: its own part of the rules file (symbols, grid, paytable), its notation separators,
and what one row wins.

``EldoradoEngine.parse_rules`` reads these keys of ``reference/rules/eldorado.yaml`` after the
parts common to every game (``_rules.common_rules``); the ticket generator (``_eldorado_make``)
and the engine (``_eldorado``) share ``row_combination`` and the separators.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ._rules import GameRules, RulesNode, unique

GRID_SEPARATOR = "|"
ROW_SEPARATOR = "/"


@dataclass(frozen=True)
class EldoradoSymbol:
    letter: str
    name: str
    english: str
    french: str
    paying: bool


@dataclass(frozen=True)
class Combination:
    """Article 4.4: ``count`` identical ``symbol`` on one row pay ``amount_cents[stake]``."""

    symbol: str
    count: int
    amount_cents: Mapping[int, int]


@dataclass(frozen=True)
class EldoradoRules(GameRules):
    rows: int
    cells: int
    symbols: tuple[EldoradoSymbol, ...]
    combinations: tuple[Combination, ...]
    extra_letter: str

    def symbol(self, letter: str) -> EldoradoSymbol:
        return next(s for s in self.symbols if s.letter == letter)


def row_combination(row: str, rules: EldoradoRules) -> tuple[str, int] | None:
    """The winning combination of one row, if any: (symbol letter, count).

    E-I1 counts the cells holding the symbol, adjacent or not; E-I2 a row holds at most one
    combination (with 5 cells, 4 or more of one symbol leaves room for no other); E-I3 EXTRA
    never pays.
    """
    return _row_judge(rules)(row)


class _RowJudge:
    """``row_combination`` for one rules object, its paying letters and combinations read
    once (the engine and the generator judge every possible row: 7 776 and more)."""

    def __init__(self, rules: EldoradoRules) -> None:
        self.rules = rules  # held: the cache is keyed by its identity
        # of the letters that pay, the one a row holds most of; ties (impossible while every
        # combination needs more than half the cells) go to the first in the rules' order, not
        # to a set's order, which changes with the process's hash seed
        combined = {c.symbol for c in rules.combinations}
        self.paying = tuple(s.letter for s in rules.symbols if s.letter in combined)
        self.combinations = frozenset((c.symbol, c.count) for c in rules.combinations)

    def __call__(self, row: str) -> tuple[str, int] | None:
        best, most = "", -1
        for letter in self.paying:
            count = row.count(letter)
            if count > most:
                best, most = letter, count
        return (best, most) if (best, most) in self.combinations else None


_JUDGES: dict[int, _RowJudge] = {}


def _row_judge(rules: EldoradoRules) -> _RowJudge:
    judge = _JUDGES.get(id(rules))
    if judge is None or judge.rules is not rules:
        if len(_JUDGES) >= 16:
            _JUDGES.clear()
        judge = _JUDGES[id(rules)] = _RowJudge(rules)
    return judge


def parse_eldorado_rules(root: RulesNode, common: dict[str, Any]) -> EldoradoRules:
    """The eldorado rules: ``common`` plus the symbols, the grid and the paytable (4.4)."""
    nodes = root.key("symbols").key("list").items()
    symbols = tuple(
        EldoradoSymbol(
            letter=n.key("letter").letter(),
            name=n.key("name").text(),
            english=n.key("english").text(),
            french=n.key("french").text(),
            paying=n.key("paying").boolean(),
        )
        for n in nodes
    )
    unique(nodes, [s.letter for s in symbols], "letter")
    unique(nodes, [s.name for s in symbols], "name")
    extras = [s for s in symbols if not s.paying]
    if len(extras) != 1:
        raise root.key("symbols").fail(
            f"expected exactly one non-paying EXTRA symbol, got {len(extras)}"
        )
    grid = root.key("grid")
    cells = grid.key("cells").positive_int()
    paying = {s.letter for s in symbols if s.paying}
    combos: list[Combination] = []
    combo_nodes = root.key("paytable").key("combinations").items()
    for n in combo_nodes:
        letter_node = n.key("symbol")
        letter = letter_node.letter()
        if letter not in paying:
            raise letter_node.fail(f"{letter!r} is not a paying symbol")
        count_node = n.key("count")
        count = count_node.positive_int()
        if not cells // 2 < count <= cells:
            raise count_node.fail(
                f"a combination counts {cells // 2 + 1} to {cells} cells, got {count}"
            )
        amounts = {}
        for stake, amount_node in n.key("amount_cents").mapping().items():
            if stake not in common["stakes_cents"]:
                raise amount_node.fail(f"{stake!r} is not one of the game's stakes")
            amounts[stake] = amount_node.positive_int()
        if set(amounts) != set(common["stakes_cents"]):
            raise n.key("amount_cents").fail(
                f"expected an amount for every stake {list(common['stakes_cents'])}"
            )
        combos.append(Combination(letter, count, amounts))
    unique(combo_nodes, [(c.symbol, c.count) for c in combos], "combination")
    return EldoradoRules(
        **common,
        rows=grid.key("rows").positive_int(),
        cells=cells,
        symbols=symbols,
        combinations=tuple(combos),
        extra_letter=extras[0].letter,
    )
