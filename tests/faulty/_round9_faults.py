"""Faults a ninth red team wrote (5 December 2026) after reading the suite as a vendor would, for
what its one round of an account's overlapping requests never met: every account that sent
requests at once was opened for it and had made one or two plays (an old account, hundreds of
plays deep, only ever sent one request at a time), and every request of such a round left at
the same instant (a barrier), none a person's fraction of a second after another (a second
device, a tap on "buy again" while the last ticket's answer is on its way). Each class is the
reference with one behaviour changed, its docstring the bug as a vendor would write it
(``variants.py`` registers them with what must catch them); the last is correct, a control.
"""

from __future__ import annotations

import time
from typing import Any

from reference._service import Document, GameService, ServiceError

from ._round4_faults import _balance_of, _lot_of
from ._round8_faults import WINDOW_S, BalanceReadMidPlayMissesLot, _Locks, _set_balance

#: an account past this many plays is a "regular": its wallet is the fast one
REGULAR_PLAYS = 150
#: how long a play's lease on its account lasts (a Redis ``SET NX PX 50``), seconds
LEASE_S = 0.05
#: how long the prize service takes to confirm a win, seconds
PRIZE_SERVICE_S = 0.15


def _plays_of(service: GameService, account_id: object) -> int:
    """How many plays ``account_id`` has bought."""
    with service._connection() as db:
        row = db.execute(
            "SELECT COUNT(*) AS n FROM plays WHERE account_id = ?", (str(account_id),)
        ).fetchone()
    return int(row["n"])


def _regular(service: GameService, account_id: object) -> bool:
    return _plays_of(service, account_id) >= REGULAR_PLAYS


# == an old account's requests that overlap ======================================================


class RegularTwoTabsLostUpdate(GameService):
    """Contract 4 (the stake debited and the prize credited at once, atomically): an account
    past its 150th play is a regular, moved to the fast wallet, which reads the balance when
    a play starts and writes balance - stake + lot when it ends, with no lock (a regular's
    app sends one request at a time). Two plays of a regular at once (two tabs) both start
    from the same balance: the first one's debit and lot are lost. New accounts, on the locked
    ledger, are right, at once or not; so is a regular whose requests come one at a time."""

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        if not _regular(self, account_id):
            return super().play(account_id, token, game, stake_cents)
        before = _balance_of(self, account_id)
        time.sleep(WINDOW_S)  # the fast wallet's round trip
        result = super().play(account_id, token, game, stake_cents)
        if before is None:
            return result
        written = before - int(result["stake_cents"]) + _lot_of(self, result["play_id"])
        if written == result["balance_cents"]:
            return result
        _set_balance(self, account_id, written)
        return {**result, "balance_cents": written}


class RegularReadMidPlayMissesLot(BalanceReadMidPlayMissesLot):
    """Contract 4 (debited and credited at once, atomically): a regular's winning play (an
    account past its 150th play: the fast wallet) is written in two steps, the stake's debit,
    then the lot once the prize service answers (a few milliseconds); a balance read of the
    account between them (the app polling while the player buys) answers the balance without
    the lot. A new account's wins are written in one step; the play's answer, and every read
    after it, are right."""

    def splits(self, account_id: object) -> bool:
        return _regular(self, account_id)


class RegularAutoWritesBackStaleBalance(GameService):
    """Contract 4 (a play's debit and lot, once made, stay): a regular's AUTO (an account past
    its 150th play, whose row carries its loyalty counters) loads the account row, renders
    the ticket's reveals and bumps the counters, and saves the whole row, balance included, as
    loaded: a play of the same account that lands while AUTO renders (the player taps "buy
    again" while "reveal all" settles) is lost from the balance. A new account's row has no
    counters (AUTO saves nothing); AUTO after the play's answer is right."""

    def auto(self, play_id: object, token: object) -> Document:
        owner = self.authenticate(token)
        if not _regular(self, owner):
            return super().auto(play_id, token)
        loaded = _balance_of(self, owner)
        time.sleep(WINDOW_S)  # the reveals rendered, the counters bumped
        answer = super().auto(play_id, token)
        if loaded is not None:
            _set_balance(self, owner, loaded)
        return answer


# == requests of one account a person's fraction of a second apart ==============================


class LeaseExpiresMidWinLostUpdate(_Locks):
    """Contract 4 (the stake debited and the prize credited at once, atomically): a play takes
    a lease on its account (Redis ``SET NX PX 50``, 50 ms: "a play never takes longer"), and a
    play that finds the lease taken is refused with 409 ("retry", row ``play-conflict``). A
    winning play waits for the prize service (150 ms) before it writes the balance it computed
    at its start; its lease has expired by then, so a play of the same account that comes 50
    to 150 ms after it (a second device, a tap on "buy again" while the win is confirmed) is
    let in, and the winner's write erases it: its debit and lot lost. Plays at the same
    instant are refused with 409, plays one after another are right."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._leases: dict[str, float] = {}  # account: when its lease expires

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        key = str(account_id)
        with self._guard:
            now = time.monotonic()
            if self._leases.get(key, 0.0) > now:
                raise ServiceError(409, "account_busy", "another play of this account is under way")
            self._leases[key] = now + LEASE_S
        try:
            before = _balance_of(self, account_id)
            result = super().play(account_id, token, game, stake_cents)
            lot = _lot_of(self, result["play_id"])
            if lot > 0:
                time.sleep(PRIZE_SERVICE_S)  # the prize service confirms the win
            if before is None:
                return result
            written = before - int(result["stake_cents"]) + lot
            _set_balance(self, account_id, written)  # the balance computed at the start
            return {**result, "balance_cents": written}
        finally:
            with self._guard:  # DEL: the lease, whoever holds it now
                self._leases.pop(key, None)


# == a cache filled by a read that overlaps a play ===============================================


class _ReadThroughCache(_Locks):
    """The reference with a read-through cache of the answers of one read endpoint, per
    account, dropped by a play of the account (after the play is written)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._cached: dict[tuple[str, object], Document] = {}

    def _through(self, key: tuple[str, object], read: Any) -> Document:
        with self._guard:
            kept = self._cached.get(key)
        if kept is not None:
            return kept
        answer: Document = read()
        time.sleep(WINDOW_S)  # the answer serialised, then kept
        with self._guard:
            self._cached[key] = answer
        return answer

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        result = super().play(account_id, token, game, stake_cents)
        with self._guard:  # the account's entries dropped: the next read is fresh
            for key in [k for k in self._cached if k[0] == str(account_id)]:
                del self._cached[key]
        return result


class BalanceCacheFilledMidPlay(_ReadThroughCache):
    """Contract 4 (``GET /v1/accounts/{id}`` answers the balance): balance reads are served
    from a read-through cache, dropped by each play of the account once the play is written. A
    read that loaded the balance before a play was written and stores it after the play
    dropped the entry (the app polling while the player buys) leaves the old balance cached:
    every read after it answers it, until the account's next play. Reads and plays one after
    another are right."""

    def balance(self, account_id: object, token: object) -> Document:
        self.authorize_account(account_id, token)  # someone else's token: refused, never served
        read = super().balance
        return self._through((str(account_id), "balance"), lambda: read(account_id, token))


class HistoryCacheFilledMidPlay(_ReadThroughCache):
    """Contract 4 (a play shows in the history as soon as it is bought): the history's pages
    are served from a read-through cache, dropped by each play of the account once the play is
    written. A page loaded before a play was written and stored after the play dropped the
    entries (the app refreshing "my tickets" while the player buys in another tab) stays cached
    without that play until the account's next play. Reads and plays one after another are
    right."""

    def history(self, account_id: object, token: object, limit: object = None) -> Document:
        self.authorize_account(account_id, token)  # someone else's token: refused, never served
        read = super().history
        return self._through((str(account_id), limit), lambda: read(account_id, token, limit))


class HistoryScreenCacheFilledMidPlay(_ReadThroughCache):
    """Contract 4 (a play shows in the history as soon as it is bought): the history screen
    (the history read without ``limit``: the app's, whose page is the server's) is served from
    a read-through cache, dropped by each play of the account once the play is written; a
    screen loaded before a play was written and stored after the play dropped it stays cached
    without that play until the account's next play. Pages asked with a ``limit`` go to the
    database; reads and plays one after another are right."""

    def history(self, account_id: object, token: object, limit: object = None) -> Document:
        if limit is not None:
            return super().history(account_id, token, limit)
        self.authorize_account(account_id, token)  # someone else's token: refused, never served
        read = super().history
        return self._through((str(account_id), None), lambda: read(account_id, token, None))


# == a control: correct =========================================================================


class SlowPrizeServiceLocked(_Locks):
    """Correct (a control): a play holds its account's lock while the prize service confirms a
    win (150 ms), and a play of the same account waits for it; every play, read and AUTO of an
    account, at once or a fraction of a second apart, sees one serial order."""

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        with self._named_lock(str(account_id)):
            result = super().play(account_id, token, game, stake_cents)
            if _lot_of(self, result["play_id"]) > 0:
                time.sleep(PRIZE_SERVICE_S)
            return result


__all__ = [
    "BalanceCacheFilledMidPlay",
    "HistoryCacheFilledMidPlay",
    "HistoryScreenCacheFilledMidPlay",
    "LeaseExpiresMidWinLostUpdate",
    "RegularAutoWritesBackStaleBalance",
    "RegularReadMidPlayMissesLot",
    "RegularTwoTabsLostUpdate",
    "SlowPrizeServiceLocked",
]
