"""Faults a twelfth red team wrote (5 December 2026) after reading where the suite lets
accounts grow old ("old, deep and late"): an old account (hundreds of plays, the player
sessions' own) only ever lay idle 0.5 to 3 s before its requests that overlap, the long
pauses (5 s and more) were a paced player's, whose account is young, so nothing that needs an
account both old and cold was met; and an account's history was asked with a ``limit`` below
its count only at the usual page sizes on a young account (``play.history_listing``: 1 to 3,
9 to 11, 19 to 21, ...) and past 101 on an old one, each page judged, while the pages of at
most 100 an old account was read with (the overlapping rounds' page of 10) were judged as a
set of plays, never in their order. Each class is the reference with one behaviour changed,
its docstring the bug as a vendor would write it (``variants.py`` registers them with what
must catch them); the controls are correct.
"""

from __future__ import annotations

import time
from datetime import datetime

from reference._service import Document, GameService

from ._round9_faults import _plays_of
from ._round10_faults import ColdAccountBurstLostUpdate, ColdAccountLocked, _Activity
from ._round11_faults import OldTicketDoubleAutoEmptySettlement

#: an account past this many plays is a heavy player's: its session's loyalty counters are
#: summed over its plays when the session loads (slow), a young account's are not (instant)
HEAVY_PLAYS = 50
#: an account with no request for this long is cold: its session left the server's cache
HEAVY_IDLE_S = 4.0


# == requests that overlap on an old account after it lay idle for seconds ======================


class _HeavyActivity(_Activity):
    """A session that leaves the cache after ``HEAVY_IDLE_S`` of silence and loads slowly
    again only for an account past its ``HEAVY_PLAYS``th play (``touch``: True while it does)."""

    idle_s = HEAVY_IDLE_S

    def touch(self, account_id: object) -> bool:
        loading = super().touch(account_id)
        return loading and _plays_of(self, account_id) >= HEAVY_PLAYS


class HeavyColdSessionBurstLostUpdate(_HeavyActivity, ColdAccountBurstLostUpdate):
    """Contract 4 (the stake debited and the prize credited at once, atomically): an account's
    session stays in the app servers' cache for 4 s after its last request; loading it again
    sums the loyalty counters over the account's plays, instant for a young account, 50 ms
    for one past its 50th play, and a play that comes while a session loads is served from the
    wallet row read at its start and written back with no lock (balance - stake + lot: "nothing
    else can be running, the session was cold"). Plays at once of a heavy player's account
    after it lay idle 4 s (the app opened on two devices after the phone was put down, "buy"
    tapped on both) lose all but one's debit and lot. A young account after any pause is
    right (its session loads at once), and so is an old account idle less than 4 s, or any
    play alone."""


class HeavyColdSessionLocked(_HeavyActivity, ColdAccountLocked):
    """Correct (a control): a heavy account's cold session (4 s of silence) loads for 50 ms
    as above, and every play holds the account's lock while it does."""


# == AUTO twice on an old account's ticket bought seconds before ================================


class HeavyOldTicketDoubleAutoEmptySettlement(OldTicketDoubleAutoEmptySettlement):
    """Contract 4 (AUTO answers the ticket, its prize and wins; asked again, the same): a
    ticket is settled from its purchase's record, kept in memory, while the record lives: 4 s
    for an account past its 50th play (the heavy players' records are evicted first, "they
    buy again at once"), longer than anyone waits for a young account's. An older ticket is
    settled from the store: AUTO opens its settlement record (empty), renders the reveals
    (10 ms), then fills it, and an AUTO of the same ticket that comes meanwhile (a double tap
    on "reveal all" on a ticket the player came back to) finds the record open and answers it
    as it stands: the ticket, ``prize_cents`` 0 and no wins. AUTO alone, AUTO asked again once
    the first is answered, a double tap on a ticket just bought, and a young account's double
    tap whenever it comes are right."""

    def _old(self, key: str) -> bool:
        with self._guard:
            bought = self._bought_at.get(key)
        if bought is None:
            return False
        if time.monotonic() - bought < HEAVY_IDLE_S:
            return False
        with self._connection() as db:
            row = db.execute("SELECT account_id FROM plays WHERE play_id = ?", (key,)).fetchone()
        return row is not None and _plays_of(self, row["account_id"]) >= HEAVY_PLAYS


class HeavyOldTicketDoubleAutoLocked(HeavyOldTicketDoubleAutoEmptySettlement):
    """Correct (a control): an old ticket's AUTO renders as above, and an AUTO of the same
    ticket waits for the one in flight (the ticket's settlement lock), then answers it whole."""

    def auto(self, play_id: object, token: object) -> Document:
        with self._named_lock(("settle", str(play_id))):
            return super().auto(play_id, token)


# == a heavy player's "load more" pages, from a sorted set scored by seconds ===================

#: an account past this many plays has its newest ones kept in the recent set
RECENT_FROM = 100
#: how many of its newest plays the recent set keeps (the app's "load more" stops there)
RECENT_SIZE = 100
#: the app's first page (its home widget), read from the database
FIRST_PAGE = 10


def _score(created_at: object) -> int:
    """A play's score in the recent set: its ``created_at`` in whole epoch seconds."""
    when = datetime.fromisoformat(str(created_at).replace("Z", "+00:00"))
    return int(when.timestamp())


def _load_more(service: GameService, account_id: object, limit: object) -> int | None:
    """The limit of a "load more" page the recent set serves (None: the database's)."""
    if limit is None or not str(limit).isdigit():
        return None
    wanted = int(str(limit))
    if not FIRST_PAGE < wanted <= RECENT_SIZE or _plays_of(service, account_id) <= RECENT_FROM:
        return None
    return wanted


class RecentSetInOrderBought(GameService):
    """Correct (a control): once an account passes 100 plays, its newest 100 are kept in a
    recent set for the app's "load more" pages (a listing with an explicit ``limit`` of 11 to
    100), scored by the play's sequence number in its account (the order bought), so every
    page of it is the newest plays, newest first."""

    def history(self, account_id: object, token: object, limit: object = None) -> Document:
        answer = super().history(account_id, token, limit)
        wanted = _load_more(self, account_id, limit)
        if wanted is None:
            return answer
        newest = list(super().history(account_id, token, RECENT_SIZE)["plays"])
        return {**answer, "plays": self._ranked(newest)[:wanted]}

    def _ranked(self, newest: list[Document]) -> list[Document]:
        """The recent set's members, highest score first: the order bought, newest first."""
        return newest


class RecentSetTiesByPlayId(RecentSetInOrderBought):
    """Contract 4 (the history: the newest plays, newest first; ``limit`` n, the newest n):
    once an account passes 100 plays, its newest 100 are kept in a Redis sorted set for the
    app's "load more" pages (a heavy player's listing, read every few seconds, off the
    database), scored by ``created_at`` in epoch seconds; a listing with an explicit ``limit``
    of 11 to 100 is served from it (``ZREVRANGE key 0 limit-1``). Redis orders members of the
    same score by the member, so plays bought in the same second (a player buying again at
    once) are listed by their ids, not in the order they were bought, and at the page's end
    a play of that second may stand for a newer one. A young account's listing, the app's
    first page of 10 (its home widget, from the database), a listing without ``limit`` and
    one past 100 are right."""

    def _ranked(self, newest: list[Document]) -> list[Document]:
        ranked = sorted(newest, key=lambda p: (_score(p["created_at"]), p["play_id"]))
        return ranked[::-1]


__all__ = [
    "HEAVY_IDLE_S",
    "HEAVY_PLAYS",
    "HeavyColdSessionBurstLostUpdate",
    "HeavyColdSessionLocked",
    "HeavyOldTicketDoubleAutoEmptySettlement",
    "HeavyOldTicketDoubleAutoLocked",
    "RecentSetInOrderBought",
    "RecentSetTiesByPlayId",
]
