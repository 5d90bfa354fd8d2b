"""The game registry: an unknown game is an error everywhere, and registration checks its input.

Before the registry, several entry points sent any game that was not robots down the eldorado
path; each of them is asked here for a game nobody registered, and must name the value.
"""

from __future__ import annotations

import ast
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import reference
import reference.eldorado
import reference.robots
from reference import Block, GameEngine, RegistrationError, UnknownGameError
from reference._generate import TicketMaker
from reference._service import GameService, ServiceError

ENTRY_POINTS: dict[str, Callable[[Any], object]] = {
    "evaluate": lambda g: reference.evaluate(g, 100, "x"),
    "prize_cents": lambda g: reference.prize_cents(g, 100, "x"),
    "win_kinds": lambda g: reference.win_kinds(g, 100, "x"),
    "game_win_kinds": reference.game_win_kinds,
    "parse_ticket": lambda g: reference.parse_ticket(g, "x"),
    "check_stake": lambda g: reference.check_stake(g, 100),
    "load_rules": reference.load_rules,
    "rules_file_bytes": reference.rules_file_bytes,
    "parse_rules": lambda g: reference.parse_rules(b"game: x", "x.yaml", g),
    "game_engine": reference.game_engine,
    "generate_ticket": lambda g: reference.generate_ticket(g, 100, 0, random.Random(1)),
    "prize_decompositions": lambda g: reference.prize_decompositions(g, 100, 100),
    "TicketMaker": lambda g: TicketMaker(g, 100),
    "default_block_id": lambda g: reference.default_block_id(g, 100, 1),
    "Block": lambda g: Block(g, 100, "b-1", bytes(32)),
}


@pytest.mark.parametrize("name", sorted(ENTRY_POINTS))
@pytest.mark.parametrize("game", ["keno", "Robots", "", None, ["robots"], 7])
def test_an_unknown_game_is_refused_by_name_everywhere(name: str, game: object) -> None:
    with pytest.raises(UnknownGameError, match=r"game .* is not a game") as info:
        ENTRY_POINTS[name](game)
    assert repr(game) in str(info.value)
    assert info.value.code == "invalid_game"


def test_the_service_refuses_an_unknown_game_with_invalid_game(tmp_path: Path) -> None:
    service = GameService(tmp_path / "db.sqlite", seed=bytes(32))
    try:
        for call in (
            lambda: service.evaluate("keno", 100, ["x"]),
            lambda: service.list_blocks("keno"),
            lambda: service.list_blocks("keno", 100),
        ):
            with pytest.raises(ServiceError) as info:
                call()
            assert (info.value.status, info.value.code) == (422, "invalid_game")
            assert "'keno'" in info.value.message
    finally:
        service.close()


def test_games_is_a_live_view_of_the_registry() -> None:
    assert reference.GAMES == ("robots", "eldorado") == reference.games()
    assert list(reference.GAMES) == ["robots", "eldorado"] and len(reference.GAMES) == 2
    assert reference.GAMES[0] == "robots" and reference.GAMES[-1:] == ("eldorado",)
    assert "robots" in reference.GAMES and "keno" not in reference.GAMES
    assert ["robots"] not in reference.GAMES  # unhashable: simply not a game
    assert repr(reference.GAMES) == "('robots', 'eldorado')"


def test_format_ticket_refuses_what_is_no_game_s_ticket() -> None:
    with pytest.raises(reference.TicketError, match=r"RobotsTicket, EldoradoTicket.*got str"):
        reference.format_ticket("DQTCSPHO|D")


def test_the_package_games_are_engines_and_stay_registered() -> None:
    for game in reference.GAMES:
        engine = reference.game_engine(game)
        assert isinstance(engine, GameEngine) and engine.rules is reference.load_rules(game)
        assert engine is reference.game_engine(game)  # built once
    assert reference.game_engine("robots").buttons == 18
    assert reference.game_engine("eldorado").buttons == 0
    with pytest.raises(RegistrationError, match="ships with the package"):
        reference.unregister_game("robots")


class _Half(GameEngine):
    """An engine that forgot most of the interface."""

    TICKET_TYPE = str
    WIN_KINDS = frozenset({"win"})

    def parse(self, ticket: str) -> str:
        return ticket


@pytest.mark.parametrize(
    ("name", "engine", "fault"),
    [
        ("Coins", reference.robots.RobotsEngine, "expected a lower-case letter"),
        ("co-ins", reference.robots.RobotsEngine, "expected a lower-case letter"),
        ("", reference.robots.RobotsEngine, "expected a lower-case letter"),
        ("coins", dict, "is not a subclass of reference.GameEngine"),
        ("coins", _Half, "_Half does not define .*evaluate"),
        ("robots", reference.eldorado.EldoradoEngine, "'robots' is already registered"),
    ],
)
def test_registration_refuses_bad_input(name: str, engine: Any, fault: str) -> None:
    rules = Path(reference.__file__).parent / "rules" / "robots.yaml"
    with pytest.raises(RegistrationError, match=fault):
        reference.register_game(name, engine, rules)
    assert reference.GAMES == ("robots", "eldorado")


def test_a_broken_rules_file_fails_at_registration_naming_file_and_key(tmp_path: Path) -> None:
    text = reference.rules_file_bytes("robots").decode().replace("game: robots", "game: robots2")
    path = tmp_path / "robots2.yaml"
    path.write_text(text.replace("units: 2000000", "units: many"))
    with pytest.raises(reference.RulesDataError, match=r"robots2\.yaml: block\.units: expected"):
        reference.register_game("robots2", reference.robots.RobotsEngine, path)
    assert "robots2" not in reference.GAMES  # nothing half-registered is left behind
    with pytest.raises(reference.RulesDataError, match=r"missing\.yaml: cannot be read"):
        reference.register_game("robots2", reference.robots.RobotsEngine, tmp_path / "missing.yaml")
    assert "robots2" not in reference.GAMES


def test_a_second_robots_under_another_name_is_a_game_like_the_others(tmp_path: Path) -> None:
    """The registry holds no game name: the robots engine serves a copy of its rules as a
    game of another name, blocks and all, and the copy goes away cleanly."""
    text = reference.rules_file_bytes("robots").decode().replace("game: robots", "game: robo")
    path = tmp_path / "robo.yaml"
    path.write_text(text)
    reference.register_game("robo", reference.robots.RobotsEngine, path)
    try:
        assert reference.GAMES == ("robots", "eldorado", "robo")
        ticket = "DQTCSPHO|D D D D T T C C C C C S S S S S S P"
        assert reference.evaluate("robo", 100, ticket) == reference.evaluate("robots", 100, ticket)
        with pytest.raises(reference.StakeError, match="is not a stake of robo"):
            reference.evaluate("robo", 50, ticket)
        block = Block("robo", 100, "robo-100-0001", bytes(32))
        for unit in block.iter_units(0, 50):
            assert reference.prize_cents("robo", 100, unit.ticket) == unit.prize_cents
        assert reference.register_game("robo", reference.robots.RobotsEngine, path).name == "robo"
    finally:
        reference.unregister_game("robo")
    assert reference.GAMES == ("robots", "eldorado")
    with pytest.raises(UnknownGameError, match="'robo'"):
        reference.evaluate("robo", 100, ticket)


def _game_names_in(path: Path) -> list[tuple[int, str]]:
    names = {"robots", "eldorado"}
    return [
        (node.lineno, node.value)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and node.value in names
    ]


def test_no_reference_module_but_a_game_s_own_names_a_game() -> None:
    """A branch on a game's name anywhere else is how unknown games used to fall through to
    eldorado: the registry is the one place modules find a game."""
    package = Path(reference.__file__).parent
    own = {"_builtin.py"} | {p.name for p in package.glob("_robots*.py")}
    own |= {p.name for p in package.glob("_eldorado*.py")}
    found = {
        path.name: names
        for path in sorted(package.glob("*.py"))
        if path.name not in own and (names := _game_names_in(path))
    }
    assert found == {}


def test_the_game_name_scan_sees_a_branch(tmp_path: Path) -> None:
    sample = tmp_path / "branchy.py"
    sample.write_text('def f(game):\n    return 1 if game == "robots" else 2\n')
    assert _game_names_in(sample) == [(2, "robots")]


def test_a_reveal_names_a_symbol_as_its_engine_says() -> None:
    """The play scenarios read a reveal's symbol through the engine: robots' names and
    letters alike, each to its letter, and every symbol a button reveals among them; a game
    without buttons has none."""
    robots = reference.game_engine("robots")
    spellings = robots.reveal_symbols()
    assert spellings["blue_diamond"] == spellings["D"] == "D"
    assert set(spellings.values()) == {s.letter for s in reference.robots.robots_rules().symbols}
    ticket = "OHPSCTQD|C D2+P S S C S D T S P H O C S T D C C"  # contract 1's example
    shown = {r["symbol"] for button in robots.button_reveals(ticket) for r in button}
    assert shown <= set(spellings)
    assert reference.game_engine("eldorado").reveal_symbols() == {}
