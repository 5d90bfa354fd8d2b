"""Faults of issue 10 in the play service: one account's money, the history listing, the
reveal answer, refusals and tokens. Each class is the reference ``GameService`` with one
method overridden, its docstring the bug as a vendor would have written it (``variants.py``
registers them with the requirement each breaks).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import secrets
import threading
import time
from typing import Any

from reference._service import (
    MAX_BALANCE_CENTS,
    Document,
    GameService,
    ServiceError,
    _hash_token,
    _now,
    game_and_stake,
    require_int,
)

from ._base import stored_balance

# == one account's money =========================================================================


class BalanceReadThenWritten(GameService):
    """Contract 4: the play checks the funds with one query, then sells the unit and writes
    the balance it computed from that first read in a second transaction: two plays at once
    on one account both pass the check and spend the same money."""

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        owner = self.authorize_account(account_id, token)
        name, stake = game_and_stake(game, stake_cents)
        with self._connection() as db:
            balance = stored_balance(db, owner)
        if balance < stake:
            raise ServiceError(402, "insufficient_funds", f"balance {balance} < stake {stake}")
        time.sleep(0.004)  # the vendor's work between the check and the write
        play_id = "play_" + secrets.token_hex(12)
        with self._transaction() as db:
            block, unit = self._take_next_unit(db, name, stake)
            balance = balance - stake + unit.prize_cents
            db.execute(
                "UPDATE accounts SET balance_cents = ? WHERE account_id = ?", (balance, owner)
            )
            return self._record_play(db, play_id, owner, block, unit, balance)


class BalanceReadThenWrittenAtTwoEuros(BalanceReadThenWritten):
    """Contract 4: eldorado at 2 € has a play path of its own (its lot table came last), which
    checks the funds with one query and writes the balance in a second transaction: two 2 €
    plays at once on one account both pass the check and spend the same money. Every other
    game and stake sells in one transaction, right."""

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        if (game, stake_cents) == ("eldorado", 200):
            return super().play(account_id, token, game, stake_cents)
        return GameService.play(self, account_id, token, game, stake_cents)


class BalanceReadLagging(GameService):
    """Contract 4: the balance endpoint reads a replica one write behind: right after a play
    it still shows the balance from before that play."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._stale: dict[str, int] = {}
        self._stale_lock = threading.Lock()

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        before = super().balance(account_id, token)["balance_cents"]
        result = super().play(account_id, token, game, stake_cents)
        with self._stale_lock:
            self._stale[str(account_id)] = int(before)
        return result

    def balance(self, account_id: object, token: object) -> Document:
        result = super().balance(account_id, token)
        with self._stale_lock:
            stale = self._stale.pop(str(account_id), None)
        return result if stale is None else {**result, "balance_cents": stale}


# == the history listing =========================================================================


def _listing(service: GameService, account_id: object, token: object) -> list[Document]:
    plays: list[Document] = GameService.history(service, account_id, token, None)["plays"]
    return plays


def _limited(plays: list[Document], limit: object) -> list[Document]:
    return plays if limit is None else plays[: require_int(limit, "limit", low=1, high=2**62)]


class HistoryOldestFirst(GameService):
    """Contract 4: the history is sorted by the plays' sequence ascending (oldest first)."""

    def history(self, account_id: object, token: object, limit: object = None) -> Document:
        return {"plays": _limited(_listing(self, account_id, token)[::-1], limit)}


class HistoryLimitIgnored(GameService):
    """Contract 4: the history's ``limit`` query parameter is read but never applied."""

    def history(self, account_id: object, token: object, limit: object = None) -> Document:
        return {"plays": _listing(self, account_id, token)}


class HistoryRevealedTwice(GameService):
    """Contract 4: the history is the union of the pending and the settled plays' tables,
    and a play revealed with AUTO stays in both: it is listed twice."""

    def history(self, account_id: object, token: object, limit: object = None) -> Document:
        plays = _listing(self, account_id, token)
        with self._connection() as db:
            done = {
                r["play_id"]
                for r in db.execute("SELECT play_id, revealed FROM plays").fetchall()
                if any(json.loads(r["revealed"]))
            }
        doubled = [copy for p in plays for copy in ([p, p] if p["play_id"] in done else [p])]
        return {"plays": _limited(doubled, limit)}


class HistoryNewestLags(GameService):
    """Robots 4.1 / eldorado 4.2: history rows are written behind: a play shows in the
    history only once the account's next play is made, so the last unit is never there."""

    def history(self, account_id: object, token: object, limit: object = None) -> Document:
        return {"plays": _limited(_listing(self, account_id, token)[1:], limit)}


# == the reveal answer ===========================================================================


class RevealLetterOfAnotherSymbol(GameService):
    """Contract 4: the reveal answer gives letters, from a hand-written table that has the
    orange circle as "O" (the yellow octagon's letter)."""

    def reveal(self, play_id: object, token: object, button: object) -> Document:
        answer = super().reveal(play_id, token, button)
        letter = "O" if answer["symbol"] == "orange_circle" else None
        return answer if letter is None else {**answer, "symbol": letter}


class RevealDropsPlusOne(GameService):
    """Contract 4: the reveal answer never reports the +1 above a button (the flag is
    dropped by the serializer), though the button can still be clicked again."""

    def reveal(self, play_id: object, token: object, button: object) -> Document:
        return {**super().reveal(play_id, token, button), "plus_one": False}


# == tokens ======================================================================================


class SequentialTokens(GameService):
    """Contract 4: a token is the account's number in a counter, zero-padded, behind a
    vendor prefix: ``tok_000001``, ``tok_000002``, ..."""

    _counter = itertools.count(1)

    def _token(self, account_id: str) -> str:
        return f"tok_{next(self._counter):06d}"

    def open_account(self, balance_cents: object) -> Document:
        balance = require_int(balance_cents, "balance_cents", low=0, high=MAX_BALANCE_CENTS)
        account_id = "acct_" + secrets.token_hex(12)
        token = self._token(account_id)
        with self._transaction() as db:
            db.execute(
                "INSERT INTO accounts VALUES (?, ?, ?, ?)",
                (account_id, _hash_token(token), balance, _now()),
            )
        return {"account_id": account_id, "token": token, "balance_cents": balance}


class TokenIsAccountHash(SequentialTokens):
    """Contract 4: the token is the SHA-256 of the account id, in hex: anyone who knows an
    account id (they are not secrets) can compute its token."""

    def _token(self, account_id: str) -> str:
        return hashlib.sha256(account_id.encode()).hexdigest()


class ShortTokens(SequentialTokens):
    """Contract 4: tokens are 8 random hex digits (32 bits): guessable by brute force."""

    def _token(self, account_id: str) -> str:
        return secrets.token_hex(4)


# == a deferred credit ===========================================================================


class PrizeCreditedAtReveal(GameService):
    """Robots 4.10 / eldorado 4.6: the prize is credited when the play is first revealed (a
    click or AUTO), not at purchase: the play's balance_cents lacks it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._pending: dict[str, tuple[str, int]] = {}
        self._pending_lock = threading.Lock()

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        result = super().play(account_id, token, game, stake_cents)
        with self._connection() as db:
            row = db.execute(
                "SELECT account_id, prize_cents FROM plays WHERE play_id = ?", (result["play_id"],)
            ).fetchone()
        prize = int(row["prize_cents"])
        if prize:
            self._move(str(row["account_id"]), -prize)
            with self._pending_lock:
                self._pending[result["play_id"]] = (str(row["account_id"]), prize)
        return {**result, "balance_cents": result["balance_cents"] - prize}

    def _move(self, account_id: str, delta: int) -> None:
        with self._transaction() as db:
            db.execute(
                "UPDATE accounts SET balance_cents = balance_cents + ? WHERE account_id = ?",
                (delta, account_id),
            )

    def _settle(self, play_id: object) -> None:
        with self._pending_lock:
            pending = self._pending.pop(str(play_id), None)
        if pending is not None:
            self._move(*pending)

    def reveal(self, play_id: object, token: object, button: object) -> Document:
        answer = super().reveal(play_id, token, button)
        self._settle(play_id)
        return answer

    def auto(self, play_id: object, token: object) -> Document:
        answer = super().auto(play_id, token)
        self._settle(play_id)
        return answer


# == faults a red team found past the suite (session 6): each caught since ======================


class BalanceInFloatEuros(GameService):
    """Contract 4: the wallet keeps euros in a float and writes each balance back as
    ``int(euros * 100)``: an account opened with 1,15 € holds 114 cents."""

    @staticmethod
    def _cents(cents: int) -> int:
        return int((cents / 100.0) * 100)

    def open_account(self, balance_cents: object) -> Document:
        doc = super().open_account(balance_cents)
        fixed = self._cents(doc["balance_cents"])
        with self._transaction() as db:
            db.execute(
                "UPDATE accounts SET balance_cents = ? WHERE account_id = ?",
                (fixed, doc["account_id"]),
            )
        return {**doc, "balance_cents": fixed}

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        doc = super().play(account_id, token, game, stake_cents)
        fixed = self._cents(doc["balance_cents"])
        if fixed != doc["balance_cents"]:
            with self._transaction() as db:
                db.execute(
                    "UPDATE accounts SET balance_cents = ? WHERE account_id = ?",
                    (fixed, self.authorize_account(account_id, token)),
                )
        return {**doc, "balance_cents": fixed}


class WalletCeiling(GameService):
    """Contract 4: the wallet holds at most 10 000 € (1 000 000 cents): a play that would take
    the balance above it is credited only up to the ceiling; the rest is lost, silently."""

    CEILING = 1_000_000

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        doc = super().play(account_id, token, game, stake_cents)
        if doc["balance_cents"] <= self.CEILING:
            return doc
        with self._transaction() as db:
            db.execute(
                "UPDATE accounts SET balance_cents = ? WHERE account_id = ?",
                (self.CEILING, self.authorize_account(account_id, token)),
            )
        return {**doc, "balance_cents": self.CEILING}


class AutoWinsOfTheMainGrid(GameService):
    """Contract 2 / 4: the AUTO answer lists the main grid's wins only (another screen shows
    the Extra stages'); its prize_cents is the whole lot."""

    def auto(self, play_id: object, token: object) -> Document:
        doc = super().auto(play_id, token)
        return {**doc, "wins": [w for w in doc["wins"] if w.get("grid", 0) == 0]}


class AutoLeavesButtonsOpen(GameService):
    """Robots 4.4: AUTO shows the whole ticket but does not record the buttons as revealed, so
    a click after AUTO reveals the next symbol under its button instead of 409."""

    def auto(self, play_id: object, token: object) -> Document:
        row = None
        if type(play_id) is str:
            with self._connection() as db:
                query = "SELECT revealed FROM plays WHERE play_id = ?"
                row = db.execute(query, (play_id,)).fetchone()
        doc = super().auto(play_id, token)
        if row is not None:
            with self._transaction() as db:
                db.execute(
                    "UPDATE plays SET revealed = ? WHERE play_id = ?", (row["revealed"], play_id)
                )
        return doc
