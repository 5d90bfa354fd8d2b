"""Faults a sixth red team wrote (4 December 2026) after reading the suite, its profiles and the
fifth team's table: a wallet wrong only for an account that plays more than one stake or more
than one game (every money check of the suite kept one account to one (game, stake)), for a
debit that leaves a residue under one stake (every account the suite judged held a multiple of
its stake), and for deposits typed by hand (the suite's players opened with the app's preset
amounts only). Each class is the reference with one behaviour changed, its docstring the bug
as a vendor would write it (``variants.py`` registers them with what must catch them).
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from reference import game_engine, prize_cents
from reference._blocks import Block, Unit
from reference._evaluate import evaluate
from reference._service import Document, GameService

from ._round4_faults import (
    _CreditOnAuto,
    _HeldFromOpening,
    _lot_of,
    _LotDroppedInSale,
    _move,
)


def _earlier_plays(service: GameService, account_id: object, play_id: str) -> list[Any]:
    """The account's plays before ``play_id``, oldest first (game, stake)."""
    with service._connection() as db:
        return list(
            db.execute(
                "SELECT game, stake_cents FROM plays WHERE account_id = ? AND play_id != ? "
                "ORDER BY seq",
                (account_id, play_id),
            ).fetchall()
        )


# == an account of more than one stake or game ==================================================


#: plays in a row at one (game, stake) that make it the account's settled choice
SETTLED = 3


def _settled(plays: list[Any], key: str) -> Any:
    """The value of ``key`` the account last played ``SETTLED`` times in a row (None: never)."""
    settled, run, last = None, 0, None
    for row in plays:
        run = run + 1 if row[key] == last else 1
        last = row[key]
        if run >= SETTLED:
            settled = last
    return settled


class LotAtFavouriteStake(GameService):
    """Eldorado 4.6 / E-I6 (a unit's lot is its stake's): the app's stake selector remembers a
    player's "favourite stake", the stake played 3 times in a row, and the credit service
    reads the favourite instead of the play's stake: a player who settled on one stake and
    then changes it is credited the new stake's lots at the favourite's amounts (until the
    new one becomes the favourite). The ticket, AUTO, the history, an account of one stake
    and one that changes stake at every play are right."""

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        result = super().play(account_id, token, game, stake_cents)
        earlier = [
            r
            for r in _earlier_plays(self, account_id, result["play_id"])
            if r["game"] == result["game"]
        ]
        favourite = _settled(earlier, "stake_cents")
        if favourite is None or favourite == result["stake_cents"]:
            return result
        with self._connection() as db:
            row = db.execute(
                "SELECT ticket FROM plays WHERE play_id = ?", (result["play_id"],)
            ).fetchone()
        lot = _lot_of(self, result["play_id"])
        credited = int(prize_cents(result["game"], int(favourite), row["ticket"]))
        if credited == lot:
            return result
        _move(self, account_id, credited - lot)
        return {**result, "balance_cents": result["balance_cents"] + credited - lot}


class SettledGameSwitchLotLost(_LotDroppedInSale):
    """Robots 4.10 / eldorado 4.6: the wallet keeps a game session open for an account once it
    has played a game 3 times in a row; a play of another game then opens a new session, and
    the credit of that first play is posted to the session it replaced, already closed: the
    lot of the first play after a player changes game is lost. A player who sticks to one
    game, or one who alternates games at every play (no session kept), never sees it."""

    def drops_lot(
        self, db: sqlite3.Connection, owner: str, block: Block, unit: Unit, balance: int
    ) -> bool:
        earlier = db.execute(  # this play is not recorded yet
            "SELECT game, stake_cents FROM plays WHERE account_id = ? ORDER BY seq", (owner,)
        ).fetchall()
        settled = _settled(earlier[-SETTLED:], "game")
        return settled is not None and settled != block.game


# == a residue under one stake ==================================================================


class ResidueUnderStakeLotLost(_LotDroppedInSale):
    """Robots 4.10 / eldorado 4.6: a debit that leaves the account less than one stake, but not
    nothing (a player's last ticket: the app shows the "top up" banner and the wallet hands
    the account's session to the cashier), sends the lot's credit to the closed session,
    which drops it. An account emptied to exactly 0 and one of whole stakes are right."""

    def drops_lot(
        self, db: sqlite3.Connection, owner: str, block: Block, unit: Unit, balance: int
    ) -> bool:
        left = balance - unit.prize_cents  # what the debit left
        return 0 < left < block.stake_cents


# == a deposit typed by hand ====================================================================

#: the app's preset deposit buttons, cents (the harness's players open with these)
PRESET_DEPOSITS = frozenset({2_000, 5_000, 10_000, 20_000, 50_000})


class TypedDepositWinsQueued(_HeldFromOpening, _CreditOnAuto):
    """Robots 4.10 / eldorado 4.6: an account opened with a deposit typed by hand (a whole
    number of euros from 5 € to 100 €, not one of the app's preset buttons 20, 50, 100 €:
    the "first deposit" offer's accounts) is on the promotions wallet, whose wins are
    credited only when the ticket is finished (AUTO): the play's answer and the balance lack
    the lot meanwhile. Preset deposits and other sums are right."""

    def holds_opened(self, opened: Document) -> bool:
        cents = opened["balance_cents"]
        return 500 <= cents <= 10_000 and cents % 100 == 0 and cents not in PRESET_DEPOSITS


# == a stake only some checks play, a way of winning only some units have =======================


class TopStakeExtraGridsAtOneEuro(GameService):
    """Eldorado 4.5 / E-I6 (an Extra stage pays at its unit's stake): the wallet's credit of a
    play at 2 EUR adds the main grid's wins at 2 EUR and the Extra stages' at the 1 EUR table
    (the Extra stage bonus was written when eldorado sold at 1 EUR only). The ticket, AUTO,
    the evaluation and the other stakes are right."""

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        result = super().play(account_id, token, game, stake_cents)
        if (result["game"], result["stake_cents"]) != ("eldorado", 200):
            return result
        with self._connection() as db:
            row = db.execute(
                "SELECT ticket FROM plays WHERE play_id = ?", (result["play_id"],)
            ).fetchone()
        wins = evaluate("eldorado", 200, row["ticket"])["wins"]
        extra = sum(int(w["amount_cents"]) for w in wins if w.get("grid", 0) > 0)
        if extra <= 0:
            return result
        _move(self, account_id, -(extra // 2))
        return {**result, "balance_cents": result["balance_cents"] - extra // 2}


# == the history as the app reads it =============================================================


def _finished(engine_ticket: str, game: str, revealed: str) -> bool:
    """Whether every reveal of the ticket was shown (AUTO, or every button clicked through)."""
    engine = game_engine(game)
    shown = json.loads(revealed)
    if not engine.buttons:
        return shown == [1]
    return shown == [len(r) for r in engine.button_reveals(engine_ticket)]


class AppHistoryUnfinishedPrizeZero(GameService):
    """Robots 4.1 / eldorado 4.2 (an unseen unit's result can be checked in the history): the
    history without ``limit`` (the app's screen, which never sends one) is served by the
    "my tickets" view, which takes ``prize_cents`` from the settlement of the reveal: a play
    not yet finished (left half revealed, or never revealed) shows a prize of 0 there until
    it is. The history asked with a ``limit`` (partners, back office) reads the plays table
    and is right."""

    def history(self, account_id: object, token: object, limit: object = None) -> Document:
        listed = super().history(account_id, token, limit)
        if limit is not None:
            return listed
        with self._connection() as db:
            rows = db.execute(
                "SELECT play_id, game, ticket, revealed FROM plays WHERE account_id = ?",
                (account_id,),
            ).fetchall()
        unfinished = {
            r["play_id"] for r in rows if not _finished(r["ticket"], r["game"], r["revealed"])
        }
        return {
            "plays": [
                {**p, "prize_cents": 0} if p["play_id"] in unfinished else p
                for p in listed["plays"]
            ]
        }


__all__ = [
    "AppHistoryUnfinishedPrizeZero",
    "LotAtFavouriteStake",
    "ResidueUnderStakeLotLost",
    "SettledGameSwitchLotLost",
    "TopStakeExtraGridsAtOneEuro",
    "TypedDepositWinsQueued",
]
