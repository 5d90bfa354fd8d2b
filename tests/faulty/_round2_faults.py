"""Faults a second red team wrote (2 December 2026) that the suite then certified: slices paged
wrongly, a deep Extra grid's grant unchecked, reveals racing, AUTO answering for another play
and AUTO paying twice. Each class is the reference with one method overridden, its docstring the
bug as a vendor would have written it (``variants.py`` registers them with what must catch it).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator

from reference._blocks import Unit
from reference._games import GAMES, game_engine
from reference._service import Document, GameService, ServiceError, game_and_stake, require_int

from ._base import stored_balance
from ._evaluator import EldoradoEvaluator, InvalidTicket


class SlicePageWrap(GameService):
    """Contract 3: slices are served from a cache of 4096-unit pages; the page is picked from
    ``start`` and each unit's offset taken modulo the page, so the part of a slice that crosses
    into the next page repeats the start of the current one (the indices are still the ones
    asked for). A whole block, read from unit 0 without a slice, is right."""

    PAGE = 4096

    def block_document(
        self, block_id: object, start: object = None, count: object = None
    ) -> Iterator[bytes]:
        if start is None and count is None:
            return super().block_document(block_id, start, count)
        block, first, size = self.block_slice(block_id, start, count)
        page = first // self.PAGE

        def lines() -> Iterator[bytes]:
            yield block.header_line(first, size)
            end = min(first + size, (page + 1) * self.PAGE)
            if end > first:
                yield from block._lines(first, end - first)
            for i in range(end, first + size):
                shown = block.unit(page * self.PAGE + i % self.PAGE)
                yield Unit(i, shown.prize_cents, shown.ticket).to_json_line() + b"\n"

        return lines()


class DeepGrantUnchecked(EldoradoEvaluator):
    """E-I4 / contract 1: validity checks that there is one grid more than EXTRA symbols and,
    when there are Extra grids, that the main grid holds an EXTRA; whether each later Extra
    grid was granted by an EXTRA before it is not checked, so
    ``XSVBP/SVBPY/VBPYS|YSVBP/SVBPY/VBPYS|XSVBP/SVBPY/VBPYS`` (the third grid's EXTRA
    "granting" itself) is evaluated instead of refused."""

    def parse(self, ticket: object) -> list[list[str]]:
        if not isinstance(ticket, str):
            raise InvalidTicket("not a string")
        texts = ticket.split("|")
        for text in texts:
            if self._grid.fullmatch(text) is None:
                raise InvalidTicket(f"not a grid: {text!r}")
        grids = [t.split("/") for t in texts]
        if sum(row.count(self.extra) for grid in grids for row in grid) != len(grids) - 1:
            raise InvalidTicket("the EXTRA count does not match the grids")
        if len(grids) > 1 and not any(self.extra in row for row in grids[0]):
            raise InvalidTicket("an Extra grid without an EXTRA in the main grid")
        return grids


class RevealLostUpdate(GameService):
    """Robots 4.4 / 4.7: a reveal reads the play's reveal state, then writes the new state in
    a second transaction: two clicks at once (a double click, two tabs) both get the same
    reveal, and a click on another button at that moment can be lost (that button reveals its
    symbol again)."""

    def reveal(self, play_id: object, token: object, button: object) -> Document:
        owner = self.authenticate(token)
        with self._connection() as db:
            row = self._own_play(db, play_id, owner)
        engine = self._engine_of(row)
        widest = engine.buttons or max(game_engine(g).buttons for g in GAMES)
        number = require_int(button, "button", low=0, high=max(widest, 1) - 1)
        if not engine.buttons:
            raise ServiceError(409, "nothing_to_reveal", "this game has no buttons")
        shown = json.loads(row["revealed"])
        reveals = engine.button_reveals(row["ticket"])[number]
        if shown[number] >= len(reveals):
            raise ServiceError(409, "nothing_to_reveal", f"button {number} has nothing left")
        reveal = reveals[shown[number]]
        shown[number] += 1
        with self._transaction() as db:
            db.execute(
                "UPDATE plays SET revealed = ? WHERE play_id = ?", (json.dumps(shown), play_id)
            )
        return {"button": number, **reveal}


class AutoNamesNewestPlay(GameService):
    """Contract 4: the AUTO answer's ``play_id`` comes from the account's "last play" (the
    query the home screen uses), not from the play revealed: right whenever the player
    reveals the play just bought, wrong for an older one."""

    def auto(self, play_id: object, token: object) -> Document:
        answer = super().auto(play_id, token)
        owner = self.authenticate(token)
        with self._connection() as db:
            newest = db.execute(
                "SELECT play_id FROM plays WHERE account_id = ? ORDER BY seq DESC LIMIT 1",
                (owner,),
            ).fetchone()
        return {**answer, "play_id": newest["play_id"]}


class AutoRetryPaysAgain(GameService):
    """Contract 4 / robots 4.10 / eldorado 4.6: AUTO is also the settlement retry: asked for a
    play already wholly revealed (every button clicked, or AUTO asked before: a client's
    retry), it credits the lot again."""

    def auto(self, play_id: object, token: object) -> Document:
        owner = self.authenticate(token)
        settled = False
        if type(play_id) is str:
            with self._connection() as db:
                row = db.execute("SELECT * FROM plays WHERE play_id = ?", (play_id,)).fetchone()
            if row is not None and row["account_id"] == owner:
                engine = self._engine_of(row)
                shown = json.loads(row["revealed"])
                if engine.buttons:
                    settled = shown == [len(r) for r in engine.button_reveals(row["ticket"])]
                else:
                    settled = shown == [1]
        answer = super().auto(play_id, token)
        if settled and answer["prize_cents"]:
            with self._transaction() as db:
                db.execute(
                    "UPDATE accounts SET balance_cents = balance_cents + ? WHERE account_id = ?",
                    (answer["prize_cents"], owner),
                )
        return answer


class BigLotsHeld(GameService):
    """Robots 4.10 / eldorado 4.6 / contract 4: lots of 100 € (10 000 cents) or more go to the
    "gros lots" queue for manual payment: the stake is debited and the lot is not credited
    (the history still shows its prize)."""

    THRESHOLD = 10_000

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        owner = self.authorize_account(account_id, token)
        name, stake = game_and_stake(game, stake_cents)
        play_id = "play_" + secrets.token_hex(12)
        with self._transaction() as db:
            balance = stored_balance(db, owner)
            if balance < stake:
                raise ServiceError(
                    402, "insufficient_funds", f"the balance is {balance} cents, the stake {stake}"
                )
            block, unit = self._take_next_unit(db, name, stake)
            credit = unit.prize_cents if unit.prize_cents < self.THRESHOLD else 0  # the queue
            balance = balance - stake + credit
            db.execute(
                "UPDATE accounts SET balance_cents = ? WHERE account_id = ?", (balance, owner)
            )
            return self._record_play(db, play_id, owner, block, unit, balance)
