"""The reference game service (contract section 4 behaviour), called in-process."""

from __future__ import annotations

import hashlib
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import reference
import reference.robots
from reference._blocks import Block, default_block_id
from reference._robots import parse_ticket as parse_robots
from reference._service import GameService, ServiceError

from ._live import SEED

ROBOTS_UNITS = reference.robots.robots_rules().block_units


@pytest.fixture
def service(tmp_path: Path) -> Iterator[GameService]:
    svc = GameService(tmp_path / "ref.sqlite3", seed=SEED)
    yield svc
    svc.close()


def expect(status: int, code: str, call: Any, *args: Any) -> ServiceError:
    with pytest.raises(ServiceError) as info:
        call(*args)
    assert (info.value.status, info.value.code) == (status, code), info.value.message
    assert info.value.document() == {"error": {"code": code, "message": info.value.message}}
    return info.value


def account(service: GameService, balance: int = 10_000) -> tuple[str, str]:
    opened = service.open_account(balance)
    return opened["account_id"], opened["token"]


# -- describe and evaluate ----------------------------------------------------------------


def test_implementation_lists_both_games_and_all_capabilities(service: GameService) -> None:
    doc = service.implementation()
    assert doc["name"] == "instantcert-reference"
    assert doc["games"] == {
        "robots": {"stakes_cents": [100]},
        "eldorado": {"stakes_cents": [50, 100, 200]},
    }
    assert doc["capabilities"] == ["evaluate", "blocks", "play", "reveal"]


def test_evaluate_matches_the_rules_engine_and_isolates_bad_tickets(service: GameService) -> None:
    good = "OHPSCTQD|C D2+P S S C S D T S P H O C S T D C C"
    results = service.evaluate("robots", 100, [good, "nonsense", 7])["results"]
    assert results[0] == reference.evaluate("robots", 100, good)
    assert results[1]["error"]["code"] == "invalid_ticket"
    assert results[2]["error"]["code"] == "invalid_ticket"
    assert "int" in results[2]["error"]["message"]


@pytest.mark.parametrize(
    ("game", "stake", "tickets", "status", "code"),
    [
        ("robots", 100, [], 400, "malformed_request"),
        ("robots", 100, ["x"] * 1001, 400, "malformed_request"),
        ("robots", 100, "x", 400, "malformed_request"),
        ("poker", 100, ["x"], 422, "invalid_game"),
        (3, 100, ["x"], 400, "malformed_request"),
        ("robots", 50, ["x"], 422, "invalid_stake"),
        ("eldorado", 75, ["x"], 422, "invalid_stake"),
        ("robots", "100", ["x"], 400, "malformed_request"),
        ("robots", True, ["x"], 400, "malformed_request"),
    ],
)
def test_evaluate_refusals(
    service: GameService, game: object, stake: object, tickets: object, status: int, code: str
) -> None:
    expect(status, code, service.evaluate, game, stake, tickets)


# -- accounts and tokens ------------------------------------------------------------------


@pytest.mark.parametrize("balance", [-1, 1.5, "100", True, None, 2**53])
def test_open_account_refuses_what_is_not_a_balance(service: GameService, balance: object) -> None:
    error = expect(400, "malformed_request", service.open_account, balance)
    assert repr(balance) in error.message


def test_token_is_secret_random_and_stored_only_as_its_hash(
    service: GameService, tmp_path: Path
) -> None:
    first, second = service.open_account(0), service.open_account(0)
    assert first["token"] != second["token"] and first["account_id"] != second["account_id"]
    assert len(first["token"]) >= 40
    with sqlite3.connect(tmp_path / "ref.sqlite3") as db:
        stored = db.execute("SELECT token_sha256 FROM accounts ORDER BY rowid").fetchall()
        dump = "\n".join(db.iterdump())
    assert first["token"] not in dump and second["token"] not in dump
    assert stored[0][0] == hashlib.sha256(first["token"].encode()).hexdigest()


def test_a_token_opens_its_own_account_only(service: GameService) -> None:
    alice, alice_token = account(service, 500)
    bob, bob_token = account(service, 700)
    assert service.balance(alice, alice_token) == {"account_id": alice, "balance_cents": 500}
    expect(401, "unauthorized", service.balance, alice, None)
    expect(401, "unauthorized", service.balance, alice, "")
    expect(401, "unauthorized", service.balance, alice, alice_token + "x")
    # someone else's account answers exactly like an unknown one: existence is not leaked
    other = expect(404, "not_found", service.balance, alice, bob_token)
    unknown = expect(404, "not_found", service.balance, "acct_nobody", bob_token)
    assert other.message.replace(alice, "ID") == unknown.message.replace("acct_nobody", "ID")
    expect(404, "not_found", service.play, alice, bob_token, "robots", 100)
    expect(404, "not_found", service.history, alice, bob_token)
    play = service.play(bob, bob_token, "robots", 100)
    expect(404, "not_found", service.reveal, play["play_id"], alice_token, 0)
    expect(404, "not_found", service.auto, play["play_id"], alice_token)
    expect(401, "unauthorized", service.auto, play["play_id"], None)
    assert service.balance(alice, alice_token)["balance_cents"] == 500


# -- plays --------------------------------------------------------------------------------


def test_units_are_sold_in_block_order_per_game_and_stake(service: GameService) -> None:
    who, token = account(service, 100_000)
    sold = [service.play(who, token, "robots", 100) for _ in range(3)]
    sold += [service.play(who, token, "eldorado", 50) for _ in range(2)]
    sold.append(service.play(who, token, "eldorado", 200))
    assert [(p["block_id"], p["index"]) for p in sold] == [
        ("robots-100-0001", 0),
        ("robots-100-0001", 1),
        ("robots-100-0001", 2),
        ("eldorado-50-0001", 0),
        ("eldorado-50-0001", 1),
        ("eldorado-200-0001", 0),
    ]


def test_a_play_debits_the_stake_and_credits_the_units_prize(service: GameService) -> None:
    who, token = account(service, 5_000)
    balance = 5_000
    for _ in range(20):
        play = service.play(who, token, "eldorado", 200)
        block = Block("eldorado", 200, play["block_id"], service.block_seed(play["block_id"]))
        unit = block.unit(play["index"])
        balance = balance - 200 + unit.prize_cents
        assert play["balance_cents"] == balance
        auto = service.auto(play["play_id"], token)
        assert (auto["ticket"], auto["prize_cents"]) == (unit.ticket, unit.prize_cents)
        assert auto["wins"] == reference.evaluate("eldorado", 200, unit.ticket)["wins"]
    assert service.balance(who, token)["balance_cents"] == balance


def test_insufficient_funds_changes_nothing(service: GameService) -> None:
    poor, poor_token = account(service, 99)
    rich, rich_token = account(service, 1_000)
    expect(402, "insufficient_funds", service.play, poor, poor_token, "robots", 100)
    assert service.balance(poor, poor_token)["balance_cents"] == 99
    assert service.history(poor, poor_token) == {"plays": []}
    assert service.play(rich, rich_token, "robots", 100)["index"] == 0  # no unit was used up


@pytest.mark.parametrize(
    ("game", "stake", "status", "code"),
    [
        ("lotto", 100, 422, "invalid_game"),
        ("robots", 200, 422, "invalid_stake"),
        ("eldorado", 0, 422, "invalid_stake"),
        (None, 100, 400, "malformed_request"),
        ("robots", 100.5, 400, "malformed_request"),
        ("robots", True, 400, "malformed_request"),
    ],
)
def test_play_refusals(
    service: GameService, game: object, stake: object, status: int, code: str
) -> None:
    who, token = account(service)
    expect(status, code, service.play, who, token, game, stake)
    assert service.balance(who, token)["balance_cents"] == 10_000


def test_reveals_rebuild_the_ticket_button_by_button(service: GameService) -> None:
    who, token = account(service)
    rules = reference.robots.robots_rules()
    letters = {s.name: s.letter for s in rules.symbols}
    for _ in range(5):
        play = service.play(who, token, "robots", 100)
        buttons = []
        for button in reversed(range(rules.buttons)):  # any click order (robots 4.4)
            shown: list[dict[str, Any]] = []
            while True:
                try:
                    shown.append(service.reveal(play["play_id"], token, button))
                except ServiceError as exc:
                    assert (exc.status, exc.code) == (409, "nothing_to_reveal")
                    break
            assert {s["button"] for s in shown} == {button}
            # a +1 shows after every reveal of the button but its last (robots 4.7)
            assert [s["plus_one"] for s in shown] == [True] * (len(shown) - 1) + [False]
            buttons.append("+".join(letters[s["symbol"]] + ("2" if s["x2"] else "") for s in shown))
        ticket = service.auto(play["play_id"], token)["ticket"]
        assert ticket.split("|")[1] == " ".join(reversed(buttons))


def test_reveal_refusals(service: GameService) -> None:
    who, token = account(service)
    robots = service.play(who, token, "robots", 100)
    eldorado = service.play(who, token, "eldorado", 100)
    for button in (-1, 18, True, "0", None):
        expect(400, "malformed_request", service.reveal, robots["play_id"], token, button)
    expect(409, "nothing_to_reveal", service.reveal, eldorado["play_id"], token, 0)
    expect(404, "not_found", service.reveal, "play_unknown", token, 0)
    first = service.auto(robots["play_id"], token)
    assert service.auto(robots["play_id"], token) == first  # asked again, same answer
    expect(409, "nothing_to_reveal", service.reveal, robots["play_id"], token, 0)


def test_reveal_state_survives_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "restart.sqlite3"
    service = GameService(db, seed=SEED)
    who, token = account(service)
    letters = {s.name: s.letter for s in reference.robots.robots_rules().symbols}
    continued = 0
    try:
        for _ in range(20):
            play = service.play(who, token, "robots", 100)
            ticket = service.history(who, token, 1)["plays"][0]["ticket"]
            buttons = parse_robots(ticket).buttons
            button = max(range(len(buttons)), key=lambda b: len(buttons[b]))  # one with a +1
            service.reveal(play["play_id"], token, button)
            service.close()
            service = GameService(db)  # restarted; the seed is now the database's own
            if len(buttons[button]) > 1:
                shown = service.reveal(play["play_id"], token, button)
                second = buttons[button][1]
                assert (letters[shown["symbol"]], shown["x2"]) == (second.symbol, second.x2)
                continued += 1
            else:
                expect(409, "nothing_to_reveal", service.reveal, play["play_id"], token, button)
        assert continued > 0, "no unit with a +1 in 20: the test saw no second reveal"
        assert service.balance(who, token)["balance_cents"] == play["balance_cents"]
    finally:
        service.close()


def test_a_database_refuses_another_seed(tmp_path: Path) -> None:
    GameService(tmp_path / "a.sqlite3", seed=SEED).close()
    with pytest.raises(ValueError, match="another master seed"):
        GameService(tmp_path / "a.sqlite3", seed=b"\x00" * 32)


def test_history_is_newest_first_and_shows_unrevealed_plays(service: GameService) -> None:
    who, token = account(service)
    plays = [service.play(who, token, "eldorado", 50) for _ in range(4)]
    history = service.history(who, token)["plays"]
    assert [h["play_id"] for h in history] == [p["play_id"] for p in reversed(plays)]
    block = Block("eldorado", 50, "eldorado-50-0001", service.block_seed("eldorado-50-0001"))
    for entry in history:
        unit = block.unit(entry["index"])
        assert (entry["ticket"], entry["prize_cents"]) == (unit.ticket, unit.prize_cents)
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", entry["created_at"])
    assert service.history(who, token, 2)["plays"] == history[:2]
    for limit in (0, -1, "2", 1.5, True):  # 1.0 is 1 (JSON Schema's integer)
        expect(400, "malformed_request", service.history, who, token, limit)


# -- blocks -------------------------------------------------------------------------------


def test_block_seeds_derive_from_the_master_seed(service: GameService, tmp_path: Path) -> None:
    other = GameService(tmp_path / "other.sqlite3", seed=b"\x07" * 32)
    try:
        block_id = default_block_id("robots", 100, 1)
        assert len(service.block_seed(block_id)) == 32
        assert service.block_seed(block_id) != other.block_seed(block_id)
        assert service.block_seed(block_id) != service.block_seed(
            default_block_id("robots", 100, 2)
        )
    finally:
        other.close()


def test_sales_move_to_the_next_block_when_one_is_sold_out(
    service: GameService, tmp_path: Path
) -> None:
    who, token = account(service)
    service.play(who, token, "robots", 100)
    with sqlite3.connect(tmp_path / "ref.sqlite3") as db:
        db.execute("UPDATE sales SET next_index = ? WHERE game = 'robots'", (ROBOTS_UNITS - 1,))
    last = service.play(who, token, "robots", 100)
    first_of_next = service.play(who, token, "robots", 100)
    assert (last["block_id"], last["index"]) == ("robots-100-0001", ROBOTS_UNITS - 1)
    assert (first_of_next["block_id"], first_of_next["index"]) == ("robots-100-0002", 0)
    listed = service.list_blocks("robots", 100)["blocks"]
    assert [b["block_id"] for b in listed] == [
        "robots-100-0001",
        "robots-100-0002",
        "robots-100-0003",  # issued ahead: the one on sale and the next
    ]
    assert service.block("robots-100-0003").block_id == "robots-100-0003"
    expect(404, "not_found", service.block, "robots-100-0004")  # not issued yet


def test_list_blocks_filters(service: GameService) -> None:
    every = service.list_blocks()["blocks"]
    assert {(b["game"], b["stake_cents"]) for b in every} == {
        ("robots", 100),
        ("eldorado", 50),
        ("eldorado", 100),
        ("eldorado", 200),
    }
    assert [b["block_id"] for b in service.list_blocks("eldorado")["blocks"]] == [
        f"eldorado-{stake}-000{number}" for stake in (50, 100, 200) for number in (1, 2)
    ]
    assert [b["game"] for b in service.list_blocks(stake_cents=100)["blocks"]] == [
        "robots",
        "robots",
        "eldorado",
        "eldorado",
    ]
    assert service.list_blocks("eldorado", 50)["blocks"][0]["units"] == 900_000
    expect(422, "invalid_game", service.list_blocks, "lotto")
    assert service.list_blocks("robots", 50) == {"blocks": []}  # only eldorado sells 50
    expect(422, "invalid_stake", service.list_blocks, "robots", 75)
    expect(422, "invalid_stake", service.list_blocks, None, 75)


@pytest.mark.parametrize(
    ("block_id", "start", "count", "status"),
    [
        ("robots-100-0001", -1, None, 400),
        ("robots-100-0001", ROBOTS_UNITS + 1, None, 404),  # well formed, past the end
        ("robots-100-0001", 10, ROBOTS_UNITS, 404),
        ("robots-100-0001", 10**18, None, 400),  # past any query integer
        ("robots-100-0001", None, -5, 400),
        ("robots-100-1", 0, 1, 404),
        ("robots-50-0001", 0, 1, 404),
        ("nonsense", 0, 1, 404),
        ("", 0, 1, 404),
    ],
)
def test_block_slice_refusals(
    service: GameService, block_id: str, start: int | None, count: int | None, status: int
) -> None:
    with pytest.raises(ServiceError) as info:
        service.block_slice(block_id, start, count)
    assert info.value.status == status


def test_block_slice_defaults(service: GameService) -> None:
    block, start, count = service.block_slice("eldorado-100-0001")
    assert (block.block_id, start, count) == ("eldorado-100-0001", 0, 900_000)
    assert service.block_slice("eldorado-100-0001", 899_990)[1:] == (899_990, 10)
    assert service.block_slice("eldorado-100-0001", None, 3)[1:] == (0, 3)
    assert service.block_slice("eldorado-100-0001", 900_000, 0)[1:] == (900_000, 0)
