"""Faults a third red team wrote (2 December 2026) that the suite then certified: a history read
a page at a time with an off-by-one, block keys from two slots in turn, an unsigned 32-bit
wallet, reveal sessions in a bounded cache, blocks from the README's seed, and later blocks
sharing a layout across stakes. Each class is the reference with one method overridden, its
docstring the bug as a vendor would have written it (``variants.py`` registers them with what
must catch it).
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from typing import Any

from reference._blocks import Block
from reference._games import game_engine
from reference._service import Document, GameService, ServiceError, require_int

from ._faults import BlockService


class HistoryPageSkip(GameService):
    """Contract 4 / robots 4.1 / eldorado 4.2: the history is read from the database in pages
    of 10 rows ("keep the query cheap"); the next page is fetched at OFFSET page * 10 + 1 (a
    1-based row number used as a 0-based offset), so the 11th newest play (and the 22nd, ...)
    is missing from any listing longer than 10 entries. Listings of up to 10 are right."""

    PAGE = 10

    def history(self, account_id: object, token: object, limit: object = None) -> Document:
        owner = self.authorize_account(account_id, token)
        wanted = None if limit is None else require_int(limit, "limit", low=1, high=2**62)
        rows: list[Any] = []
        page = 0
        with self._connection() as db:
            while wanted is None or len(rows) < wanted:
                offset = 0 if page == 0 else page * self.PAGE + 1  # the bug
                got = db.execute(
                    "SELECT play_id, game, stake_cents, block_id, unit_index, ticket,"
                    " prize_cents, created_at FROM plays WHERE account_id = ?"
                    " ORDER BY seq DESC LIMIT ? OFFSET ?",
                    (owner, self.PAGE, offset),
                ).fetchall()
                rows += got
                if len(got) < self.PAGE:
                    break
                page += 1
        keys = ("play_id", "game", "stake_cents", "block_id", "ticket", "prize_cents")
        return {
            "plays": [
                {**{k: r[k] for k in keys}, "index": r["unit_index"], "created_at": r["created_at"]}
                for r in (rows if wanted is None else rows[:wanted])
            ]
        }


class SeedTwoSlots(BlockService):
    """Robots 3 / randomness across blocks: the vendor issues blocks two ahead (three robots
    blocks are listed), and the block key comes from one of two HSM slots, slot (n - 1) mod 2:
    block 3 reuses block 1's permutation (winners at exactly the same places), block 4 block
    2's, ... Consecutive blocks are unrelated."""

    def _issued(self, game: str, stake_cents: int) -> int:
        issued = super()._issued(game, stake_cents)
        return issued + 1 if game == "robots" else issued

    def make_block(self, game: str, stake_cents: int, block_id: str, number: int) -> Block:
        block = super().make_block(game, stake_cents, block_id, number)
        if game == "robots" and number > 2:
            block._permutation = self._block(game, stake_cents, number - 2)._permutation
        return block


UINT32_MAX = 2**32 - 1


class WalletUint32(GameService):
    """Contract 4 (money exact): the wallet's balance column is INT UNSIGNED in a MySQL in
    non-strict mode: a balance above 4 294 967 295 cents (42 949 672,95 EUR) is clipped to it
    without an error, at the opening of the account as after a win. Every smaller balance
    is exact."""

    def _clip(self, account_id: object, result: Document) -> Document:
        if result["balance_cents"] <= UINT32_MAX:
            return result
        with self._transaction() as db:
            db.execute(
                "UPDATE accounts SET balance_cents = ? WHERE account_id = ?",
                (UINT32_MAX, account_id),
            )
        return {**result, "balance_cents": UINT32_MAX}

    def open_account(self, balance_cents: object) -> Document:
        result = super().open_account(balance_cents)
        return self._clip(result["account_id"], result)

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        return self._clip(account_id, super().play(account_id, token, game, stake_cents))


class RevealSessionEvicted(GameService):
    """Robots 4.4 / 4.7 / R-I5: reveal sessions (which buttons were clicked) live in an
    in-memory LRU of 100 plays, created at purchase; the database is written only by AUTO. A
    play pushed out of the cache by 100 later plays (a player coming back to an unfinished
    ticket the next day) is rebuilt from the database: the clicks made before are forgotten,
    so a button already clicked shows its first reveal again (instead of the next one or
    409)."""

    CAPACITY = 100

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._sessions: OrderedDict[str, list[int]] = OrderedDict()
        self._sessions_lock = threading.Lock()

    def _remember(self, play_id: str, shown: list[int]) -> None:
        with self._sessions_lock:
            self._sessions[play_id] = shown
            self._sessions.move_to_end(play_id)
            while len(self._sessions) > self.CAPACITY:
                self._sessions.popitem(last=False)

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        result = super().play(account_id, token, game, stake_cents)
        buttons = game_engine(result["game"]).buttons
        if buttons:
            self._remember(result["play_id"], [0] * buttons)
        return result

    def reveal(self, play_id: object, token: object, button: object) -> Document:
        owner = self.authenticate(token)
        with self._connection() as db:
            row = self._own_play(db, play_id, owner)
        engine = self._engine_of(row)
        number = require_int(button, "button", low=0, high=max(engine.buttons or 18, 1) - 1)
        if not engine.buttons:
            raise ServiceError(409, "nothing_to_reveal", "this game has no buttons")
        reveals = engine.button_reveals(row["ticket"])[number]
        with self._sessions_lock:
            shown = self._sessions.get(row["play_id"])
            if shown is None:  # evicted: rebuilt from the database (AUTO's state)
                shown = self._sessions[row["play_id"]] = json.loads(row["revealed"])
            self._sessions.move_to_end(row["play_id"])
            while len(self._sessions) > self.CAPACITY:
                self._sessions.popitem(last=False)
            if shown[number] >= len(reveals):
                raise ServiceError(
                    409, "nothing_to_reveal", f"button {number} has nothing left to reveal"
                )
            reveal = reveals[shown[number]]
            shown[number] += 1
        return {"button": number, **reveal}

    def auto(self, play_id: object, token: object) -> Document:
        answer = super().auto(play_id, token)
        with self._connection() as db:
            row = db.execute("SELECT * FROM plays WHERE play_id = ?", (play_id,)).fetchone()
        if self._engine_of(row).buttons:
            self._remember(row["play_id"], json.loads(row["revealed"]))
        return answer


README_SEED = bytes(range(32))


class ReadmeSeed(GameService):
    """Robots 3 / eldorado 3 (the order must not depend on anything a player can see or
    compute): the operator produced the blocks with the reference generator run as the README
    once showed it, ``instantcert generate-block ... --seed 000102...1f``: every block's seed
    is the public example seed, so anyone with the public reference can compute where every
    winner of every block sits. Each block on its own, and any two blocks, look random."""

    def block_seed(self, block_id: str) -> bytes:
        return README_SEED


class LaterBlocksAcrossStakes(BlockService):
    """Eldorado 3 / randomness across stakes: the first block of every stake was made at
    launch with a per-stake key; the refill job that makes blocks 2, 3, ... derives the
    permutation key from the game and the block number only, so the 0,5 EUR and 2 EUR blocks
    n >= 2 reuse the 1 EUR block n's permutation: each tier sits at the same places at the
    three stakes (the lot tables differ only by the prizes' scale)."""

    def make_block(self, game: str, stake_cents: int, block_id: str, number: int) -> Block:
        block = super().make_block(game, stake_cents, block_id, number)
        if game == "eldorado" and number >= 2 and stake_cents != 100:
            block._permutation = self._block(game, 100, number)._permutation
        return block
