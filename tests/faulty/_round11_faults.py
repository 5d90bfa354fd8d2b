"""Faults an eleventh red team wrote (5 December 2026) after reading the suite's traffic as a
vendor would: every pause an account lay idle before requests that overlap lasted 0.5 to 3 s
(a session cache that forgets an account after 5 s of silence was never met cold); every
balance read after a pause came at most 3 s after the account's last play on a paced
player's account; every request a path probe sent carried no query string beyond the
history's ``limit``. Each class is the reference with one behaviour changed, its docstring
the bug as a vendor would write it (``variants.py`` registers them with what must catch
them); the controls are correct.
"""

from __future__ import annotations

import re
import threading
import time
from typing import Any

from reference._service import Document, GameService

from ._round4_faults import _lot_of
from ._round8_faults import _Locks
from ._round10_faults import ColdAccountBurstLostUpdate, ColdAccountLocked
from ._ways_in_faults import SKIP_GUARD, Scope

#: an account with no request for this long is cold: its session left the server's cache
LONG_IDLE_S = 5.0


# == requests that overlap after the account lay idle for seconds ===============================


class LongIdleBurstLostUpdate(ColdAccountBurstLostUpdate):
    """Contract 4 (the stake debited and the prize credited at once, atomically): an account's
    session stays in the app servers' cache for 5 s after its last request; the first request
    after that loads it again (50 ms: the wallet row, the limits, the loyalty counters), and a
    play that comes while it loads is served from the wallet row read at its start and written
    back with no lock (balance - stake + lot: "nothing else can be running, the session was
    cold"). Plays of an account at once after it lay idle 5 s (the app opened on two devices
    after the phone was put down, "buy" tapped on both) lose all but one's debit and lot. An
    account idle a second or three, or active, is right; so is any play alone."""

    idle_s = LONG_IDLE_S


class LongIdleLocked(ColdAccountLocked):
    """Correct (a control): a cold account's session (5 s of silence) loads for 50 ms as
    above, and every play holds the account's lock while it does; plays of an account after it
    lay idle, at once or not, see one serial order."""

    idle_s = LONG_IDLE_S


# == AUTO twice on a ticket bought seconds before ============================================

#: a ticket bought this long ago is settled from the store, no longer from the purchase's record
OLD_TICKET_S = 5.0
#: how long AUTO renders an old ticket's reveals before its settlement record is filled
SETTLE_S = 0.01


class OldTicketDoubleAutoEmptySettlement(_Locks):
    """Contract 4 (AUTO answers the ticket, its prize and wins; asked again, the same): a ticket
    finished within 5 s of its purchase is settled from the purchase's record, kept in memory
    (right, whatever comes at once); an older one is settled from the store: AUTO opens its
    settlement record (empty), renders the reveals (10 ms), then fills it, and an AUTO of the
    same ticket that comes meanwhile (a double tap on "reveal all" on a ticket the player
    came back to) finds the record open and answers it as it stands: the ticket,
    ``prize_cents`` 0 and no wins. AUTO alone, AUTO asked again once the first is answered,
    and a double tap on a ticket just bought are right."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._settling: set[str] = set()
        self._bought_at: dict[str, float] = {}

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        result = super().play(account_id, token, game, stake_cents)
        with self._guard:
            self._bought_at[str(result["play_id"])] = time.monotonic()
        return result

    def _old(self, key: str) -> bool:
        with self._guard:
            bought = self._bought_at.get(key)
        return bought is not None and time.monotonic() - bought >= OLD_TICKET_S

    def auto(self, play_id: object, token: object) -> Document:
        key = str(play_id)
        if not self._old(key):
            return super().auto(play_id, token)
        with self._guard:
            open_already = key in self._settling
            self._settling.add(key)
        if open_already:
            owner = self.authenticate(token)
            with self._connection() as db:
                ticket = str(self._own_play(db, play_id, owner)["ticket"])
            return {"play_id": key, "ticket": ticket, "prize_cents": 0, "wins": []}
        try:
            answer = super().auto(play_id, token)
            time.sleep(SETTLE_S)  # the reveals rendered, the record filled
            return answer
        finally:
            with self._guard:
                self._settling.discard(key)


class OldTicketDoubleAutoLocked(OldTicketDoubleAutoEmptySettlement):
    """Correct (a control): an old ticket's AUTO renders as above, and an AUTO of the same
    ticket waits for the one in flight (the ticket's settlement lock), then answers it whole."""

    def auto(self, play_id: object, token: object) -> Document:
        with self._named_lock(("settle", str(play_id))):
            return super().auto(play_id, token)


# == a balance read once the account has been quiet for seconds ==============================

#: a balance read this long after the account's last play comes from the read replica
QUIET_S = 5.0


class LongQuietReadMissesLot(GameService):
    """Contract 4 (``GET /v1/accounts/{id}`` answers the balance): the balance endpoint answers
    from the write path's cache for 5 s after a play; later reads come from the read replica,
    whose refresh skips the credit of the account's last winning play (the credit is a second
    write the replication filter drops): a balance read 5 s or more after the account's last
    play lacks that play's lot. The play's answer, the stored balance and the next play are
    right, and so is a read within 5 s of a play (a person's pause of up to 3 s)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._quiet = threading.Lock()
        self._last: dict[str, tuple[float, int]] = {}  # account: (its last play, that lot)

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        result = super().play(account_id, token, game, stake_cents)
        lot = _lot_of(self, result["play_id"])
        with self._quiet:
            self._last[str(account_id)] = (time.monotonic(), lot)
        return result

    def balance(self, account_id: object, token: object) -> Document:
        answer = super().balance(account_id, token)
        with self._quiet:
            at, lot = self._last.get(str(answer["account_id"]), (0.0, 0))
        if not at or time.monotonic() - at < QUIET_S or lot <= 0:
            return answer
        return {**answer, "balance_cents": answer["balance_cents"] - lot}


# == a history cut by a limit past its first internal page ====================================

#: the history is read from the store in pages of this many entries
STORE_PAGE = 128


class HistorySecondPageOneLate(GameService):
    """Contract 4 (``history?limit=``: the newest plays, newest first): the history is read
    from the store in pages of 128; a listing cut by a ``limit`` below the account's count
    reads its second page from a cursor one entry late (the "one more row to know if there is
    a next page" counted twice), so the entry at 128 is missing and the page ends one entry
    further down. A listing asked whole (a ``limit`` at least the count, or none) is read in
    one query, right; so is any limit up to 128."""

    def history(self, account_id: object, token: object, limit: object = None) -> Document:
        whole = super().history(account_id, token, None)
        answer = super().history(account_id, token, limit)
        plays = list(whole["plays"])
        wanted = len(answer["plays"])
        if STORE_PAGE < wanted < len(plays):
            return {"plays": plays[:STORE_PAGE] + plays[STORE_PAGE + 1 : wanted + 1]}
        return answer


class HistoryPagedInOrder(GameService):
    """Correct (a control): the history read from the store in pages of 128 as above, each
    page from where the one before ended."""

    def history(self, account_id: object, token: object, limit: object = None) -> Document:
        whole = super().history(account_id, token, None)
        answer = super().history(account_id, token, limit)
        plays = list(whole["plays"])
        wanted = len(answer["plays"])
        pages = [plays[at : at + STORE_PAGE] for at in range(0, wanted, STORE_PAGE)]
        return {"plays": [p for page in pages for p in page][:wanted]}


# == a query string the guard does not know =====================================================

GUARDED_TARGETS = re.compile(
    r"/v1/(accounts/[^/?]+(/plays|/history)?|plays/[^/?]+/(reveal|auto))"
    r"(\?(limit=\d+|(access_)?token=[^&]*)(&(limit=\d+|(access_)?token=[^&]*))*)?"
)
"""The vendor's list of routes that need a token, written with the queries it knows: the
history's ``limit``, and the ``token`` or ``access_token`` a link may carry (the guard checks
those as credentials, and refuses them)."""


def guard_on_request_target(scope: Scope) -> tuple[Scope, str]:
    """Security: the auth guard matches its list of routes against the request target, the
    path and its query string, and the list was written with the queries the vendor knows
    (the history's ``?limit=N``; a ``token`` or ``access_token`` a link may carry, which the
    guard checks and refuses); the router routes on the path alone. A request with any
    other query string (an app's cache-buster ``?_=1733…``, a ``?lang=fr``) matches no
    guarded route and is let through as the public routes are (``/v1/implementation``,
    ``/v1/blocks``): ``GET /v1/accounts/{id}?_=1`` shows the balance with no token."""
    query = bytes(scope.get("query_string", b"")).decode("latin-1")
    target = scope["path"] + ("?" + query if query else "")
    if GUARDED_TARGETS.fullmatch(target) is None:
        return {**scope, SKIP_GUARD: True}, scope["path"]
    return scope, scope["path"]


def guard_on_path_only(scope: Scope) -> tuple[Scope, str]:
    """Correct (a control): the same guard, the query string cut off before it matches, as
    the router does."""
    return scope, scope["path"]


__all__ = [
    "GUARDED_TARGETS",
    "HistoryPagedInOrder",
    "HistorySecondPageOneLate",
    "LongIdleBurstLostUpdate",
    "LongIdleLocked",
    "LongQuietReadMissesLot",
    "OldTicketDoubleAutoEmptySettlement",
    "OldTicketDoubleAutoLocked",
    "guard_on_path_only",
    "guard_on_request_target",
]
