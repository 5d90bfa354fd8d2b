"""Which SQLite files the reference service may use: a new one, or one it created (issue 29
item 5).

A database the service creates is stamped in its header: ``PRAGMA application_id`` (the
32-bit tag SQLite reserves for the application that owns a file) and ``PRAGMA user_version``
(the schema's version). Before the service changes anything in a file (switch it to WAL,
create its tables), ``check_database`` opens it read-only and refuses, with one line naming
what it found, anything else: a file that is not SQLite, a database of another application or
of nobody (tables of its own, a ``plays`` table of another shape), a FIFO or device. A
database of an earlier instantcert, made before the stamp existed, is recognised by its tables
(exactly the service's, and nothing else) and stamped on first use.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from urllib.parse import quote

from ._files import check_regular

APPLICATION_ID = 0x49434552  # "ICER": instantcert's reference service
USER_VERSION = 1  # the schema of _service._SCHEMA; a newer schema raises it


class ForeignDatabase(ValueError):
    """A file the service must not touch: someone else's database, or no database."""


def _objects(db: sqlite3.Connection) -> set[tuple[str, str, str]]:
    rows = db.execute(
        "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"
    ).fetchall()
    return {(str(t), str(n), " ".join(str(s or "").split())) for t, n, s in rows}


def expected_objects(schema: str) -> set[tuple[str, str, str]]:
    """The tables and indexes ``schema`` makes, as ``sqlite_master`` lists them."""
    db = sqlite3.connect(":memory:")
    try:
        db.executescript(schema)
        return _objects(db)
    finally:
        db.close()


def check_database(path: str | Path, schema: str) -> bool:
    """Whether ``path`` is a new database (missing or empty: the service creates it) rather
    than one the service created; ``ForeignDatabase`` naming what it is otherwise. Reads
    only: nothing in the file changes."""
    path = str(path)
    if path in ("", ":memory:"):
        raise ForeignDatabase(
            f"{path!r} is no file: SQLite would keep a database of its own for each "
            "connection, lost when it closes (accounts and plays gone); name a file"
        )
    try:
        check_regular(path)  # a FIFO would block SQLite's first read for ever
    except OSError as exc:
        raise ForeignDatabase(f"{exc.strerror}") from None
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return True
    where = f"the file {path!r}"
    try:
        db = sqlite3.connect(f"file:{quote(path)}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise ForeignDatabase(f"{where} cannot be opened read-only: {exc}") from None
    try:
        application_id = db.execute("PRAGMA application_id").fetchone()[0]
        user_version = db.execute("PRAGMA user_version").fetchone()[0]
        found = _objects(db)
    except sqlite3.DatabaseError as exc:
        raise ForeignDatabase(
            f"{where} is not an SQLite database ({exc}); --db names a database that "
            "instantcert serve created, or a new file"
        ) from None
    finally:
        db.close()
    expected = expected_objects(schema)
    if application_id == APPLICATION_ID:
        if user_version != USER_VERSION:
            raise ForeignDatabase(
                f"{where} is an instantcert database of schema version {user_version}; this "
                f"instantcert reads version {USER_VERSION}: use a new --db file"
            )
        if found != expected:
            raise ForeignDatabase(
                f"{where} is stamped as instantcert's but its tables are not the service's "
                "(changed by hand?): use a new --db file"
            )
        return False
    if application_id == 0 and user_version == 0 and found == expected:
        return False  # an instantcert database from before the stamp: stamped on first use
    owner = f"application id {application_id:#x}" if application_id else "no application id"
    names = sorted(name for kind, name, _ in found if kind == "table")
    tables = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    raise ForeignDatabase(
        f"{where} is an SQLite database that instantcert serve did not create ({owner}, "
        f"tables: {tables or 'none'}); it is left as it is: use a new --db file"
    )


def stamp(db: sqlite3.Connection) -> None:
    """Mark the database ``db`` as the service's (its header's application id and version)."""
    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    db.execute(f"PRAGMA user_version = {USER_VERSION}")
