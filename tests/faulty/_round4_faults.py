"""Faults a fourth red team wrote (4 December 2026) in the spirit of issue 27, none of them shown
to the suite before: ``created_at`` as a hasty vendor writes it, history entries wrong only past
some depth, an AUTO answered from an archive long after, wear-out after hundreds of plays on an
account or thousands server-wide, a credit that lands seconds late, a wallet that treats
accounts opened alone (a person signing up) or old accounts differently, a stake-only rounding.
Each class is the reference with one behaviour changed, its docstring the bug as a vendor would
write it (``variants.py`` registers them with what must catch them).
"""

from __future__ import annotations

import contextvars
import sqlite3
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from datetime import UTC, datetime, timedelta
from typing import Any

from reference import prize_cents
from reference._blocks import Block, Unit
from reference._service import Document, GameService

from ._base import reference_adapter
from ._protocol_faults import BridgedHttp
from .http_bridge import Serving, create_app


def _move(service: GameService, account_id: object, cents: int) -> None:
    """Add ``cents`` (negative: take) to the stored balance of ``account_id``."""
    with service._transaction() as db:
        db.execute(
            "UPDATE accounts SET balance_cents = balance_cents + ? WHERE account_id = ?",
            (cents, account_id),
        )


def _lot_of(service: GameService, play_id: str) -> int:
    """The lot of the ticket ``play_id`` bought."""
    with service._connection() as db:
        row = db.execute(
            "SELECT game, stake_cents, ticket FROM plays WHERE play_id = ?", (play_id,)
        ).fetchone()
    return int(prize_cents(row["game"], row["stake_cents"], row["ticket"]))


def _balance_of(service: GameService, account_id: object) -> int | None:
    """The stored balance of ``account_id`` (None: no such account)."""
    with service._connection() as db:
        row = db.execute(
            "SELECT balance_cents FROM accounts WHERE account_id = ?", (account_id,)
        ).fetchone()
    return None if row is None else int(row["balance_cents"])


def _stored_without_lot(db: sqlite3.Connection, owner: str, balance: int, unit: Unit) -> int:
    """Inside a sale's transaction: ``owner``'s stored balance set to ``balance`` (the sale's,
    stake debited and lot credited) less ``unit``'s lot; that balance."""
    balance -= unit.prize_cents
    db.execute("UPDATE accounts SET balance_cents = ? WHERE account_id = ?", (balance, owner))
    return balance


class _LotDroppedInSale(GameService):
    """A play whose lot the wallet never credits when ``drops_lot`` says so, decided and
    written inside the sale's own transaction: no other request of the account sees the
    balance with the lot and then without it, so the fault is the lost lot alone (taken back
    in a second write after the play, it was also a lost update that a play of the account
    landing in between could meet: a race of the fixture's, not the variant's)."""

    def drops_lot(
        self, db: sqlite3.Connection, owner: str, block: Block, unit: Unit, balance: int
    ) -> bool:
        """Whether the lot of ``unit``, just sold to ``owner`` whose balance is now ``balance``
        (stake debited, lot credited), is lost; ``db`` is inside the sale's transaction. Asked
        at every sale, losing ones included (a fault may keep state of its own)."""
        raise NotImplementedError

    def _record_play(
        self,
        db: sqlite3.Connection,
        play_id: str,
        owner: str,
        block: Block,
        unit: Unit,
        balance: int,
    ) -> Document:
        if self.drops_lot(db, owner, block, unit, balance) and unit.prize_cents > 0:
            balance = _stored_without_lot(db, owner, balance, unit)
        return super()._record_play(db, play_id, owner, block, unit, balance)


class _CreditOnAuto(GameService):
    """A play's lot held back (the play's answer and the stored balance lack it) when
    ``holds_back`` says so (by default: when ``held(account_id)`` does), and credited when the
    ticket is finished by AUTO. Held back inside the sale's own transaction: no other request
    of the account sees the balance with the lot and then without it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._owed: dict[str, tuple[str, int]] = {}
        self._owed_lock = threading.Lock()

    def held(self, account_id: str) -> bool:
        raise NotImplementedError

    def holds_back(self, owner: str, block: Block, unit: Unit) -> bool:
        """Whether the lot of ``unit``, just sold to ``owner``, waits for AUTO (inside the
        sale's transaction: the play is not recorded yet)."""
        return self.held(owner)

    def _record_play(
        self,
        db: sqlite3.Connection,
        play_id: str,
        owner: str,
        block: Block,
        unit: Unit,
        balance: int,
    ) -> Document:
        if self.holds_back(owner, block, unit) and unit.prize_cents > 0:
            balance = _stored_without_lot(db, owner, balance, unit)
            with self._owed_lock:
                self._owed[play_id] = (owner, unit.prize_cents)
        return super()._record_play(db, play_id, owner, block, unit, balance)

    def auto(self, play_id: object, token: object) -> Document:
        answer = super().auto(play_id, token)
        with self._owed_lock:
            owed = self._owed.pop(str(play_id), None)
        if owed is not None:
            _move(self, owed[0], owed[1])
        return answer


class _HeldFromOpening:
    """A mixin before a ``_CreditOnAuto``: the accounts ``holds_opened`` picks as they are
    opened (called under ``_owed_lock``) are the ones ``held``."""

    _owed_lock: threading.Lock

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._held_accounts: set[str] = set()

    def holds_opened(self, opened: Document) -> bool:
        raise NotImplementedError

    def open_account(self, balance_cents: object) -> Document:
        opened: Document = super().open_account(balance_cents)  # type: ignore[misc]
        with self._owed_lock:
            if self.holds_opened(opened):
                self._held_accounts.add(opened["account_id"])
        return opened

    def held(self, account_id: str) -> bool:
        with self._owed_lock:
            return account_id in self._held_accounts


# == created_at as a hasty vendor writes it =======================================================


class CreatedAtAccountOpened(GameService):
    """Contract 4 (``created_at``): the history query joins the accounts table and both tables
    have a ``created_at`` column; the ORM maps the account's: every entry shows the time the
    account was opened, not the time its play was bought."""

    def history(self, account_id: object, token: object, limit: object = None) -> Document:
        listed = super().history(account_id, token, limit)
        with self._connection() as db:
            row = db.execute(
                "SELECT created_at FROM accounts WHERE account_id = ?", (account_id,)
            ).fetchone()
        return {"plays": [{**p, "created_at": row["created_at"]} for p in listed["plays"]]}


class CreatedAtLastActivity(GameService):
    """Contract 4 (``created_at``): the plays table has one timestamp, kept by the ORM's
    ``auto_now`` (updated at every save), served as ``created_at``: a play's time moves to its
    last reveal or AUTO, so a ticket finished later than a newer one is listed newest first by
    purchase but with a later time. Plays never revealed show their purchase time."""

    def _touch(self, play_id: object) -> None:
        stamp = datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")
        with self._transaction() as db:
            db.execute("UPDATE plays SET created_at = ? WHERE play_id = ?", (stamp, play_id))

    def reveal(self, play_id: object, token: object, button: object) -> Document:
        answer = super().reveal(play_id, token, button)
        self._touch(play_id)
        return answer

    def auto(self, play_id: object, token: object) -> Document:
        answer = super().auto(play_id, token)
        self._touch(play_id)
        return answer


class CreatedAtParisAsUtc(GameService):
    """Contract 4 (``created_at``): the server's clock is set to Paris time (UTC+1 in
    December) and the timestamp is formatted with a ``Z`` suffix by hand: every ``created_at``
    is an hour in the future."""

    def history(self, account_id: object, token: object, limit: object = None) -> Document:
        listed = super().history(account_id, token, limit)
        shifted = []
        for entry in listed["plays"]:
            moment = datetime.fromisoformat(entry["created_at"].replace("Z", "+00:00"))
            local = (moment + timedelta(hours=1)).replace(tzinfo=None)
            shifted.append({**entry, "created_at": local.isoformat(timespec="seconds") + "Z"})
        return {"plays": shifted}


# == the history and AUTO, deep or long after =====================================================


class HistoryArchivePrizeZero(GameService):
    """Contract 4 / robots 4.1: an account's plays older than its newest 100 are moved to an
    archive table that keeps the ticket but not the prize (the column was forgotten in the
    migration, read back as 0): deep in a long history, every entry shows ``prize_cents`` 0.
    The newest 100 entries are right."""

    HOT = 100

    def history(self, account_id: object, token: object, limit: object = None) -> Document:
        listed = super().history(account_id, token, limit)
        plays = [
            p if n < self.HOT else {**p, "prize_cents": 0} for n, p in enumerate(listed["plays"])
        ]
        return {"plays": plays}


class HistoryArchiveCreatedAt(GameService):
    """Contract 4 (``created_at``): an account's plays older than its newest 100 are moved to
    an archive table by a job whose INSERT ... SELECT forgot the column: the archived rows take
    the column's default, the time the job moved them, so deep in a long history the entries
    are listed as created after the newest ones. The newest 100 are right."""

    HOT = 100

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._moved: dict[str, str] = {}
        self._moved_lock = threading.Lock()

    def history(self, account_id: object, token: object, limit: object = None) -> Document:
        listed = super().history(account_id, token, limit)
        stamp = datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")
        plays = []
        for n, entry in enumerate(listed["plays"]):
            if n >= self.HOT:
                with self._moved_lock:
                    moved = self._moved.setdefault(entry["play_id"], stamp)
                entry = {**entry, "created_at": moved}
            plays.append(entry)
        return {"plays": plays}


class EldoradoTicketColumn40(GameService):
    """Contract 4 / eldorado 4.2: the eldorado history keeps its tickets in a VARCHAR(40) column
    (a main grid and an Extra grid take 35 characters): a ticket of two Extra grids or more is
    listed cut at 40 characters. The play, AUTO and the wallet are right; robots has a table
    of its own."""

    WIDTH = 40

    def history(self, account_id: object, token: object, limit: object = None) -> Document:
        listed = super().history(account_id, token, limit)
        return {
            "plays": [
                {**p, "ticket": p["ticket"][: self.WIDTH]} if p["game"] == "eldorado" else p
                for p in listed["plays"]
            ]
        }


class AutoArchivedWinsEmpty(GameService):
    """Contract 4 (AUTO's answer): a ticket finished more than a minute ago is answered from
    the archive of finished plays, which keeps the ticket and the prize but not the wins: AUTO
    sent again later answers ``wins: []`` beside the right ``prize_cents``."""

    ARCHIVED_AFTER_S = 60.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._finished: dict[str, float] = {}
        self._finished_lock = threading.Lock()

    def auto(self, play_id: object, token: object) -> Document:
        answer = super().auto(play_id, token)
        now = time.monotonic()
        with self._finished_lock:
            first = self._finished.setdefault(str(play_id), now)
        if now - first > self.ARCHIVED_AFTER_S:
            return {**answer, "wins": []}
        return answer


# == wear-out: per account, server-wide ===========================================================


class WearOutAfter300Plays(_CreditOnAuto):
    """Robots 4.10 / eldorado 4.6: from an account's 300th play on, its plays go through the
    responsible-gaming service ("heavy players"), whose wallet call credits a win only when the
    ticket is finished (AUTO): the play's answer and the balance lack the lot meanwhile. An
    account of fewer than 300 plays is always right."""

    LIGHT = 299

    def held(self, account_id: str) -> bool:
        with self._connection() as db:
            row = db.execute(
                "SELECT COUNT(*) AS n FROM plays WHERE account_id = ?", (account_id,)
            ).fetchone()
        return int(row["n"]) >= self.LIGHT


class EveryThousandthLotLost(GameService):
    """Robots 4.10 / eldorado 4.6: the wallet writes credits in batches of 1 000 plays; the
    play that closes a batch (the 1 000th, 2 000th, ... since start-up, over every account) is
    flushed before its own credit is queued, and its lot is lost. Its answer shows the balance
    without the lot."""

    BATCH = 1000

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._count = 0
        self._count_lock = threading.Lock()

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        result = super().play(account_id, token, game, stake_cents)
        with self._count_lock:
            self._count += 1
            closing = self._count % self.BATCH == 0
        lot = _lot_of(self, result["play_id"]) if closing else 0
        if lot <= 0:
            return result
        _move(self, account_id, -lot)
        return {**result, "balance_cents": result["balance_cents"] - lot}


# == time: a credit that lands late, accounts by age or by how they were opened ===================


class CreditLandsLate(GameService):
    """Contract 4 ("the stake is debited and the prize credited at once, atomically"): the play's
    answer shows the balance with the lot (computed), but the lot is written by the wallet
    queue's worker 3 seconds later: a balance read, or a play, within those seconds finds the
    balance without it."""

    DELAY_S = 3.0

    def _record_play(
        self,
        db: sqlite3.Connection,
        play_id: str,
        owner: str,
        block: Block,
        unit: Unit,
        balance: int,
    ) -> Document:
        answer = super()._record_play(db, play_id, owner, block, unit, balance)
        if unit.prize_cents > 0:  # the stored balance without the lot, in the sale itself
            _stored_without_lot(db, owner, balance, unit)
            timer = threading.Timer(self.DELAY_S, self._credit, (owner, unit.prize_cents))
            timer.daemon = True
            timer.start()
        return answer

    def _credit(self, account_id: object, lot: int) -> None:
        """The queue worker's write (nothing once the service is closed: the run is over)."""
        try:
            _move(self, account_id, lot)
        except Exception:  # the database closed under a late worker
            return


class OldAccountWinsQueued(_CreditOnAuto):
    """Robots 4.10 / eldorado 4.6: an account's first minute is its "welcome session", on
    the synchronous wallet; later, its wins go to the asynchronous wallet queue, credited only
    when the ticket is finished (AUTO): the play's answer and the balance lack the lot
    meanwhile. Young accounts are always right."""

    WELCOME_S = 60.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._opened: dict[str, float] = {}

    def open_account(self, balance_cents: object) -> Document:
        opened = super().open_account(balance_cents)
        with self._owed_lock:
            self._opened[opened["account_id"]] = time.monotonic()
        return opened

    def held(self, account_id: str) -> bool:
        with self._owed_lock:
            opened = self._opened.get(account_id)
        return opened is not None and time.monotonic() - opened > self.WELCOME_S


class LoneAccountWinsQueued(_CreditOnAuto):
    """Robots 4.10 / eldorado 4.6: accounts opened in a burst (less than 5 seconds after
    another account was opened) are "bulk accounts" of load tests and labs and stay on the
    synchronous wallet; an account opened alone, as a person signs up, has its wins queued
    and credited only when the ticket is finished (AUTO): the play's answer and the balance
    lack the lot meanwhile."""

    BURST_S = 5.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._alone: set[str] = set()
        self._last_opened: float | None = None

    def open_account(self, balance_cents: object) -> Document:
        opened = super().open_account(balance_cents)
        now = time.monotonic()
        with self._owed_lock:
            last, self._last_opened = self._last_opened, now
            if last is not None and now - last >= self.BURST_S:
                self._alone.add(opened["account_id"])
        return opened

    def held(self, account_id: str) -> bool:
        with self._owed_lock:
            return account_id in self._alone


# == a client's fingerprint (over HTTP) ===========================================================

_APP_CLIENT: contextvars.ContextVar[bool] = contextvars.ContextVar("app_client", default=False)
Scope = MutableMapping[str, Any]
App = Callable[[Scope, Any, Any], Awaitable[None]]


class AppTrafficWinsQueued(_CreditOnAuto):
    """Robots 4.10 / eldorado 4.6: traffic from the mobile app (the gateway tags it: OkHttp
    writes ``Connection: Keep-Alive`` just so) has its wins credited by the asynchronous wallet
    queue, only when the ticket is finished (AUTO); every other client (scripts, load tests,
    labs, which write ``keep-alive`` or nothing) goes through the synchronous wallet and is
    always right."""

    def held(self, account_id: str) -> bool:
        return _APP_CLIENT.get()


class AppTagLayer:
    """The vendor's gateway: tags a request whose ``Connection`` header is written exactly as
    OkHttp writes it."""

    def __init__(self, app: App) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        headers = dict(scope.get("headers", [])) if scope["type"] == "http" else {}
        mark = _APP_CLIENT.set(headers.get(b"connection") == b"Keep-Alive")
        try:
            await self.app(scope, receive, send)
        finally:
            _APP_CLIENT.reset(mark)


def app_tagged_variant(name: str) -> Callable[[], Any]:
    """A factory: ``AppTrafficWinsQueued`` served over HTTP behind ``AppTagLayer``."""

    def factory() -> BridgedHttp:
        inner = reference_adapter(AppTrafficWinsQueued, name=f"faulty:{name}")
        return BridgedHttp(Serving(AppTagLayer(create_app(inner)), on_close=inner.close))

    return factory


# == the history's index, deep in a block =========================================================


class HistoryIndexInt16(GameService):
    """Contract 4 / robots 4.1: the history table's ``unit_index`` column is a SMALLINT (the
    first blocks were of 20 000 units): a unit past 32 767 is listed at its index wrapped
    round to a negative number, so a play deep in a block cannot be found in the block by its
    history entry. The play's own answer, AUTO and the wallet are right."""

    BITS = 16

    def history(self, account_id: object, token: object, limit: object = None) -> Document:
        listed = super().history(account_id, token, limit)
        half = 1 << (self.BITS - 1)
        return {
            "plays": [
                {**p, "index": (p["index"] + half) % (2 * half) - half} for p in listed["plays"]
            ]
        }


# == a read of the balance ========================================================================


class BalanceReadCached(GameService):
    """Contract 4 (``GET /v1/accounts/{id}`` answers the balance): balance reads are served from
    a cache entry per account that lives 5 seconds, filled by a read: a read within 5 seconds
    of the last one misses the plays made between them."""

    TTL_S = 5.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._cached: dict[object, tuple[float, Document]] = {}
        self._cache_lock = threading.Lock()

    def balance(self, account_id: object, token: object) -> Document:
        now = time.monotonic()
        with self._cache_lock:
            hit = self._cached.get(account_id)
        if hit is not None and now - hit[0] < self.TTL_S:
            self.authorize_account(account_id, token)
            return hit[1]
        found = super().balance(account_id, token)
        with self._cache_lock:
            self._cached[account_id] = (now, found)
        return found


# == a deposit's size, a stake's depth ==========================================================


class DepositWinsQueued(_HeldFromOpening, _CreditOnAuto):
    """Robots 4.10 / eldorado 4.6: accounts opened with a player's deposit (10 to 200 EUR, a
    whole number of euros) are on the payment provider's wallet, whose credits are queued and
    written only when the ticket is finished (AUTO); any other opening balance (the operator's
    test and lab accounts, funded with odd or large sums) is on the internal wallet and always
    right."""

    def holds_opened(self, opened: Document) -> bool:
        balance = opened["balance_cents"]
        return 1_000 <= balance <= 20_000 and balance % 100 == 0


class TopStakeLotTableFirstUnits(GameService):
    """Eldorado 4.6: at the 2 EUR stake only (a table of its own, added later), the wallet
    credits a win from a lot table preloaded with the first 4 096 units of the block; a winning
    unit past them is credited nothing. The other stakes, the ticket and AUTO are right."""

    LOADED = 4096

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        result = super().play(account_id, token, game, stake_cents)
        if (result["game"], result["stake_cents"]) != ("eldorado", 200):
            return result
        if result["index"] < self.LOADED:
            return result
        lot = _lot_of(self, result["play_id"])
        if lot <= 0:
            return result
        _move(self, account_id, -lot)
        return {**result, "balance_cents": result["balance_cents"] - lot}


# == one stake ====================================================================================


class HalfEuroStakeCentsDropped(GameService):
    """Eldorado 4.6: at the 0,50 EUR stake the wallet credits a lot through a legacy "euros"
    field (an integer): the cents of a lot are dropped (a lot of 2,50 EUR is credited 2 EUR).
    The 1 EUR and 2 EUR stakes, whose lots are whole euros, are right."""

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        result = super().play(account_id, token, game, stake_cents)
        if result["stake_cents"] != 50:
            return result
        lost = _lot_of(self, result["play_id"]) % 100
        if lost <= 0:
            return result
        _move(self, account_id, -lost)
        return {**result, "balance_cents": result["balance_cents"] - lost}


__all__ = [
    "AppTrafficWinsQueued",
    "AutoArchivedWinsEmpty",
    "BalanceReadCached",
    "CreatedAtAccountOpened",
    "CreatedAtLastActivity",
    "CreatedAtParisAsUtc",
    "CreditLandsLate",
    "DepositWinsQueued",
    "EldoradoTicketColumn40",
    "EveryThousandthLotLost",
    "HalfEuroStakeCentsDropped",
    "HistoryArchiveCreatedAt",
    "HistoryArchivePrizeZero",
    "HistoryIndexInt16",
    "LoneAccountWinsQueued",
    "OldAccountWinsQueued",
    "TopStakeLotTableFirstUnits",
    "WearOutAfter300Plays",
    "app_tagged_variant",
]
