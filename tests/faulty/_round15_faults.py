"""Faults a fifteenth red team wrote (6 December 2026) after reading the suite's traffic for
what stayed one fixed shape a vendor could key on: every account the suite opens is used from
the one device it signed up on, to its end (a person logs in on a phone and a tablet); and a
history read at a player's pace is a page of 10 or the whole listing, never a page of another
of the sizes apps page by. Each class is the reference with one behaviour changed, its
docstring the bug as a vendor would write it (``variants.py`` registers them with what must
catch them); the controls are correct.
"""

from __future__ import annotations

import contextvars
import threading
import time
from collections.abc import Callable
from typing import Any

from reference._service import Document, GameService

from ._base import reference_adapter
from ._protocol_faults import BridgedHttp
from ._round4_faults import _CreditOnAuto
from ._round12_seen_faults import App, Receive, Scope, Send, _header
from .http_bridge import Serving, create_app

# == an account played from a device other than the one it signed up on ========================

_AGENT: contextvars.ContextVar[str | None] = contextvars.ContextVar("agent", default=None)


class AgentLayer:
    """The vendor's gateway: hands the request's User-Agent to the service (``_AGENT``)."""

    def __init__(self, app: App) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        agent = _header(scope, b"user-agent") if scope["type"] == "http" else None
        mark = _AGENT.set(None if agent is None else agent.decode("latin-1"))
        try:
            await self.app(scope, receive, send)
        finally:
            _AGENT.reset(mark)


class _SignUpDevice(_CreditOnAuto):
    """The device (User-Agent) each account was opened from, kept by the fraud service."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._signed_up: dict[str, str | None] = {}
        self._devices_lock = threading.Lock()

    def open_account(self, balance_cents: object) -> Document:
        opened = super().open_account(balance_cents)
        with self._devices_lock:
            self._signed_up[str(opened["account_id"])] = _AGENT.get()
        return opened

    def other_device(self, account_id: str) -> bool:
        """Whether the request under way comes from another device than the sign-up's."""
        with self._devices_lock:
            known = account_id in self._signed_up
            first = self._signed_up.get(account_id)
        return known and _AGENT.get() != first

    def held(self, account_id: str) -> bool:
        return False


class SecondDeviceCredited(_SignUpDevice):
    """Correct (a control): the fraud service notes the devices an account is played from and
    holds nothing back."""


class SecondDeviceWinsQueued(_SignUpDevice):
    """Robots 4.10 / eldorado 4.6 (the lot credited at the play): the fraud service binds an
    account to the device it signed up on (its User-Agent); a play from any other device (the
    player's tablet, the app after an update that changed its agent, the web site) goes
    through the "new device" step-up path, whose wallet call queues the lot and credits it only
    when the ticket is finished (AUTO): the play's answer and the balance lack it meanwhile.
    Every play from the device an account was opened on is right."""

    def held(self, account_id: str) -> bool:
        return self.other_device(account_id)


def device_variant(service: type[_SignUpDevice], kind: str = "faulty") -> Callable[[str], Any]:
    """A variant factory maker: ``service`` over HTTP behind ``AgentLayer``."""

    def make(name: str) -> Callable[[], Any]:
        def factory() -> BridgedHttp:
            inner = reference_adapter(service, name=f"{kind}:{name}")
            return BridgedHttp(Serving(AgentLayer(create_app(inner)), on_close=inner.close))

        return factory

    return make


# == the app's "load more" pages of the history, cached =========================================

#: a page of the history of one of these sizes is served from a cache this long
PAGE_CACHE_S = 30.0
#: the app's "load more" pages: a limit of more than the first screen's 10, up to 100
LOAD_MORE = range(11, 101)


class _PagesCached(GameService):
    """History pages whose ``limit`` is in ``cached`` are served from a cache of the
    account's listing kept ``PAGE_CACHE_S`` after it was read."""

    cached: range = range(0)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._pages: dict[tuple[str, int], tuple[float, Document]] = {}
        self._pages_lock = threading.Lock()

    def history(self, account_id: object, token: object, limit: object = None) -> Document:
        answer = super().history(account_id, token, limit)
        if not isinstance(limit, int) or limit not in self.cached:
            return answer
        key = (str(account_id), limit)
        with self._pages_lock:
            kept = self._pages.get(key)
            if kept is not None and time.monotonic() - kept[0] < PAGE_CACHE_S:
                return kept[1]
            self._pages[key] = (time.monotonic(), answer)
        return answer


class LoadMorePagesFresh(_PagesCached):
    """Correct (a control): every page of the history read fresh."""


class LoadMorePagesCached(_PagesCached):
    """Contract 4 (a play shows in the history as soon as it is bought; ``limit`` n, the newest
    n): the app's "my tickets" screen shows 10 tickets and reads them fresh; its "load more"
    asks for a page of 20, 25, 50 (a limit of 11 to 100), served from a cache of the account's
    listing kept 30 s after it was read: a page read again within 30 s misses the plays bought
    since. A page of 10 or less, one larger than 100, a listing without a limit, and any page
    read for the first time, are right."""

    cached = LOAD_MORE


# == a token idle in the token cache ===============================================================

#: the token cache keeps a token this long after its last use
TOKEN_IDLE_S = 10.0


class _TokenCache(GameService):
    """The token cache: when each token was last used (its account opened, a request it
    authorized), by token."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._token_used: dict[str, float] = {}
        self._token_lock = threading.Lock()

    def open_account(self, balance_cents: object) -> Document:
        opened = super().open_account(balance_cents)
        with self._token_lock:
            self._token_used[str(opened["token"])] = time.monotonic()
        return opened

    def cached(self, token: object) -> bool:
        """Whether ``token`` is in the cache (used in the last ``TOKEN_IDLE_S``); it is
        (again) from now on."""
        if not isinstance(token, str):
            return False
        now = time.monotonic()
        with self._token_lock:
            used = self._token_used.get(token)
            self._token_used[token] = now
        return used is not None and now - used < TOKEN_IDLE_S

    def slow_path(self, account_id: object, token: object) -> str:
        """A token not in the cache: checked as the reference checks it."""
        return super().authorize_account(account_id, token)

    def authorize_account(self, account_id: object, token: object) -> str:
        if self.cached(token):
            return super().authorize_account(account_id, token)
        return self.slow_path(account_id, token)


class IdleTokensChecked(_TokenCache):
    """Correct (a control): a token the cache let go is checked as any other."""


class IdleTokenOpensAnyAccount(_TokenCache):
    """Contract 4 (a token gives access to its own account and plays only): the token cache
    (token to account: the ownership check compares the account asked for with it) keeps a
    token 10 s after its last use, to bound a cache of a million sessions; a token not in it
    (a player back after a pause) is checked on the slow path, which verifies that the token
    opens an account, caches it again, and serves the account the path names, whoever's it
    is. A token used in the last 10 s is checked right."""

    def slow_path(self, account_id: object, token: object) -> str:
        self.authenticate(token)  # it opens an account (else 401)
        if isinstance(account_id, str):
            with self._connection() as db:
                row = db.execute(
                    "SELECT account_id FROM accounts WHERE account_id = ?", (account_id,)
                ).fetchone()
            if row is not None:
                return account_id
        return super().slow_path(account_id, token)


# == the first play after a long idle ==============================================================

#: the wallet's session of an account closes this long after its last play
WALLET_SESSION_S = 10.0


class _LastPlay(_CreditOnAuto):
    """The time of each account's last play."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._last_play_at: dict[str, float] = {}

    def holds_back(self, owner: str, block: Any, unit: Any) -> bool:
        now = time.monotonic()
        with self._owed_lock:
            last = self._last_play_at.get(owner)
            self._last_play_at[owner] = now
        return self.idle(last, now)

    def idle(self, last: float | None, now: float) -> bool:
        return False

    def held(self, account_id: str) -> bool:
        return False


class IdleAccountCredited(_LastPlay):
    """Correct (a control)."""


class IdleAccountWinsQueued(_LastPlay):
    """Robots 4.10 / eldorado 4.6 (the lot credited at the play): the wallet keeps a session
    per account that closes 10 s after the account's last play; the first play after that
    opens a new one through the "welcome back" path, whose wallet call queues the lot and
    credits it only when the ticket is finished (AUTO): the play's answer and the balance lack
    it meanwhile. Plays less than 10 s apart are right."""

    def idle(self, last: float | None, now: float) -> bool:
        return last is not None and now - last >= WALLET_SESSION_S


__all__ = [
    "AgentLayer",
    "IdleAccountCredited",
    "IdleAccountWinsQueued",
    "IdleTokenOpensAnyAccount",
    "IdleTokensChecked",
    "LoadMorePagesCached",
    "LoadMorePagesFresh",
    "SecondDeviceCredited",
    "SecondDeviceWinsQueued",
    "device_variant",
]
