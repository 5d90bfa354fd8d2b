"""The reference HTTP server (contract section 4) driven over the wire with plain ``requests``."""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import requests

import reference
import reference.eldorado
from reference._blocks import Block
from reference._server import MAX_BODY_BYTES, ServerThread
from reference._service import GameService

from ._live import SEED


def schema(name: str) -> dict[str, Any]:
    text = resources.files("contract").joinpath("schemas", f"{name}.schema.json").read_text()
    loaded: dict[str, Any] = json.loads(text)
    return loaded


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, GameService]]:
    service = GameService(tmp_path_factory.mktemp("server") / "ref.sqlite3", seed=SEED)
    with ServerThread(service) as server:
        yield server.url, service
    service.close()


@pytest.fixture(scope="module")
def url(live: tuple[str, GameService]) -> str:
    return live[0]


def error_of(response: requests.Response, status: int, code: str) -> str:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    document = response.json()
    assert set(document) == {"error"} and set(document["error"]) == {"code", "message"}
    assert document["error"]["code"] == code, document
    assert "Traceback" not in response.text
    message: str = document["error"]["message"]
    return message


def new_account(url: str, balance: int = 10_000) -> tuple[str, dict[str, str]]:
    response = requests.post(f"{url}/v1/accounts", json={"balance_cents": balance}, timeout=10)
    assert response.status_code == 201
    body = response.json()
    return body["account_id"], {"Authorization": f"Bearer {body['token']}"}


# -- documents ----------------------------------------------------------------------------


def test_openapi_document_is_served_and_shipped(url: str) -> None:
    response = requests.get(f"{url}/openapi.json", timeout=10)
    shipped = resources.files("reference").joinpath("openapi", "openapi.json").read_bytes()
    assert response.status_code == 200 and response.content == shipped
    spec = response.json()
    assert spec["openapi"].startswith("3.1")
    assert set(spec["paths"]) == {
        "/v1/implementation",
        "/v1/evaluate",
        "/v1/blocks",
        "/v1/blocks/{block_id}",
        "/v1/accounts",
        "/v1/accounts/{account_id}",
        "/v1/accounts/{account_id}/plays",
        "/v1/accounts/{account_id}/history",
        "/v1/plays/{play_id}/reveal",
        "/v1/plays/{play_id}/auto",
    }


@pytest.mark.parametrize(
    ("name", "component"),
    [
        ("evaluation-result", "EvaluationResult"),
        ("block-header", "BlockHeader"),
        ("block-unit", "BlockUnit"),
    ],
)
def test_openapi_components_are_the_shipped_json_schemas(name: str, component: str) -> None:
    spec = json.loads(resources.files("reference").joinpath("openapi", "openapi.json").read_text())
    standalone = schema(name)
    jsonschema.Draft202012Validator.check_schema(standalone)
    del standalone["$schema"], standalone["$id"]
    assert spec["components"]["schemas"][component] == standalone


def test_evaluate_results_follow_the_shipped_schema(url: str) -> None:
    tickets = {
        "robots": ["OHPSCTQD|C D2+P S S C S D T S P H O C S T D C C", "bad"],
        "eldorado": ["YYSYY/VBPSX/BBPPS|SSSSS/PVBYP/BYVPS", "YYYYY/YYYYY/YYYYX"],
    }
    validator = jsonschema.Draft202012Validator(schema("evaluation-result"))
    for game, batch in tickets.items():
        response = requests.post(
            f"{url}/v1/evaluate",
            json={"game": game, "stake_cents": 100, "tickets": batch},
            timeout=10,
        )
        assert response.status_code == 200
        good, bad = response.json()["results"]
        validator.validate(good)
        assert good == reference.evaluate(game, 100, batch[0])
        assert bad["error"]["code"] == "invalid_ticket"


# -- blocks -------------------------------------------------------------------------------


def test_block_slice_is_the_generators_slice_and_audits_clean(url: str) -> None:
    block_id = "eldorado-200-0001"
    response = requests.get(f"{url}/v1/blocks/{block_id}?start=123456&count=300", timeout=30)
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/x-ndjson"
    block = Block("eldorado", 200, block_id, GameService.block_seed_of(SEED, block_id))
    assert response.content == b"".join(block.document_lines(123456, 300))
    lines = response.content.splitlines()
    header = json.loads(lines[0])
    jsonschema.validate(header, schema("block-header"))
    assert (header["start"], header["count"], header["units"]) == (123456, 300, 900_000)
    unit_schema = schema("block-unit")
    for offset, line in enumerate(lines[1:]):
        unit = json.loads(line)
        jsonschema.validate(unit, unit_schema)
        assert unit["index"] == 123456 + offset
        assert reference.prize_cents("eldorado", 200, unit["ticket"]) == unit["prize_cents"]
    assert len(lines) == 301


@pytest.mark.parametrize(
    ("query", "status", "code"),
    [
        ("start=abc", 400, "malformed_request"),
        ("start=-1", 400, "malformed_request"),
        ("count=1.5", 400, "malformed_request"),
        ("start=900001", 404, "not_found"),  # well formed, past this block (openapi.json)
        ("start=899999&count=2", 404, "not_found"),
        ("count=99999999999999999999999", 400, "malformed_request"),
        ("count=", 400, "malformed_request"),  # empty: no count, not the whole block
        ("start=", 400, "malformed_request"),
        ("count", 400, "malformed_request"),
        ("count=5&count=6", 400, "malformed_request"),  # repeated: which one?
        ("count=100.5", 400, "malformed_request"),
        ("count=1e2", 400, "malformed_request"),
    ],
)
def test_block_slice_query_refusals(url: str, query: str, status: int, code: str) -> None:
    response = requests.get(f"{url}/v1/blocks/eldorado-50-0001?{query}", timeout=10)
    error_of(response, status, code)


@pytest.mark.parametrize(
    "query",
    [
        "game=",
        "game=bogus&game=robots",
        "game=robots&game=robots",
        "stake_cents=",
        "stake_cents=100&stake_cents=100",
        "stake_cents=7",
    ],
)
def test_block_list_query_refusals(url: str, query: str) -> None:
    """Issue 29 item 7: an empty or repeated query parameter is refused, as the OpenAPI
    document says (``?game=bogus&game=robots`` was 200: the last one won)."""
    response = requests.get(f"{url}/v1/blocks?{query}", timeout=10)
    assert response.status_code in (400, 422), (query, response.status_code)


def test_a_stake_only_another_game_sells_lists_no_block(url: str) -> None:
    response = requests.get(f"{url}/v1/blocks?game=robots&stake_cents=50", timeout=10)
    assert response.status_code == 200 and response.json() == {"blocks": []}


def test_a_repeated_or_empty_history_limit_is_refused(url: str) -> None:
    for query in ("limit=", "limit=1&limit=2"):
        response = requests.get(f"{url}/v1/accounts/acct_x/history?{query}", timeout=10)
        error_of(response, 400, "malformed_request")


def test_head_of_a_whole_block_computes_nothing(url: str) -> None:
    response = requests.head(f"{url}/v1/blocks/robots-100-0001", timeout=5)
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/x-ndjson"
    assert requests.head(f"{url}/v1/blocks/robots-100-0099", timeout=5).status_code == 404


def test_unknown_block_is_404(url: str) -> None:
    for block_id in ("robots-100-0999", "robots-100-1", "x" * 300, "%00"):
        error_of(requests.get(f"{url}/v1/blocks/{block_id}", timeout=10), 404, "not_found")


def test_list_blocks_and_its_refusals(url: str) -> None:
    response = requests.get(f"{url}/v1/blocks?game=robots&stake_cents=100", timeout=10)
    assert response.json()["blocks"][0] == {
        "block_id": "robots-100-0001",
        "game": "robots",
        "stake_cents": 100,
        "units": 2_000_000,
    }
    error_of(requests.get(f"{url}/v1/blocks?game=bingo", timeout=10), 422, "invalid_game")
    error_of(requests.get(f"{url}/v1/blocks?stake_cents=7", timeout=10), 422, "invalid_stake")
    # a stake only eldorado sells, with robots: a filter that matches no block (openapi.json)
    unsold = requests.get(f"{url}/v1/blocks?game=robots&stake_cents=200", timeout=10)
    assert unsold.status_code == 200 and unsold.json() == {"blocks": []}
    error_of(
        requests.get(f"{url}/v1/blocks?stake_cents=cent", timeout=10), 400, "malformed_request"
    )


# -- bad requests -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "fault"),
    [
        (b"{not json", "not JSON"),
        (b"[1, 2]", "JSON object"),
        (b"", "not JSON"),
        (b'{"balance_cents": NaN}', "not JSON"),
        (b'{"balance": 5}', "'balance_cents'"),
        (b'{"balance_cents": "5"}', "integer"),
        (b'{"balance_cents": -5}', "between"),
        (b'{"balance_cents": true}', "integer"),
        (b"\xff\xfe", "not JSON"),
    ],
)
def test_malformed_bodies_get_400(url: str, body: bytes, fault: str) -> None:
    response = requests.post(
        f"{url}/v1/accounts", data=body, headers={"Content-Type": "application/json"}, timeout=10
    )
    assert fault in error_of(response, 400, "malformed_request")


def test_a_body_too_large_gets_413(url: str) -> None:
    body = b'{"balance_cents": 1, "pad": "' + b"x" * MAX_BODY_BYTES + b'"}'
    response = requests.post(f"{url}/v1/accounts", data=body, timeout=30)
    error_of(response, 413, "request_too_large")


def test_a_play_or_reveal_is_refused_for_its_token_before_its_body(url: str) -> None:
    """401 (and a play's 404 for an account not found) come before 413 and 400, whatever the
    body (one worker-thread call does both, in that order)."""
    account, auth = new_account(url)
    plays = f"{url}/v1/accounts/{account}/plays"
    play = requests.post(
        plays, json={"game": "robots", "stake_cents": 100}, headers=auth, timeout=10
    )
    reveal = f"{url}/v1/plays/{play.json()['play_id']}/reveal"
    huge = b'{"pad": "' + b"x" * MAX_BODY_BYTES + b'"}'
    stranger = {"Authorization": "Bearer not-a-token"}
    for target in (plays, reveal):
        for body in (huge, b"{", b'{"button": 1}'):
            error_of(requests.post(target, data=body, timeout=30), 401, "unauthorized")
            error_of(
                requests.post(target, data=body, headers=stranger, timeout=30), 401, "unauthorized"
            )
        error_of(
            requests.post(target, data=huge, headers=auth, timeout=30), 413, "request_too_large"
        )
        error_of(
            requests.post(target, data=b"{", headers=auth, timeout=10), 400, "malformed_request"
        )
    error_of(
        requests.post(f"{url}/v1/accounts/nobody/plays", data=huge, headers=auth, timeout=30),
        404,
        "not_found",
    )


def test_unknown_paths_and_methods(url: str) -> None:
    error_of(requests.get(f"{url}/v2/implementation", timeout=10), 404, "not_found")
    response = requests.delete(f"{url}/v1/accounts", timeout=10)
    error_of(response, 405, "method_not_allowed")
    assert response.headers["allow"] == "POST"


def test_a_bug_of_the_server_answers_a_bare_500_document(
    live: tuple[str, GameService], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, service = live

    def broken() -> dict[str, Any]:
        raise RuntimeError("secret internals")

    monkeypatch.setattr(service, "implementation", broken)
    response = requests.get(f"{url}/v1/implementation", timeout=10)
    message = error_of(response, 500, "internal_error")
    assert "secret internals" not in response.text and "secret" not in message


# -- accounts and plays -------------------------------------------------------------------


def test_play_round_trip_and_refusals(url: str) -> None:
    account, auth = new_account(url, 250)
    assert requests.get(f"{url}/v1/accounts/{account}", headers=auth, timeout=10).json() == {
        "account_id": account,
        "balance_cents": 250,
    }
    plays = f"{url}/v1/accounts/{account}/plays"
    response = requests.post(
        plays, json={"game": "robots", "stake_cents": 100}, headers=auth, timeout=10
    )
    assert response.status_code == 201
    play = response.json()
    assert set(play) == {"play_id", "game", "stake_cents", "block_id", "index", "balance_cents"}
    assert "ticket" not in play
    bad = [
        ({"game": "robots"}, 400, "malformed_request"),
        ({"game": "robots", "stake_cents": 50}, 422, "invalid_stake"),
        ({"game": "keno", "stake_cents": 100}, 422, "invalid_game"),
    ]
    for body, status, code in bad:
        error_of(requests.post(plays, json=body, headers=auth, timeout=10), status, code)
    error_of(requests.post(plays, data=b"{", headers=auth, timeout=10), 400, "malformed_request")
    # authentication comes first: no token is 401 whatever the body
    error_of(requests.post(plays, data=b"{", timeout=10), 401, "unauthorized")
    bearer = {"Authorization": "Basic " + auth["Authorization"].split()[1]}
    error_of(requests.post(plays, json={}, headers=bearer, timeout=10), 401, "unauthorized")
    while play["balance_cents"] >= 100:
        play = requests.post(
            plays, json={"game": "robots", "stake_cents": 100}, headers=auth, timeout=10
        ).json()
    response = requests.post(
        plays, json={"game": "robots", "stake_cents": 100}, headers=auth, timeout=10
    )
    error_of(response, 402, "insufficient_funds")
    reveal = f"{url}/v1/plays/{play['play_id']}/reveal"
    error_of(
        requests.post(reveal, json={"button": 18}, headers=auth, timeout=10),
        400,
        "malformed_request",
    )
    error_of(requests.post(reveal, json={}, headers=auth, timeout=10), 400, "malformed_request")
    shown = requests.post(reveal, json={"button": 17}, headers=auth, timeout=10)
    assert shown.status_code == 200 and shown.json()["button"] == 17
    auto = requests.post(f"{url}/v1/plays/{play['play_id']}/auto", headers=auth, timeout=10)
    assert auto.status_code == 200
    assert auto.json()["prize_cents"] == reference.prize_cents("robots", 100, auto.json()["ticket"])
    error_of(
        requests.post(reveal, json={"button": 17}, headers=auth, timeout=10),
        409,
        "nothing_to_reveal",
    )
    history = requests.get(f"{url}/v1/accounts/{account}/history?limit=1", headers=auth, timeout=10)
    assert [p["play_id"] for p in history.json()["plays"]] == [play["play_id"]]
    error_of(
        requests.get(f"{url}/v1/accounts/{account}/history?limit=0", headers=auth, timeout=10),
        400,
        "malformed_request",
    )


def test_tokens_isolate_accounts_and_plays(url: str) -> None:
    alice, alice_auth = new_account(url)
    bob, bob_auth = new_account(url)
    play = requests.post(
        f"{url}/v1/accounts/{bob}/plays",
        json={"game": "eldorado", "stake_cents": 50},
        headers=bob_auth,
        timeout=10,
    ).json()
    attempts = [
        ("get", f"/v1/accounts/{bob}", None),
        ("get", f"/v1/accounts/{bob}/history", None),
        ("post", f"/v1/accounts/{bob}/plays", {"game": "robots", "stake_cents": 100}),
        ("post", f"/v1/plays/{play['play_id']}/auto", {}),
        ("post", f"/v1/plays/{play['play_id']}/reveal", {"button": 0}),
    ]
    for method, path, body in attempts:
        theirs = requests.request(method, url + path, json=body, headers=alice_auth, timeout=10)
        unknown = requests.request(
            method,
            url + path.replace(bob, "acct_x").replace(play["play_id"], "play_x"),
            json=body,
            headers=alice_auth,
            timeout=10,
        )
        error_of(theirs, 404, "not_found")
        error_of(unknown, 404, "not_found")
        nobody = requests.request(method, url + path, json=body, timeout=10)
        error_of(nobody, 401, "unauthorized")
    balance = requests.get(f"{url}/v1/accounts/{bob}", headers=bob_auth, timeout=10).json()
    assert balance["balance_cents"] == play["balance_cents"]
    assert (
        len(
            requests.get(f"{url}/v1/accounts/{bob}/history", headers=bob_auth, timeout=10).json()[
                "plays"
            ]
        )
        == 1
    )
    assert requests.get(
        f"{url}/v1/accounts/{alice}/history", headers=alice_auth, timeout=10
    ).json() == {"plays": []}


def test_concurrent_plays_sell_each_unit_once_and_keep_balances_exact(tmp_path: Path) -> None:
    threads, plays_each, start_balance = 8, 100, 100 * 100
    service = GameService(tmp_path / "concurrent.sqlite3", seed=SEED)
    with ServerThread(service) as server:
        accounts = [new_account(server.url, start_balance) for _ in range(threads)]
        failures: list[str] = []

        def player(account: str, auth: dict[str, str]) -> None:
            with requests.Session() as session:
                for _ in range(plays_each):
                    response = session.post(
                        f"{server.url}/v1/accounts/{account}/plays",
                        json={"game": "robots", "stake_cents": 100},
                        headers=auth,
                        timeout=60,
                    )
                    if response.status_code != 201:
                        failures.append(response.text)

        workers = [threading.Thread(target=player, args=a) for a in accounts]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        assert failures == []
        sold: Counter[tuple[str, int]] = Counter()
        for account, auth in accounts:
            history = requests.get(
                f"{server.url}/v1/accounts/{account}/history", headers=auth, timeout=30
            ).json()["plays"]
            assert len(history) == plays_each
            sold.update((p["block_id"], p["index"]) for p in history)
            expected = start_balance - 100 * plays_each + sum(p["prize_cents"] for p in history)
            balance = requests.get(f"{server.url}/v1/accounts/{account}", headers=auth, timeout=10)
            assert balance.json()["balance_cents"] == expected
    service.close()
    assert len(sold) == threads * plays_each and max(sold.values()) == 1
    assert sorted(index for _, index in sold) == list(range(threads * plays_each))


@pytest.mark.slow
def test_a_whole_block_streams_with_its_exact_lot_table(url: str) -> None:
    table = reference.eldorado.eldorado_rules().lot_table(50).counts()
    seen: Counter[int] = Counter()
    with requests.get(f"{url}/v1/blocks/eldorado-50-0001", stream=True, timeout=60) as response:
        lines = response.iter_lines(chunk_size=1 << 16)
        header = json.loads(next(lines))
        assert (header["start"], header["count"]) == (0, 900_000)
        for number, line in enumerate(lines):
            unit = json.loads(line)
            assert unit["index"] == number
            seen[unit["prize_cents"]] += 1
    assert dict(seen) == table
