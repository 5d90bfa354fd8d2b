"""The reference serves a game it does not ship: Coins (``tests/third_game``), registered here.

With its rules file and its engine registered by ``reference.register_game``, and nothing else,
Coins is loaded and validated, evaluated, generated ticket by ticket and block by block (in
worker processes too), sold, shown and listed by the game service, and served over HTTP like
robots and eldorado; once removed, it is an unknown game again.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import requests

import reference
from reference import Block, PrizeError, StakeError, TicketError, UnknownGameError
from reference._blockfile import write_block_file
from reference._render import SliceRenderer
from reference._server import ServerThread
from reference._service import GameService, ServiceError
from tests import third_game
from tests.third_game import CoinsRules, CoinsTicket

SEED = bytes(range(32))
STAKES = (100, 200)


@pytest.fixture(scope="module", autouse=True)
def coins() -> Iterator[None]:
    with third_game.registered():
        yield
    assert "coins" not in reference.GAMES


def lot_amounts(stake: int) -> list[int]:
    return [lot.prize_cents for lot in reference.load_rules("coins").lot_table(stake).lots]


# -- rules data ---------------------------------------------------------------------------


def test_the_rules_file_is_loaded_and_validated_by_the_engine_s_parser() -> None:
    rules = reference.load_rules("coins")
    assert isinstance(rules, CoinsRules) and rules.title == "Coins (test-only game)"
    assert (rules.block_units, rules.stakes_cents, rules.purses) == (1000, (100, 200), 2)
    assert [(c.letter, c.name, c.amount_cents[200]) for c in rules.coins] == [
        ("G", "gold", 2000),
        ("S", "silver", 800),
        ("B", "bronze", 300),
    ]
    assert rules.lot_table(200).total_prize_cents == 72_000
    text = third_game.RULES_PATH.read_bytes()
    assert reference.rules_file_bytes("coins") == text
    assert rules.sha256 == hashlib.sha256(text).hexdigest()
    assert reference.GAMES == ("robots", "eldorado", "coins")


@pytest.mark.parametrize(
    ("old", "new", "fault"),
    [
        ("{100: 400,  200: 800}", "{100: 400}", "coins.list[1].amount_cents: expected an amount"),
        ("letter: S,", "letter: G,", "letter 'G' appears twice"),
        ("count: 2 ", "count: two ", "purses.count: expected a positive integer, got 'two'"),
        ("{prize_cents: 150,  units: 80}", "{prize_cents: 150,  units: 81}", "declared_total"),
        ("game: coins", "game: robots", "game: expected 'coins', got 'robots'"),
    ],
)
def test_a_broken_rules_file_is_refused_naming_file_and_key(old: str, new: str, fault: str) -> None:
    text = third_game.RULES_PATH.read_text()
    assert old in text, old
    with pytest.raises(reference.RulesDataError, match=r"^coins\.yaml: ") as info:
        reference.parse_rules(text.replace(old, new, 1).encode(), "coins.yaml", "coins")
    assert fault in str(info.value)


# -- notation and evaluation ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("stake", "ticket", "prize", "kinds"),
    [
        (100, "GSB|SBG", 0, set()),
        (100, "GGS|SSG", 0, set()),
        (100, "SSS|GSB", 400, {"one purse"}),
        (200, "GSB|SSS", 800, {"one purse"}),
        (100, "BBB|BBB", 300, {"purses added"}),
        (200, "GGG|BBB", 2300, {"purses added"}),
    ],
)
def test_a_purse_of_three_alike_pays_and_purses_add_up(
    stake: int, ticket: str, prize: int, kinds: set[str]
) -> None:
    result = reference.evaluate("coins", stake, ticket)
    assert result["prize_cents"] == prize == reference.prize_cents("coins", stake, ticket)
    assert sum(w["amount_cents"] for w in result["wins"]) == prize
    assert reference.win_kinds("coins", stake, ticket) == kinds
    assert kinds <= reference.game_win_kinds("coins") == {"one purse", "purses added"}
    engine = reference.game_engine("coins")
    schema = engine.win_schema()
    assert schema is not None
    for win in result["wins"]:
        jsonschema.validate(win, schema)


def test_the_wins_name_purse_and_coin() -> None:
    assert reference.evaluate("coins", 100, "GGG|SSB")["wins"] == [
        {"purse": 0, "symbol": "gold", "amount_cents": 1000}
    ]


@pytest.mark.parametrize(
    ("ticket", "fault"),
    [
        ("GGG", "expected 2 purses separated by '|', got 1"),
        ("GGG|GGG|GGG", "expected 2 purses separated by '|', got 3"),
        ("GGX|GGG", "purse 0, coin 2: 'X' is not a coin (GSB)"),
        ("GG|GGG", "purse 0: expected 3 coins, got 2"),
        ("GGG|ggg", "purse 1, coin 0: 'g' is not a coin"),
        ("", "purse 0: expected 3 coins, got 0"),
        (7, "a ticket is a string, got int: 7"),
    ],
)
def test_an_invalid_ticket_names_its_fault(ticket: Any, fault: str) -> None:
    with pytest.raises(TicketError) as info:
        reference.evaluate("coins", 100, ticket)
    assert fault in str(info.value)


@pytest.mark.parametrize("stake", [50, 0, 100.0, "100", None, True])
def test_a_stake_coins_does_not_sell_is_refused(stake: Any) -> None:
    with pytest.raises(StakeError, match="is not a stake of coins: expected one of 100, 200"):
        reference.evaluate("coins", stake, "GGG|SSB")


def test_parse_and_format_are_inverse_and_format_finds_the_game_by_its_ticket() -> None:
    parsed = reference.parse_ticket("coins", "GSB|BBB")
    assert parsed == CoinsTicket(("GSB", "BBB"))
    assert reference.format_ticket(parsed) == "GSB|BBB"
    with pytest.raises(TicketError, match="purse 1: expected 3 coins"):
        reference.format_ticket(CoinsTicket(("GSB", "BB")))
    with pytest.raises(TicketError, match="CoinsTicket"):
        reference.format_ticket(3)


# -- generation -------------------------------------------------------------------------------


@pytest.mark.parametrize("stake", STAKES)
def test_tickets_of_every_amount_show_every_decomposition(stake: int) -> None:
    for prize in [0, *lot_amounts(stake)]:
        decompositions = {
            tuple(g.symbol for g in d)
            for d in reference.prize_decompositions("coins", stake, prize)
        }
        assert decompositions, prize
        rng = random.Random(f"coins-{stake}-{prize}")
        seen: Counter[tuple[str, ...]] = Counter()
        for _ in range(300):
            ticket = reference.generate_ticket("coins", stake, prize, rng)
            result = reference.evaluate("coins", stake, ticket)
            assert result["prize_cents"] == prize, ticket
            seen[tuple(sorted((w["symbol"][0].upper() for w in result["wins"]), reverse=True))] += 1
        assert set(seen) == {tuple(sorted(d, reverse=True)) for d in decompositions}


def test_two_bronze_purses_at_100_one_at_200() -> None:
    (at_100,) = reference.prize_decompositions("coins", 100, 300)
    (at_200,) = reference.prize_decompositions("coins", 200, 300)
    assert [g.symbol for g in at_100] == ["B", "B"] and [g.symbol for g in at_200] == ["B"]


def test_an_unreachable_prize_is_refused() -> None:
    assert reference.prize_decompositions("coins", 100, 1) == ()
    with pytest.raises(PrizeError, match="prize_cents 1: no 2 or fewer winning purses"):
        reference.generate_ticket("coins", 100, 1, random.Random(1))


# -- blocks -------------------------------------------------------------------------------------


@pytest.mark.parametrize("stake", STAKES)
def test_a_block_holds_exactly_the_lot_table_and_every_ticket_pays_its_prize(stake: int) -> None:
    block = Block("coins", stake, reference.default_block_id("coins", stake, 1), SEED)
    assert block.units == 1000 and block.block_id == f"coins-{stake}-0001"
    units = list(block.iter_units())
    counts = Counter(u.prize_cents for u in units)
    assert counts == reference.load_rules("coins").lot_table(stake).counts()
    for unit in units:
        assert reference.prize_cents("coins", stake, unit.ticket) == unit.prize_cents
    assert len({u.ticket for u in units}) > 150  # varied: 24 x 24 losing tickets and more
    whole = b"".join(block.document_lines())
    again = Block("coins", stake, block.block_id, SEED)
    assert b"".join(again.document_lines()) == whole  # (seed, id) fix the block
    assert again.render(123, 45) == b"".join(whole.splitlines(keepends=True)[124:169])
    header = json.loads(whole.splitlines()[0])
    assert (header["game"], header["units"]) == ("coins", 1000)
    assert header["rules_sha256"] == reference.load_rules("coins").sha256


def test_block_bytes_are_pinned() -> None:
    """The generator is deterministic across runs and machines: these bytes never change
    unless the Coins rules, engine or the block format does."""
    block = Block("coins", 100, "coins-100-0001", SEED)
    digest = hashlib.sha256(b"".join(block.document_lines())[len(block.header_line()) :])
    assert digest.hexdigest() == PINNED_UNITS_SHA256


PINNED_UNITS_SHA256 = "7efef2786e2f73d4e09cb0a76cd7a40a1011f737babe9bd207d7beb81785bdaa"


def test_block_files_and_spawned_workers_know_the_game(tmp_path: Path) -> None:
    """Workers started by ``spawn`` begin with the package's games only: the game's
    registration travels with the work, and the bytes are those of one thread."""
    block = Block("coins", 200, "coins-200-0001", SEED)
    expected = b"".join(block.document_lines())
    renderer = SliceRenderer(workers=2, parallel_from=1)
    try:
        assert b"".join(renderer.document_lines(block, 0, block.units)) == expected
        assert renderer.workers == 2  # the workers did the work: none gave up
    finally:
        renderer.close()
    path = tmp_path / "coins.jsonl"
    digest = write_block_file(path, block, workers=2)
    assert path.read_bytes() == expected
    assert digest == hashlib.sha256(expected).hexdigest()


# -- the game service and the HTTP server -------------------------------------------------------


@pytest.fixture()
def service(tmp_path: Path) -> Iterator[GameService]:
    service = GameService(tmp_path / "db.sqlite3", seed=SEED, durable=False)
    yield service
    service.close()


def test_the_service_sells_shows_and_lists_coins(service: GameService) -> None:
    assert service.implementation()["games"]["coins"] == {"stakes_cents": [100, 200]}
    listed = service.list_blocks("coins")["blocks"]
    assert [b["block_id"] for b in listed] == [
        "coins-100-0001",
        "coins-100-0002",
        "coins-200-0001",
        "coins-200-0002",
    ]
    assert {b["units"] for b in listed} == {1000}
    assert service.evaluate("coins", 100, ["GGG|SSS", "GG|S"])["results"][0]["prize_cents"] == 1400
    account = service.open_account(10_000)
    token = account["token"]
    block = Block("coins", 200, "coins-200-0001", service.block_seed("coins-200-0001"))
    for index in range(5):
        play = service.play(account["account_id"], token, "coins", 200)
        assert (play["block_id"], play["index"]) == ("coins-200-0001", index)
        shown = service.auto(play["play_id"], token)
        unit = block.unit(index)
        assert (shown["ticket"], shown["prize_cents"]) == (unit.ticket, unit.prize_cents)
        assert shown == service.auto(play["play_id"], token)  # asked again, same answer
        with pytest.raises(ServiceError) as info:  # AUTO showed every purse's coins
            service.reveal(play["play_id"], token, 0)
        assert (info.value.status, info.value.code) == (409, "nothing_to_reveal")
        assert "button 0" in info.value.message and "nothing left" in info.value.message
    history = service.history(account["account_id"], token)["plays"]
    assert [p["game"] for p in history] == ["coins"] * 5
    served = b"".join(service.block_document("coins-200-0001", 10, 20))
    assert served == b"".join(block.document_lines(10, 20))


def test_a_play_is_revealed_purse_by_purse(service: GameService) -> None:
    """Article 6: a button per purse, a click shows its next coin, a +1 on every coin but the
    last; the service reveals Coins through the engine's description, as it does robots."""
    engine = reference.game_engine("coins")
    assert engine.buttons == 2
    assert engine.button_reveals("GSB|BBB")[0] == (
        {"symbol": "gold", "x2": False, "plus_one": True},
        {"symbol": "silver", "x2": False, "plus_one": True},
        {"symbol": "bronze", "x2": False, "plus_one": False},
    )
    assert engine.reveal_symbols() == {
        "gold": "G",
        "silver": "S",
        "bronze": "B",
        "G": "G",
        "S": "S",
        "B": "B",
    }
    account = service.open_account(1000)
    token = account["token"]
    play = service.play(account["account_id"], token, "coins", 100)
    shown = {1: [service.reveal(play["play_id"], token, 1) for _ in range(3)]}
    with pytest.raises(ServiceError) as info:  # its last coin had no +1
        service.reveal(play["play_id"], token, 1)
    assert (info.value.status, info.value.code) == (409, "nothing_to_reveal")
    shown[0] = [service.reveal(play["play_id"], token, 0) for _ in range(3)]
    ticket = service.auto(play["play_id"], token)["ticket"]
    for purse, reveals in shown.items():
        assert [r["button"] for r in reveals] == [purse] * 3
        assert [r["plus_one"] for r in reveals] == [True, True, False]
        assert [r["symbol"] for r in reveals] == [
            engine.button_reveals(ticket)[purse][k]["symbol"] for k in range(3)
        ]
    with pytest.raises(ServiceError) as info:
        service.reveal(play["play_id"], token, 2)  # no third purse
    assert info.value.status == 400


def test_a_play_of_a_game_no_longer_registered_is_refused_not_crashed(
    service: GameService,
) -> None:
    account = service.open_account(1000)
    play = service.play(account["account_id"], account["token"], "coins", 100)
    reference.unregister_game("coins")
    try:
        with pytest.raises(ServiceError) as info:
            service.auto(play["play_id"], account["token"])
        assert (info.value.status, info.value.code) == (422, "invalid_game")
        assert "'coins'" in info.value.message
    finally:
        third_game.register()


def test_the_http_server_serves_coins(service: GameService) -> None:
    with ServerThread(service) as server:
        url = server.url
        games = requests.get(f"{url}/v1/implementation", timeout=10).json()["games"]
        assert games["coins"] == {"stakes_cents": [100, 200]}
        answer = requests.post(
            f"{url}/v1/evaluate",
            json={"game": "coins", "stake_cents": 200, "tickets": ["SSS|BBB", "SSS|BB"]},
            timeout=10,
        ).json()["results"]
        assert answer[0] == reference.evaluate("coins", 200, "SSS|BBB")
        assert answer[1]["error"]["code"] == "invalid_ticket"
        listed = requests.get(f"{url}/v1/blocks?game=coins&stake_cents=100", timeout=10).json()
        assert [b["block_id"] for b in listed["blocks"]] == ["coins-100-0001", "coins-100-0002"]
        body = requests.get(f"{url}/v1/blocks/coins-100-0002", timeout=30).content
        seed = service.block_seed("coins-100-0002")
        assert body == b"".join(Block("coins", 100, "coins-100-0002", seed).document_lines())
        account = requests.post(f"{url}/v1/accounts", json={"balance_cents": 500}, timeout=10)
        opened = account.json()
        auth = {"Authorization": f"Bearer {opened['token']}"}
        play = requests.post(
            f"{url}/v1/accounts/{opened['account_id']}/plays",
            json={"game": "coins", "stake_cents": 100},
            headers=auth,
            timeout=10,
        )
        assert play.status_code == 201 and play.json()["game"] == "coins"
        shown = requests.post(
            f"{url}/v1/plays/{play.json()['play_id']}/auto", headers=auth, timeout=10
        )
        assert (
            reference.prize_cents("coins", 100, shown.json()["ticket"])
            == shown.json()["prize_cents"]
        )
        unknown = requests.post(
            f"{url}/v1/evaluate",
            json={"game": "keno", "stake_cents": 100, "tickets": ["x"]},
            timeout=10,
        )
        assert unknown.status_code == 422 and unknown.json()["error"]["code"] == "invalid_game"


def test_once_removed_coins_is_an_unknown_game_again() -> None:
    reference.unregister_game("coins")
    try:
        with pytest.raises(UnknownGameError, match="'coins'"):
            reference.evaluate("coins", 100, "GGG|SSS")
        with pytest.raises(UnknownGameError, match="'coins'"):
            Block("coins", 100, "coins-100-0001", SEED)
        assert reference.GAMES == ("robots", "eldorado")
    finally:
        third_game.register()
