"""``instantcert serve`` killed with SIGKILL in the middle of plays, then started again.

Every play a client saw answered (201) must be in the history after the restart, every balance
must equal its opening balance plus the prizes minus the stakes of its history, and no unit may
be sold twice, before or after the restart.
"""

from __future__ import annotations

import signal
import subprocess
import threading
import time
from collections import Counter
from pathlib import Path

import requests

from ._live import free_port, start_serve

OPENING_BALANCE = 1_000_000
PLAYERS = 4
GAMES = [("robots", 100), ("eldorado", 50)]


def _player(
    url: str, account: str, token: str, seen: list[dict[str, object]], stop: threading.Event
) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    with requests.Session() as session:
        for number in range(100_000):
            if stop.is_set():
                return
            game, stake = GAMES[number % 2]
            try:
                response = session.post(
                    f"{url}/v1/accounts/{account}/plays",
                    json={"game": game, "stake_cents": stake},
                    headers=headers,
                    timeout=10,
                )
            except requests.RequestException:
                return  # the server is gone
            if response.status_code == 201:
                seen.append(response.json())


def _state(
    url: str, accounts: list[tuple[str, str]]
) -> tuple[dict[str, list[dict[str, object]]], dict[str, int]]:
    histories, balances = {}, {}
    for account, token in accounts:
        headers = {"Authorization": f"Bearer {token}"}
        history = requests.get(f"{url}/v1/accounts/{account}/history", headers=headers, timeout=30)
        balance = requests.get(f"{url}/v1/accounts/{account}", headers=headers, timeout=30)
        assert history.status_code == balance.status_code == 200
        histories[account] = history.json()["plays"]
        balances[account] = balance.json()["balance_cents"]
    return histories, balances


def _check_ledger(histories: dict[str, list[dict[str, object]]], balances: dict[str, int]) -> None:
    sold: Counter[tuple[object, object]] = Counter()
    for account, plays in histories.items():
        net = sum(int(p["prize_cents"]) - int(p["stake_cents"]) for p in plays)  # type: ignore[call-overload]
        assert balances[account] == OPENING_BALANCE + net, account
        sold.update((p["block_id"], p["index"]) for p in plays)
    assert max(sold.values(), default=1) == 1, "a unit was sold twice"
    by_block: dict[object, list[object]] = {}
    for block_id, index in sold:
        by_block.setdefault(block_id, []).append(index)
    for block_id, indices in by_block.items():  # sold in order: 0..n-1, no unit skipped
        assert sorted(indices) == list(range(len(indices))), block_id  # type: ignore[type-var]


def test_a_sigkill_loses_no_committed_play_and_sells_no_unit_twice(tmp_path: Path) -> None:
    db = tmp_path / "crash.sqlite3"
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = start_serve(db, port)
    try:
        accounts = []
        for _ in range(PLAYERS):
            opened = requests.post(
                f"{url}/v1/accounts", json={"balance_cents": OPENING_BALANCE}, timeout=10
            ).json()
            accounts.append((opened["account_id"], opened["token"]))
        seen: list[dict[str, object]] = []
        stop = threading.Event()
        players = [
            threading.Thread(target=_player, args=(url, account, token, seen, stop))
            for account, token in accounts
        ]
        for player in players:
            player.start()
        deadline = time.monotonic() + 30
        while len(seen) < 60 and time.monotonic() < deadline:
            time.sleep(0.01)
        server.send_signal(signal.SIGKILL)  # in the middle of plays: no shutdown of any kind
        server.wait(timeout=10)
        stop.set()
        for player in players:
            player.join(timeout=30)
        assert len(seen) >= 60, "too few plays before the kill for the test to mean anything"
    finally:
        if server.poll() is None:
            server.kill()
        server.communicate()

    restarted: subprocess.Popen[bytes] = start_serve(db, port)
    try:
        histories, balances = _state(url, accounts)
        committed = {p["play_id"] for plays in histories.values() for p in plays}
        lost = [p for p in seen if p["play_id"] not in committed]
        assert lost == [], f"{len(lost)} plays answered 201 are gone after the restart"
        _check_ledger(histories, balances)
        # sales resume after the last committed unit: nothing is sold again
        for account, token in accounts:
            for game, stake in GAMES:
                response = requests.post(
                    f"{url}/v1/accounts/{account}/plays",
                    json={"game": game, "stake_cents": stake},
                    headers={"Authorization": f"Bearer {token}"},
                    timeout=10,
                )
                assert response.status_code == 201, response.text
        histories, balances = _state(url, accounts)
        _check_ledger(histories, balances)
    finally:
        restarted.send_signal(signal.SIGTERM)
        try:
            restarted.wait(timeout=15)
        except subprocess.TimeoutExpired:
            restarted.kill()
        restarted.communicate()
