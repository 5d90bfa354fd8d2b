"""Faults an eighth red team wrote (5 December 2026) after reading the suite as a vendor would,
for what one person's account does and the harness's accounts never did: requests of one
account that overlap (two tabs, a phone and a laptop, the app's reveal animation still
settling while the player taps "buy again"), and a robots ticket revealed to its end by hand,
button after button, as most people play it. Each class is the reference with one behaviour
changed, its docstring the bug as a vendor would write it (``variants.py`` registers them with
what must catch them).
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

from reference import game_engine
from reference._service import Document, GameService

from ._round4_faults import _balance_of, _lot_of, _move

#: the time a wallet's read-modify-write spends between its read and its write, seconds
WINDOW_S = 0.003


def _set_balance(service: GameService, account_id: object, cents: int) -> None:
    """Write ``cents`` as the stored balance of ``account_id``."""
    with service._transaction() as db:
        db.execute(
            "UPDATE accounts SET balance_cents = ? WHERE account_id = ?", (cents, account_id)
        )


class _Locks(GameService):
    """The reference with named locks made on demand."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._guard = threading.Lock()
        self._locks: dict[object, threading.Lock] = {}

    def _named_lock(self, key: object) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(key, threading.Lock())


# == one account's requests that overlap ========================================================


class TwoPairsAtOnceLostUpdate(_Locks):
    """Contract 4 (the stake debited and the prize credited at once, atomically): each (game,
    stake) has its purchase pipeline, which locks the account for that pair, reads its balance,
    takes the unit, then writes the balance it read - stake + lot. Two plays of one account at
    two pairs at the same moment (robots in one tab, eldorado in another) both start from the
    same balance: the first one's debit and lot are lost. Plays of one account at one pair are
    serial, and so is every player who waits for an answer before the next request."""

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        with self._named_lock((str(account_id), str(game), str(stake_cents))):
            before = _balance_of(self, account_id)
            time.sleep(WINDOW_S)  # the pipeline's reservation of the unit
            result = super().play(account_id, token, game, stake_cents)
            if before is None:
                return result
            lot = _lot_of(self, result["play_id"])
            written = before - int(result["stake_cents"]) + lot
            if written == result["balance_cents"]:
                return result
            _set_balance(self, account_id, written)
            return {**result, "balance_cents": written}


class AutoWritesBackStaleBalance(_Locks):
    """Contract 4 (a play's debit and lot, once made, stay): AUTO loads the account row (its
    "last ticket shown" field), renders the ticket's reveals, and saves the whole row, balance
    included, as loaded: a play of the same account that lands while AUTO renders (the player
    taps "buy again" while the last ticket's "reveal all" settles) is lost from the balance, its
    debit and its lot. AUTO after the play's answer, as a script sends it, is right."""

    def auto(self, play_id: object, token: object) -> Document:
        owner = self.authenticate(token)
        loaded = _balance_of(self, owner)
        time.sleep(WINDOW_S)  # the reveals rendered
        answer = super().auto(play_id, token)
        if loaded is not None:
            _set_balance(self, owner, loaded)
        return answer


class ClickWritesBackStaleBalance(_Locks):
    """Contract 4 (a play's debit and lot, once made, stay): a click on a robots ticket loads
    the account row (for its "last played" field), records the reveal, and saves the whole row,
    balance included, as loaded: a play of the same account that lands while the click is
    recorded (the player taps "buy again" on one ticket while a click on another is on its way)
    is lost from the balance. Clicks and plays one after another are right."""

    def reveal(self, play_id: object, token: object, button: object) -> Document:
        owner = self.authenticate(token)
        loaded = _balance_of(self, owner)
        time.sleep(WINDOW_S)  # the reveal recorded
        answer = super().reveal(play_id, token, button)
        if loaded is not None:
            _set_balance(self, owner, loaded)
        return answer


class BalanceReadMidPlayMissesLot(_Locks):
    """Contract 4 (debited and credited at once, atomically): a winning play is written in two
    steps, the stake's debit then, after the prize service answers (a few milliseconds), the
    lot's credit; a balance read of the account between them (the app polling the balance
    while the player buys) answers the balance without the lot. The play's answer, and every
    read after it, are right."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._pending: dict[str, int] = {}  # account: lots not yet credited

    def _pend(self, account_id: str, cents: int) -> None:
        with self._guard:
            self._pending[account_id] = self._pending.get(account_id, 0) + cents

    def splits(self, account_id: object) -> bool:
        """Whether ``account_id``'s wins are written in two steps (every account's here)."""
        return True

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        result = super().play(account_id, token, game, stake_cents)
        lot = _lot_of(self, result["play_id"])
        if lot > 0 and self.splits(account_id):
            self._pend(str(account_id), lot)
            time.sleep(WINDOW_S * 3)  # the prize service
            self._pend(str(account_id), -lot)
        return result

    def balance(self, account_id: object, token: object) -> Document:
        answer = super().balance(account_id, token)
        with self._guard:
            pending = self._pending.get(str(answer["account_id"]), 0)
        return {**answer, "balance_cents": answer["balance_cents"] - pending}


# == a ticket revealed by hand ==================================================================


class ClickedToEndCreditedAgain(GameService):
    """Robots 4.10 (the lot credited once, at the play): the reveal screen settles a ticket when
    its last reveal is clicked (every button shown to its end, no AUTO) and credits its lot as a
    new win: a player who reveals the 18 buttons by hand is paid twice. AUTO, at any moment,
    settles nothing (the lot was credited at the play); a ticket left half revealed is right."""

    def reveal(self, play_id: object, token: object, button: object) -> Document:
        answer = super().reveal(play_id, token, button)
        with self._connection() as db:
            row = db.execute(
                "SELECT account_id, game, ticket, revealed FROM plays WHERE play_id = ?",
                (str(play_id),),
            ).fetchone()
        engine = game_engine(row["game"])
        if not engine.buttons:
            return answer
        reveals = engine.button_reveals(row["ticket"])
        shown = json.loads(row["revealed"])
        if all(s >= len(r) for s, r in zip(shown, reveals, strict=True)):
            _move(self, row["account_id"], _lot_of(self, str(play_id)))
        return answer


class HandRevealedHistoryPrizeZero(GameService):
    """Robots 4.1 (the history shows the play's ticket and prize): a ticket whose every button
    was clicked to its end by hand is moved to the "revealed" table, whose view shows its
    ``prize_cents`` as 0 until AUTO is sent on it (the column is filled by AUTO's settlement
    only). Tickets finished by AUTO, and tickets left half revealed, show their prize."""

    def history(self, account_id: object, token: object, limit: object = None) -> Document:
        answer = super().history(account_id, token, limit)
        plays = []
        with self._connection() as db:
            for entry in answer["plays"]:
                row = db.execute(
                    "SELECT game, ticket, revealed FROM plays WHERE play_id = ?",
                    (entry["play_id"],),
                ).fetchone()
                engine = game_engine(row["game"])
                with self._autoed_lock:
                    settled = entry["play_id"] in self._autoed
                if engine.buttons and not settled and self._by_hand(engine, row):
                    entry = {**entry, "prize_cents": 0}
                plays.append(entry)
        return {**answer, "plays": plays}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._autoed: set[str] = set()
        self._autoed_lock = threading.Lock()

    def _by_hand(self, engine: Any, row: Any) -> bool:
        shown = json.loads(row["revealed"])
        reveals = engine.button_reveals(row["ticket"])
        return all(s >= len(r) for s, r in zip(shown, reveals, strict=True))

    def auto(self, play_id: object, token: object) -> Document:
        answer = super().auto(play_id, token)
        with self._autoed_lock:
            self._autoed.add(str(play_id))
        return answer


class HalfRevealedLotHiddenFromReads(GameService):
    """Contract 4 (``GET /v1/accounts/{id}`` answers the balance): the balance endpoint leaves
    out the lots of robots tickets whose reveal has begun (a button clicked) and is not over,
    so that the app's balance never spoils a win being revealed. The plays' answers and the
    stored balance are right; reads with no ticket half revealed are right."""

    def balance(self, account_id: object, token: object) -> Document:
        answer = super().balance(account_id, token)
        with self._connection() as db:
            rows = db.execute(
                "SELECT play_id, game, ticket, revealed FROM plays WHERE account_id = ?",
                (str(answer["account_id"]),),
            ).fetchall()
        hidden = 0
        for row in rows:
            engine = game_engine(row["game"])
            shown = json.loads(row["revealed"])
            if not engine.buttons or not any(shown):
                continue
            reveals = engine.button_reveals(row["ticket"])
            if any(s < len(r) for s, r in zip(shown, reveals, strict=True)):
                hidden += _lot_of(self, row["play_id"])
        return {**answer, "balance_cents": answer["balance_cents"] - hidden}


# == a page of the history read at a player's pace =============================================

#: a page of the history (a ``limit`` this small) is served from the app's cache this long
PAGE_CACHE_S = 30.0


class HistorySmallPageCached(_Locks):
    """Contract 4 (the history newest first, a play there as soon as it is bought): a page of
    the history (``limit`` 20 or less, the app's "my last tickets" widget) is served from a
    cache of the account's listing kept for 30 s after it was read; plays bought since are
    missing from it. Listings without a limit, or with a larger one (the history screen), are
    read fresh, and so is a page read for the first time."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._pages: dict[tuple[str, int], tuple[float, Document]] = {}

    def history(self, account_id: object, token: object, limit: object = None) -> Document:
        answer = super().history(account_id, token, limit)
        if not isinstance(limit, int) or limit > 20:
            return answer
        key = (str(account_id), limit)
        with self._guard:
            kept = self._pages.get(key)
            if kept is not None and time.monotonic() - kept[0] < PAGE_CACHE_S:
                return kept[1]
            self._pages[key] = (time.monotonic(), answer)
        return answer


__all__ = [
    "AutoWritesBackStaleBalance",
    "BalanceReadMidPlayMissesLot",
    "ClickWritesBackStaleBalance",
    "ClickedToEndCreditedAgain",
    "HalfRevealedLotHiddenFromReads",
    "HandRevealedHistoryPrizeZero",
    "HistorySmallPageCached",
    "TwoPairsAtOnceLostUpdate",
]
