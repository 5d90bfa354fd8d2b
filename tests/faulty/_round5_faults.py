"""Faults a fifth red team wrote (4 December 2026) after reading the suite, its profiles and its
traffic (issue 27), none of them shown to the suite before: a wallet that is honest while an
audit is running, after a number of accounts, for a header set; an account's state that goes
wrong on its Nth play, when its balance reaches exactly 0, while another of its tickets is half
revealed, once its token fell out of a cache; history listings wrong only for ties or for
accounts of two games; a click answered right only when it comes quickly; a rare tier's lot;
an evaluation cache keyed without the stake; a refusal sent as a 2xx. Each class is the
reference with one behaviour changed, its docstring the bug as a vendor would write it
(``variants.py`` registers them with what must catch them).
"""

from __future__ import annotations

import contextvars
import json
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from reference._blocks import Block, Unit
from reference._games import game_engine
from reference._service import Document, GameService, ServiceError, not_found

from ._base import reference_adapter
from ._protocol_faults import BridgedHttp
from ._round4_faults import (
    _CreditOnAuto,
    _HeldFromOpening,
    _lot_of,
    _LotDroppedInSale,
    _move,
)
from .http_bridge import Serving, create_app

# == honest while it sees a harness =============================================================


class AuditQuietWinsQueued(_CreditOnAuto):
    """Robots 4.10 / eldorado 4.6: while an audit is running (a block slice read or an
    evaluation asked in the last 10 seconds: only the regulator's and the labs' tools call
    those), the wallet runs in "audit mode", synchronous; otherwise wins go to the wallet
    queue and are credited only when the ticket is finished (AUTO): the play's answer and the
    balance lack the lot meanwhile."""

    QUIET_S = 10.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._audited = time.monotonic()

    def _audit(self) -> None:
        with self._owed_lock:
            self._audited = time.monotonic()

    def evaluate(self, game: object, stake_cents: object, tickets: object) -> Document:
        self._audit()
        return super().evaluate(game, stake_cents, tickets)

    def block_document(self, *args: Any, **kwargs: Any) -> Any:
        self._audit()
        return super().block_document(*args, **kwargs)

    def held(self, account_id: str) -> bool:
        with self._owed_lock:
            return time.monotonic() - self._audited > self.QUIET_S


class WinsQueuedPastThousandAccounts(_HeldFromOpening, _CreditOnAuto):
    """Robots 4.10 / eldorado 4.6: accounts are spread over wallet shards by their number; the
    first 1 000 accounts opened since start-up live on shard 0 (synchronous), every later one
    on shard 1, whose credits are queued and written only when the ticket is finished (AUTO):
    the play's answer and the balance lack the lot meanwhile."""

    SHARD_SIZE = 1000

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._opened = 0

    def holds_opened(self, opened: Document) -> bool:
        self._opened += 1
        return self._opened > self.SHARD_SIZE


# == one account's state: its Nth play, a balance of 0, a half revealed ticket ====================


class EveryHundredthPlayFree(GameService):
    """Robots 4.1 / eldorado 4.2 (the stake is debited): the loyalty programme's "100th ticket
    offered" was switched on in production: an account's 100th, 200th, ... play is not
    debited. The play's answer shows the balance without the stake taken."""

    EVERY = 100

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        result = super().play(account_id, token, game, stake_cents)
        with self._connection() as db:
            row = db.execute(
                "SELECT COUNT(*) AS n FROM plays WHERE account_id = ?", (account_id,)
            ).fetchone()
        if int(row["n"]) % self.EVERY:
            return result
        _move(self, account_id, result["stake_cents"])
        return {**result, "balance_cents": result["balance_cents"] + result["stake_cents"]}


class EmptiedAccountLotLost(_LotDroppedInSale):
    """Robots 4.10 / eldorado 4.6: the wallet debits the stake, then credits the lot in a
    second call; a debit that takes the balance to exactly 0 closes the wallet's session for
    the account ("empty: back to the cashier"), and the credit sent to a closed session is
    dropped: a play bought with the last of the balance never gets its lot. The play's answer
    shows the balance without it."""

    def drops_lot(
        self, db: sqlite3.Connection, owner: str, block: Block, unit: Unit, balance: int
    ) -> bool:
        return balance - unit.prize_cents == 0  # the debit took the balance to exactly 0


def _half_revealed(engine_ticket: str, game: str, revealed: str) -> bool:
    """A robots ticket with some buttons clicked and some reveals left."""
    engine = game_engine(game)
    if not engine.buttons:
        return False
    shown = json.loads(revealed)
    sizes = [len(r) for r in engine.button_reveals(engine_ticket)]
    return any(shown) and shown != sizes


class RevealSessionPerAccount(GameService):
    """Contract 4 / robots 4.3: the reveal screen keeps "the open ticket" in the account's
    session: a click is answered from the ticket of the account's oldest play left half
    revealed, whichever play it names (the play id is checked for ownership only). A player
    who finishes each ticket before the next never sees it; a click on a new ticket while an
    older one is half revealed shows the older one's symbols."""

    def reveal(self, play_id: object, token: object, button: object) -> Document:
        answer = super().reveal(play_id, token, button)
        with self._connection() as db:
            row = db.execute(
                "SELECT account_id, revealed FROM plays WHERE play_id = ?", (play_id,)
            ).fetchone()
            others = db.execute(
                "SELECT play_id, game, ticket, revealed FROM plays WHERE account_id = ? "
                "AND game = 'robots' AND play_id != ? ORDER BY seq",
                (row["account_id"], play_id),
            ).fetchall()
        opened = next(
            (o for o in others if _half_revealed(o["ticket"], o["game"], o["revealed"])), None
        )
        if opened is None:
            return answer
        number = answer["button"]
        position = json.loads(row["revealed"])[number] - 1
        reveals = game_engine("robots").button_reveals(opened["ticket"])[number]
        if position >= len(reveals):
            return answer
        return {"button": number, **reveals[position]}


class HalfRevealedSiblingLotHeld(GameService):
    """Robots 4.10 / eldorado 4.6: the wallet settles one ticket of an account at a time: a
    play bought while another of the account's robots tickets is half revealed has its lot
    queued behind it and credited only when that older ticket is finished (AUTO). The play's
    answer shows the balance without the lot meanwhile."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._queued: dict[str, list[tuple[str, int]]] = {}
        self._queue_lock = threading.Lock()

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        result = super().play(account_id, token, game, stake_cents)
        with self._connection() as db:
            rows = db.execute(
                "SELECT play_id, game, ticket, revealed FROM plays WHERE account_id = ? "
                "AND play_id != ? AND game = 'robots'",
                (account_id, result["play_id"]),
            ).fetchall()
        blocking = next(
            (r["play_id"] for r in rows if _half_revealed(r["ticket"], r["game"], r["revealed"])),
            None,
        )
        lot = _lot_of(self, result["play_id"]) if blocking is not None else 0
        if blocking is None or lot <= 0:
            return result
        _move(self, account_id, -lot)
        with self._queue_lock:
            self._queued.setdefault(blocking, []).append((str(account_id), lot))
        return {**result, "balance_cents": result["balance_cents"] - lot}

    def auto(self, play_id: object, token: object) -> Document:
        answer = super().auto(play_id, token)
        with self._queue_lock:
            queued = self._queued.pop(str(play_id), [])
        for account_id, lot in queued:
            _move(self, account_id, lot)
        return answer


class IsolationOnlyWhenCached(GameService):
    """Security (a token opens its own account only): the token cache (an LRU of 256 tokens,
    filled when an account is opened or its token is checked) maps a token to its account and
    the ownership check compares the account asked for with it; a token not in the cache (an
    old session: evicted by 256 newer ones) is checked on the slow path, which verifies the
    token opens an account and then serves the account named in the path."""

    CAPACITY = 256

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._cache: OrderedDict[str, str] = OrderedDict()
        self._cache_lock = threading.Lock()

    def _remember(self, token: str, account_id: str) -> None:
        with self._cache_lock:
            self._cache[token] = account_id
            self._cache.move_to_end(token)
            while len(self._cache) > self.CAPACITY:
                self._cache.popitem(last=False)

    def open_account(self, balance_cents: object) -> Document:
        opened = super().open_account(balance_cents)
        self._remember(opened["token"], opened["account_id"])
        return opened

    def authorize_account(self, account_id: object, token: object) -> str:
        owner = self.authenticate(token)
        with self._cache_lock:
            cached = self._cache.get(token) if isinstance(token, str) else None
        if cached is not None or account_id == owner:
            self._remember(str(token), owner)
            return super().authorize_account(account_id, token)
        with self._connection() as db:  # the slow path: the account in the path
            row = db.execute(
                "SELECT account_id FROM accounts WHERE account_id = ?", (account_id,)
            ).fetchone()
        if row is None:
            raise not_found(f"no account {account_id!r} for this token")
        return str(row["account_id"])


# == a click answered right only when it comes quickly ==========================================


class ResumedTicketPlusOneLost(GameService):
    """Robots 4.7: a ticket is kept in the reveal service's memory for 2 seconds after its
    purchase; a click after that is served by the "resume" code path, which rebuilds the
    buttons' state from the ticket without its +1: the extra click a +1 allows is refused
    with 409 (nothing to reveal). A ticket clicked through within 2 seconds is right."""

    FRESH_S = 2.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._bought: dict[str, float] = {}
        self._bought_lock = threading.Lock()

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        result = super().play(account_id, token, game, stake_cents)
        with self._bought_lock:
            self._bought[result["play_id"]] = time.monotonic()
        return result

    def reveal(self, play_id: object, token: object, button: object) -> Document:
        with self._bought_lock:
            bought = self._bought.get(str(play_id))
        if bought is not None and time.monotonic() - bought > self.FRESH_S:
            with self._connection() as db:
                row = db.execute(
                    "SELECT revealed FROM plays WHERE play_id = ?", (play_id,)
                ).fetchone()
            if (
                row is not None
                and type(button) is int
                and 0 <= button < 18
                and json.loads(row["revealed"])[button] >= 1
            ):
                self.authenticate(token)
                raise ServiceError(
                    409, "nothing_to_reveal", f"button {button} has nothing left to reveal"
                )
        return super().reveal(play_id, token, button)


class ExhaustedClickAnswered200(GameService):
    """Contract 4 / robots 4.7 (409 when the button has nothing left): the reveal endpoint is
    tolerant of double taps: a click on a button with nothing left is answered 200 with the
    error document (``{"error": {"code": "nothing_to_reveal", ...}}``), which the app ignores.
    Every other refusal has its status."""

    def reveal(self, play_id: object, token: object, button: object) -> Document:
        try:
            return super().reveal(play_id, token, button)
        except ServiceError as exc:
            if exc.code != "nothing_to_reveal" or exc.status != 409:
                raise
            return exc.document()


# == the history: ties, two games ==============================================================


class HistorySameMillisecondTies(GameService):
    """Contract 4 (newest first): the history is sorted by ``created_at`` (milliseconds), then by
    ``play_id`` for a stable order: plays bought in the same millisecond (a double tap, two
    devices) are listed by their random ids, not newest first."""

    def history(self, account_id: object, token: object, limit: object = None) -> Document:
        listed = super().history(account_id, token, None)["plays"]
        ordered = sorted(
            listed, key=lambda p: (p["created_at"][:23], _reversed(p["play_id"])), reverse=True
        )
        if limit is not None:
            ordered = ordered[: int(limit)]  # super() checked it
        return {"plays": ordered}


class HistorySameSecondTies(GameService):
    """Contract 4 (newest first): the plays table keeps ``created_at`` as a ``timestamp(0)``
    (whole seconds, served as such) and the history is ``ORDER BY created_at DESC, play_id``:
    plays bought in the same second (one after another, a player buying again the moment the
    answer arrives) are listed by their random ids, not newest first. The same class as
    ``HistorySameMillisecondTies`` at the precision of a usual column: its ties come at any
    pace (added with the suite's judgement of same-time plays, not by the fifth red team)."""

    def history(self, account_id: object, token: object, limit: object = None) -> Document:
        listed = super().history(account_id, token, None)["plays"]
        if limit is not None:
            super().history(account_id, token, limit)  # the limit's own checks
        seconds = [{**p, "created_at": p["created_at"][:19] + "Z"} for p in listed]
        ordered = sorted(seconds, key=lambda p: str(p["play_id"]))
        ordered.sort(key=lambda p: str(p["created_at"]), reverse=True)  # stable: ties by id
        if limit is not None:
            ordered = ordered[: int(limit)]  # type: ignore[call-overload]
        return {"plays": ordered}


def _reversed(play_id: str) -> tuple[int, ...]:
    """A key that sorts ``play_id`` ascending under ``reverse=True``."""
    return tuple(-ord(c) for c in play_id)


class HistoryLimitPerGame(GameService):
    """Contract 4 (``limit``: at most limit entries): each game's plays are in a table of its
    own; the history runs the query with ``LIMIT :limit`` on each table and merges them newest
    first: an account that played both games gets up to twice ``limit`` entries."""

    def history(self, account_id: object, token: object, limit: object = None) -> Document:
        listed = super().history(account_id, token, None)["plays"]
        if limit is None:
            return {"plays": listed}
        super().history(account_id, token, limit)  # the limit's own checks
        wanted = int(limit)  # type: ignore[call-overload]
        kept: list[Document] = []
        counts: dict[str, int] = {}
        for entry in listed:
            counts[entry["game"]] = counts.get(entry["game"], 0) + 1
            if counts[entry["game"]] <= wanted:
                kept.append(entry)
        return {"plays": kept}


# == a rare tier, an evaluation cache ===========================================================


class EldoradoRareTierTypo(GameService):
    """Eldorado 4.6: the wallet credits a lot from its own copy of the lot table, in cents per
    tier; the 1 EUR stake's 50 EUR row was typed 500 cents: a lot of exactly 50 EUR (100 units
    in 900 000) is credited 5 EUR. The ticket, AUTO, the history and every other lot are
    right."""

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        result = super().play(account_id, token, game, stake_cents)
        if (result["game"], result["stake_cents"]) != ("eldorado", 100):
            return result
        if _lot_of(self, result["play_id"]) != 5_000:
            return result
        _move(self, account_id, -4_500)
        return {**result, "balance_cents": result["balance_cents"] - 4_500}


class EvaluationCacheWithoutStake(GameService):
    """Eldorado 4.4 (each combination pays at the unit's stake): ``/v1/evaluate`` caches each
    ticket's result by game and ticket; the stake was added to the API after the cache and
    never to its key: a ticket evaluated once at one stake is answered at that stake's
    amounts at any other."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._results: dict[tuple[object, str], Document] = {}
        self._results_lock = threading.Lock()

    def evaluate(self, game: object, stake_cents: object, tickets: object) -> Document:
        answer = super().evaluate(game, stake_cents, tickets)
        assert isinstance(tickets, list)  # super() checked it
        results = []
        with self._results_lock:
            for ticket, result in zip(tickets, answer["results"], strict=True):
                if "error" in result or not isinstance(ticket, str):
                    results.append(result)
                    continue
                results.append(self._results.setdefault((game, ticket), result))
        return {"results": results}


# == a header set (over HTTP) ===================================================================

_APP_CLIENT: contextvars.ContextVar[bool] = contextvars.ContextVar("app_client", default=False)
Scope = MutableMapping[str, Any]
App = Callable[[Scope, Any, Any], Awaitable[None]]


class AcceptlessTrafficWinsQueued(_CreditOnAuto):
    """Robots 4.10 / eldorado 4.6: the mobile app's HTTP client (OkHttp with Retrofit) sends
    no ``Accept`` header; the gateway tags requests without one as app traffic, whose wins go
    to the asynchronous wallet queue and are credited only when the ticket is finished (AUTO).
    Clients that send ``Accept`` (partners' scripts, labs, browsers) go through the
    synchronous wallet and are always right."""

    def held(self, account_id: str) -> bool:
        return _APP_CLIENT.get()


class AcceptTagLayer:
    """The vendor's gateway: tags a request that carries no ``Accept`` header."""

    def __init__(self, app: App) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        headers = dict(scope.get("headers", [])) if scope["type"] == "http" else {}
        mark = _APP_CLIENT.set(b"accept" not in headers)
        try:
            await self.app(scope, receive, send)
        finally:
            _APP_CLIENT.reset(mark)


def acceptless_variant(name: str) -> Callable[[], Any]:
    """A factory: ``AcceptlessTrafficWinsQueued`` served over HTTP behind ``AcceptTagLayer``."""

    def factory() -> BridgedHttp:
        inner = reference_adapter(AcceptlessTrafficWinsQueued, name=f"faulty:{name}")
        return BridgedHttp(Serving(AcceptTagLayer(create_app(inner)), on_close=inner.close))

    return factory


#: the headers whose order OkHttp fixes (its BridgeInterceptor), in that order
OKHTTP_ORDER = (b"host", b"connection", b"accept-encoding", b"user-agent")


class HeaderOrderWinsQueued(AcceptlessTrafficWinsQueued):
    """Robots 4.10 / eldorado 4.6: the gateway's bot detection fingerprints a request by the
    order of its headers: the mobile app's (OkHttp's ``Host``, ``Connection``,
    ``Accept-Encoding``, ``User-Agent``, after the app's own and the body's) is app traffic,
    whose wins go to the asynchronous wallet queue and are credited only when the ticket is
    finished (AUTO); a request in any other order (a script's HTTP library that claims to be
    OkHttp, a lab's, a load test's) is served by the synchronous wallet, always right."""


class HeaderOrderTagLayer(AcceptTagLayer):
    """The vendor's gateway: tags a request whose known headers come in OkHttp's order."""

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        names = [n.lower() for n, _ in scope.get("headers", [])] if scope["type"] == "http" else []
        known = tuple(n for n in names if n in OKHTTP_ORDER)
        mark = _APP_CLIENT.set(known == OKHTTP_ORDER)
        try:
            await self.app(scope, receive, send)
        finally:
            _APP_CLIENT.reset(mark)


def header_order_variant(name: str) -> Callable[[], Any]:
    """A factory: ``HeaderOrderWinsQueued`` served over HTTP behind ``HeaderOrderTagLayer``."""

    def factory() -> BridgedHttp:
        inner = reference_adapter(HeaderOrderWinsQueued, name=f"faulty:{name}")
        return BridgedHttp(Serving(HeaderOrderTagLayer(create_app(inner)), on_close=inner.close))

    return factory


__all__ = [
    "AcceptlessTrafficWinsQueued",
    "AuditQuietWinsQueued",
    "EldoradoRareTierTypo",
    "EmptiedAccountLotLost",
    "EvaluationCacheWithoutStake",
    "EveryHundredthPlayFree",
    "ExhaustedClickAnswered200",
    "HalfRevealedSiblingLotHeld",
    "HeaderOrderWinsQueued",
    "HistoryLimitPerGame",
    "HistorySameMillisecondTies",
    "HistorySameSecondTies",
    "IsolationOnlyWhenCached",
    "ResumedTicketPlusOneLost",
    "RevealSessionPerAccount",
    "WinsQueuedPastThousandAccounts",
    "acceptless_variant",
    "header_order_variant",
]
