"""``instantcert serve --db`` uses only its own databases (issue 29 item 5): a new file, or one
it created (stamped with SQLite's application_id and user_version); anything else is refused
with one line before any change: no WAL switch, no table added, not a byte written.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from pathlib import Path

import pytest

from harness._cli import main
from reference._service import _SCHEMA, GameService
from reference._service_db import APPLICATION_ID, USER_VERSION, ForeignDatabase


def _state(path: Path) -> tuple[str, list[str]]:
    """The file's bytes (hashed) and its sidecars (-wal, -shm, -journal)."""
    siblings = sorted(p.name for p in path.parent.iterdir() if p.name.startswith(path.name + "-"))
    return hashlib.sha256(path.read_bytes()).hexdigest(), siblings


def _sqlite(path: Path, *statements: str) -> Path:
    db = sqlite3.connect(path)
    for statement in statements:
        db.execute(statement)
    db.commit()
    db.close()
    return path


FOREIGN = {
    "another application's": ("PRAGMA application_id = 1234", "CREATE TABLE notes (x TEXT)"),
    "plays of another shape": ("CREATE TABLE plays (id INTEGER, what TEXT)",),
    "ours plus a table": (*[s for s in _SCHEMA.split(";") if s.strip()], "CREATE TABLE t (x)"),
    "an empty database": ("PRAGMA user_version = 7",),
}


@pytest.mark.parametrize("kind", sorted(FOREIGN))
def test_a_database_it_did_not_create_is_refused_untouched(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _sqlite(tmp_path / "theirs.sqlite3", *FOREIGN[kind])
    before = _state(path)
    with pytest.raises(ForeignDatabase, match=r"did not create|use a new --db"):
        GameService(path)
    assert _state(path) == before
    assert main(["serve", "--db", str(path), "--port", "0"]) == 2
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(err) == 1 and "--db" in err[0], err
    assert _state(path) == before
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] != "wal"
    db.close()


@pytest.mark.parametrize("content", [b"SQLite format 3\x00" + b"\xff" * 200, b"secret " * 100])
def test_a_file_that_is_not_sqlite_is_refused_untouched(
    content: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "not.sqlite3"
    path.write_bytes(content)
    assert main(["serve", "--db", str(path), "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert "not an SQLite database" in err and "secret" not in err, err
    assert path.read_bytes() == content
    assert _state(path)[1] == []


def test_a_fifo_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "pipe"
    os.mkfifo(path)
    with pytest.raises(ForeignDatabase, match="FIFO"):
        GameService(path)


@pytest.mark.parametrize("empty", [False, True])
def test_a_new_file_is_created_stamped_and_opened_again(empty: bool, tmp_path: Path) -> None:
    path = tmp_path / "ours.sqlite3"
    if empty:
        path.write_bytes(b"")
    GameService(path, seed=b"\x01").close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert db.execute("PRAGMA user_version").fetchone()[0] == USER_VERSION
    db.close()
    service = GameService(path, seed=b"\x01")  # its own: opened again
    service.close()


def test_a_database_of_an_instantcert_before_the_stamp_is_used_and_stamped(
    tmp_path: Path,
) -> None:
    path = _sqlite(tmp_path / "old.sqlite3", *[s for s in _SCHEMA.split(";") if s.strip()])
    GameService(path).close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    db.close()


def test_a_later_schema_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "later.sqlite3"
    GameService(path).close()
    _sqlite(path, f"PRAGMA user_version = {USER_VERSION + 1}")
    before = _state(path)[0]  # a WAL database: a reader makes its -shm, as any reader would
    with pytest.raises(ForeignDatabase, match="schema version"):
        GameService(path)
    assert _state(path)[0] == before
