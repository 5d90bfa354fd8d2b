"""Issue 27's faults: targets that behave while the traffic looks like a harness's, while an
account is young, while the stream is shallow, while a cache entry is fresh. Each class is the
reference with one behaviour changed, its docstring the bug as a vendor would write it
(``variants.py`` registers them with what must catch them).
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

from reference import prize_cents
from reference._service import Document, GameService, ServiceError, require_int


class PacedWinsQueued(GameService):
    """Contract 4 / robots 4.10 / eldorado 4.6: requests of one session less than a second apart
    are scripted traffic (bots, load tests, certification labs) and go through the synchronous
    wallet; a human-paced session's win goes to the asynchronous wallet queue, credited only
    when the ticket is finished (AUTO). The play's answer and the balance meanwhile lack the
    lot. Back-to-back traffic is always right."""

    HUMAN_GAP_S = 1.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._seen: dict[str, float] = {}
        self._owed: dict[str, tuple[str, int]] = {}  # play_id -> account, lot not yet credited
        self._guard = threading.Lock()

    def authenticate(self, token: object) -> str:
        account = super().authenticate(token)
        with self._guard:
            self._seen[account] = time.monotonic()
        return account

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        with self._guard:
            before = self._seen.get(str(account_id))
        result = super().play(account_id, token, game, stake_cents)
        human = before is not None and time.monotonic() - before > self.HUMAN_GAP_S + 0.05
        lot = self._lot(result["play_id"])
        if not human or lot <= 0:
            return result
        with self._transaction() as db:
            db.execute(
                "UPDATE accounts SET balance_cents = balance_cents - ? WHERE account_id = ?",
                (lot, account_id),
            )
        with self._guard:
            self._owed[result["play_id"]] = (str(account_id), lot)
        return {**result, "balance_cents": result["balance_cents"] - lot}

    def _lot(self, play_id: str) -> int:
        with self._connection() as db:
            row = db.execute(
                "SELECT game, stake_cents, ticket FROM plays WHERE play_id = ?", (play_id,)
            ).fetchone()
        return int(prize_cents(row["game"], row["stake_cents"], row["ticket"]))

    def auto(self, play_id: object, token: object) -> Document:
        answer = super().auto(play_id, token)
        with self._guard:
            owed = self._owed.pop(str(play_id), None)
        if owed is not None:
            with self._transaction() as db:
                db.execute(
                    "UPDATE accounts SET balance_cents = balance_cents + ? WHERE account_id = ?",
                    (owed[1], owed[0]),
                )
        return answer


class HistoryKeepsNewest(GameService):
    """Contract 4 (the history lists every play): the history is served from a capped list per
    account (a Redis LPUSH + LTRIM 0 149, "nobody scrolls further"): an account's plays older
    than its newest 150 are gone from every listing. An account of up to 150 plays is right."""

    KEPT = 150

    def history(self, account_id: object, token: object, limit: object = None) -> Document:
        listed = super().history(account_id, token, limit)
        return {"plays": listed["plays"][: self.KEPT]}


class LotTableFirstUnits(GameService):
    """Robots 4.10 / eldorado 4.6: the wallet credits a win from a lot table it preloads with the
    first 4 096 units of each block ("a day of sales"); the job that loads the next pages was
    never scheduled, so a winning unit past them misses the table and is credited nothing. The
    sale, the ticket and AUTO are right; only the credit is lost, deep in the block."""

    LOADED = 4096

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        result = super().play(account_id, token, game, stake_cents)
        if result["index"] < self.LOADED:
            return result
        with self._connection() as db:
            row = db.execute(
                "SELECT ticket FROM plays WHERE play_id = ?", (result["play_id"],)
            ).fetchone()
        lot = int(prize_cents(result["game"], result["stake_cents"], row["ticket"]))
        if lot <= 0:
            return result
        with self._transaction() as db:
            db.execute(
                "UPDATE accounts SET balance_cents = balance_cents - ? WHERE account_id = ?",
                (lot, account_id),
            )
        return {**result, "balance_cents": result["balance_cents"] - lot}


class RevealStateExpires(GameService):
    """Robots 4.4 / R-I5: which buttons a player clicked lives in a cache entry per play with a
    time to live of 60 seconds, refreshed by each click; the database is written only by AUTO.
    A player who comes back to an unfinished ticket after a minute finds the entry expired: it
    is rebuilt from the database, the clicks made before forgotten, so a button already
    clicked shows its first symbol again."""

    TTL_S = 60.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._entries: dict[str, tuple[float, list[int]]] = {}
        self._entries_lock = threading.Lock()

    def reveal(self, play_id: object, token: object, button: object) -> Document:
        owner = self.authenticate(token)
        with self._connection() as db:
            row = self._own_play(db, play_id, owner)
        engine = self._engine_of(row)
        number = require_int(button, "button", low=0, high=max(engine.buttons or 18, 1) - 1)
        if not engine.buttons:
            raise ServiceError(409, "nothing_to_reveal", "this game has no buttons")
        reveals = engine.button_reveals(row["ticket"])[number]
        now = time.monotonic()
        with self._entries_lock:
            entry = self._entries.get(row["play_id"])
            if entry is None or now - entry[0] > self.TTL_S:  # expired: from the database
                entry = (now, json.loads(row["revealed"]))
            shown = entry[1]
            self._entries[row["play_id"]] = (now, shown)
            if shown[number] >= len(reveals):
                raise ServiceError(
                    409, "nothing_to_reveal", f"button {number} has nothing left to reveal"
                )
            reveal = reveals[shown[number]]
            shown[number] += 1
        return {"button": number, **reveal}

    def auto(self, play_id: object, token: object) -> Document:
        answer = super().auto(play_id, token)
        with self._entries_lock:
            self._entries.pop(str(play_id), None)
        return answer


class TopTierFee(GameService):
    """Robots 4.10 / eldorado 4.6: lots of 1 000 EUR or more are paid from the jackpot wallet,
    whose transfer to the player's account takes a fee of 1 EUR: a top-tier win is credited
    one euro short. Every smaller lot, the ticket, AUTO and the history are right; only a play
    that buys a unit of a top tier shows it."""

    TOP = 100_000
    FEE = 100

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        result = super().play(account_id, token, game, stake_cents)
        with self._connection() as db:
            row = db.execute(
                "SELECT ticket FROM plays WHERE play_id = ?", (result["play_id"],)
            ).fetchone()
        if int(prize_cents(result["game"], result["stake_cents"], row["ticket"])) < self.TOP:
            return result
        with self._transaction() as db:
            db.execute(
                "UPDATE accounts SET balance_cents = balance_cents - ? WHERE account_id = ?",
                (self.FEE, account_id),
            )
        return {**result, "balance_cents": result["balance_cents"] - self.FEE}
