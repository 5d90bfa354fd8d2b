"""What every game's rules file holds, as data: block, stakes, lot tables, payout cap.

A rules YAML file (``reference/rules/<game>.yaml``, or a registered game's own) holds every
number its rules document fixes. This module reads the part common to every game into frozen
value objects (``GameRules``) and refuses a file that is incomplete or contradicts itself,
naming the file, the key and the fault; each game's engine parses its own part with the same
``RulesNode`` helpers (``GameEngine.parse_rules``, see ``_games``). Loading by game name is the
registry's (``_games.load_rules``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from . import _yaml
from ._errors import RulesDataError, StakeError


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


class RulesNode:
    """A YAML value with the path that leads to it, so every fault names file and key."""

    def __init__(self, value: Any, file: str, path: str) -> None:
        self.value = value
        self.file = file
        self.path = path

    def fail(self, fault: str) -> RulesDataError:
        return RulesDataError(f"{self.file}: {self.path or '<top>'}: {fault}")

    def key(self, name: str) -> RulesNode:
        if not isinstance(self.value, dict):
            raise self.fail(f"expected a mapping, got {type(self.value).__name__}")
        if name not in self.value:
            raise self.fail(f"missing key {name!r}")
        return RulesNode(self.value[name], self.file, f"{self.path}.{name}" if self.path else name)

    def items(self) -> list[RulesNode]:
        if not isinstance(self.value, list) or not self.value:
            raise self.fail(f"expected a non-empty list, got {self.value!r}")
        return [RulesNode(v, self.file, f"{self.path}[{i}]") for i, v in enumerate(self.value)]

    def mapping(self) -> dict[Any, RulesNode]:
        if not isinstance(self.value, dict) or not self.value:
            raise self.fail(f"expected a non-empty mapping, got {self.value!r}")
        return {k: RulesNode(v, self.file, f"{self.path}.{k}") for k, v in self.value.items()}

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


def unique(nodes: list[RulesNode], values: list[Any], what: str) -> None:
    seen: set[Any] = set()
    for node, value in zip(nodes, values, strict=True):
        if value in seen:
            raise node.fail(f"{what} {value!r} appears twice")
        seen.add(value)


def _lot_tables(root: RulesNode, block_units: int, stakes: tuple[int, ...]) -> dict[int, LotTable]:
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
        unique(lot_nodes, [lot.prize_cents for lot in lots], "prize_cents")
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


def common_rules(root: RulesNode, game: str, sha256: str) -> dict[str, Any]:
    """The ``GameRules`` fields every rules file holds, checked: a game's own rules class is
    built as ``MyRules(**common_rules(...), my_field=...)``."""
    name = root.key("game").text()
    if name != game:
        raise root.key("game").fail(f"expected {game!r}, got {name!r}")
    block_units = root.key("block").key("units").positive_int()
    stake_nodes = root.key("stakes").key("cents").items()
    stakes = tuple(n.positive_int() for n in stake_nodes)
    unique(stake_nodes, list(stakes), "stake")
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


def read_rules_file(text: bytes, file: str) -> tuple[RulesNode, str]:
    """The YAML document's root node and the SHA-256 of its bytes; ``file`` names it in errors."""
    try:
        data = _yaml.load(text)
    except _yaml.YAMLError as exc:
        raise RulesDataError(f"{file}: not valid YAML: {exc}") from None
    return RulesNode(data, file, ""), hashlib.sha256(text).hexdigest()


def stake_error(game: str, stake_cents: object, stakes: tuple[int, ...]) -> StakeError:
    return StakeError(
        f"stake_cents {stake_cents!r} ({type(stake_cents).__name__}) is not a stake of {game}: "
        f"expected one of {', '.join(map(str, stakes))}"
    )
