"""The reference game service: contract section 4 as Python methods, over one SQLite file.

The HTTP server (``_server``) and the in-process adapter (``harness._reference_adapter``) are
both thin layers over ``GameService``, so the two speak exactly the same documents and errors.
Every refusal is a ``ServiceError`` carrying the HTTP status and the contract's error code.

Only a new file or one the service created is used (``_service_db``: SQLite's
``application_id`` and ``user_version``); any other is refused before anything in it changes.

What is stored and why:
- ``meta``: the master seed every block seed is derived from (so blocks are never stored:
  unit i of block n is recomputed from the seed), created with ``secrets`` on first start;
- ``accounts``: balance and the SHA-256 of the token (the token itself is never stored);
- ``sales``: per (game, stake) the block on sale and its next unsold unit;
- ``plays``: one row per sold unit, ``UNIQUE(block_id, unit_index)``: a unit is sold once;
  the reveal state of a play of a game with buttons (robots) is stored with it, so it
  survives a restart.

Every game is the registry's (``_games``): the service sells, serves and reveals any registered
game the same way.

A play's debit, credit, unit allocation and history row commit in one ``BEGIN IMMEDIATE``
transaction on a WAL database, and concurrent plays serialise on the write lock, so no unit is
ever sold twice. A play the caller saw is durable: its call returns only once the WAL holding
its commit is synced to disk (``_WalSync``: group commit, one ``fsync`` for every commit made
while the previous one ran, outside the write lock; where that cannot be set up, each commit
syncs itself, ``synchronous=FULL``).
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import queue
import secrets
import sqlite3
import threading
from collections.abc import Generator, Iterator
from datetime import UTC, datetime
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

from contract import EVALUATE_BATCH_LIMIT  # contract section 4: 1 to 1000 tickets a call

from ._blocks import Block, Unit, default_block_id
from ._errors import GameError
from ._evaluate import evaluate
from ._games import GAMES, GameEngine, check_game, check_stake, game_engine, load_rules
from ._render import SliceRenderer
from ._service_db import check_database, stamp

Document = dict[str, Any]

MAX_QUERY_INT = 10**18 - 1  # an integer query parameter: at most 18 digits (the server's)
MAX_BALANCE_CENTS = 2**53 - 1  # the largest integer every JSON reader holds exactly
MAX_BLOCK_NUMBER_DIGITS = 12  # a block number is 1, 2, ...: twelve digits is far past any
SCHEMA_VERSION = "1"
IMPLEMENTATION_NAME = "instantcert-reference"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS accounts (
    account_id TEXT PRIMARY KEY,
    token_sha256 TEXT NOT NULL UNIQUE,
    balance_cents INTEGER NOT NULL CHECK (balance_cents >= 0),
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS sales (
    game TEXT NOT NULL,
    stake_cents INTEGER NOT NULL,
    block_number INTEGER NOT NULL CHECK (block_number >= 1),
    next_index INTEGER NOT NULL CHECK (next_index >= 0),
    PRIMARY KEY (game, stake_cents)
);
CREATE TABLE IF NOT EXISTS plays (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    play_id TEXT NOT NULL UNIQUE,
    account_id TEXT NOT NULL REFERENCES accounts (account_id),
    game TEXT NOT NULL,
    stake_cents INTEGER NOT NULL,
    block_id TEXT NOT NULL,
    unit_index INTEGER NOT NULL,
    ticket TEXT NOT NULL,
    prize_cents INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    revealed TEXT NOT NULL,
    UNIQUE (block_id, unit_index)
);
CREATE INDEX IF NOT EXISTS plays_by_account ON plays (account_id, seq);
"""


class ServiceError(Exception):
    """A refusal of the contract: HTTP ``status``, error ``code``, a message for a person."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message

    def document(self) -> Document:
        """The contract's error document, ``{"error": {"code", "message"}}``."""
        return {"error": {"code": self.code, "message": self.message}}


def malformed(message: str) -> ServiceError:
    return ServiceError(400, "malformed_request", message)


def unauthorized(message: str) -> ServiceError:
    return ServiceError(401, "unauthorized", message)


def not_found(message: str) -> ServiceError:
    return ServiceError(404, "not_found", message)


def _game_error(exc: GameError) -> ServiceError:
    return ServiceError(422, exc.code, str(exc))


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def _encodable(text: str) -> bool:
    """Whether ``text`` is UTF-8 (no lone surrogate: SQLite and hashlib refuse one, and no
    id or token the service hands out holds one)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _version() -> str:
    try:
        return metadata.version("instantcert")
    except metadata.PackageNotFoundError:  # pragma: no cover - running from a bare checkout
        return "0+unknown"


def as_integer(value: object) -> int | None:
    """``value`` as JSON Schema reads an integer: an ``int``, or a number with no fraction
    (``100.0``, ``1e2``: the OpenAPI document's "integer", issue 29 item 7); None for anything
    else (a bool, ``100.5``, a string, an infinity)."""
    if type(value) is int:
        return value
    if type(value) is float and value.is_integer():
        return int(value)
    return None


def require_int(value: object, what: str, *, low: int, high: int) -> int:
    """``value`` if it is a JSON integer in [low, high] (a bool is not an integer here; a
    number with no fraction is, as in JSON Schema)."""
    number = as_integer(value)
    if number is None:
        raise malformed(f"{what} must be an integer, got {type(value).__name__}: {value!r}")
    if not low <= number <= high:
        raise malformed(f"{what} must be between {low} and {high}, got {value!r}")
    return number


def require_str(value: object, what: str) -> str:
    if type(value) is not str:
        raise malformed(f"{what} must be a string, got {type(value).__name__}: {value!r}")
    return value


def game_and_stake(game: object, stake_cents: object) -> tuple[str, int]:
    """A (game, stake) the reference sells: 400 for a wrong JSON type, 422 for a wrong value."""
    name = require_str(game, "game")
    stake = as_integer(stake_cents)
    if stake is None:
        raise malformed(
            f"stake_cents must be an integer, got {type(stake_cents).__name__}: {stake_cents!r}"
        )
    stake_cents = stake
    try:
        check_game(name)
        return name, check_stake(name, stake_cents)
    except GameError as exc:
        raise _game_error(exc) from None


class _WalSync:
    """Group commit: each commit is made with ``synchronous=NORMAL`` (written to the WAL, not
    synced), and its caller waits until an ``fsync`` of the WAL file begun after the commit has
    ended: the commit is then on disk, as ``synchronous=FULL`` would have left it, but the
    write lock is not held during the sync, and one sync covers every commit made meanwhile
    (SQLite still syncs the WAL before each checkpoint, and the database after). Any thread
    waiting runs the next sync itself (no thread of its own). A sync that fails fails every
    commit it was to cover (``OSError``; the next one tries again)."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._changed = threading.Condition()
        self._commits = 0  # commits made (counted under the service's write lock)
        self._synced = 0  # commits known to be on disk
        self._syncing = False

    @classmethod
    def start(cls, db: sqlite3.Connection, db_path: str) -> _WalSync | None:
        """The group sync of ``db_path``'s WAL, or None where it cannot stand in for
        ``synchronous=FULL``: not in WAL mode, no WAL file to open, Windows (its ``fsync``
        wants a file open for writing)."""
        mode = str(db.execute("PRAGMA journal_mode").fetchone()[0]).lower()
        if mode != "wal" or os.name == "nt":
            return None
        try:  # where SQLite keeps it: beside the database, its symbolic links followed
            fd = os.open(os.path.realpath(db_path) + "-wal", os.O_RDONLY)
        except OSError:
            return None
        return cls(fd)

    def committed(self) -> int:
        """Count one more commit (the caller holds the write lock): its number."""
        with self._changed:
            self._commits += 1
            return self._commits

    def wait(self, commit: int) -> None:
        """Return once commit number ``commit`` is on disk, syncing the WAL if no one is."""
        with self._changed:
            while self._synced < commit:
                if self._syncing:
                    self._changed.wait()
                    continue
                self._syncing, covered = True, self._commits
                self._changed.release()
                try:
                    os.fsync(self._fd)
                finally:
                    self._changed.acquire()
                    self._syncing = False
                    self._changed.notify_all()
                self._synced = max(self._synced, covered)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self._fd)


class GameService:
    """All of contract section 4, thread-safe, over the SQLite file at ``db_path``.

    ``seed`` fixes the master seed of a new database (for reproducible runs); a database that
    already has one keeps it, and refuses a different ``seed`` rather than serve other blocks.
    ``durable=False`` is for a scratch database that is deleted when the run ends (the
    in-process reference of ``certify``): commits are not synced to disk, since there is no
    crash to survive, which makes plays about twenty times faster on a slow disk.
    """

    def __init__(
        self, db_path: str | Path, seed: bytes | None = None, *, durable: bool = True
    ) -> None:
        self.db_path = str(db_path)
        self._synchronous = "FULL" if durable else "OFF"
        self._wal_sync: _WalSync | None = None  # durable and WAL: commits synced in groups
        self._pool: queue.SimpleQueue[sqlite3.Connection] = queue.SimpleQueue()
        self._all: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self._writing = threading.Lock()  # one write transaction at a time in this process
        self._closed = False
        check_database(self.db_path, _SCHEMA)  # someone else's file refused, before any change
        with self._connection() as db:
            db.executescript(_SCHEMA)
            stamp(db)  # ours from now on (a new file, or one of an instantcert before the stamp)
            self._master_seed = self._init_seed(db, seed)
            if durable:
                self._wal_sync = _WalSync.start(db, self.db_path)
                if self._wal_sync is not None:
                    db.execute("PRAGMA synchronous=NORMAL")  # as every later connection
        self.renderer = SliceRenderer()

    # -- storage --------------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        try:
            db = sqlite3.connect(
                self.db_path, timeout=30.0, isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error as exc:
            raise OSError(f"cannot open the database {self.db_path!r}: {exc}") from None
        db.row_factory = sqlite3.Row
        db.execute("PRAGMA journal_mode=WAL")
        # FULL: a play the caller saw survives a power cut (OFF only for a scratch database);
        # NORMAL once ``_WalSync`` syncs the WAL after each commit instead (``_transaction``)
        synchronous = "NORMAL" if self._wal_sync is not None else self._synchronous
        db.execute(f"PRAGMA synchronous={synchronous}")
        db.execute("PRAGMA foreign_keys=ON")
        with self._lock:
            self._all.append(db)
        return db

    @contextlib.contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        if self._closed:
            raise ServiceError(503, "unavailable", "the service is closed")
        try:
            db = self._pool.get_nowait()
        except queue.Empty:
            db = self._connect()
        try:
            yield db
        finally:
            if db.in_transaction:  # never hand on a connection inside a transaction
                db.rollback()
            self._pool.put(db)

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; ``IMMEDIATE`` takes the write lock first, so no deadlock.

        SQLite has one writer at a time anyway; its busy handler retries with sleeps and no
        queue, so under many concurrent plays (a certify runs up to 32 at once) one waiter
        could lose the race for the whole 30 s ``timeout`` and fail its play with "database is
        locked". The threads of this process therefore queue on a lock first, and SQLite's
        timeout only arbitrates between processes sharing the file.
        """
        with self._writing, self._connection() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.rollback()
                raise
            db.commit()
            committed = self._wal_sync.committed() if self._wal_sync is not None else 0
        if self._wal_sync is not None:  # durable before the caller sees it, the lock released
            self._wal_sync.wait(committed)

    def _init_seed(self, db: sqlite3.Connection, seed: bytes | None) -> bytes:
        db.execute("BEGIN IMMEDIATE")
        try:
            row = db.execute("SELECT value FROM meta WHERE key = 'master_seed'").fetchone()
            if row is None:
                master = seed if seed is not None else secrets.token_bytes(32)
                db.execute("INSERT INTO meta VALUES ('master_seed', ?)", (master.hex(),))
                db.execute("INSERT INTO meta VALUES ('schema_version', ?)", (SCHEMA_VERSION,))
            else:
                master = bytes.fromhex(row["value"])
                if seed is not None and seed != master:
                    raise ValueError(
                        f"the database {self.db_path!r} was created with another master seed; "
                        "use a new --db file to serve blocks of another seed"
                    )
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
        return master

    def close(self) -> None:
        self._closed = True
        self.renderer.close()
        with self._lock:
            for db in self._all:
                db.close()
            self._all.clear()
        if self._wal_sync is not None:
            self._wal_sync.close()

    # -- blocks ---------------------------------------------------------------------------

    @staticmethod
    def block_seed_of(master_seed: bytes, block_id: str) -> bytes:
        """The 32-byte seed of a block: HMAC-SHA256 of its id under the master seed."""
        return hmac.new(master_seed, block_id.encode("ascii"), hashlib.sha256).digest()

    def block_seed(self, block_id: str) -> bytes:
        return self.block_seed_of(self._master_seed, block_id)

    @lru_cache(maxsize=64)  # noqa: B019 - one service per process; blocks are immutable
    def _block(self, game: str, stake_cents: int, number: int) -> Block:
        block_id = default_block_id(game, stake_cents, number)
        return Block(game, stake_cents, block_id, self.block_seed(block_id))

    def _issued(self, game: str, stake_cents: int) -> int:
        """How many blocks of (game, stake) are issued: up to the one on sale, and the next.

        The next block is issued ahead, ready to go on sale, so every (game, stake) always
        lists at least two blocks (a lab compares consecutive blocks' winner positions).
        """
        with self._connection() as db:
            row = db.execute(
                "SELECT block_number FROM sales WHERE game = ? AND stake_cents = ?",
                (game, stake_cents),
            ).fetchone()
        return 1 + (1 if row is None else int(row["block_number"]))

    def _parse_block_id(self, block_id: str) -> tuple[str, int, int] | None:
        """(game, stake, number) of a block id of the form ``default_block_id`` writes."""
        for game in GAMES:
            for stake in load_rules(game).stakes_cents:
                prefix = default_block_id(game, stake, 1)[: -len("0001")]
                number = block_id[len(prefix) :]
                if (
                    block_id.startswith(prefix)
                    and number.isdigit()
                    and number.isascii()
                    and len(number) <= MAX_BLOCK_NUMBER_DIGITS  # no int() of 10**5 digits
                ):
                    value = int(number)
                    if value >= 1 and default_block_id(game, stake, value) == block_id:
                        return game, stake, value
        return None

    def list_blocks(self, game: object = None, stake_cents: object = None) -> Document:
        """``GET /v1/blocks``: the blocks issued so far (1 to the one after the one on sale)."""
        # game and stake_cents filter the list: each must be sold (else 422), and a game with
        # a stake that only another game sells lists no block (200, empty), as the OpenAPI
        # document's independent enums of the two parameters allow that pair
        pairs = [(g, s) for g in GAMES for s in load_rules(g).stakes_cents]
        if game is not None:
            try:
                name = check_game(require_str(game, "game"))
            except GameError as exc:
                raise _game_error(exc) from None
            pairs = [(g, s) for g, s in pairs if g == name]
        if stake_cents is not None:
            require_int(stake_cents, "stake_cents", low=0, high=MAX_BALANCE_CENTS)
            if not any(s == stake_cents for g in GAMES for s in load_rules(g).stakes_cents):
                raise ServiceError(
                    422, "invalid_stake", f"no game is sold at stake_cents {stake_cents!r}"
                )
            pairs = [(g, s) for g, s in pairs if s == stake_cents]
        blocks = []
        for name, stake in pairs:
            for number in range(1, self._issued(name, stake) + 1):
                blocks.append(
                    {
                        "block_id": default_block_id(name, stake, number),
                        "game": name,
                        "stake_cents": stake,
                        "units": load_rules(name).block_units,
                    }
                )
        return {"blocks": blocks}

    def block(self, block_id: object) -> Block:
        """An issued block, or 404: a block not issued yet is not served."""
        name = require_str(block_id, "block_id")
        parsed = self._parse_block_id(name)
        if parsed is None or parsed[2] > self._issued(parsed[0], parsed[1]):
            raise not_found(f"no block {name!r}: GET /v1/blocks lists the blocks served")
        return self._block(*parsed)

    def block_slice(
        self, block_id: object, start: object = None, count: object = None
    ) -> tuple[Block, int, int]:
        """The block and the checked slice [start, start+count) of it (default: all of it)."""
        block = self.block(block_id)
        first = 0 if start is None else require_int(start, "start", low=0, high=MAX_QUERY_INT)
        if first > block.units:  # a well-formed slice that this block has not: 404
            raise not_found(
                f"block {block.block_id} has {block.units} units: none at start {first}"
            )
        size = block.units - first
        if count is not None:
            size = require_int(count, "count", low=0, high=MAX_QUERY_INT)
            if size > block.units - first:
                raise not_found(
                    f"block {block.block_id} has {block.units} units: the slice of {size} from "
                    f"{first} runs past its end (at most {block.units - first})"
                )
        return block, first, size

    def block_document(
        self, block_id: object, start: object = None, count: object = None
    ) -> Generator[bytes, None, None]:
        """The block/1 document of a slice, computed as it is read: the header line, then the
        unit lines (one or many per item). The slice is checked now, before anything is sent."""
        block, first, size = self.block_slice(block_id, start, count)
        return self.renderer.document_lines(block, first, size)

    # -- evaluation -----------------------------------------------------------------------

    def implementation(self) -> Document:
        """``GET /v1/implementation``."""
        return {
            "name": IMPLEMENTATION_NAME,
            "version": _version(),
            "games": {g: {"stakes_cents": list(load_rules(g).stakes_cents)} for g in GAMES},
            "capabilities": ["evaluate", "blocks", "play", "reveal"],
        }

    def evaluate(self, game: object, stake_cents: object, tickets: object) -> Document:
        """``POST /v1/evaluate``: one result, or an error object in its place, per ticket."""
        name, stake = game_and_stake(game, stake_cents)
        if type(tickets) is not list:
            raise malformed(f"tickets must be a list, got {type(tickets).__name__}")
        if not 1 <= len(tickets) <= EVALUATE_BATCH_LIMIT:
            raise malformed(
                f"tickets holds {len(tickets)} tickets: send 1 to {EVALUATE_BATCH_LIMIT}"
            )
        results: list[Document] = []
        for ticket in tickets:
            try:
                results.append(evaluate(name, stake, ticket))
            except GameError as exc:
                results.append(_game_error(exc).document())
        return {"results": results}

    # -- accounts -------------------------------------------------------------------------

    def open_account(self, balance_cents: object) -> Document:
        """``POST /v1/accounts``: the token is shown here once and stored only as a hash."""
        balance = require_int(balance_cents, "balance_cents", low=0, high=MAX_BALANCE_CENTS)
        account_id = "acct_" + secrets.token_hex(12)
        token = secrets.token_urlsafe(32)
        with self._transaction() as db:
            db.execute(
                "INSERT INTO accounts VALUES (?, ?, ?, ?)",
                (account_id, _hash_token(token), balance, _now()),
            )
        return {"account_id": account_id, "token": token, "balance_cents": balance}

    def authenticate(self, token: object) -> str:
        """The account a token opens, or 401. Looked up by hash, then compared in constant time."""
        if type(token) is not str or not token:
            raise unauthorized("this call needs the account's token: Authorization: Bearer <token>")
        if not _encodable(token):  # a lone surrogate: no token the service handed out
            raise unauthorized("the token opens no account")
        digest = _hash_token(token)
        with self._connection() as db:
            row = db.execute(
                "SELECT account_id, token_sha256 FROM accounts WHERE token_sha256 = ?", (digest,)
            ).fetchone()
        if row is None or not hmac.compare_digest(row["token_sha256"], digest):
            raise unauthorized("the token opens no account")
        return str(row["account_id"])

    def authorize_account(self, account_id: object, token: object) -> str:
        """The account if the token is its own; 404 otherwise, so others' ids are not leaked."""
        owner = self.authenticate(token)
        if account_id != owner:  # ids are not secrets: the token was compared above
            raise not_found(f"no account {account_id!r} for this token")
        return owner

    def balance(self, account_id: object, token: object) -> Document:
        """``GET /v1/accounts/{account_id}``."""
        owner = self.authorize_account(account_id, token)
        with self._connection() as db:
            row = db.execute(
                "SELECT balance_cents FROM accounts WHERE account_id = ?", (owner,)
            ).fetchone()
        return {"account_id": owner, "balance_cents": int(row["balance_cents"])}

    # -- plays ----------------------------------------------------------------------------

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        """``POST /v1/accounts/{account_id}/plays``: sell the next unit, all in one transaction."""
        owner = self.authorize_account(account_id, token)
        name, stake = game_and_stake(game, stake_cents)
        play_id = "play_" + secrets.token_hex(12)
        with self._transaction() as db:
            balance = int(
                db.execute(
                    "SELECT balance_cents FROM accounts WHERE account_id = ?", (owner,)
                ).fetchone()["balance_cents"]
            )
            if balance < stake:
                raise ServiceError(
                    402,
                    "insufficient_funds",
                    f"the balance is {balance} cents, the stake {stake} cents",
                )
            block, unit = self._take_next_unit(db, name, stake)
            balance = balance - stake + unit.prize_cents
            if balance > MAX_BALANCE_CENTS:
                raise ServiceError(
                    409, "balance_limit", f"the prize would take the balance past {balance}"
                )
            db.execute(
                "UPDATE accounts SET balance_cents = ? WHERE account_id = ?", (balance, owner)
            )
            return self._record_play(db, play_id, owner, block, unit, balance)

    def _take_next_unit(self, db: sqlite3.Connection, name: str, stake: int) -> tuple[Block, Unit]:
        """The unit on sale at (game, stake), and the sales cursor moved past it (block order:
        the next block once this one is sold out); inside the caller's write transaction."""
        row = db.execute(
            "SELECT block_number, next_index FROM sales WHERE game = ? AND stake_cents = ?",
            (name, stake),
        ).fetchone()
        number, index = (1, 0) if row is None else (row["block_number"], row["next_index"])
        block = self._block(name, stake, number)
        unit = block.unit(index)
        following = (number, index + 1) if index + 1 < block.units else (number + 1, 0)
        db.execute(
            "INSERT INTO sales VALUES (?, ?, ?, ?) ON CONFLICT (game, stake_cents) "
            "DO UPDATE SET block_number = excluded.block_number, "
            "next_index = excluded.next_index",
            (name, stake, *following),
        )
        return block, unit

    def _record_play(
        self,
        db: sqlite3.Connection,
        play_id: str,
        owner: str,
        block: Block,
        unit: Unit,
        balance: int,
    ) -> Document:
        """Write the play's history row (inside the sale's transaction); the play document."""
        buttons = game_engine(block.game).buttons
        revealed = json.dumps([0] * buttons) if buttons else "[]"
        db.execute(
            "INSERT INTO plays (play_id, account_id, game, stake_cents, block_id, unit_index,"
            " ticket, prize_cents, created_at, revealed) VALUES (?,?,?,?,?,?,?,?,?,?)",
            (
                play_id,
                owner,
                block.game,
                block.stake_cents,
                block.block_id,
                unit.index,
                unit.ticket,
                unit.prize_cents,
                _now(),
                revealed,
            ),
        )
        return {
            "play_id": play_id,
            "game": block.game,
            "stake_cents": block.stake_cents,
            "block_id": block.block_id,
            "index": unit.index,
            "balance_cents": balance,
        }

    def _own_play(self, db: sqlite3.Connection, play_id: object, owner: str) -> sqlite3.Row:
        row = None
        if type(play_id) is str and _encodable(play_id):
            row = db.execute("SELECT * FROM plays WHERE play_id = ?", (play_id,)).fetchone()
        if row is None or row["account_id"] != owner:
            raise not_found(f"no play {play_id!r} for this token")
        found: sqlite3.Row = row
        return found

    @staticmethod
    def _engine_of(row: sqlite3.Row) -> GameEngine:
        try:
            return game_engine(row["game"])
        except GameError as exc:  # a play of a game no longer registered in this process
            raise _game_error(exc) from None

    def reveal(self, play_id: object, token: object, button: object) -> Document:
        """``POST /v1/plays/{play_id}/reveal``: the next reveal under ``button`` (games with
        buttons only: robots)."""
        owner = self.authenticate(token)
        with self._transaction() as db:
            row = self._own_play(db, play_id, owner)
            engine = self._engine_of(row)
            # a game without buttons checks the number as the widest board would (0..17)
            widest = engine.buttons or max(game_engine(g).buttons for g in GAMES)
            number = require_int(button, "button", low=0, high=max(widest, 1) - 1)
            if not engine.buttons:
                raise ServiceError(
                    409,
                    "nothing_to_reveal",
                    f"play {play_id!r} is {row['game']}: it has no buttons; "
                    "POST /v1/plays/{play_id}/auto shows it",
                )
            shown = json.loads(row["revealed"])
            reveals = engine.button_reveals(row["ticket"])[number]
            if shown[number] >= len(reveals):
                raise ServiceError(
                    409,
                    "nothing_to_reveal",
                    f"button {number} of play {play_id!r} has nothing left to reveal",
                )
            reveal = reveals[shown[number]]
            shown[number] += 1
            db.execute(
                "UPDATE plays SET revealed = ? WHERE play_id = ?", (json.dumps(shown), play_id)
            )
        return {"button": number, **reveal}

    def auto(self, play_id: object, token: object) -> Document:
        """``POST /v1/plays/{play_id}/auto``: reveal all that is left; asked again, same answer."""
        owner = self.authenticate(token)
        with self._transaction() as db:
            row = self._own_play(db, play_id, owner)
            engine = self._engine_of(row)
            if engine.buttons:
                buttons = engine.button_reveals(row["ticket"])
                shown = json.dumps([len(reveals) for reveals in buttons])
            else:
                shown = "[1]"
            db.execute("UPDATE plays SET revealed = ? WHERE play_id = ?", (shown, play_id))
        result = evaluate(row["game"], row["stake_cents"], row["ticket"])
        return {
            "play_id": row["play_id"],
            "ticket": row["ticket"],
            "prize_cents": result["prize_cents"],
            "wins": result["wins"],
        }

    def history(self, account_id: object, token: object, limit: object = None) -> Document:
        """``GET /v1/accounts/{account_id}/history``: newest first, revealed or not."""
        owner = self.authorize_account(account_id, token)
        rows_wanted = -1 if limit is None else require_int(limit, "limit", low=1, high=2**62)
        with self._connection() as db:
            rows = db.execute(
                "SELECT play_id, game, stake_cents, block_id, unit_index, ticket, prize_cents,"
                " created_at FROM plays WHERE account_id = ? ORDER BY seq DESC LIMIT ?",
                (owner, rows_wanted),
            ).fetchall()
        return {
            "plays": [
                {
                    "play_id": row["play_id"],
                    "game": row["game"],
                    "stake_cents": row["stake_cents"],
                    "block_id": row["block_id"],
                    "index": row["unit_index"],
                    "ticket": row["ticket"],
                    "prize_cents": row["prize_cents"],
                    "created_at": row["created_at"],
                }
                for row in rows
            ]
        }
