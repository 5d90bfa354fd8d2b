"""Faults a tenth red team wrote (5 December 2026) after reading the suite's overlapping
requests as a vendor would: every round of one account's requests that overlap came the moment
the account's last request was answered (its first tickets bought a few milliseconds before),
never after the account lay idle; the rounds spread over a person's fraction of a second were
sent by old accounts only (hundreds of plays deep), a young account's (a paced player's, one
opened for the check) were each a burst at one instant; the paced players, people, never sent
two requests at once. Each class is the reference with one behaviour changed, its docstring
the bug as a vendor would write it (``variants.py`` registers them with what must catch them);
the last is correct, a control.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

from reference._service import Document, GameService

from ._round4_faults import _balance_of, _lot_of
from ._round8_faults import WINDOW_S, _Locks, _set_balance
from ._round9_faults import LeaseExpiresMidWinLostUpdate, _regular

#: an account with no request for this long is cold: its session left the server's cache
IDLE_S = 1.0
#: how long loading a cold account's session takes (its wallet row, limits, counters)
WARM_UP_S = 0.05
#: how long AUTO renders a ticket's reveals before its settlement record is filled
SETTLE_S = 0.01


class _Activity(GameService):
    """The reference that notes each account's last request (any endpoint), and whether a
    request falls while the account's session loads: the first request after ``idle_s`` of
    silence (``IDLE_S``, unless a subclass sets its own) starts a load of ``WARM_UP_S``."""

    idle_s = IDLE_S

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._activity = threading.Lock()
        self._last: dict[str, float] = {}  # account: its last request
        self._loaded_at: dict[str, float] = {}  # account: when its session's load ends

    def touch(self, account_id: object) -> bool:
        """Note a request of ``account_id`` now; whether it falls in a load of its session."""
        key, now = str(account_id), time.monotonic()
        with self._activity:
            last = self._last.get(key)
            self._last[key] = now
            if last is not None and now - last >= self.idle_s:
                self._loaded_at[key] = now + WARM_UP_S
            return self._loaded_at.get(key, 0.0) > now

    def open_account(self, balance_cents: object) -> Document:
        opened = super().open_account(balance_cents)
        self.touch(opened["account_id"])
        return opened

    def balance(self, account_id: object, token: object) -> Document:
        answer = super().balance(account_id, token)
        self.touch(account_id)
        return answer

    def history(self, account_id: object, token: object, limit: object = None) -> Document:
        answer = super().history(account_id, token, limit)
        self.touch(account_id)
        return answer

    def reveal(self, play_id: object, token: object, button: object) -> Document:
        self.touch(self.authenticate(token))
        return super().reveal(play_id, token, button)

    def auto(self, play_id: object, token: object) -> Document:
        self.touch(self.authenticate(token))
        return super().auto(play_id, token)


# == requests that overlap after the account lay idle ============================================


class ColdAccountBurstLostUpdate(_Activity):
    """Contract 4 (the stake debited and the prize credited at once, atomically): an account's
    session stays in the app servers' cache while the account is active; the first request
    after a second of silence loads it again (50 ms: the wallet row, the limits, the loyalty
    counters), and a play that comes while it loads is served from the wallet row read at its
    start and written back with no lock (balance - stake + lot: "nothing else can be running,
    the session was cold"). Plays of an account at once after it lay idle (the app opened on
    two devices after a pause, "buy" tapped on both) lose all but one's debit and lot. An
    active account's plays, at once or a fraction of a second apart, are right; so is any play
    alone."""

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        self.authorize_account(account_id, token)  # someone else's token: refused, untouched
        if not self.touch(account_id):
            return super().play(account_id, token, game, stake_cents)
        before = _balance_of(self, account_id)
        time.sleep(WINDOW_S)  # the session's wallet row, read as it loads
        result = super().play(account_id, token, game, stake_cents)
        if before is None:
            return result
        written = before - int(result["stake_cents"]) + _lot_of(self, result["play_id"])
        if written == result["balance_cents"]:
            return result
        _set_balance(self, account_id, written)
        return {**result, "balance_cents": written}


# == a young account's requests a person's fraction of a second apart ============================


class YoungAccountLeaseLostUpdate(LeaseExpiresMidWinLostUpdate):
    """Contract 4 (the stake debited and the prize credited at once, atomically): an account
    under its 150th play is on the new-player wallet, where a play takes a lease on the account
    (Redis ``SET NX PX 50``) and a play that finds it taken is refused with 409; a win waits
    150 ms for the welcome-offer service, then writes the balance computed at its start, its
    lease expired by then: a play of the same account 50 to 150 ms after a win (a second
    device, "buy again" tapped while the win is confirmed) is let in and erased. A regular
    (150 plays and more) is on the ledger, locked, and right; plays of a young account at one
    instant are refused with 409 (a reservation), one after another right."""

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        if _regular(self, account_id):
            return GameService.play(self, account_id, token, game, stake_cents)
        return super().play(account_id, token, game, stake_cents)


# == a click and AUTO on one ticket at once =====================================================


class ClickBesideAutoReopensButtons(_Locks):
    """Robots 4.4 (AUTO at any moment has the rest revealed) and contract 4 (409 when that
    button has nothing left): a click loads the ticket's reveal state, renders its frame (a
    few ms) and saves the state it loaded with its button moved on by one; clicks of one
    ticket wait for each other (a double click is right), but AUTO is the reveal-all worker's
    and takes no such lock. A click on a ticket at the moment AUTO reveals it (a tap on a
    button while "reveal all" runs) saves the state from before AUTO: every other button opens
    again, and a later click on one answers its symbols as if AUTO had never run. AUTO alone,
    clicks alone and clicks after AUTO are right; the ticket, its lot and AUTO again too."""

    def reveal(self, play_id: object, token: object, button: object) -> Document:
        owner = self.authenticate(token)
        with self._named_lock(("click", str(play_id))):
            with self._connection() as db:
                loaded = str(self._own_play(db, play_id, owner)["revealed"])
            answer = super().reveal(play_id, token, button)
            time.sleep(WINDOW_S)  # the frame rendered
            shown = json.loads(loaded)
            shown[int(answer["button"])] += 1
            with self._transaction() as db:  # the frame saved with the state it loaded
                db.execute(
                    "UPDATE plays SET revealed = ? WHERE play_id = ?", (json.dumps(shown), play_id)
                )
            return answer


class DoubleAutoAnswersEmptySettlement(_Locks):
    """Contract 4 (AUTO answers the ticket, its prize and wins; asked again, the same): AUTO
    settles a ticket by opening its settlement record (empty), rendering the reveals (10 ms),
    then filling it; an AUTO of the same ticket that comes while the first renders (a double
    tap on "reveal all", two devices) finds the record open and answers it as it stands: the
    ticket, ``prize_cents`` 0 and no wins. AUTO alone, and AUTO asked again once the first is
    answered, are right."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._settling: set[str] = set()

    def auto(self, play_id: object, token: object) -> Document:
        key = str(play_id)
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


# == a control: correct =========================================================================


class ColdAccountLocked(_Activity, _Locks):
    """Correct (a control): a cold account's session loads for 50 ms as above, and every play
    holds the account's lock while it does; plays of an account after it lay idle, at once or
    not, see one serial order."""

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        self.authorize_account(account_id, token)
        with self._named_lock(str(account_id)):
            if self.touch(account_id):
                time.sleep(WINDOW_S)  # the session loads
            return super().play(account_id, token, game, stake_cents)


class ClickBesideAutoLocked(ClickBesideAutoReopensButtons):
    """Correct (a control): clicks save back the reveal state they loaded, as above, and AUTO
    waits for the ticket's clicks (it takes their lock): a tap as AUTO reveals the ticket is
    answered before AUTO (its symbol) or after it (409), and the ticket stays revealed."""

    def auto(self, play_id: object, token: object) -> Document:
        with self._named_lock(("click", str(play_id))):
            return super().auto(play_id, token)


class DoubleAutoLocked(DoubleAutoAnswersEmptySettlement):
    """Correct (a control): AUTO renders its ticket as above, and an AUTO of the same ticket
    waits for the one in flight (the ticket's settlement lock), then answers it whole."""

    def auto(self, play_id: object, token: object) -> Document:
        with self._named_lock(("settle", str(play_id))):
            return super().auto(play_id, token)


__all__ = [
    "ClickBesideAutoLocked",
    "ClickBesideAutoReopensButtons",
    "ColdAccountBurstLostUpdate",
    "ColdAccountLocked",
    "DoubleAutoAnswersEmptySettlement",
    "DoubleAutoLocked",
    "YoungAccountLeaseLostUpdate",
]
