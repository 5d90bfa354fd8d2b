"""Correct implementations that use a freedom the contract leaves (issue 28): each must end
CERTIFIED, or CERTIFIED WITH RESERVATIONS naming exactly the reservations the freedom gives,
in a full run; never NOT CERTIFIED, never INCOMPLETE.

Each is the reference with one freedom taken (``FREEDOMS``: the factory and the reservations
expected, as (requirement or "", basis) pairs, "" for the certificate's scope). Every factory
is a module attribute: ``instantcert certify --target python:tests.faulty.freedom_variants:<name>``.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import hmac
import json
import re
import secrets
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import reference
from harness._errors import ErrorReply
from reference._service import GameService, ServiceError, game_and_stake, require_int

from . import _ways_in_faults as wf
from ._base import Delegating, reference_adapter

Document = dict[str, Any]
Expected = frozenset[tuple[str, str]]


# -- history: a default page --------------------------------------------------------------------


class DefaultPage(Delegating):
    """Without ``limit`` the history answers a default page of ``page`` entries, newest first,
    as most APIs do (the contract gives no default)."""

    page = 10

    def history(self, account_id: str, token: str | None, limit: int | None = None) -> Document:
        answer = self.inner.history(account_id, token, self.page if limit is None else limit)
        return dict(answer)


class DefaultPage20(DefaultPage):
    page = 20


# -- history: a maximum of its own on ``limit`` ------------------------------------------------


class HistoryOwnLimit(Delegating):
    """The history refuses a ``limit`` above ``maximum`` (400 with an error body), as many APIs
    cap a page; without ``limit`` it answers its newest ``maximum`` plays. The contract gives
    ``limit`` no maximum (rows ``history-own-limit``, ``limit-far-out``)."""

    maximum = 100

    def history(self, account_id: str, token: str | None, limit: int | None = None) -> Document:
        if limit is None:
            limit = self.maximum
        elif type(limit) is int and limit > self.maximum:
            raise ErrorReply(400, "bad_request", f"limit must be 1 to {self.maximum}")
        return dict(self.inner.history(account_id, token, limit))


class HistoryLimitRequired(Delegating):
    """The history refuses a request without ``limit`` (400 ``limit is required``): the
    contract writes the endpoint ``history?limit=`` and gives no default."""

    def history(self, account_id: str, token: str | None, limit: int | None = None) -> Document:
        if limit is None:
            raise ErrorReply(400, "limit_required", "give limit: 1 to 10000")
        return dict(self.inner.history(account_id, token, limit))


class HistoryOwnLimit10(HistoryOwnLimit):
    maximum = 10


# -- blocks: one listed per stake ---------------------------------------------------------------


class OneBlockListed(Delegating):
    """``GET /v1/blocks`` lists only the block on sale at each stake."""

    def list_blocks(self, game: str, stake_cents: int) -> list[Document]:
        return list(self.inner.list_blocks(game, stake_cents))[:1]


class EveryBlockListed(Delegating):
    """``GET /v1/blocks`` lists every block it has, of every game and stake, whatever the
    query, each entry naming its own game and stake (a listing endpoint whose filters are
    not implemented: the contract never says the query narrows the list)."""

    def list_blocks(self, game: str, stake_cents: int) -> list[Document]:
        games = self.inner.describe()["games"]
        return [
            dict(entry)
            for name, described in games.items()
            for stake in described["stakes_cents"]
            for entry in self.inner.list_blocks(name, stake)
        ]


# -- a capability skipped -----------------------------------------------------------------------


class NoReveal(Delegating):
    """No reveal capability: AUTO only ("an implementation may skip a whole capability")."""

    def describe(self) -> Document:
        described = dict(self.inner.describe())
        described["capabilities"] = [c for c in described["capabilities"] if c != "reveal"]
        return described

    def reveal(self, play_id: str, token: str | None, button: int) -> Document:
        raise ErrorReply(404, "not_found", "this implementation has no reveal")


class NoBlocks(Delegating):
    """No blocks capability: plays only, the blocks served to no one (404)."""

    def describe(self) -> Document:
        described = dict(self.inner.describe())
        described["capabilities"] = [c for c in described["capabilities"] if c != "blocks"]
        return described

    def list_blocks(self, game: str, stake_cents: int) -> list[Document]:
        raise ErrorReply(404, "not_found", "this implementation serves no blocks")

    def read_block(self, block_id: str, start: int | None = None, count: int | None = None) -> Any:
        raise ErrorReply(404, "not_found", "this implementation serves no blocks")


# -- ids and tokens -----------------------------------------------------------------------------


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


class JwtTokensService(GameService):
    """UUID account ids and JWT-like tokens (header.payload.signature, HMAC-SHA256 over a
    secret key, the account id and the time in the payload)."""

    _key = secrets.token_bytes(32)

    def open_account(self, balance_cents: object) -> Document:
        account = super().open_account(balance_cents)
        account_id = str(uuid.uuid4())
        header = _b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
        claims = {"sub": account_id, "iat": int(dt.datetime.now(dt.UTC).timestamp())}
        payload = _b64(json.dumps(claims).encode())
        signed = f"{header}.{payload}".encode()
        token = f"{header}.{payload}.{_b64(hmac.new(self._key, signed, hashlib.sha256).digest())}"
        with self._transaction() as db:
            db.execute(
                "UPDATE accounts SET account_id = ?, token_sha256 = ? WHERE account_id = ?",
                (account_id, hashlib.sha256(token.encode()).hexdigest(), account["account_id"]),
            )
        return {**account, "account_id": account_id, "token": token}


class ShortTokensService(GameService):
    """Tokens of 96 random bits (``token_hex(12)``): a secret, short of the project's 128."""

    def open_account(self, balance_cents: object) -> Document:
        account = super().open_account(balance_cents)
        token = secrets.token_hex(12)
        with self._transaction() as db:
            db.execute(
                "UPDATE accounts SET token_sha256 = ? WHERE account_id = ?",
                (hashlib.sha256(token.encode()).hexdigest(), account["account_id"]),
            )
        return {**account, "token": token}


# -- created_at formats -------------------------------------------------------------------------


def _instant(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


class CreatedAt(Delegating):
    """The history's ``created_at`` written by ``form`` from the reference's instant."""

    form: Callable[[dt.datetime], object] = staticmethod(lambda t: t.isoformat())

    def history(self, account_id: str, token: str | None, limit: int | None = None) -> Document:
        answer = self.inner.history(account_id, token, limit)
        plays = [
            {**p, "created_at": type(self).form(_instant(p["created_at"]))} for p in answer["plays"]
        ]
        return {**answer, "plays": plays}


class CreatedAtParis(CreatedAt):
    """RFC 3339 with a +01:00 offset: the same instant, another zone."""

    form = staticmethod(
        lambda t: t.astimezone(dt.timezone(dt.timedelta(hours=1))).isoformat(timespec="seconds")
    )


class CreatedAtEpoch(CreatedAt):
    """A Unix time in seconds, as a JSON number."""

    form = staticmethod(lambda t: int(t.timestamp()))


class CreatedAtNoOffset(CreatedAt):
    """``2026-12-03 15:04:05``: UTC, without the ``T`` or an offset."""

    form = staticmethod(lambda t: t.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M:%S"))


# -- refusal statuses ---------------------------------------------------------------------------


class Statuses(Delegating):
    """Every refusal ``status`` in ``swap`` answered with the other status of its family."""

    swap: ClassVar[dict[int, int]] = {}

    def __getattribute__(self, name: str) -> Any:
        value = super().__getattribute__(name)
        if name in _OPERATIONS and callable(value):
            return _swapping(value, type(self).swap)
        return value


_OPERATIONS = frozenset(
    ("evaluate", "list_blocks", "open_account", "balance", "play", "reveal", "auto", "history")
)


def _swapping(call: Callable[..., Any], swap: dict[int, int]) -> Callable[..., Any]:
    def swapped(*args: Any, **kwargs: Any) -> Any:
        try:
            return call(*args, **kwargs)
        except ErrorReply as exc:
            if exc.status in swap:
                raise ErrorReply(swap[exc.status], exc.code, str(exc)) from None
            raise

    return swapped


class Forbidden403(Statuses):
    """403 where the reference answers 404: another's or an unknown account or play."""

    swap: ClassVar[dict[int, int]] = {404: 403}


class Unprocessable422(Statuses):
    """422 where the reference answers 400 (a framework's validation error)."""

    swap: ClassVar[dict[int, int]] = {400: 422}


# -- AUTO asked again: refused -------------------------------------------------------------------


class AutoAgainRefused(Delegating):
    """AUTO asked again for a play AUTO already finished is refused (409): nothing is left to
    reveal, and the contract's AUTO "reveals all that is left" (row ``auto-again``; the
    independent vendor of ``tests/faulty/independent_http`` does it)."""

    def __init__(self, inner: Any, name: str) -> None:
        super().__init__(inner, name)
        self._finished: set[tuple[str, str | None]] = set()  # (play, its owner's token)

    def auto(self, play_id: str, token: str | None) -> Document:
        if (play_id, token) in self._finished:
            raise ErrorReply(409, "ticket_finished", "this ticket was already finished by AUTO")
        answer = dict(self.inner.auto(play_id, token))
        self._finished.add((play_id, token))
        return answer


class NothingLeftRefusedService(GameService):
    """AUTO on a play with nothing left to reveal is refused (409): a robots play whose every
    button was clicked to its end, or any play AUTO already finished. Its ticket and prize are
    in the history, where the rules send a player to check a unit (robots 4.1); row
    ``auto-again``. The independent vendor of ``tests/faulty/independent_http`` does it."""

    def auto(self, play_id: object, token: object) -> Document:
        owner = self.authenticate(token)
        if type(play_id) is str:
            with self._connection() as db:
                row = db.execute("SELECT * FROM plays WHERE play_id = ?", (play_id,)).fetchone()
            if row is not None and row["account_id"] == owner:
                engine = self._engine_of(row)
                shown = json.loads(row["revealed"])
                if engine.buttons:
                    whole = [len(r) for r in engine.button_reveals(row["ticket"])]
                else:
                    whole = [1]
                if shown == whole:
                    raise ServiceError(409, "nothing_left", f"play {play_id!r} is all shown")
        return super().auto(play_id, token)


# -- more than the contract names, and another order ------------------------------------------


class VendorExtras(Delegating):
    """What a vendor's API adds beside the contract: a capability (``webhooks``) and a game
    (``keno``) of its own in ``/v1/implementation``, the stakes and capabilities in another
    order, and fields of its own in every answer, every listed block and history entry, and
    every win (rows ``capabilities-unknown``, ``extra-fields``)."""

    extra: ClassVar[Document] = {"x_vendor": {"region": "eu-west-3", "trace": [1, 2]}}

    def describe(self) -> Document:
        described = dict(self.inner.describe())
        games = {
            g: {**v, "stakes_cents": v["stakes_cents"][::-1]} for g, v in described["games"].items()
        }
        games["keno"] = {"stakes_cents": [100, 200]}
        capabilities = ["webhooks", *described["capabilities"][::-1]]
        return {**described, **self.extra, "games": games, "capabilities": capabilities}

    def evaluate(self, game: str, stake_cents: int, tickets: Sequence[str]) -> list[Document]:
        return [self._result(r) for r in self.inner.evaluate(game, stake_cents, tickets)]

    def list_blocks(self, game: str, stake_cents: int) -> list[Document]:
        listed = self.inner.list_blocks(game, stake_cents)
        return [{**b, **self.extra, "state": "on_sale"} for b in listed]

    def open_account(self, balance_cents: int) -> Document:
        return {**self.inner.open_account(balance_cents), **self.extra, "currency": "EUR"}

    def balance(self, account_id: str, token: str | None) -> Document:
        return {**self.inner.balance(account_id, token), **self.extra, "currency": "EUR"}

    def play(self, account_id: str, token: str | None, game: str, stake_cents: int) -> Document:
        bought = self.inner.play(account_id, token, game, stake_cents)
        return {**bought, **self.extra, "revealed": False}

    def reveal(self, play_id: str, token: str | None, button: int) -> Document:
        return {**self.inner.reveal(play_id, token, button), **self.extra, "clicks": 1}

    def auto(self, play_id: str, token: str | None) -> Document:
        return self._result({**self.inner.auto(play_id, token), **self.extra})

    def history(self, account_id: str, token: str | None, limit: int | None = None) -> Document:
        answer = self.inner.history(account_id, token, limit)
        plays = [{**p, **self.extra, "revealed": True} for p in answer["plays"]]
        return {**answer, **self.extra, "next_cursor": None, "plays": plays}

    def _result(self, result: Document) -> Document:
        if "wins" not in result:
            return {**result, **self.extra}
        wins = [{**w, "label": f"{w['symbol']} {w['amount_cents']}"} for w in result["wins"]]
        return {**result, **self.extra, "wins": wins}


class BlocksNewestFirst(Delegating):
    """``GET /v1/blocks`` lists a stake's blocks newest first (the contract gives no order)."""

    def list_blocks(self, game: str, stake_cents: int) -> list[Document]:
        return list(self.inner.list_blocks(game, stake_cents))[::-1]


class StandardBase64TokensService(GameService):
    """Tokens of 128 random bits in standard base64 with its padding (``+``, ``/``, ``==``):
    visible ASCII, so an ``Authorization`` header carries them."""

    def open_account(self, balance_cents: object) -> Document:
        account = super().open_account(balance_cents)
        token = base64.b64encode(secrets.token_bytes(16)).decode("ascii")
        with self._transaction() as db:
            db.execute(
                "UPDATE accounts SET token_sha256 = ? WHERE account_id = ?",
                (hashlib.sha256(token.encode()).hexdigest(), account["account_id"]),
            )
        return {**account, "token": token}


class WalletLimit(Delegating):
    """No account opened with more than 1 000 EUR (100 000 cents): 422 beyond, a wallet limit
    of the vendor's own (row ``balance-own-limit``); the contract bounds no balance."""

    most = 100_000

    def open_account(self, balance_cents: int) -> Document:
        if type(balance_cents) is int and balance_cents > self.most:
            raise ErrorReply(422, "balance_too_large", f"at most {self.most} cents")
        return dict(self.inner.open_account(balance_cents))


class WalletMinimum(Delegating):
    """No account opened with 0 cents: 422 below 1 cent (a ``PositiveInt`` field, a wallet
    that must hold something); the contract bounds no balance."""

    least = 1

    def open_account(self, balance_cents: int) -> Document:
        if type(balance_cents) is int and 0 <= balance_cents < self.least:
            raise ErrorReply(422, "balance_too_small", f"at least {self.least} cent")
        return dict(self.inner.open_account(balance_cents))


class WalletMinimum10Eur(WalletMinimum):
    """No account opened with less than 10 EUR (1 000 cents): 422 below, a body naming the
    minimum (a minimum deposit, row ``balance-own-minimum``); the contract bounds no
    balance."""

    least = 1_000

    def open_account(self, balance_cents: int) -> Document:
        if type(balance_cents) is int and 0 <= balance_cents < self.least:
            raise ErrorReply(
                422, "below_minimum_deposit", f"the minimum deposit is {self.least} cents"
            )
        return dict(self.inner.open_account(balance_cents))


class CreatedAtNanoseconds(CreatedAt):
    """RFC 3339 with nine digits of a second (Go's ``time.RFC3339Nano``)."""

    form = staticmethod(lambda t: t.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%f") + "417Z")


class CreatedAtPicoseconds(CreatedAt):
    """RFC 3339 with twelve digits of a second: RFC 3339 5.6 gives ``time-secfrac`` as
    ``"." 1*DIGIT``, no most (a clock of picoseconds, or a decimal column of 12 places)."""

    form = staticmethod(lambda t: t.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%f") + "417093Z")


class CreatedAtEpochMillis(CreatedAt):
    """A Unix time in milliseconds, as a JSON number (JavaScript's ``Date.now()``)."""

    form = staticmethod(lambda t: int(t.timestamp() * 1000))


class WinsInAnotherOrder(Delegating):
    """Every result's ``wins`` in another order (reversed), in ``POST /v1/evaluate`` and AUTO:
    "``wins`` is a set: its order carries no meaning" (contract 2)."""

    def evaluate(self, game: str, stake_cents: int, tickets: Sequence[str]) -> list[Document]:
        return [_wins_reversed(r) for r in self.inner.evaluate(game, stake_cents, tickets)]

    def auto(self, play_id: str, token: str | None) -> Document:
        return _wins_reversed(self.inner.auto(play_id, token))


def _wins_reversed(result: Document) -> Document:
    if not isinstance(result.get("wins"), list):
        return result
    return {**result, "wins": result["wins"][::-1]}


class PlayConflict409(Delegating):
    """A play on an account that another play of it is still being made on is refused with
    409 (an optimistic lock lost: "retry"), the play not made, as a wallet updated under a
    version check does; plays one after another are never refused (row ``play-conflict``)."""

    busy_s = 0.05  # how long a play holds its account: plays sent together meet it

    def __init__(self, inner: Any, name: str) -> None:
        super().__init__(inner, name)
        self._busy: set[str] = set()
        self._lock = threading.Lock()

    def play(self, account_id: str, token: str | None, game: str, stake_cents: int) -> Document:
        with self._lock:
            if account_id in self._busy:
                raise ErrorReply(409, "account_busy", "another play of this account is under way")
            self._busy.add(account_id)
        try:
            time.sleep(self.busy_s)
            return dict(self.inner.play(account_id, token, game, stake_cents))
        finally:
            with self._lock:
                self._busy.discard(account_id)


class OneTicketOpenService(GameService):
    """One unfinished ticket per account, as FDJ's own sites keep it: a new play, of any game,
    is refused (409 ``ticket_pending``, its message naming the open play) while a play of the
    account is not fully shown; AUTO, or every button of a robots play clicked to its end,
    frees the account (row ``one-open-ticket``). The contract says nothing of several
    unfinished tickets, and lists "409 wrong state" among its refusals."""

    freed_by_clicks = True  # every button clicked to its end frees the account too

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._open: dict[str, str] = {}  # account -> its unfinished play
        self._open_lock = threading.Lock()

    def _record_play(self, db: Any, play_id: str, owner: str, *args: Any) -> Document:
        # inside the sale's write transaction: a refusal here rolls the sale back
        with self._open_lock:
            pending = self._open.get(owner)
        if pending is not None:
            raise ServiceError(
                409, "ticket_pending", f"finish play {pending} before a new one (AUTO shows it)"
            )
        bought = super()._record_play(db, play_id, owner, *args)
        with self._open_lock:
            self._open[owner] = play_id
        return bought

    def reveal(self, play_id: object, token: object, button: object) -> Document:
        answer = super().reveal(play_id, token, button)
        if not self.freed_by_clicks:
            return answer
        with self._connection() as db:
            row = db.execute("SELECT * FROM plays WHERE play_id = ?", (play_id,)).fetchone()
        whole = [len(r) for r in self._engine_of(row).button_reveals(row["ticket"])]
        if json.loads(row["revealed"]) == whole:
            self._finished(row["account_id"], row["play_id"])
        return answer

    def auto(self, play_id: object, token: object) -> Document:
        answer = super().auto(play_id, token)
        self._finished(self.authenticate(token), answer["play_id"])
        return answer

    def _finished(self, owner: str, play_id: str) -> None:
        with self._open_lock:
            if self._open.get(owner) == play_id:
                del self._open[owner]


class OneTicketOpenFirstService(OneTicketOpenService):
    """One unfinished ticket per account, the open ticket checked before anything of the
    play asked: a play at a stake not sold, of a game not sold, or that the balance cannot pay
    is refused with 409 too while a ticket of the account is unfinished (the token checked
    first); the contract orders no two refusals that both fit."""

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        owner = self.authorize_account(account_id, token)
        with self._open_lock:
            pending = self._open.get(owner)
        if pending is not None:
            raise ServiceError(409, "ticket_pending", f"finish play {pending} first")
        return super().play(account_id, token, game, stake_cents)


class OneTicketAutoClosesService(OneTicketOpenService):
    """One unfinished ticket per account, closed by AUTO only: a ticket whose every button
    was clicked to its end still holds the account until AUTO (which answers it, nothing left
    to reveal)."""

    freed_by_clicks = False


class ClosedByNextPlayService(GameService):
    """A new play of an account closes the account's unfinished tickets: each is shown whole,
    as AUTO shows it (FDJ's sites finish a pending game when the next one is bought), so
    their buttons answer 409 (nothing left) from then on; AUTO on them answers the ticket, the
    history shows it, the lot was credited at the purchase. The contract leaves open what
    becomes of an unfinished ticket when its account plays again; rules 4.1 foresees a unit
    the player did not see whole (row ``ticket-closed-by-play``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._unfinished: dict[str, list[str]] = {}  # account -> its plays, maybe unfinished
        self._unfinished_lock = threading.Lock()

    def _record_play(self, db: Any, play_id: str, owner: str, *args: Any) -> Document:
        # inside the sale's write transaction: the closing is the sale's
        with self._unfinished_lock:
            earlier = self._unfinished.pop(owner, [])
        for old in earlier:
            row = db.execute("SELECT game, ticket FROM plays WHERE play_id = ?", (old,)).fetchone()
            engine = reference.game_engine(row["game"])
            if engine.buttons:
                whole = [len(r) for r in engine.button_reveals(row["ticket"])]
                db.execute(
                    "UPDATE plays SET revealed = ? WHERE play_id = ?", (json.dumps(whole), old)
                )
        bought = super()._record_play(db, play_id, owner, *args)
        with self._unfinished_lock:
            self._unfinished.setdefault(owner, []).append(play_id)
        return bought


class GameNamesAnyCase(Delegating):
    """A game name read whatever its case, spaces around it trimmed (.NET's
    ``JsonStringEnumConverter`` / ``Enum.TryParse(ignoreCase: true)``): a play or a batch of
    ``Robots`` is one of ``robots`` (row ``game-name-forms``)."""

    def play(self, account_id: str, token: str | None, game: str, stake_cents: int) -> Document:
        return dict(self.inner.play(account_id, token, _any_case(game), stake_cents))

    def evaluate(self, game: str, stake_cents: int, tickets: Sequence[str]) -> list[Document]:
        return list(self.inner.evaluate(_any_case(game), stake_cents, tickets))


def _any_case(game: object) -> object:
    if not isinstance(game, str):
        return game
    wanted = game.strip().casefold()
    return next((g for g in ("robots", "eldorado") if g == wanted), game)


# -- the fifth round of freedoms (free10) -------------------------------------------------------


class CreatedAtZoneSuffix(CreatedAt):
    """RFC 9557 (which updates RFC 3339): RFC 3339 with its offset, then the time zone's name
    in brackets, ``2026-12-05T10:00:00+01:00[Europe/Paris]`` (Java's
    ``ZonedDateTime.toString()``, JavaScript's Temporal)."""

    form = staticmethod(
        lambda t: (
            t.astimezone(dt.timezone(dt.timedelta(hours=1))).isoformat(timespec="seconds")
            + "[Europe/Paris]"
        )
    )


class CreatedAtSpaced(CreatedAt):
    """``2026-12-03 15:04:05.123456+00:00``: a space for the ``T``, the offset kept (Python's
    ``str(datetime)``, PostgreSQL's text output); RFC 3339 5.6 lets an application write a
    space for readability, the ``date-time`` production does not."""

    form = staticmethod(lambda t: str(t.astimezone(dt.UTC)))


class RequestCheckedFirstService(GameService):
    """The request checked before the token, as a validation layer in front of the auth layer
    does: a play of a game or at a stake not sold, a button outside 0..17, a ``limit`` that is
    no positive integer are refused (400 / 422) whatever the token, none included; a
    well-formed request without a valid token is 401. The contract orders no two refusals
    that both fit."""

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        game_and_stake(game, stake_cents)
        return super().play(account_id, token, game, stake_cents)

    def reveal(self, play_id: object, token: object, button: object) -> Document:
        require_int(button, "button", low=0, high=17)
        return super().reveal(play_id, token, button)

    def history(self, account_id: object, token: object, limit: object = None) -> Document:
        if limit is not None:
            require_int(limit, "limit", low=1, high=2**62)
        return super().history(account_id, token, limit)


class ResourceFirstService(GameService):
    """The account or play looked up before the token, as a router resolving the resource
    first does: an account or a play that does not exist is 404 whatever the token, none
    included; one that exists is 401 without its own token (404 with another account's). The
    contract gives both 401 ("no or bad token") and 404 ("unknown") without ordering them."""

    def _exists(self, table: str, key: str, value: object) -> bool:
        if type(value) is not str:
            return False
        with self._connection() as db:
            found = db.execute(f"SELECT 1 FROM {table} WHERE {key} = ?", (value,)).fetchone()
        return found is not None

    def _account(self, account_id: object) -> None:
        if not self._exists("accounts", "account_id", account_id):
            raise ServiceError(404, "not_found", f"no account {account_id!r}")

    def _play(self, play_id: object) -> None:
        if not self._exists("plays", "play_id", play_id):
            raise ServiceError(404, "not_found", f"no play {play_id!r}")

    def balance(self, account_id: object, token: object) -> Document:
        self._account(account_id)
        return super().balance(account_id, token)

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        self._account(account_id)
        return super().play(account_id, token, game, stake_cents)

    def history(self, account_id: object, token: object, limit: object = None) -> Document:
        self._account(account_id)
        return super().history(account_id, token, limit)

    def reveal(self, play_id: object, token: object, button: object) -> Document:
        self._play(play_id)
        return super().reveal(play_id, token, button)

    def auto(self, play_id: object, token: object) -> Document:
        self._play(play_id)
        return super().auto(play_id, token)


class FundsCheckedFirst(Delegating):
    """The balance checked before the stake: a stake the balance cannot pay is refused with
    402 whatever it is (a stake not sold too), as a wallet service asked first does; a stake
    it can pay is checked as the reference does. The contract orders no two refusals that both
    fit."""

    def play(self, account_id: str, token: str | None, game: str, stake_cents: int) -> Document:
        if type(stake_cents) is int and stake_cents > 0:
            balance = self.inner.balance(account_id, token)["balance_cents"]
            if stake_cents > balance:
                raise ErrorReply(402, "insufficient_funds", f"the balance is {balance} cents")
        return dict(self.inner.play(account_id, token, game, stake_cents))


class GameDescriptions(Delegating):
    """Each game of ``GET /v1/implementation`` described beyond its stakes: a display name,
    its currency, its block size and a rules link beside ``stakes_cents``."""

    def describe(self) -> Document:
        described = dict(self.inner.describe())
        games = {
            g: {
                "display_name": g.title(),
                **v,
                "currency": "EUR",
                "rules_url": f"https://example.invalid/rules/{g}",
                "limits": {"max_plays_per_day": None},
            }
            for g, v in described["games"].items()
        }
        return {**described, "games": games}


class OnlyGames(Delegating):
    """Only the games in ``games`` sold and declared: the others' plays, batches and blocks
    refused (422, an unknown game), as a vendor certifying one game of its catalogue does."""

    games: ClassVar[tuple[str, ...]] = ("eldorado",)

    def describe(self) -> Document:
        described = dict(self.inner.describe())
        games = {g: v for g, v in described["games"].items() if g in self.games}
        return {**described, "games": games}

    def _sold(self, game: object) -> None:
        if isinstance(game, str) and game in ("robots", "eldorado") and game not in self.games:
            raise ErrorReply(422, "invalid_game", f"{game} is not sold here")

    def evaluate(self, game: str, stake_cents: int, tickets: Sequence[str]) -> list[Document]:
        self._sold(game)
        return list(self.inner.evaluate(game, stake_cents, tickets))

    def list_blocks(self, game: str, stake_cents: int) -> list[Document]:
        self._sold(game)
        return list(self.inner.list_blocks(game, stake_cents))

    def play(self, account_id: str, token: str | None, game: str, stake_cents: int) -> Document:
        self._sold(game)
        return dict(self.inner.play(account_id, token, game, stake_cents))


class RobotsOnly(OnlyGames):
    games: ClassVar[tuple[str, ...]] = ("robots",)


class EvaluateOnly(Delegating):
    """The evaluation service alone: ``capabilities`` is ``["evaluate"]``, every other
    endpoint 404 (a vendor certifying its rules engine before its wallet)."""

    def describe(self) -> Document:
        return {**self.inner.describe(), "capabilities": ["evaluate"]}

    def _none(self, *args: Any, **kwargs: Any) -> Any:
        raise ErrorReply(404, "not_found", "this implementation evaluates tickets only")

    list_blocks = read_block = open_account = balance = play = reveal = auto = history = _none


class VersionNumber(Delegating):
    """``version`` in ``GET /v1/implementation`` written as a JSON number (the API's version,
    ``"version": 1.4``), not a string: the contract names the field and gives it no type."""

    def describe(self) -> Document:
        return {**self.inner.describe(), "version": 1.4}


class OwnGamesOwnShape(Delegating):
    """Games of the vendor's own in ``GET /v1/implementation`` described in its own way: a
    free demo game (``"stakes_cents": [0]``) and a draw game with no ``stakes_cents`` at all
    (its prices in a field of its own); the contract's games as the contract writes them."""

    def describe(self) -> Document:
        described = dict(self.inner.describe())
        games = {
            **described["games"],
            "demo": {"stakes_cents": [0], "free": True},
            "keno": {"prices": ["2 EUR", "5 EUR"], "draws_per_day": 12},
        }
        return {**described, "games": games}


# -- a stake limit of the account's own --------------------------------------------------------


class StakeLimit(Delegating):
    """Responsible gaming: an account takes stakes up to 100 EUR (10 000 cents) in all, then
    refuses every play with 409 ``stake_limit_reached`` ("wrong state", contract 4), the
    account left as it was; a play of a game or stake not sold is refused as before (422).
    The contract bounds no account's plays (row ``stake-own-limit``)."""

    limit = 10_000  # the most an account's tally may reach (``counted``: its stakes)
    reached = ("stake_limit_reached", "this account's stake limit is reached")

    def __init__(self, inner: Any, name: str) -> None:
        super().__init__(inner, name)
        self._tally: dict[str, int] = {}
        self._lock = threading.Lock()

    def counted(self, stake_cents: int) -> int:
        """What a play adds to its account's tally: its stake."""
        return stake_cents

    def play(self, account_id: str, token: str | None, game: str, stake_cents: int) -> Document:
        games = self.inner.describe()["games"]
        sold = games[game]["stakes_cents"] if isinstance(game, str) and game in games else []
        if type(stake_cents) is not int or stake_cents not in sold:
            return dict(self.inner.play(account_id, token, game, stake_cents))
        adds = self.counted(stake_cents)
        with self._lock:
            tally = self._tally.get(account_id, 0)
            over = tally + adds > self.limit
            if not over:
                self._tally[account_id] = tally + adds
        if over:
            self.inner.balance(account_id, token)  # the token and the account first
            raise ErrorReply(409, *self.reached)
        try:
            return dict(self.inner.play(account_id, token, game, stake_cents))
        except BaseException:
            with self._lock:
                self._tally[account_id] -= adds
            raise


class StakeLimit20Eur(StakeLimit):
    """The stake limit of ``StakeLimit`` at 20 EUR (2 000 cents), a small player's daily one."""

    limit = 2_000


class StakeLimit422(StakeLimit):
    """The stake limit of ``StakeLimit`` refused with 422 ``stake_limit_exceeded`` (the stake
    is invalid for this account: a validation layer's answer), the account left as it was."""

    status, code = 422, "stake_limit_exceeded"

    def play(self, account_id: str, token: str | None, game: str, stake_cents: int) -> Document:
        try:
            return super().play(account_id, token, game, stake_cents)
        except ErrorReply as refusal:
            if refusal.code != "stake_limit_reached":
                raise
            raise ErrorReply(self.status, self.code, "this stake is past your limit") from None


class StakeLimit403(StakeLimit422):
    """The stake limit of ``StakeLimit`` refused with 403 ``responsible_gaming_limit`` (the
    player may not: an authorisation layer's answer), the account left as it was."""

    status, code = 403, "responsible_gaming_limit"


class PlayCountLimit(StakeLimit):
    """A play-count limit of the account's own: 3 plays per account (a session limit a player
    set), then every play refused with 409 ``play_limit_reached``, the account left as it was;
    plays at a game or stake not sold are refused as before. The contract bounds no account's
    plays (row ``stake-own-limit``)."""

    limit = 3
    reached = ("play_limit_reached", "at most 3 plays")

    def counted(self, stake_cents: int) -> int:
        """A play adds one to its account's tally, whatever its stake."""
        return 1


class RevealLetters(Delegating):
    """A reveal's ``symbol`` answered as the ticket's letter (``"D"``), as contract 1 writes
    tickets, not the name section 2 gives results (row ``reveal-symbol``)."""

    def reveal(self, play_id: str, token: str | None, button: int) -> Document:
        answer = dict(self.inner.reveal(play_id, token, button))
        letters = {name: letter for letter, name in _ROBOTS_NAMES.items()}
        answer["symbol"] = letters.get(answer["symbol"], answer["symbol"])
        return answer


class EldoradoRevealRefused422(Delegating):
    """A reveal on a play of a game without buttons (eldorado) refused with 422
    ``invalid_game`` (the reveal is "(robots only)", contract 4: the game is invalid for it),
    not the reference's 409; the contract names no status for it (row ``reveal-no-buttons``)."""

    def __init__(self, inner: Any, name: str) -> None:
        super().__init__(inner, name)
        self._eldorado: set[str] = set()
        self._lock = threading.Lock()

    def play(self, account_id: str, token: str | None, game: str, stake_cents: int) -> Document:
        bought = dict(self.inner.play(account_id, token, game, stake_cents))
        if game == "eldorado":
            with self._lock:
                self._eldorado.add(str(bought["play_id"]))
        return bought

    def reveal(self, play_id: str, token: str | None, button: int) -> Document:
        try:
            return dict(self.inner.reveal(play_id, token, button))
        except ErrorReply as refusal:
            with self._lock:
                eldorado = str(play_id) in self._eldorado
            if refusal.status != 409 or not eldorado:
                raise
            raise ErrorReply(422, "invalid_game", "eldorado has no buttons to reveal") from None


_ROBOTS_NAMES = {
    "D": "blue_diamond",
    "Q": "green_square",
    "T": "blue_triangle",
    "C": "orange_circle",
    "S": "purple_star",
    "P": "red_pentagon",
    "H": "blue_hexagon",
    "O": "yellow_octagon",
}


# -- round 13: a generator's and a block server's own choices ----------------------------------

CANONICAL_ROBOTS = b"DQTCSPHO"
_ROBOTS_IN_LINE = re.compile(rb'("ticket": ?")[DQTCSPHO]{8}\|')


def _robots_fixed(ticket: str) -> str:
    """A robots ticket with its robots in the one order ``CANONICAL_ROBOTS`` (the buttons
    kept: the gauges, and so the prize, are the symbols', not the robots' places)."""
    robots, bar, buttons = ticket.partition("|")
    if len(robots) != 8 or not bar:
        return ticket
    return CANONICAL_ROBOTS.decode() + bar + buttons


class _FixedOrderStream:
    """A block stream whose robots tickets carry their robots in the one order."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.header = inner.header

    def lines(self) -> Any:
        fixed = b"\\1" + CANONICAL_ROBOTS + b"|"
        for line in self.inner.lines():
            yield _ROBOTS_IN_LINE.sub(fixed, line, count=1)

    def close(self) -> None:
        self.inner.close()

    def __enter__(self) -> _FixedOrderStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class RobotsFixedOrder(Delegating):
    """Every robots ticket with its 8 robots in one order, `DQTCSPHO` (contract 1's order of
    the symbols), in blocks, AUTO and the history: rules R-I1 says the order of the robots on
    screen "may differ from unit to unit", not that it must; a robot's gauge and amount are
    its symbol's, so the prize is the same, only each win's `robot` index follows the order."""

    def read_block(self, block_id: str, start: int | None = None, count: int | None = None) -> Any:
        return _FixedOrderStream(self.inner.read_block(block_id, start, count))

    def auto(self, play_id: str, token: str | None) -> Document:
        answer = dict(self.inner.auto(play_id, token))
        ticket = _robots_fixed(str(answer["ticket"]))
        if ticket != answer["ticket"]:
            redone = reference.evaluate("robots", 100, ticket)
            answer["ticket"], answer["wins"] = ticket, redone["wins"]
        return answer

    def history(self, account_id: str, token: str | None, limit: int | None = None) -> Document:
        answer = dict(self.inner.history(account_id, token, limit))
        answer["plays"] = [
            {**entry, "ticket": _robots_fixed(str(entry["ticket"]))}
            if entry.get("game") == "robots"
            else entry
            for entry in answer["plays"]
        ]
        return answer


class BlockSliceLimit(Delegating):
    """A block slice of at most 10 000 units: `?start=&count=` with a larger `count` refused
    (400 `count_too_large`, a page cap of the block server's own), the whole block still
    served without `start`/`count` (contract 4); the contract bounds no `count`."""

    most = 10_000

    def read_block(self, block_id: str, start: int | None = None, count: int | None = None) -> Any:
        if count is not None and type(count) is int and count > self.most:
            raise ErrorReply(400, "count_too_large", f"count must be 1 to {self.most}")
        return self.inner.read_block(block_id, start, count)


class _RenamedStream:
    """A block stream whose header names its block by ``block_id``."""

    def __init__(self, inner: Any, block_id: str) -> None:
        self.inner = inner
        self.header = {**inner.header, "block_id": block_id}

    def lines(self) -> Any:
        return self.inner.lines()

    def close(self) -> None:
        self.inner.close()

    def __enter__(self) -> _RenamedStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class OpaqueBlockIds(Delegating):
    """Block ids that say nothing of their game, stake or order: a random-looking key per
    block (`blk_` and 20 hex digits of a hash), as a store keyed by UUIDs gives; the contract
    gives ids no form and says plays go on "to the next block", not to the next id."""

    def __init__(self, inner: Any, name: str) -> None:
        super().__init__(inner, name)
        self._back: dict[str, str] = {}
        self._lock = threading.Lock()

    def _out(self, block_id: object) -> str:
        opaque = "blk_" + hashlib.sha256(f"opaque:{block_id}".encode()).hexdigest()[:20]
        with self._lock:
            self._back[opaque] = str(block_id)
        return opaque

    def list_blocks(self, game: str, stake_cents: int) -> list[Document]:
        listed = self.inner.list_blocks(game, stake_cents)
        return [{**b, "block_id": self._out(b["block_id"])} for b in listed]

    def read_block(self, block_id: str, start: int | None = None, count: int | None = None) -> Any:
        with self._lock:
            inner_id = self._back.get(block_id, block_id)
        return _RenamedStream(self.inner.read_block(inner_id, start, count), block_id)

    def play(self, account_id: str, token: str | None, game: str, stake_cents: int) -> Document:
        played = dict(self.inner.play(account_id, token, game, stake_cents))
        played["block_id"] = self._out(played["block_id"])
        return played

    def history(self, account_id: str, token: str | None, limit: int | None = None) -> Document:
        answer = dict(self.inner.history(account_id, token, limit))
        answer["plays"] = [{**p, "block_id": self._out(p["block_id"])} for p in answer["plays"]]
        return answer


class BlocksIssuedAheadService(GameService):
    """Three more blocks issued (listed and served) ahead of the one on sale than the
    reference issues: an emission's blocks generated at once, the next ones listed before they
    go on sale; the contract does not say how many blocks are listed."""

    def _issued(self, game: str, stake_cents: int) -> int:
        return super()._issued(game, stake_cents) + 3


# -- the registry -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Freedom:
    name: str
    factory: Callable[[], Any]
    expected: Expected  # (requirement, or "" for the scope; basis) of every reservation
    doc: str


SCOPE = ""
FREEDOMS: dict[str, Freedom] = {}


def _wrapped(cls: type[Delegating]) -> Callable[[], Any]:
    def factory() -> Any:
        name = f"freedom:{cls.__name__}"
        return cls(reference_adapter(name=name), name)

    return factory


def _service(cls: type[GameService]) -> Callable[[], Any]:
    def factory() -> Any:
        name = f"freedom:{cls.__name__}"
        return Delegating(reference_adapter(cls, name), name)

    return factory


def _add(name: str, factory: Callable[[], Any], doc: str | None, *expected: tuple[str, str]):  # type: ignore[no-untyped-def]
    FREEDOMS[name] = Freedom(name, factory, frozenset(expected), " ".join((doc or "").split()))
    globals()[name] = factory


_add("history_page_10", _wrapped(DefaultPage), "Without `limit`, a default history page of 10.")
_add("history_page_20", _wrapped(DefaultPage20), "Without `limit`, a default history page of 20.")
# the old accounts' hundreds of plays are listed up to the maximum: the older ones unjudged
OWN_LIMIT = ("play.history.complete", "history-own-limit")
_add("history_limit_100", _wrapped(HistoryOwnLimit), HistoryOwnLimit.__doc__, OWN_LIMIT)
_add(
    "history_limit_10",
    _wrapped(HistoryOwnLimit10),
    "The history refuses a `limit` above 10 (400 with an error body); without `limit`, it "
    "answers its newest 10.",
    OWN_LIMIT,
)
_add(
    "one_block_listed",
    _wrapped(OneBlockListed),
    OneBlockListed.__doc__,
    ("robots.randomness.unrelated_blocks", "blocks-listed"),
    ("eldorado.randomness.unrelated_blocks", "blocks-listed"),
)
_add("every_block_listed", _wrapped(EveryBlockListed), EveryBlockListed.__doc__)
_add("no_reveal", _wrapped(NoReveal), NoReveal.__doc__, (SCOPE, "capability-skipped"))
_add(
    "no_blocks",
    _wrapped(NoBlocks),
    NoBlocks.__doc__,
    (SCOPE, "capability-skipped"),
    ("play.money.exact", "capability-skipped"),  # play.deep_stream ties deep plays to units
    ("play.sales.block_unit", "capability-skipped"),
    ("robots.4.10.prize_credited", "capability-skipped"),
    ("eldorado.4.6.prize_credited", "capability-skipped"),
)
_add("jwt_tokens", _service(JwtTokensService), JwtTokensService.__doc__)
_add(
    "tokens_96_bits",
    _service(ShortTokensService),
    ShortTokensService.__doc__,
    ("security.tokens.unguessable", "token-bits"),
)
_add("created_at_paris", _wrapped(CreatedAtParis), CreatedAtParis.__doc__)
_add(
    "created_at_epoch",
    _wrapped(CreatedAtEpoch),
    CreatedAtEpoch.__doc__,
    ("play.history.created_at", "created-at"),
)
_add(
    "created_at_no_offset",
    _wrapped(CreatedAtNoOffset),
    CreatedAtNoOffset.__doc__,
    ("play.history.created_at", "created-at"),
)
_add("auto_again_refused", _wrapped(AutoAgainRefused), AutoAgainRefused.__doc__)
_add(
    "auto_refused_nothing_left",
    _service(NothingLeftRefusedService),
    NothingLeftRefusedService.__doc__,
)
_add("vendor_extras", _wrapped(VendorExtras), VendorExtras.__doc__)
_add("blocks_newest_first", _wrapped(BlocksNewestFirst), BlocksNewestFirst.__doc__)
_add("wallet_limit_1000_eur", _wrapped(WalletLimit), WalletLimit.__doc__)
_add(
    "tokens_standard_base64",
    _service(StandardBase64TokensService),
    StandardBase64TokensService.__doc__,
)
_add("created_at_nanoseconds", _wrapped(CreatedAtNanoseconds), CreatedAtNanoseconds.__doc__)
_add("created_at_picoseconds", _wrapped(CreatedAtPicoseconds), CreatedAtPicoseconds.__doc__)
_add(
    "created_at_epoch_millis",
    _wrapped(CreatedAtEpochMillis),
    CreatedAtEpochMillis.__doc__,
    ("play.history.created_at", "created-at"),
)
_add("wins_reordered", _wrapped(WinsInAnotherOrder), WinsInAnotherOrder.__doc__)
_add(
    "history_limit_required",
    _wrapped(HistoryLimitRequired),
    HistoryLimitRequired.__doc__,
    *(
        (requirement, "history-default-page")
        for requirement in (
            "play.history.order",
            "play.history.complete",
            "play.history.limit",
            "robots.4.1.history_unrevealed",
            "eldorado.4.2.history_unrevealed",
        )
    ),
)
_add("wallet_minimum_1_cent", _wrapped(WalletMinimum), WalletMinimum.__doc__)
_add("wallet_minimum_10_eur", _wrapped(WalletMinimum10Eur), WalletMinimum10Eur.__doc__)
_add("status_403_for_404", _wrapped(Forbidden403), Forbidden403.__doc__)
_add("status_422_for_400", _wrapped(Unprocessable422), Unprocessable422.__doc__)
_add(
    "play_conflict_409",
    _wrapped(PlayConflict409),
    PlayConflict409.__doc__,
    ("play.money.concurrent_one_account", "play-conflict"),
)
_add(
    "one_ticket_open",
    _service(OneTicketOpenService),
    OneTicketOpenService.__doc__,
    # plays sent at once on one account: one sold, the rest refused while it is unfinished
    ("play.money.concurrent_one_account", "play-conflict"),
)
_add(
    "game_names_any_case",
    _wrapped(GameNamesAnyCase),
    GameNamesAnyCase.__doc__,
    ("play.refusal.invalid", "game-name-forms"),
)
_add(
    "one_ticket_open_min_deposit",
    lambda: WalletMinimum10Eur(
        reference_adapter(OneTicketOpenService, "freedom:one_ticket_open_min_deposit"),
        "freedom:one_ticket_open_min_deposit",
    ),
    "As FDJ's own sites: one unfinished ticket per account (`one_ticket_open`) and a minimum "
    "deposit of 10 EUR (`wallet_minimum_10_eur`).",
    ("play.money.concurrent_one_account", "play-conflict"),
)
_add(
    "one_ticket_closed_by_auto",
    _service(OneTicketAutoClosesService),
    OneTicketAutoClosesService.__doc__,
    ("play.money.concurrent_one_account", "play-conflict"),
)
_add(
    "one_ticket_open_checked_first",
    _service(OneTicketOpenFirstService),
    OneTicketOpenFirstService.__doc__,
    ("play.money.concurrent_one_account", "play-conflict"),
)
_add("created_at_zone_suffix", _wrapped(CreatedAtZoneSuffix), CreatedAtZoneSuffix.__doc__)
_add(
    "created_at_spaced",
    _wrapped(CreatedAtSpaced),
    CreatedAtSpaced.__doc__,
    ("play.history.created_at", "created-at"),
)
_add(
    "request_checked_first",
    _service(RequestCheckedFirstService),
    RequestCheckedFirstService.__doc__,
)
_add("resource_checked_first", _service(ResourceFirstService), ResourceFirstService.__doc__)
_add("funds_checked_first", _wrapped(FundsCheckedFirst), FundsCheckedFirst.__doc__)
_add("game_descriptions", _wrapped(GameDescriptions), GameDescriptions.__doc__)
_add("own_games_own_shape", _wrapped(OwnGamesOwnShape), OwnGamesOwnShape.__doc__)
_add("one_game_only", _wrapped(OnlyGames), OnlyGames.__doc__, (SCOPE, "capability-skipped"))
_add(
    "robots_only",
    _wrapped(RobotsOnly),
    "Only robots sold and declared: eldorado's plays, batches and blocks refused (422).",
    (SCOPE, "capability-skipped"),
)
_add("evaluate_only", _wrapped(EvaluateOnly), EvaluateOnly.__doc__, (SCOPE, "capability-skipped"))
_add("version_number", _wrapped(VersionNumber), VersionNumber.__doc__, (SCOPE, "describe-version"))

_add(
    "stake_limit_100_eur",
    _wrapped(StakeLimit),
    StakeLimit.__doc__,
    *(
        (requirement, "stake-own-limit")
        for requirement in (
            "play.money.exact",
            "play.money.balance_read",
            "play.money.concurrent_one_account",
            "play.history.complete",
            "play.history.limit",
            "play.history.order",
            "play.history.created_at",
            "play.auto.answer",
            "security.tokens.required",
            "security.tokens.isolation",
            "robots.4.10.prize_credited",
            "robots.4.1.history_unrevealed",
            "robots.4.3.reveal_symbols",
            "robots.4.4.reveal_order",
            "robots.4.7.reveal_plus_one",
            "robots.4.4.auto_any_moment",
            "eldorado.4.6.prize_credited",
            "eldorado.4.2.history_unrevealed",
        )
    ),
    # play.top_lots's accounts refused a play (a 4xx): the top lot not reached (not-reached)
    ("robots.4.10.prize_credited", "not-reached"),
    ("eldorado.4.6.prize_credited", "not-reached"),
)
_add(
    "stake_limit_20_eur",
    _wrapped(StakeLimit20Eur),
    StakeLimit20Eur.__doc__,
    *FREEDOMS["stake_limit_100_eur"].expected,
    *(
        (requirement, "stake-own-limit")
        for requirement in ("robots.4.1.last_unit", "eldorado.4.2.last_unit")
    ),
)

# the limit refused with another status that fits (contract 4: "a 4xx status that fits")
_add(
    "stake_limit_422",
    _wrapped(StakeLimit422),
    StakeLimit422.__doc__,
    *FREEDOMS["stake_limit_100_eur"].expected,
)
_add(
    "stake_limit_403",
    _wrapped(StakeLimit403),
    StakeLimit403.__doc__,
    *FREEDOMS["stake_limit_100_eur"].expected,
)
_add(
    "play_count_limit_3",
    _wrapped(PlayCountLimit),
    PlayCountLimit.__doc__,
    *FREEDOMS["stake_limit_20_eur"].expected,
    # three plays an account: the sales and reveal checks' accounts stop early too
    *(
        (requirement, "stake-own-limit")
        for requirement in (
            "play.reveal.answer",
            "play.sales.block_order",
            "play.sales.block_unit",
            "play.sales.no_double_sale",
        )
    ),
)
_add("reveal_symbol_letters", _wrapped(RevealLetters), RevealLetters.__doc__)
_add(
    "eldorado_reveal_refused_422",
    _wrapped(EldoradoRevealRefused422),
    EldoradoRevealRefused422.__doc__,
)

_add(
    "ticket_closed_by_next_play",
    _service(ClosedByNextPlayService),
    ClosedByNextPlayService.__doc__,
    ("robots.4.3.reveal_symbols", "ticket-closed-by-play"),
)
_add("robots_fixed_order", _wrapped(RobotsFixedOrder), RobotsFixedOrder.__doc__)
_add("block_slice_10000", _wrapped(BlockSliceLimit), BlockSliceLimit.__doc__)
_add("block_ids_opaque", _wrapped(OpaqueBlockIds), OpaqueBlockIds.__doc__)
_add("blocks_issued_ahead", _service(BlocksIssuedAheadService), BlocksIssuedAheadService.__doc__)


# the account's own token carried otherwise than Bearer (over HTTP: a vendor's auth layer)
for _name, _shim in (
    ("access_token_query", wf.access_token_in_query),
    ("basic_password_token", wf.basic_password_as_token),
    ("session_cookie_token", wf.token_in_cookie),
):
    _add(
        _name,
        wf.vendor_http_variant(_shim, "freedom")(_name),
        _shim.__doc__,
        ("security.tokens.bearer_only", "bearer-only"),
    )


def reservations_of(found: Sequence[dict[str, Any]]) -> Expected:
    """The (requirement or "", basis) pairs of a run's reservations."""
    pairs = set()
    for reservation in found:
        for rid in reservation["requirements"] or [SCOPE]:
            pairs.add((rid, reservation["basis"]))
    return frozenset(pairs)


def many_freedoms() -> Any:
    """Several freedoms at once, for one run over HTTP: JWT-like tokens and UUID ids, one
    block listed per stake, a history ``limit`` of at most 20 (422 above), a default history
    page of 10, ``created_at`` at +01:00, 403 for 404 and 422 for 400."""
    name = "freedom:many"
    inner: Any = reference_adapter(JwtTokensService, name)
    layers = (OneBlockListed, HistoryOwnLimit20, DefaultPage, CreatedAtParis)
    for layer in (*layers, Forbidden403, Unprocessable422):
        inner = layer(inner, name)
    return inner


class HistoryOwnLimit20(HistoryOwnLimit):
    maximum = 20


MANY_EXPECTED: Expected = FREEDOMS["one_block_listed"].expected | {OWN_LIMIT}


__all__ = ["FREEDOMS", "MANY_EXPECTED", "Freedom", "many_freedoms", "reservations_of"]
