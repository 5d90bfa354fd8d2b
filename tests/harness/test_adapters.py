"""Both adapters over the reference: the same round trips give the same documents and errors."""

from __future__ import annotations

import json
import re
import sys
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import reference
from harness import (
    Adapter,
    ConfigError,
    ErrorReply,
    HttpAdapter,
    ReferenceAdapter,
    TargetUnreachable,
    open_target,
)
from reference._server import ServerThread
from reference._service import GameService
from tests.reference._live import SEED

ROBOTS_TICKET = "OHPSCTQD|C D2+P S S C S D T S P H O C S T D C C"
ELDORADO_TICKET = "YYSYY/VBPSX/BBPPS|SSSSS/PVBYP/BYVPS"


@pytest.fixture
def reference_adapter(tmp_path: Path) -> Iterator[ReferenceAdapter]:
    adapter = ReferenceAdapter(tmp_path / "in-process.sqlite3", seed=SEED)
    yield adapter
    adapter.close()


@pytest.fixture
def http_adapter(tmp_path: Path) -> Iterator[HttpAdapter]:
    service = GameService(tmp_path / "served.sqlite3", seed=SEED)
    with ServerThread(service) as server:
        adapter = HttpAdapter(server.url, timeout=30)
        yield adapter
        adapter.close()
    service.close()


@pytest.fixture(params=["reference", "http"])
def adapter(request: pytest.FixtureRequest) -> Adapter:
    chosen: Adapter = request.getfixturevalue(f"{request.param}_adapter")
    return chosen


def refusal(call: Callable[..., Any], *args: Any) -> tuple[int, str]:
    with pytest.raises(ErrorReply) as info:
        call(*args)
    assert info.value.message
    return info.value.status, info.value.code


def transcript(adapter: Adapter) -> list[Any]:
    """Every operation of the contract, with its refusals; ids and tokens replaced by names."""
    out: list[Any] = [adapter.describe()]
    tickets = [ROBOTS_TICKET, "junk", ROBOTS_TICKET[:-1] + "Q"] * 900  # 2700: three batches
    results = adapter.evaluate("robots", 100, tickets)
    assert len(results) == len(tickets)
    out.append(results[:3])
    out.append(adapter.evaluate("eldorado", 50, [ELDORADO_TICKET]))
    out.append(refusal(adapter.evaluate, "eldorado", 75, [ELDORADO_TICKET]))
    out.append(refusal(adapter.evaluate, "chess", 100, ["x"]))
    out.append(adapter.list_blocks("eldorado", 100))
    out.append(refusal(adapter.list_blocks, "robots", 75))
    stream = adapter.read_block("robots-100-0001", 1_999_990, 10)
    out.append([stream.header, list(stream.lines())])
    stream.close()
    empty = adapter.read_block("eldorado-50-0001", 5, 0)
    out.append([empty.header, list(empty.lines())])
    out.append(refusal(adapter.read_block, "robots-100-0003", 0, 1))
    out.append(refusal(adapter.read_block, "robots-100-0001", 0, 2_000_001))

    opened = adapter.open_account(300)
    account, token = opened["account_id"], opened["token"]
    other = adapter.open_account(100)
    out.append(opened["balance_cents"])
    out.append(refusal(adapter.open_account, -1))
    out.append(adapter.balance(account, token)["balance_cents"])
    out.append(refusal(adapter.balance, account, None))
    out.append(refusal(adapter.balance, account, "not-a-token"))
    out.append(refusal(adapter.balance, account, other["token"]))
    plays = [adapter.play(account, token, "robots", 100) for _ in range(2)]
    plays.append(adapter.play(account, token, "eldorado", 50))
    out.append([{k: v for k, v in p.items() if k != "play_id"} for p in plays])
    out.append(refusal(adapter.play, account, token, "robots", 200))
    robots = plays[0]["play_id"]
    out.append([adapter.reveal(robots, token, button) for button in range(18)])
    out.append(refusal(adapter.reveal, robots, other["token"], 0))
    out.append(refusal(adapter.reveal, robots, token, 18))
    out.append(refusal(adapter.reveal, plays[2]["play_id"], token, 0))
    finished = [adapter.auto(p["play_id"], token) for p in plays]
    out.append([{k: v for k, v in f.items() if k != "play_id"} for f in finished])
    out.append(refusal(adapter.auto, "play_nobody", token))
    history = adapter.history(account, token)["plays"]
    assert [h["play_id"] for h in history] == [p["play_id"] for p in reversed(plays)]
    out.append(
        [{k: v for k, v in h.items() if k not in ("play_id", "created_at")} for h in history]
    )
    out.append(len(adapter.history(account, token, 1)["plays"]))
    out.append(refusal(adapter.history, account, token, 0))
    balance = adapter.balance(account, token)["balance_cents"]
    while balance >= 100:
        balance = adapter.play(account, token, "robots", 100)["balance_cents"]
    out.append(refusal(adapter.play, account, token, "robots", 100))
    return out


def test_both_adapters_give_the_same_transcript(
    reference_adapter: ReferenceAdapter, http_adapter: HttpAdapter
) -> None:
    in_process = transcript(reference_adapter)
    over_http = transcript(http_adapter)
    assert over_http == in_process
    assert in_process[-1] == (402, "insufficient_funds")


def test_round_trip_facts(adapter: Adapter) -> None:
    facts = transcript(adapter)
    assert facts[1][0] == reference.evaluate("robots", 100, ROBOTS_TICKET)
    assert facts[1][1]["error"]["code"] == "invalid_ticket"
    assert facts[3] == (422, "invalid_stake") and facts[4] == (422, "invalid_game")
    header, lines = facts[7]
    assert (header["start"], header["count"], len(lines)) == (1_999_990, 10, 10)
    for number, line in enumerate(lines):
        unit = json.loads(line)
        assert unit["index"] == 1_999_990 + number
        assert reference.prize_cents("robots", 100, unit["ticket"]) == unit["prize_cents"]
    assert facts[8] == [{**facts[8][0], "count": 0, "start": 5}, []]
    assert facts[9] == (404, "not_found") and facts[10] == (404, "not_found")  # past the end
    assert facts[13:17] == [300, (401, "unauthorized"), (401, "unauthorized"), (404, "not_found")]


def test_the_same_seed_sells_the_same_units_over_both(
    reference_adapter: ReferenceAdapter, http_adapter: HttpAdapter
) -> None:
    tickets = []
    for adapter in (reference_adapter, http_adapter):
        opened = adapter.open_account(1_000)
        play = adapter.play(opened["account_id"], opened["token"], "eldorado", 100)
        tickets.append(adapter.auto(play["play_id"], opened["token"])["ticket"])
    assert tickets[0] == tickets[1]


# -- naming targets -----------------------------------------------------------------------


class _VendorAdapter(ReferenceAdapter):
    pass


def _install_vendor_module(monkeypatch: pytest.MonkeyPatch, **attributes: Any) -> None:
    module = types.ModuleType("vendor_under_test")
    for name, value in attributes.items():
        setattr(module, name, value)
    monkeypatch.setitem(sys.modules, "vendor_under_test", module)


def test_open_target_names(monkeypatch: pytest.MonkeyPatch) -> None:
    built = open_target("python:reference")
    try:
        assert isinstance(built, ReferenceAdapter) and built.name == "python:reference"
        assert built.describe()["name"] == "instantcert-reference"
    finally:
        built.close()
    http = open_target("http://127.0.0.1:9/", timeout=0.5)
    assert isinstance(http, HttpAdapter) and http.timeout[1] == 0.5
    with pytest.raises(TargetUnreachable, match="nothing answers"):
        http.describe()
    http.close()
    _install_vendor_module(monkeypatch, make=_VendorAdapter)
    vendor = open_target("python:vendor_under_test:make")
    try:
        assert isinstance(vendor, _VendorAdapter)
    finally:
        vendor.close()


@pytest.mark.parametrize(
    "spec", ["", "reference", "python:", "python:pkg", "ftp://host", "python:a b:c", "http://"]
)
def test_open_target_refuses_what_names_no_target(spec: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(repr(spec))):
        open_target(spec)


def test_a_vendor_adapter_that_cannot_load_is_unreachable(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(TargetUnreachable, match=r"cannot import 'no_such_vendor_pkg\.adapter'"):
        open_target("python:no_such_vendor_pkg.adapter:make")

    def failing() -> Adapter:
        raise RuntimeError("license expired")

    _install_vendor_module(monkeypatch, failing=failing, value=3, half=lambda: object())
    with pytest.raises(TargetUnreachable, match="license expired"):
        open_target("python:vendor_under_test:failing")
    with pytest.raises(TargetUnreachable, match="no callable 'value'"):
        open_target("python:vendor_under_test:value")
    with pytest.raises(TargetUnreachable, match="no callable 'missing'"):
        open_target("python:vendor_under_test:missing")
    with pytest.raises(TargetUnreachable, match="not an Adapter"):
        open_target("python:vendor_under_test:half")


def _synchronous(service: GameService) -> int:
    with service._connection() as db:
        return int(db.execute("PRAGMA synchronous").fetchone()[0])


def test_only_a_scratch_database_skips_the_sync_to_disk(tmp_path: Path) -> None:
    """The in-process reference's own temporary database is deleted when the run ends, so its
    commits need no fsync (OFF = 0, no group sync); a database the caller names is synced: each
    write waits for an fsync of the WAL after its commit (group commit: NORMAL = 1 and the
    service's ``_wal_sync``), so a play the caller saw survives a crash there."""
    scratch = ReferenceAdapter(seed=SEED)
    named = ReferenceAdapter(tmp_path / "kept.sqlite3", seed=SEED)
    served = GameService(tmp_path / "served.sqlite3", seed=SEED)
    try:
        assert _synchronous(scratch.service) == 0 and scratch.service._wal_sync is None
        assert _synchronous(named.service) == 1 and named.service._wal_sync is not None
        assert _synchronous(served) == 1 and served._wal_sync is not None
    finally:
        scratch.close()
        named.close()
        served.close()


def test_a_scratch_database_is_removed_however_the_adapter_ends(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Closed, closed twice, dropped unclosed (collected), or closed while its service fails
    to close: the temporary directory of its scratch database is gone each time."""
    import gc

    closed = ReferenceAdapter(seed=SEED)
    where = Path(closed.service.db_path).parent
    closed.close()
    closed.close()
    assert not where.exists()

    dropped = ReferenceAdapter(seed=SEED)
    dropped.describe()
    where = Path(dropped.service.db_path).parent
    del dropped
    gc.collect()
    assert not where.exists()

    failing = ReferenceAdapter(seed=SEED)
    where = Path(failing.service.db_path).parent

    def broken_close() -> None:
        raise OSError("disk gone")

    monkeypatch.setattr(failing.service, "close", broken_close)
    with pytest.raises(OSError, match="disk gone"):
        failing.close()
    assert not where.exists()
