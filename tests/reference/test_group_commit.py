"""Group commit (``reference._service._WalSync``): a durable service commits with
``synchronous=NORMAL`` and returns a write only once an ``fsync`` of the WAL begun after its
commit has ended, so a play the caller saw is on disk as with ``synchronous=FULL``; a failed
sync fails the write; a scratch service (``durable=False``) never syncs."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

import reference._service as service_module
from reference._service import GameService

from ._live import SEED


def synchronous(service: GameService) -> int:
    with service._connection() as db:
        return int(db.execute("PRAGMA synchronous").fetchone()[0])


def test_every_write_returns_after_a_sync_that_covers_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = GameService(tmp_path / "db.sqlite3", seed=SEED)
    try:
        group = service._wal_sync
        assert group is not None
        assert synchronous(service) == 1  # NORMAL: the WAL is synced by the group instead
        syncs: list[int] = []  # the commits made when each sync began
        real_fsync = os.fsync

        def recording_fsync(fd: int) -> None:
            syncs.append(group._commits)
            real_fsync(fd)

        monkeypatch.setattr(service_module.os, "fsync", recording_fsync)
        opened = service.open_account(100_000)
        assert syncs and syncs[-1] == group._commits
        account, token = opened["account_id"], opened["token"]

        waits: list[tuple[int, int]] = []  # (a write's commit, the commits synced when it returned)
        real_wait = group.wait

        def recording_wait(commit: int) -> None:
            real_wait(commit)
            waits.append((commit, group._synced))

        monkeypatch.setattr(group, "wait", recording_wait)

        def player() -> None:
            for _ in range(20):
                service.play(account, token, "eldorado", 50)

        threads = [threading.Thread(target=player) for _ in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert len(waits) == 120 and all(synced >= commit for commit, synced in waits)
        assert group._synced == group._commits  # nothing answered stays unsynced
        assert len(syncs) <= group._commits  # at most one sync a commit, fewer when grouped
        history = service.history(account, token)["plays"]
        assert len(history) == 120
    finally:
        service.close()


def test_a_play_returns_only_once_its_commit_is_synced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = GameService(tmp_path / "db.sqlite3", seed=SEED)
    try:
        group = service._wal_sync
        assert group is not None
        opened = service.open_account(10_000)
        monkeypatch.setattr(service_module.os, "fsync", lambda fd: None)
        for _ in range(5):
            service.play(opened["account_id"], opened["token"], "robots", 100)
            assert group._synced == group._commits
    finally:
        service.close()


def test_a_failed_sync_fails_the_write_and_the_next_one_syncs_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = GameService(tmp_path / "db.sqlite3", seed=SEED)
    try:
        group = service._wal_sync
        assert group is not None
        opened = service.open_account(10_000)
        real_fsync = os.fsync

        def failing(fd: int) -> None:
            raise OSError(5, "Input/output error")

        monkeypatch.setattr(service_module.os, "fsync", failing)
        with pytest.raises(OSError):
            service.play(opened["account_id"], opened["token"], "eldorado", 50)
        assert group._synced < group._commits
        monkeypatch.setattr(service_module.os, "fsync", real_fsync)
        service.play(opened["account_id"], opened["token"], "eldorado", 50)
        assert group._synced == group._commits
    finally:
        service.close()


def test_a_scratch_service_never_syncs(tmp_path: Path) -> None:
    service = GameService(tmp_path / "db.sqlite3", seed=SEED, durable=False)
    try:
        assert service._wal_sync is None
        assert synchronous(service) == 0  # OFF
    finally:
        service.close()
