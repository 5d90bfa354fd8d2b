"""A block file's audit begun before the suite loads (``conformance._started_audit``): the
checks take it up only for the very request they would make, and judge it exactly as their
own read (``instantcert audit-block``: issue 32, one block at the physical limit)."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conformance import CheckOutcome, Settings
from conformance._file_target import open_file_target
from conformance._started_audit import StartedAudit, request_for, start_file_audit
from harness._cli import audit_block, main
from tests.conformance import blockkit as kit
from tests.conformance.test_block_checks import (  # noqa: F401 - the fixture
    run_all,
    small_rules,
    swap_lot_eldorado,
)

WHOLE = {"block_mode": "whole", "block_sample_units": None, "blocks_per_stake": None}


def whole_file(tmp_path: Path, name: str, swap: bool = False) -> Path:
    target = kit.small_target("eldorado", 100)
    head, lines = target.blocks["eldorado-100-0001"]
    if swap:
        head, lines = swap_lot_eldorado(head, list(lines))
    path = tmp_path / name
    path.write_bytes(gzip.compress(kit.document(head, lines)))
    return path


def outcomes(path: Path, seed: int, started: StartedAudit | None) -> dict[str, Any]:
    target = open_file_target(path)
    target.started = started
    found: dict[str, CheckOutcome] = run_all(target, Settings.parse(WHOLE, "test"), seed)
    return {c: (o.outcome, o.message, o.requirements, o.details) for c, o in found.items()}


@pytest.mark.usefixtures("small_rules")
@pytest.mark.parametrize("swap", [False, True])
def test_the_checks_take_the_started_audit_and_judge_it_as_their_own(
    tmp_path: Path, swap: bool
) -> None:
    path = whole_file(tmp_path, "b.jsonl.gz", swap)
    started = start_file_audit(path, 3)
    taken: list[object] = []
    take = started.take
    started.take = lambda *a, **k: taken.append(take(*a, **k)) or taken[-1]  # type: ignore[method-assign]
    assert outcomes(path, 3, started) == outcomes(path, 3, None)
    assert len(taken) == 1 and taken[0] is not None  # read once, by the started audit
    verdict = outcomes(path, 3, None)["blocks.lot_table"][0]
    assert verdict == ("fail" if swap else "pass")


@pytest.mark.usefixtures("small_rules")
def test_an_audit_started_for_another_request_is_left_and_the_checks_read_the_file(
    tmp_path: Path,
) -> None:
    """Another seed keeps other units for the slice check: not the audit the checks ask."""
    path = whole_file(tmp_path, "b.jsonl.gz")
    started = start_file_audit(path, 4)
    assert outcomes(path, 3, started) == outcomes(path, 3, None)
    assert started.request is not None
    assert started._stop.is_set()  # let go


def test_a_slice_or_an_unknown_game_is_not_started() -> None:
    head = {"game": "eldorado", "stake_cents": 100, "block_id": "b", "units": 900_000}
    assert request_for(head, 1) is not None
    assert request_for({**head, "start": 100, "count": 50}, 1) is None
    assert request_for({**head, "game": "nosuchgame"}, 1) is None


def test_a_plain_file_is_left_to_the_file_target(tmp_path: Path) -> None:
    path = tmp_path / "b.jsonl"
    path.write_text('{"format": "block/1", "game": "eldorado", "stake_cents": 100}\n')
    started = start_file_audit(path, 1)
    assert started.take(request_for({"game": "eldorado", "stake_cents": 100}, 1)) is None  # type: ignore[arg-type]


def volatile_free(report: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(report.read_text())
    for key in ("run_id", "started_at", "finished_at"):
        document.pop(key, None)
    document["config"].pop("out", None)
    for check in document["checks"]:
        check.pop("duration_s", None)
    return document


@pytest.mark.usefixtures("small_rules")
@pytest.mark.parametrize("swap", [False, True])
def test_audit_block_reports_the_same_with_or_without_the_started_audit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, swap: bool
) -> None:
    path = whole_file(tmp_path, "b.jsonl.gz", swap)
    taken: list[object] = []
    take = StartedAudit.take

    def spied(self: StartedAudit, *args: Any) -> object:
        taken.append(take(self, *args))
        return taken[-1]

    monkeypatch.setattr(StartedAudit, "take", spied)
    code = main(["audit-block", str(path), "--seed", "5", "--out", str(tmp_path / "started")])
    assert len(taken) == 1 and taken[0] is not None
    monkeypatch.setattr(audit_block, "_start", lambda *args: None)
    again = main(["audit-block", str(path), "--seed", "5", "--out", str(tmp_path / "read")])
    assert code == again == (1 if swap else 0)
    started, read = (volatile_free(tmp_path / d / "report.json") for d in ("started", "read"))
    assert started == read


@pytest.mark.usefixtures("small_rules")
@pytest.mark.parametrize("odd", ["truncated", "two members", "zeros after the member"])
def test_a_file_the_inflate_ahead_cannot_vouch_for_is_read_again_alike(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, odd: str
) -> None:
    """Bytes handed on, then an end the inflate ahead cannot vouch for (``ReadAgain``): the
    started audit is dropped and the checks read the file exactly; the same report."""
    from conformance import _gzip_ahead

    path = whole_file(tmp_path, "b.jsonl.gz", swap=True)
    data = path.read_bytes()
    document = gzip.decompress(data)
    cut = document.index(b"\n", len(document) // 2) + 1
    path.write_bytes(
        {
            "truncated": data[: len(data) * 2 // 3],
            "two members": gzip.compress(document[:cut]) + gzip.compress(document[cut:]),
            "zeros after the member": data + bytes(4),
        }[odd]
    )
    monkeypatch.setattr(_gzip_ahead, "PIECE_BYTES", 1 << 12)  # bytes handed on before the end
    taken: list[object] = []
    take = StartedAudit.take

    def spied(self: StartedAudit, *args: Any) -> object:
        taken.append(take(self, *args))
        return taken[-1]

    monkeypatch.setattr(StartedAudit, "take", spied)
    code = main(["audit-block", str(path), "--seed", "5", "--out", str(tmp_path / "started")])
    assert taken == [None]
    monkeypatch.setattr(audit_block, "_start", lambda *args: None)
    again = main(["audit-block", str(path), "--seed", "5", "--out", str(tmp_path / "read")])
    assert code == again == 1
    started, read = (volatile_free(tmp_path / d / "report.json") for d in ("started", "read"))
    assert started == read


def test_the_entry_point_inflates_the_one_file_named_and_the_command_takes_or_stops_it(
    tmp_path: Path,
) -> None:
    from conformance import _gzip_ahead
    from harness._cli import _inflate_early

    path = tmp_path / "b.jsonl.gz"
    path.write_bytes(gzip.compress(b'{"format": "block/1"}\n'))
    _inflate_early(["audit-block", "--out", "reports", str(path), "--seed", "3", "-v"])
    ahead = _gzip_ahead.started_early(path)
    assert ahead is not None and ahead.path == path
    ahead.close()
    for words in (["audit-block", str(path), str(path)], ["certify", str(path)], ["audit-block"]):
        _inflate_early(words)
        assert _gzip_ahead._early is None
    _inflate_early(["audit-block", str(path)])
    assert _gzip_ahead._early is not None
    assert _gzip_ahead.started_early(tmp_path / "another.jsonl.gz") is None  # stopped
    assert _gzip_ahead._early is None


def test_the_seed_limit_is_the_harness_one() -> None:
    from harness._config import SEED_LIMIT

    assert audit_block.SEED_LIMIT == SEED_LIMIT


def test_the_game_kits_load_whole_for_threads_asking_at_once() -> None:
    """The first use of the kit registry from two threads (the started audit's and the
    command's): each sees every kit, never the part another thread had loaded so far."""
    probe = (
        "import threading\n"
        "from conformance.games import kit_names\n"
        "seen = []\n"
        "threads = [threading.Thread(target=lambda: seen.append(kit_names())) for _ in range(4)]\n"
        "[t.start() for t in threads]; [t.join() for t in threads]\n"
        "print(sorted(set(seen)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[('robots', 'eldorado')]"
