"""Faults a seventh red team wrote (5 December 2026) after reading the suite's traffic as a vendor
would: what a person does at a pause of seconds and the harness never did. Its paced players kept
to one (game, stake) for their whole life (only the old accounts, which never pause, changed
pair); its balance reads at a player's pace were never judged (every judged read came right
after a play); an eldorado ticket was always finished by AUTO the moment it was bought; a robots
ticket clicked and put down was clicked on at the end, never finished by AUTO seconds after
its last click. Each class is the reference with one behaviour changed, its docstring the bug as
a vendor would write it (``variants.py`` registers them with what must catch them).
"""

from __future__ import annotations

import sqlite3
import threading
import time
from typing import Any

from reference._blocks import Block, Unit
from reference._service import Document, GameService

from ._round4_faults import _balance_of, _lot_of, _LotDroppedInSale, _move

#: a pause of a person (seconds): the app's screen changed, a session expired
PAUSE_S = 2.0


class _Clock(GameService):
    """The reference with a lock and per-key monotonic times kept in memory."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clock_lock = threading.Lock()
        self._at: dict[str, float] = {}

    def _since(self, key: str) -> float | None:
        """Seconds since ``key`` was last stamped (None: never)."""
        with self._clock_lock:
            at = self._at.get(key)
        return None if at is None else time.monotonic() - at

    def _stamp(self, key: str) -> None:
        with self._clock_lock:
            self._at[key] = time.monotonic()


# == a pair a person changes to after a pause ===================================================


class NewPairAfterPauseLotLost(_Clock, _LotDroppedInSale):
    """Robots 4.10 / eldorado 4.6: a player who, after a pause (2 s or more since the account's
    last play), buys at a (game, stake) the account never played goes through the app's "new
    game" screen, whose first ticket the wallet books on the discovery-offer session; that
    session's credit is dropped: the lot of that first ticket is lost. An account that sticks
    to one pair, or changes pair the moment the previous play's answer arrives (a script, a
    load test), never sees it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._pairs: dict[str, set[tuple[str, int]]] = {}

    def drops_lot(
        self, db: sqlite3.Connection, owner: str, block: Block, unit: Unit, balance: int
    ) -> bool:
        pair = (block.game, block.stake_cents)
        since = self._since(owner)
        self._stamp(owner)
        with self._clock_lock:
            played = self._pairs.setdefault(owner, set())
            new = bool(played) and pair not in played
            played.add(pair)
        return new and since is not None and since >= PAUSE_S


# == a balance read at a person's pace ==========================================================


class BalanceReadLateMissesLot(_Clock):
    """Contract 4 (``GET /v1/accounts/{id}`` answers the balance): the balance endpoint answers
    from the write path's cache for 2 s after a play; later reads come from the read replica,
    whose refresh skips the credit of the account's last winning play (the credit is a second
    write the replication filter drops): a balance read 2 s or more after the account's last
    play lacks that play's lot. The play's answer, the stored balance and the next play are
    right, and so is a read right after a play (as every read of a test's is)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._last_lot: dict[str, int] = {}

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        result = super().play(account_id, token, game, stake_cents)
        lot = _lot_of(self, result["play_id"])
        with self._clock_lock:
            self._last_lot[str(account_id)] = lot
        self._stamp(str(account_id))
        return result

    def balance(self, account_id: object, token: object) -> Document:
        answer = super().balance(account_id, token)
        since = self._since(str(answer["account_id"]))
        with self._clock_lock:
            lot = self._last_lot.get(str(answer["account_id"]), 0)
        if since is None or since < PAUSE_S or lot <= 0:
            return answer
        return {**answer, "balance_cents": answer["balance_cents"] - lot}


# == an eldorado ticket never seen ==============================================================

#: an eldorado ticket not shown within this many seconds is taken for an abandoned purchase
UNCLAIMED_S = 10.0


class UnseenEldoradoLotSwept(_Clock):
    """Eldorado 4.6 (the lot credited at once, for good): eldorado has no reveal screen, so the
    app sends AUTO the moment a ticket is bought; the wallet's "unclaimed tickets" sweeper
    takes back the lot of an eldorado ticket not shown by AUTO within 10 s (an app that crashed
    mid-purchase: the ticket is to be paid at its next login, which was never written). The
    sweep runs before each of the account's requests. A ticket finished at once, and robots
    tickets left half revealed, are right."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._unseen: dict[str, str] = {}  # play_id: account_id, eldorado tickets not shown

    def _sweep(self, account_id: object) -> None:
        with self._clock_lock:
            due = [
                p
                for p, owner in self._unseen.items()
                if owner == str(account_id) and time.monotonic() - self._at[p] >= UNCLAIMED_S
            ]
            for play_id in due:
                del self._unseen[play_id]
        for play_id in due:  # never below 0 (the account may have spent it since)
            held = _balance_of(self, account_id) or 0
            _move(self, account_id, -min(held, _lot_of(self, play_id)))

    def balance(self, account_id: object, token: object) -> Document:
        self._sweep(account_id)
        return super().balance(account_id, token)

    def history(self, account_id: object, token: object, limit: object = None) -> Document:
        self._sweep(account_id)
        return super().history(account_id, token, limit)

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        self._sweep(account_id)
        result = super().play(account_id, token, game, stake_cents)
        if result["game"] == "eldorado" and _lot_of(self, result["play_id"]) > 0:
            self._stamp(result["play_id"])
            with self._clock_lock:
                self._unseen[result["play_id"]] = str(account_id)
        return result

    def auto(self, play_id: object, token: object) -> Document:
        answer = super().auto(play_id, token)
        with self._clock_lock:
            self._unseen.pop(str(play_id), None)
        return answer


# == a ticket put down and finished later =======================================================

#: a reveal session with no click for this many seconds has expired
SESSION_S = 2.0


class ResumedAutoCreditsAgain(_Clock):
    """Robots 4.10 (the lot credited once, at the play): the reveal screen keeps a session per
    ticket; AUTO on a ticket whose last click is 2 s old or more (the session expired: a
    player who put the phone down and came back to "reveal all") rebuilds it from the play
    and settles it as a new ticket: the lot is credited a second time. AUTO at once, AUTO on a
    ticket never clicked, and clicks on a ticket put down are right."""

    def reveal(self, play_id: object, token: object, button: object) -> Document:
        answer = super().reveal(play_id, token, button)
        self._stamp(str(play_id))
        return answer

    def auto(self, play_id: object, token: object) -> Document:
        since = self._since(str(play_id))
        answer = super().auto(play_id, token)
        with self._clock_lock:
            self._at.pop(str(play_id), None)  # settled: a second AUTO is the first's answer
        if since is None or since < SESSION_S:
            return answer
        if answer["prize_cents"] > 0:
            with self._connection() as db:
                row = db.execute(
                    "SELECT account_id FROM plays WHERE play_id = ?", (str(play_id),)
                ).fetchone()
            _move(self, row["account_id"], int(answer["prize_cents"]))
        return answer


__all__ = [
    "BalanceReadLateMissesLot",
    "NewPairAfterPauseLotLost",
    "ResumedAutoCreditsAgain",
    "UnseenEldoradoLotSwept",
]
