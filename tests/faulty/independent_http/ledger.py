"""The vendor's ledger: wallets, sales counters and bought tickets in one SQLite file (WAL).

Every change is one ``BEGIN IMMEDIATE`` transaction, so concurrent buyers queue on the write
lock: a unit is sold once, a balance moves by stake and prize together, a click is handed out
once. Each thread keeps its own connection.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS settings (name TEXT PRIMARY KEY, value BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS wallet (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    key_hash BLOB NOT NULL UNIQUE,
    cents INTEGER NOT NULL,
    opened_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS counter (
    game TEXT NOT NULL, stake INTEGER NOT NULL,
    block_number INTEGER NOT NULL, next_unit INTEGER NOT NULL,
    PRIMARY KEY (game, stake));
CREATE TABLE IF NOT EXISTS ticket (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    ulid TEXT NOT NULL UNIQUE,
    wallet_id INTEGER NOT NULL REFERENCES wallet(id),
    game TEXT NOT NULL, stake INTEGER NOT NULL,
    block_name TEXT NOT NULL, unit INTEGER NOT NULL,
    body TEXT NOT NULL, prize INTEGER NOT NULL,
    bought_at TEXT NOT NULL,
    opened TEXT NOT NULL,
    finished INTEGER NOT NULL DEFAULT 0,
    UNIQUE (block_name, unit));
CREATE INDEX IF NOT EXISTS ticket_by_wallet ON ticket (wallet_id, seq);
"""

CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

BALANCE_CEILING = 4_000_000_000_000_000_000
"""This vendor's own wallet limit (4e18 cents): opening above it, or a credit past it, is
refused."""


def new_ulid() -> str:
    """A ULID: 48 bits of milliseconds then 80 random bits, in Crockford's base 32."""
    value = (time.time_ns() // 1_000_000) << 80 | secrets.randbits(80)
    return "".join(CROCKFORD[(value >> shift) & 31] for shift in range(125, -1, -5))


PARIS_WINTER = datetime.timezone(datetime.timedelta(hours=1))


def now_text() -> str:
    """RFC 3339 with the vendor's own offset (+01:00) and milliseconds."""
    return datetime.datetime.now(PARIS_WINTER).isoformat(timespec="milliseconds")


def key_hash(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()


class Refused(Exception):
    """A refusal of the ledger: HTTP status, error code, message."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Ticket:
    ulid: str
    wallet_id: int
    game: str
    stake: int
    block_name: str
    unit: int
    body: str
    prize: int
    bought_at: str
    opened: list[int]
    finished: bool


class Ledger:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._local = threading.local()
        self._connection().executescript(SCHEMA)

    def _connection(self) -> sqlite3.Connection:
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is None:
            connection = sqlite3.connect(self.path, timeout=60, isolation_level=None)
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=FULL")
            self._local.connection = connection
        return connection

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        db = self._connection()
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    # -- settings ---------------------------------------------------------------------------

    def master_seed(self) -> bytes:
        with self.transaction() as db:
            row = db.execute("SELECT value FROM settings WHERE name = 'seed'").fetchone()
            if row is not None:
                return bytes(row[0])
            seed = os.urandom(32)
            db.execute("INSERT INTO settings VALUES ('seed', ?)", (seed,))
            return seed

    # -- wallets ----------------------------------------------------------------------------

    def open_wallet(self, cents: int) -> tuple[int, str]:
        """(wallet id, token): the token holds the id and 192 random bits; only its hash stays."""
        with self.transaction() as db:
            cursor = db.execute(
                "INSERT INTO wallet (key_hash, cents, opened_at) VALUES (?, ?, ?)",
                (secrets.token_bytes(32), cents, now_text()),
            )
            wallet_id = int(cursor.lastrowid or 0)
            token = f"{wallet_id}.{secrets.token_hex(24)}"
            db.execute("UPDATE wallet SET key_hash = ? WHERE id = ?", (key_hash(token), wallet_id))
        return wallet_id, token

    def wallet_of(self, token: str) -> int | None:
        row = (
            self._connection()
            .execute("SELECT id FROM wallet WHERE key_hash = ?", (key_hash(token),))
            .fetchone()
        )
        return None if row is None else int(row[0])

    def wallet_exists(self, wallet_id: int) -> bool:
        row = self._connection().execute("SELECT 1 FROM wallet WHERE id = ?", (wallet_id,))
        return row.fetchone() is not None

    def cents(self, wallet_id: int) -> int:
        row = self._connection().execute("SELECT cents FROM wallet WHERE id = ?", (wallet_id,))
        return int(row.fetchone()[0])

    # -- sales ------------------------------------------------------------------------------

    def on_sale(self, game: str, stake: int) -> int:
        """The number of the block on sale for (game, stake)."""
        row = (
            self._connection()
            .execute("SELECT block_number FROM counter WHERE game = ? AND stake = ?", (game, stake))
            .fetchone()
        )
        return 1 if row is None else int(row[0])

    def buy(
        self, wallet_id: int, game: str, stake: int, units: int, read_unit
    ) -> tuple[Ticket, int]:  # type: ignore[no-untyped-def]
        """Debit, take the next unit of the block on sale, credit its prize: one transaction.
        Returns the ticket and the balance it left (read inside the transaction).

        ``read_unit(number, index)`` gives (block name, prize, ticket) of a unit."""
        with self.transaction() as db:
            cents = int(
                db.execute("SELECT cents FROM wallet WHERE id = ?", (wallet_id,)).fetchone()[0]
            )
            if cents < stake:
                raise Refused(
                    402, "not_enough_money", f"solde {cents} c, mise {stake} c : pas assez d'argent"
                )
            row = db.execute(
                "SELECT block_number, next_unit FROM counter WHERE game = ? AND stake = ?",
                (game, stake),
            ).fetchone()
            number, index = (1, 0) if row is None else (int(row[0]), int(row[1]))
            if index >= units:
                number, index = number + 1, 0
            name, prize, body = read_unit(number, index)
            after = cents - stake + prize
            if after > BALANCE_CEILING:
                raise Refused(
                    409, "wallet_ceiling", "this win would take the wallet past its ceiling"
                )
            db.execute(
                "INSERT INTO counter VALUES (?, ?, ?, ?) ON CONFLICT (game, stake) DO UPDATE "
                "SET block_number = excluded.block_number, next_unit = excluded.next_unit",
                (game, stake, number, index + 1),
            )
            db.execute("UPDATE wallet SET cents = ? WHERE id = ?", (after, wallet_id))
            ticket = Ticket(
                new_ulid(),
                wallet_id,
                game,
                stake,
                name,
                index,
                body,
                prize,
                now_text(),
                [0] * 18,
                False,
            )
            db.execute(
                "INSERT INTO ticket (ulid, wallet_id, game, stake, block_name, unit, body, prize, "
                "bought_at, opened) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    ticket.ulid,
                    wallet_id,
                    game,
                    stake,
                    name,
                    index,
                    body,
                    prize,
                    ticket.bought_at,
                    json.dumps(ticket.opened),
                ),
            )
        return ticket, after

    # -- tickets ----------------------------------------------------------------------------

    _COLUMNS = (
        "ulid, wallet_id, game, stake, block_name, unit, body, prize, bought_at, opened, finished"
    )

    @staticmethod
    def _ticket(row: tuple) -> Ticket:  # type: ignore[type-arg]
        return Ticket(*row[:9], json.loads(row[9]), bool(row[10]))

    def ticket(self, ulid: str, db: sqlite3.Connection | None = None) -> Ticket | None:
        row = (
            (db or self._connection())
            .execute(f"SELECT {self._COLUMNS} FROM ticket WHERE ulid = ?", (ulid,))
            .fetchone()
        )
        return None if row is None else self._ticket(row)

    def save_progress(
        self, db: sqlite3.Connection, ulid: str, opened: list[int], finished: bool
    ) -> None:
        db.execute(
            "UPDATE ticket SET opened = ?, finished = ? WHERE ulid = ?",
            (json.dumps(opened), int(finished), ulid),
        )

    def recent(self, wallet_id: int, count: int) -> list[Ticket]:
        rows = self._connection().execute(
            f"SELECT {self._COLUMNS} FROM ticket WHERE wallet_id = ? ORDER BY seq DESC LIMIT ?",
            (wallet_id, count),
        )
        return [self._ticket(row) for row in rows]
