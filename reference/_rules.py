"""The rules of both games as data: loaded once from ``rules/*.yaml`` and validated on load.

The YAML files hold every number the rules documents fix; this module only turns them into
frozen value objects and refuses a file that is incomplete or contradicts itself, naming the
file, the key and the fault.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import yaml

from . import _yaml
from ._errors import RulesDataError, StakeError, UnknownGameError

GAMES: tuple[str, ...] = ("robots", "eldorado")


@dataclass(frozen=True)
class Lot:
    prize_cents: int
    units: int


@dataclass(frozen=True)
class LotTable:
    """Article 3: the exact number of units of each prize in one block at one stake."""

    stake_cents: int
    article: str
    lots: tuple[Lot, ...]
    block_units: int

    @property
    def winning_units(self) -> int:
        return sum(lot.units for lot in self.lots)

    @property
    def losing_units(self) -> int:
        return self.block_units - self.winning_units

    @property
    def total_prize_cents(self) -> int:
        return sum(lot.prize_cents * lot.units for lot in self.lots)

    @property
    def face_value_cents(self) -> int:
        return self.stake_cents * self.block_units

    def counts(self) -> dict[int, int]:
        """Units per prize, losing units (prize 0) included."""
        table = {lot.prize_cents: lot.units for lot in self.lots}
        table[0] = self.losing_units
        return table


@dataclass(frozen=True)
class RobotSymbol:
    letter: str
    name: str
    english: str
    french: str
    gauge_notches: int
    amount_cents: int


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
class GameRules:
    game: str
    title: str
    block_units: int
    stakes_cents: tuple[int, ...]
    lot_tables: Mapping[int, LotTable]
    payout_cap_percent: int
    sha256: str

    def lot_table(self, stake_cents: int) -> LotTable:
        return self.lot_tables[stake_cents]


@dataclass(frozen=True)
class RobotsRules(GameRules):
    robots: int
    buttons: int
    symbols: tuple[RobotSymbol, ...]

    def symbol(self, letter: str) -> RobotSymbol:
        return next(s for s in self.symbols if s.letter == letter)


@dataclass(frozen=True)
class EldoradoRules(GameRules):
    rows: int
    cells: int
    symbols: tuple[EldoradoSymbol, ...]
    combinations: tuple[Combination, ...]
    extra_letter: str

    def symbol(self, letter: str) -> EldoradoSymbol:
        return next(s for s in self.symbols if s.letter == letter)


class _Node:
    """A YAML value with the path that leads to it, so every fault names file and key."""

    def __init__(self, value: Any, file: str, path: str) -> None:
        self.value = value
        self.file = file
        self.path = path

    def fail(self, fault: str) -> RulesDataError:
        return RulesDataError(f"{self.file}: {self.path or '<top>'}: {fault}")

    def key(self, name: str) -> _Node:
        if not isinstance(self.value, dict):
            raise self.fail(f"expected a mapping, got {type(self.value).__name__}")
        if name not in self.value:
            raise self.fail(f"missing key {name!r}")
        return _Node(self.value[name], self.file, f"{self.path}.{name}" if self.path else name)

    def items(self) -> list[_Node]:
        if not isinstance(self.value, list) or not self.value:
            raise self.fail(f"expected a non-empty list, got {self.value!r}")
        return [_Node(v, self.file, f"{self.path}[{i}]") for i, v in enumerate(self.value)]

    def mapping(self) -> dict[Any, _Node]:
        if not isinstance(self.value, dict) or not self.value:
            raise self.fail(f"expected a non-empty mapping, got {self.value!r}")
        return {k: _Node(v, self.file, f"{self.path}.{k}") for k, v in self.value.items()}

    def positive_int(self) -> int:
        if type(self.value) is not int or self.value <= 0:
            raise self.fail(f"expected a positive integer, got {self.value!r}")
        return self.value

    def text(self) -> str:
        if not isinstance(self.value, str) or not self.value:
            raise self.fail(f"expected a non-empty string, got {self.value!r}")
        return self.value

    def letter(self) -> str:
        value = self.text()
        if len(value) != 1 or not value.isupper():
            raise self.fail(f"expected one capital letter, got {value!r}")
        return value

    def boolean(self) -> bool:
        if not isinstance(self.value, bool):
            raise self.fail(f"expected true or false, got {self.value!r}")
        return self.value


def _unique(nodes: list[_Node], values: list[Any], what: str) -> None:
    seen: set[Any] = set()
    for node, value in zip(nodes, values, strict=True):
        if value in seen:
            raise node.fail(f"{what} {value!r} appears twice")
        seen.add(value)


def _lot_tables(root: _Node, block_units: int, stakes: tuple[int, ...]) -> dict[int, LotTable]:
    tables: dict[int, LotTable] = {}
    for node in root.key("lot_tables").items():
        stake_node = node.key("stake_cents")
        stake = stake_node.positive_int()
        if stake not in stakes:
            raise stake_node.fail(f"stake {stake} is not one of the game's stakes {list(stakes)}")
        if stake in tables:
            raise stake_node.fail(f"a second lot table for stake {stake}")
        lot_nodes = node.key("lots").items()
        lots = tuple(
            Lot(n.key("prize_cents").positive_int(), n.key("units").positive_int())
            for n in lot_nodes
        )
        _unique(lot_nodes, [lot.prize_cents for lot in lots], "prize_cents")
        table = LotTable(stake, node.key("article").text(), lots, block_units)
        declared = node.key("declared_total")
        declared_units = declared.key("units").positive_int()
        declared_prize = declared.key("prize_cents").positive_int()
        if table.winning_units != declared_units:
            raise declared.fail(
                f"the lots add up to {table.winning_units} units, "
                f"the document says {declared_units}"
            )
        if table.total_prize_cents != declared_prize:
            raise declared.fail(
                f"the lots add up to {table.total_prize_cents} cents, "
                f"the document says {declared_prize}"
            )
        if table.winning_units > block_units:
            raise declared.fail(
                f"{table.winning_units} winning units exceed the block's {block_units}"
            )
        tables[stake] = table
    missing = set(stakes) - set(tables)
    if missing:
        raise root.key("lot_tables").fail(f"no lot table for stake(s) {sorted(missing)}")
    return tables


def _common(root: _Node, game: str, sha256: str) -> dict[str, Any]:
    name = root.key("game").text()
    if name != game:
        raise root.key("game").fail(f"expected {game!r}, got {name!r}")
    block_units = root.key("block").key("units").positive_int()
    stake_nodes = root.key("stakes").key("cents").items()
    stakes = tuple(n.positive_int() for n in stake_nodes)
    _unique(stake_nodes, list(stakes), "stake")
    tables = _lot_tables(root, block_units, stakes)
    cap_node = root.key("payout_cap_percent")
    cap = cap_node.positive_int()
    for table in tables.values():
        if table.total_prize_cents * 100 > table.face_value_cents * cap:
            raise cap_node.fail(
                f"the stake {table.stake_cents} lot table pays {table.total_prize_cents} cents of "
                f"{table.face_value_cents}: above the {cap} % cap"
            )
    return {
        "game": game,
        "title": root.key("title").text(),
        "block_units": block_units,
        "stakes_cents": stakes,
        "lot_tables": tables,
        "payout_cap_percent": cap,
        "sha256": sha256,
    }


def _robots(root: _Node, sha256: str) -> RobotsRules:
    common = _common(root, "robots", sha256)
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
    _unique(nodes, [s.letter for s in symbols], "letter")
    _unique(nodes, [s.name for s in symbols], "name")
    board = root.key("board")
    robots = board.key("robots").positive_int()
    if robots != len(symbols):
        raise board.key("robots").fail(
            f"{robots} robots but {len(symbols)} symbols: each robot carries one symbol (R-I1)"
        )
    if "2" in {s.letter for s in symbols}:
        raise root.key("symbols").fail("'2' is the X2 mark and cannot be a symbol letter")
    return RobotsRules(
        **common, robots=robots, buttons=board.key("buttons").positive_int(), symbols=symbols
    )


def _eldorado(root: _Node, sha256: str) -> EldoradoRules:
    common = _common(root, "eldorado", sha256)
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
    _unique(nodes, [s.letter for s in symbols], "letter")
    _unique(nodes, [s.name for s in symbols], "name")
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
    _unique(combo_nodes, [(c.symbol, c.count) for c in combos], "combination")
    return EldoradoRules(
        **common,
        rows=grid.key("rows").positive_int(),
        cells=cells,
        symbols=symbols,
        combinations=tuple(combos),
        extra_letter=extras[0].letter,
    )


def parse_rules(text: bytes, file: str, game: str) -> GameRules:
    """Validate one rules file's bytes; ``file`` names it in every error."""
    try:
        data = _yaml.load(text)
    except yaml.YAMLError as exc:
        raise RulesDataError(f"{file}: not valid YAML: {exc}") from None
    root = _Node(data, file, "")
    sha256 = hashlib.sha256(text).hexdigest()
    return _robots(root, sha256) if game == "robots" else _eldorado(root, sha256)


def rules_file_bytes(game: str) -> bytes:
    check_game(game)
    return resources.files("reference").joinpath("rules", f"{game}.yaml").read_bytes()


def stake_error(game: str, stake_cents: object, stakes: tuple[int, ...]) -> StakeError:
    return StakeError(
        f"stake_cents {stake_cents!r} ({type(stake_cents).__name__}) is not a stake of {game}: "
        f"expected one of {', '.join(map(str, stakes))}"
    )


def check_game(game: object) -> str:
    if not isinstance(game, str) or game not in GAMES:
        raise UnknownGameError(
            f"game {game!r} ({type(game).__name__}) is not a game: "
            f"expected one of {', '.join(GAMES)}"
        )
    return game


@cache
def load_rules(game: str) -> GameRules:
    """The packaged rules of ``game``, loaded and validated once per process."""
    return parse_rules(rules_file_bytes(game), f"reference/rules/{game}.yaml", game)


def robots_rules() -> RobotsRules:
    rules = load_rules("robots")
    assert isinstance(rules, RobotsRules)
    return rules


def eldorado_rules() -> EldoradoRules:
    rules = load_rules("eldorado")
    assert isinstance(rules, EldoradoRules)
    return rules
