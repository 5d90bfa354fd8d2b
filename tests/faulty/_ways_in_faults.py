"""Issue 27 item 5: ways in a vendor left open, and bounds it did not keep. Each class is one
realistic bug, as its docstring tells it; ``variants.py`` registers them.

The token faults are the reference's game service with one method changed (in-process, and
over HTTP alike). The faults of how a request carries its token, or of how its path is
spelled, exist only over HTTP: each is the reference served by the test bridge behind an ASGI
layer of the vendor's (``VendorLayer``), as a vendor's auth middleware sits in front of its
routes.
"""

from __future__ import annotations

import base64
import binascii
import contextvars
import hashlib
import json
import re
import secrets
import threading
from collections.abc import Awaitable, Callable, Generator, MutableMapping
from typing import Any
from urllib.parse import parse_qs

from reference._service import (
    Document,
    GameService,
    ServiceError,
    _now,
    game_and_stake,
    not_found,
    require_int,
    unauthorized,
)

from ._base import reference_adapter, stored_balance
from ._evaluator import Click, RobotsEvaluator
from ._protocol_faults import BridgedHttp
from .http_bridge import Serving, create_app

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# == token values ==================================================================================


class TokenTruncated(GameService):
    """Security: the token column is CHAR(32); the database keeps a token's first 32 characters
    on insert and compares the first 32 of the one sent, so any token that starts like the
    account's (its tail changed, or a character more) opens it."""

    KEPT = 32

    def open_account(self, balance_cents: object) -> Document:
        opened = super().open_account(balance_cents)
        with self._transaction() as db:
            db.execute(
                "UPDATE accounts SET token_sha256 = ? WHERE account_id = ?",
                (_sha(opened["token"][: self.KEPT]), opened["account_id"]),
            )
        return opened

    def authenticate(self, token: object) -> str:
        if type(token) is str and token:
            token = token[: self.KEPT]
        return super().authenticate(token)


class TokenCaseInsensitive(GameService):
    """Security: tokens are kept in a column with a case-insensitive collation (MySQL's
    utf8mb4_general_ci): the account's token in capitals, or in lower case, opens it too."""

    def open_account(self, balance_cents: object) -> Document:
        opened = super().open_account(balance_cents)
        with self._transaction() as db:
            db.execute(
                "UPDATE accounts SET token_sha256 = ? WHERE account_id = ?",
                (_sha(opened["token"].lower()), opened["account_id"]),
            )
        return opened

    def authenticate(self, token: object) -> str:
        if type(token) is str:
            token = token.lower()
        return super().authenticate(token)


class TokenPrefixSearch(GameService):
    """Security: the token is found by the search helper the back office uses for account
    references, ``WHERE token LIKE :sent || '%'``: the first characters of the account's token
    open it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._tokens: dict[str, str] = {}  # token -> account id (the vendor keeps them plain)
        self._lock = threading.Lock()

    def open_account(self, balance_cents: object) -> Document:
        opened = super().open_account(balance_cents)
        with self._lock:
            self._tokens[opened["token"]] = opened["account_id"]
        return opened

    def authenticate(self, token: object) -> str:
        if type(token) is not str or not token:
            return super().authenticate(token)
        with self._lock:
            found = sorted(a for t, a in self._tokens.items() if t.startswith(token))
        if not found:
            raise unauthorized("the token opens no account")
        return found[0]


class NeighbourCheckDigit(GameService):
    """Security: account numbers are issued in sequence (``acct_0000004217``); the ownership
    check compares the number asked for with the token's without its last digit, which the
    id format once meant as a check digit: an account's token opens the accounts numbered next
    to it (the one opened just before, or just after)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._next = 4200 + secrets.randbelow(1000)
        self._lock = threading.Lock()

    def open_account(self, balance_cents: object) -> Document:
        opened = super().open_account(balance_cents)
        with self._lock:
            number, self._next = self._next, self._next + 1
        account_id = f"acct_{number:010d}"
        with self._transaction() as db:
            db.execute(
                "UPDATE accounts SET account_id = ? WHERE account_id = ?",
                (account_id, opened["account_id"]),
            )
        return {**opened, "account_id": account_id}

    def authorize_account(self, account_id: object, token: object) -> str:
        owner = self.authenticate(token)
        if not isinstance(account_id, str) or account_id[:-1] != owner[:-1]:
            raise not_found(f"no account {account_id!r} for this token")
        with self._connection() as db:
            row = db.execute(
                "SELECT account_id FROM accounts WHERE account_id = ?", (account_id,)
            ).fetchone()
        if row is None:
            raise not_found(f"no account {account_id!r}")
        return account_id


# == how a request carries its token, and how its path is spelled (HTTP only) =====================

_TRUSTED: contextvars.ContextVar[bool] = contextvars.ContextVar("trusted", default=False)
"""Set by a vendor layer for a request it let through as not needing a token."""


class TrustingService(GameService):
    """The reference, but a request the vendor's layer marked as needing no token is served as
    its account's owner (how the layers below would behave with their guard skipped)."""

    def authorize_account(self, account_id: object, token: object) -> str:
        if _TRUSTED.get():
            with self._connection() as db:
                row = db.execute(
                    "SELECT account_id FROM accounts WHERE account_id = ?", (account_id,)
                ).fetchone()
            if row is None:
                raise not_found(f"no account {account_id!r}")
            return str(row["account_id"])
        return super().authorize_account(account_id, token)

    def authenticate(self, token: object) -> str:
        if _TRUSTED.get():
            return ""  # the owner is read from the play itself (``_own_play``)
        return super().authenticate(token)

    def _own_play(self, db: Any, play_id: object, owner: str) -> Any:
        if _TRUSTED.get():
            row = db.execute("SELECT * FROM plays WHERE play_id = ?", (play_id,)).fetchone()
            if row is None:
                raise not_found(f"no play {play_id!r}")
            return row
        return super()._own_play(db, play_id, owner)


GUARDED = re.compile(r"/v1/(accounts/[^/]+(/plays|/history)?|plays/[^/]+/(reveal|auto))")
"""The vendor's list of routes that need a token, matched against a path."""


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None


def _with_bearer(scope: Scope, token: str) -> Scope:
    headers = [(k, v) for k, v in scope.get("headers", []) if k.lower() != b"authorization"]
    return {**scope, "headers": [*headers, (b"authorization", f"Bearer {token}".encode())]}


SKIP_GUARD = "vendor.skip_guard"
"""A key a shim sets in a request's scope: the vendor's guard lets it through unchecked."""


class VendorLayer:
    """The vendor's ASGI layer in front of the routes: ``shim`` may rewrite a request's scope
    (where it finds the token, how it reads the path); a request whose path the router answers
    but ``GUARDED`` does not match, as the guard sees it, or that the shim marked
    ``SKIP_GUARD``, is let through as needing no token."""

    def __init__(self, app: App, shim: Callable[[Scope], tuple[Scope, str]]) -> None:
        self.app = app
        self.shim = shim

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        scope, guard_sees = self.shim(scope)
        routed = scope["path"]
        skipped = bool(scope.get(SKIP_GUARD)) or GUARDED.fullmatch(guard_sees) is None
        trusted = GUARDED.fullmatch(routed) is not None and skipped
        mark = _TRUSTED.set(trusted)
        try:
            await self.app(scope, receive, send)
        finally:
            _TRUSTED.reset(mark)


def _as_is(scope: Scope) -> tuple[Scope, str]:
    return scope, scope["path"]


def _query(scope: Scope) -> dict[str, list[str]]:
    return parse_qs(bytes(scope.get("query_string", b"")).decode("latin-1"))


def _cookie(scope: Scope, wanted: str) -> str | None:
    for part in (_header(scope, b"cookie") or "").split(";"):
        name, _, value = part.strip().partition("=")
        if name == wanted and value:
            return value
    return None


# -- the owner's own token carried otherwise: correct, with a reservation (freedom_variants.py)


def basic_password_as_token(scope: Scope) -> tuple[Scope, str]:
    """Clients that can only do HTTP Basic are let in with the token as the password:
    ``Authorization: Basic base64(anything:token)`` is read as ``Bearer token`` (and checked
    as it would be)."""
    sent = _header(scope, b"authorization") or ""
    scheme, _, value = sent.partition(" ")
    if scheme.lower() == "basic":
        try:
            _, _, password = base64.b64decode(value, validate=True).decode().partition(":")
        except (binascii.Error, UnicodeDecodeError):
            password = ""
        if password:
            scope = _with_bearer(scope, password)
    return scope, scope["path"]


def access_token_in_query(scope: Scope) -> tuple[Scope, str]:
    """RFC 6750 2.3: for the links of the notification e-mails, a request without an
    Authorization header may carry its token as ``?access_token=``, read as the Bearer token
    (and checked as it would be)."""
    if _header(scope, b"authorization") is None:
        sent = _query(scope).get("access_token")
        if sent:
            return _with_bearer(scope, sent[0]), scope["path"]
    return scope, scope["path"]


def token_in_cookie(scope: Scope) -> tuple[Scope, str]:
    """The web front end's session cookie is accepted in place of the header: a request
    without an Authorization header but with a ``session`` cookie is let in with it as its
    token (checked as a Bearer token would be)."""
    found = _cookie(scope, "session")
    if _header(scope, b"authorization") is None and found:
        return _with_bearer(scope, found), scope["path"]
    return scope, scope["path"]


# -- a wrong token let in by another carrier: faults of the letter ---------------------------


def access_token_unchecked(scope: Scope) -> tuple[Scope, str]:
    """Security: the links of the notification e-mails carry ``?access_token=``; the auth
    guard hands a request with that parameter to the link handler, which was to check it and
    trusts the mail gateway did: the Bearer header is checked, any ``access_token`` opens the
    account of the path."""
    if _query(scope).get("access_token"):
        return {**scope, SKIP_GUARD: True}, scope["path"]
    return scope, scope["path"]


def cookie_over_bearer(scope: Scope) -> tuple[Scope, str]:
    """Security: the web front end's ``session`` cookie is read first: a request carrying it
    is authenticated by the cookie, whatever its Authorization header says (the header is read
    only when no cookie is sent), so a wrong Bearer token beside a good cookie is let in."""
    found = _cookie(scope, "session")
    if found:
        return _with_bearer(scope, found), scope["path"]
    return scope, scope["path"]


# -- how the path is spelled ------------------------------------------------------------------


def trailing_slash_ignored(scope: Scope) -> tuple[Scope, str]:
    """Security: the router ignores a trailing slash (``/v1/accounts/{id}/`` is the account),
    but the auth guard matches its list of routes against the path as sent, so the same
    endpoint with a trailing slash needs no token."""
    path = scope["path"]
    if len(path) > 1 and path.endswith("/"):
        return {**scope, "path": path.rstrip("/")}, path
    return scope, path


def slashes_merged(scope: Scope) -> tuple[Scope, str]:
    """Security: the router merges repeated slashes (as nginx's ``merge_slashes`` would), the
    auth guard matches the path as sent: ``/v1//accounts/{id}`` is the account, unguarded."""
    path = scope["path"]
    return {**scope, "path": re.sub("/{2,}", "/", path)}, path


def guard_on_raw_path(scope: Scope) -> tuple[Scope, str]:
    """Security: the auth guard matches its routes against the raw path, still
    percent-encoded; the router decodes it first: ``/v1/%61ccounts/{id}`` is the account,
    unguarded."""
    raw = bytes(scope.get("raw_path") or scope["path"].encode()).decode("latin-1")
    return scope, raw.split("?", 1)[0]


def vendor_http_variant(
    shim: Callable[[Scope], tuple[Scope, str]], kind: str = "faulty"
) -> Callable[[str], Callable[[], Any]]:
    """A variant factory maker: the reference (guard skippable) served behind ``shim``, named
    ``kind:name``."""

    def make(name: str) -> Callable[[], Any]:
        def factory() -> BridgedHttp:
            inner = reference_adapter(TrustingService, name=f"{kind}:{name}")
            app = VendorLayer(create_app(inner), shim)
            return BridgedHttp(Serving(app, on_close=inner.close))

        return factory

    return make


# == bounds ========================================================================================


class ButtonsModulo(GameService):
    """Robots 4.2 / contract 4: the button number is taken modulo 18 ("the grid wraps"), so
    button 18 is button 0, -1 is button 17 and 10**6 is button 10: a click on a button that
    does not exist reveals another's symbol."""

    def reveal(self, play_id: object, token: object, button: object) -> Document:
        if type(button) is int:
            button %= 18
        return super().reveal(play_id, token, button)


class EldoradoRevealAnswered(GameService):
    """Contract 4 (reveal: robots only): a reveal on an eldorado play is answered 200 with the
    first cell of its main grid, as if the grid were clicked symbol by symbol."""

    def reveal(self, play_id: object, token: object, button: object) -> Document:
        try:
            return super().reveal(play_id, token, button)
        except ServiceError as exc:
            if exc.code != "nothing_to_reveal" or "has no buttons" not in exc.message:
                raise
        number = require_int(button, "button", low=0, high=17)
        owner = self.authenticate(token)
        with self._connection() as db:
            row = self._own_play(db, play_id, owner)
        return {"button": number, "symbol": str(row["ticket"])[0], "x2": False, "plus_one": False}


def _opened_holding(service: GameService, stored: int) -> Document:
    """An account opened on ``service`` holding ``stored`` cents (any 64-bit balance: the
    reference's own ``open_account`` refuses past 2^53 - 1), answered as holding them."""
    account_id = "acct_" + secrets.token_hex(12)
    token = secrets.token_urlsafe(32)
    with service._transaction() as db:
        db.execute(
            "INSERT INTO accounts VALUES (?, ?, ?, ?)", (account_id, _sha(token), stored, _now())
        )
    return {"account_id": account_id, "token": token, "balance_cents": stored}


class BalanceInFloat64(GameService):
    """Contract 4 (money is integer cents): the wallet service takes any balance a 64-bit
    integer holds but keeps it as an IEEE double (a ``DOUBLE`` column): every balance up to
    2^53 cents is exact, a larger one is rounded to the nearest double."""

    def open_account(self, balance_cents: object) -> Document:
        balance = require_int(balance_cents, "balance_cents", low=0, high=2**63 - 1)
        return _opened_holding(self, int(float(balance)))

    def balance(self, account_id: object, token: object) -> Document:
        found = super().balance(account_id, token)
        return {**found, "balance_cents": int(float(found["balance_cents"]))}


class BalanceInFloat64AtTwoEuros(GameService):
    """Contract 4 (money is integer cents): the wallet holds any balance a 64-bit integer holds,
    exactly; but eldorado at 2 € has a play path of its own (its lot table came last), which
    takes the balance as an IEEE double: ``float(balance) - 200 + prize``. Every balance up to
    2^53 cents is exact there, and everywhere at 0,5 € and 1 €; past 2^53 a 2 € play rounds
    the balance to the nearest double."""

    def open_account(self, balance_cents: object) -> Document:
        balance = require_int(balance_cents, "balance_cents", low=0, high=2**63 - 1)
        return _opened_holding(self, balance)

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        owner = self.authorize_account(account_id, token)
        name, stake = game_and_stake(game, stake_cents)
        play_id = "play_" + secrets.token_hex(12)
        with self._transaction() as db:
            balance = stored_balance(db, owner)
            if balance < stake:
                raise ServiceError(
                    402, "insufficient_funds", f"the balance is {balance} cents, the stake {stake}"
                )
            block, unit = self._take_next_unit(db, name, stake)
            if (name, stake) == ("eldorado", 200):
                balance = int(float(balance) - stake + unit.prize_cents)
            else:
                balance = balance - stake + unit.prize_cents
            if balance > 2**63 - 1:
                raise ServiceError(409, "balance_limit", f"the balance would be {balance}")
            db.execute(
                "UPDATE accounts SET balance_cents = ? WHERE account_id = ?", (balance, owner)
            )
            return self._record_play(db, play_id, owner, block, unit, balance)


class SlicePastEndWraps(GameService):
    """Contract 3: slices are served from a ring buffer over the block; a slice that runs past
    the block's last unit is not refused but wraps round to unit 0 (numbered on from the end),
    so it holds units from the block's start. Slices inside the block are right."""

    def block_slice(
        self, block_id: object, start: object = None, count: object = None
    ) -> tuple[Any, int, int]:
        block = self.block(block_id)
        if type(start) is int and type(count) is int and 0 <= start < block.units < start + count:
            return block, start, count
        return super().block_slice(block_id, start, count)

    def block_document(
        self, block_id: object, start: object = None, count: object = None
    ) -> Generator[bytes, None, None]:
        block, first, size = self.block_slice(block_id, start, count)
        if first + size <= block.units:
            return super().block_document(block_id, start, count)
        return self._wrapped(block, first, size)

    @staticmethod
    def _wrapped(block: Any, first: int, size: int) -> Generator[bytes, None, None]:
        header = json.loads(block.header_line(first, block.units - first))
        header["count"] = size
        yield json.dumps(header, separators=(",", ":")).encode() + b"\n"
        for number in range(size):
            at = (first + number) % block.units
            body = b"".join(block.document_lines(at, 1)).split(b"\n")[1]
            unit = json.loads(body)
            unit["index"] = first + number
            yield json.dumps(unit, separators=(",", ":")).encode() + b"\n"


class SlicePastEndWrapsAtTwoEuros(SlicePastEndWraps):
    """Contract 3: eldorado's 2 € blocks, the last stake launched, are served from a ring
    buffer: a slice of one that runs past the block's last unit wraps round to unit 0 instead
    of being refused or cut. Every other game's and stake's slices are right."""

    def block_slice(
        self, block_id: object, start: object = None, count: object = None
    ) -> tuple[Any, int, int]:
        block = self.block(block_id)
        if (block.game, block.stake_cents) != ("eldorado", 200):
            return GameService.block_slice(self, block_id, start, count)
        return super().block_slice(block_id, start, count)


# == gauges far past full ==========================================================================


class GaugeCounterFourBits(RobotsEvaluator):
    """Robots 4.8 / R-I3: each gauge's notches are kept in a 4-bit field of the unit's packed
    state (no gauge needs more than 7): past 15 notches the counter wraps round to 0, so a
    gauge pushed far past full (many X2 reveals, long +1 chains) no longer wins."""

    def gauges(self, clicks: list[Click]) -> dict[str, int]:
        return {letter: notches % 16 for letter, notches in super().gauges(clicks).items()}


class HistoryLimitUint32(GameService):
    """Contract 4 (history ``limit``): the listing's ``limit`` is parsed into an unsigned
    32-bit page size (the ORM's ``UInt32`` field): a limit past 2^32 wraps round, so
    ``limit`` 4 294 967 297 lists the newest play only."""

    def history(self, account_id: object, token: object, limit: object = None) -> Document:
        if type(limit) is int and limit > 0:
            limit = (limit & 0xFFFFFFFF) or 1
        return super().history(account_id, token, limit)
