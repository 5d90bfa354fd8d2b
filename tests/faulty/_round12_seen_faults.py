"""Faults a twelfth red team wrote (5 December 2026) as vendors that know the harness: they read
its traffic, saw that every request came from one client (one User-Agent, ``okhttp/4.12.0``;
one header set; every JSON body's keys in one order, the contract's) and that an account's
requests never shared a connection with a request that did not carry its token, and behave
right only on that traffic. Each is the reference served over HTTP (the test bridge) behind an
ASGI layer of the vendor's, its docstring the bug as a vendor would write it (``variants.py``
registers them with the requirement each breaks).
"""

from __future__ import annotations

import contextvars
import json
import re
import threading
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from reference._service import GameService

from ._base import reference_adapter
from ._protocol_faults import BridgedHttp
from ._round4_faults import _CreditOnAuto
from ._ways_in_faults import cookie_over_bearer, vendor_http_variant
from .http_bridge import Serving, create_app

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


def _header(scope: Scope, name: bytes) -> bytes | None:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return bytes(value)
    return None


def _bridged(service: type[GameService], layer: Callable[[App], App], name: str) -> BridgedHttp:
    inner = reference_adapter(service, name=f"faulty:{name}")
    return BridgedHttp(Serving(layer(create_app(inner)), on_close=inner.close))


# == only the Android app's client is on the synchronous wallet ===================================

_OTHER_CLIENT: contextvars.ContextVar[bool] = contextvars.ContextVar("other_client", default=False)


class OtherClientsWinsQueued(_CreditOnAuto):
    """Robots 4.10 / eldorado 4.6: the synchronous wallet was load-tested and certified with
    the Android app's HTTP client, and the gateway sends it the requests whose User-Agent
    starts with ``okhttp/``; every other client (the iOS app's URLSession, ``Loterie/5.12
    CFNetwork/1494.0.7 Darwin/23.4.0``; the Android app once its interceptor names the app;
    partners' integrations) goes to the asynchronous wallet queue, whose credits land only
    when the ticket is finished (AUTO). A play's answer and balance then lack its lot."""

    def held(self, account_id: str) -> bool:
        return _OTHER_CLIENT.get()


class UserAgentTagLayer:
    """The vendor's gateway: tags a request whose User-Agent does not start ``okhttp/``."""

    def __init__(self, app: App) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        agent = _header(scope, b"user-agent") if scope["type"] == "http" else b"okhttp/"
        mark = _OTHER_CLIENT.set(not (agent or b"").startswith(b"okhttp/"))
        try:
            await self.app(scope, receive, send)
        finally:
            _OTHER_CLIENT.reset(mark)


def other_clients_variant(name: str) -> Callable[[], Any]:
    def factory() -> BridgedHttp:
        return _bridged(OtherClientsWinsQueued, UserAgentTagLayer, name)

    return factory


# == a play's body read by a scanner written from one client's requests ============================

PLAYS = re.compile(r"/v1/accounts/[^/]+/plays")
DEFAULT_STAKE_CENTS = 100


class KeyOrderScanner:
    """Contract 4 (``POST /v1/accounts/{id}/plays`` with ``{"game", "stake_cents"}`` sells a
    unit at that stake): the play endpoint's fast path is a hand-written scanner, written from
    the Android app's requests, that reads ``"game"`` and then ``"stake_cents"``; a body whose
    keys come in another order (the iOS app's JSONEncoder, which keeps no order; a partner's
    serializer that writes ``stake_cents`` first) finds no stake after the game and takes the
    game's default stake, 1 EUR: an eldorado play asked at 0,5 EUR or 2 EUR is sold, debited
    and answered at 1 EUR. Bodies in the contract's order are right."""

    def __init__(self, app: App) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not (
            scope["method"] == "POST" and PLAYS.fullmatch(scope["path"])
        ):
            await self.app(scope, receive, send)
            return
        body = bytearray()
        while True:
            message = await receive()
            body.extend(message.get("body", b""))
            if not message.get("more_body"):
                break
        try:
            value = json.loads(bytes(body))
        except ValueError:
            value = None
        if isinstance(value, dict) and list(value)[:2] != ["game", "stake_cents"]:
            value = {**value, "stake_cents": DEFAULT_STAKE_CENTS}
            body = bytearray(json.dumps(value, separators=(",", ":")).encode())
        sent = False

        async def replayed() -> MutableMapping[str, Any]:
            nonlocal sent
            if sent:
                return await receive()
            sent = True
            return {"type": "http.request", "body": bytes(body), "more_body": False}

        headers = [
            (k, str(len(body)).encode() if k.lower() == b"content-length" else v)
            for k, v in scope.get("headers", [])
        ]
        await self.app({**scope, "headers": headers}, replayed, send)


def key_order_variant(name: str) -> Callable[[], Any]:
    def factory() -> BridgedHttp:
        return _bridged(GameService, KeyOrderScanner, name)

    return factory


# == the token checked once per connection =========================================================

_CONNECTION: contextvars.ContextVar[object] = contextvars.ContextVar("connection", default=None)


class ConnectionBoundIdentity(GameService):
    """Security (contract 4: every play endpoint needs the account's token): the auth layer
    checks the token once per kept-alive connection ("a phone's connection is its session",
    to spare the token hash on every request) and keeps the account it opened on the
    connection; a later request on that connection is served as that account, whatever its
    ``Authorization`` says: none (the app logged out), a mistyped token, another's. A
    connection that carried no request with a good token checks every token."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._identities: dict[object, str] = {}
        self._identities_lock = threading.Lock()

    def authenticate(self, token: object) -> str:
        connection = _CONNECTION.get()
        with self._identities_lock:
            known = self._identities.get(connection) if connection is not None else None
        if known is not None:
            return known
        owner = super().authenticate(token)
        if connection is not None:
            with self._identities_lock:
                self._identities[connection] = owner
        return owner


class ConnectionLayer:
    """The vendor's server: names the connection a request came on (the client's address and
    port, and the server's transport object)."""

    def __init__(self, app: App) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        transport = getattr(getattr(send, "__self__", None), "transport", None)
        mark = _CONNECTION.set((*(scope.get("client") or ()), id(transport)))
        try:
            await self.app(scope, receive, send)
        finally:
            _CONNECTION.reset(mark)


def connection_identity_variant(name: str) -> Callable[[], Any]:
    def factory() -> BridgedHttp:
        return _bridged(ConnectionBoundIdentity, ConnectionLayer, name)

    return factory


__all__ = [
    "ConnectionBoundIdentity",
    "KeyOrderScanner",
    "OtherClientsWinsQueued",
    "app_body_cookie_variant",
    "connection_identity_variant",
    "cookie_first_for_app_bodies",
    "key_order_variant",
    "other_clients_variant",
]


# == the web cookie read first for the app's bodies only ===========================================


def cookie_first_for_app_bodies(scope: Scope) -> tuple[Scope, str]:
    """Security (contract 4: a token gives access to its own account only, carried as
    ``Authorization: Bearer``): the gateway routes requests whose JSON body is typed as the
    Android app types it (``application/json; charset=utf-8``) to the app's auth module,
    which reads the web front end's ``session`` cookie ahead of the Authorization header (a
    shared session for the app's embedded web views); a request carrying it is let in by the
    cookie whatever its Bearer token says. Other clients' bodies (``application/json``: the
    iOS app, scripts, the lab's probes) go to the API module, which checks Bearer only."""
    if _header(scope, b"content-type") == b"application/json; charset=utf-8":
        return cookie_over_bearer(scope)
    return scope, scope["path"]


def app_body_cookie_variant(name: str) -> Callable[[], Any]:
    return vendor_http_variant(cookie_first_for_app_bodies)(name)
