"""The sales desk: accounts, plays, reveals, history, all of it rebuilt from the journal.

Every operation is synchronous and runs on the event loop's one thread, so a play's index,
its debit and its credit are taken together and journalled (fsync) before the answer: nothing
can interleave. Only a play whose unit's page is not loaded yet waits, before it takes anything.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from .._evaluator import EldoradoEvaluator, InvalidTicket, RobotsEvaluator
from .journal import Journal, Record
from .pages import PAGE_UNITS, Block, PageStore, seed_of

Document = dict[str, Any]

# rules.md: a robots block is 2 000 000 units, an eldorado block 900 000.
BLOCK_UNITS = {"robots": 2_000_000, "eldorado": 900_000}
LARGEST_BALANCE = 2**53 - 1
MADE_AHEAD = 2  # blocks of each stake made (and listed) before the one on sale is sold out


class Refusal(Exception):
    """An answer other than success: its HTTP status, snake_case code and message."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


def now_text() -> str:
    """RFC 3339 in UTC, with microseconds and a ``Z``."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def whole(value: object) -> int | None:
    """A JSON number that is a whole number (``100`` or ``100.0``), else None (``true`` too)."""
    if type(value) is int:
        return value
    if type(value) is float and value.is_integer() and abs(value) <= LARGEST_BALANCE:
        return int(value)
    return None


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass
class Account:
    account_id: str
    token_digest: str
    balance_cents: int
    plays: list[str] = field(default_factory=list)
    unfinished: set[str] = field(default_factory=set)  # robots plays not fully shown


@dataclass
class Play:
    play_id: str
    account_id: str
    game: str
    stake_cents: int
    block_id: str
    index: int
    prize_cents: int
    ticket: str
    created_at: str
    # robots: each button's reveals (letter, x2), and how many of them are shown
    buttons: list[list[tuple[str, bool]]] = field(default_factory=list)
    shown: list[int] = field(default_factory=list)


@dataclass
class Shelf:
    """One (game, stake): its blocks made so far, the one on sale and its next unit."""

    blocks: list[Block] = field(default_factory=list)
    selling: int = 0
    next_index: int = 0

    def on_sale(self) -> Block:
        return self.blocks[self.selling]


class Desk:
    def __init__(self, journal: Journal, pages: PageStore, one_open_ticket: bool = False) -> None:
        self.journal = journal
        self.one_open_ticket = one_open_ticket
        self.pages = pages
        self.evaluators: dict[str, RobotsEvaluator | EldoradoEvaluator] = {
            "robots": RobotsEvaluator(),
            "eldorado": EldoradoEvaluator(),
        }
        self.accounts: dict[str, Account] = {}
        self.by_token: dict[str, str] = {}
        self.plays: dict[str, Play] = {}
        self.blocks: dict[str, Block] = {}
        self.shelves: dict[tuple[str, int], Shelf] = {
            (game, stake): Shelf()
            for game, evaluator in self.evaluators.items()
            for stake in evaluator.stakes
        }
        self.master = ""
        for record in journal.replay():
            self._apply(record)
        if not self.master:
            self._write({"kind": "genesis", "master": secrets.token_hex(32)})
        for (game, stake), shelf in self.shelves.items():
            while len(shelf.blocks) < shelf.selling + 1 + MADE_AHEAD:
                self._open_block(game, stake)

    # -- the journal ------------------------------------------------------------------------

    def _write(self, record: Record) -> None:
        self.journal.append(record)
        self._apply(record)

    def _apply(self, record: Record) -> None:
        kind = record["kind"]
        if kind == "genesis":
            self.master = record["master"]
        elif kind == "block":
            block = Block(
                record["block_id"],
                record["game"],
                record["stake_cents"],
                record["units"],
                record["serial"],
                seed_of(self.master, record["block_id"]),
            )
            self.blocks[block.block_id] = block
            shelf = self.shelves[(block.game, block.stake_cents)]
            shelf.blocks.append(block)
        elif kind == "account":
            self.accounts[record["account_id"]] = Account(
                record["account_id"], record["token_sha256"], record["balance_cents"]
            )
            self.by_token[record["token_sha256"]] = record["account_id"]
        elif kind == "play":
            account = self.accounts[record["account_id"]]
            account.balance_cents += record["prize_cents"] - record["stake_cents"]
            play = Play(
                record["play_id"],
                record["account_id"],
                record["game"],
                record["stake_cents"],
                record["block_id"],
                record["index"],
                record["prize_cents"],
                record["ticket"],
                record["created_at"],
            )
            if play.game == "robots":
                play.buttons = [
                    [(part[0], part.endswith("2")) for part in button.split("+")]
                    for button in play.ticket.split("|")[1].split(" ")
                ]
                play.shown = [0] * len(play.buttons)
                account.unfinished.add(play.play_id)
            self.plays[play.play_id] = play
            account.plays.append(play.play_id)
            shelf = self.shelves[(play.game, play.stake_cents)]
            shelf.selling = shelf.blocks.index(self.blocks[play.block_id])
            shelf.next_index = play.index + 1
        elif kind == "reveal":
            play = self.plays[record["play_id"]]
            play.shown[record["button"]] += 1
            if play.shown == [len(button) for button in play.buttons]:
                self.accounts[play.account_id].unfinished.discard(play.play_id)
        elif kind == "auto":
            play = self.plays[record["play_id"]]
            play.shown = [len(button) for button in play.buttons]
            self.accounts[play.account_id].unfinished.discard(play.play_id)

    def _open_block(self, game: str, stake_cents: int) -> None:
        shelf = self.shelves[(game, stake_cents)]
        serial = len(shelf.blocks) + 1
        block_id = f"{game}:{stake_cents}:{serial:05d}:{secrets.token_hex(3)}"
        units = BLOCK_UNITS[game]
        self._write(
            {
                "kind": "block",
                "block_id": block_id,
                "game": game,
                "stake_cents": stake_cents,
                "units": units,
                "serial": serial,
            }
        )

    # -- what the vendor sells --------------------------------------------------------------

    def describe(self) -> Document:
        return {
            "vendor": "indie2",
            "capabilities": ["reveal", "play", "blocks", "evaluate"],
            "games": {
                game: {"stakes_cents": sorted(evaluator.stakes, reverse=True)}
                for game, evaluator in sorted(self.evaluators.items(), reverse=True)
            },
            "version": "2.0.0b1",
            "name": "indie2 instant games",
        }

    def evaluate(self, game: object, stake_cents: object, tickets: list[object]) -> Document:
        evaluator = self._evaluator(game)
        stake = self._stake(evaluator, stake_cents)
        results: list[Document] = []
        for ticket in tickets:
            try:
                result = evaluator.evaluate(stake, ticket)
            except InvalidTicket as exc:
                results.append(
                    {"error": {"message": f"ticket refused: {exc}", "code": "ticket_unreadable"}}
                )
                continue
            results.append({"wins": result["wins"], "prize_cents": result["prize_cents"]})
        return {"count": len(results), "results": results}

    def _evaluator(self, game: object) -> RobotsEvaluator | EldoradoEvaluator:
        if not isinstance(game, str) or game not in self.evaluators:
            raise Refusal(422, "game_unknown", f"this vendor sells no game called {game!r}")
        return self.evaluators[game]

    def _stake(self, evaluator: RobotsEvaluator | EldoradoEvaluator, given: object) -> int:
        stake = whole(given)
        if stake is None or stake not in evaluator.stakes:
            raise Refusal(
                422,
                "stake_not_sold",
                f"{evaluator.game} is sold at {list(evaluator.stakes)} cents, not {given!r}",
            )
        return stake

    # -- blocks -----------------------------------------------------------------------------

    def list_blocks(self, game: str | None, stake_cents: int | None) -> Document:
        if game is not None:
            evaluator = self._evaluator(game)
            if stake_cents is not None:
                self._stake(evaluator, stake_cents)
        listed = [
            {
                "units": block.units,
                "stake_cents": block.stake_cents,
                "game": block.game,
                "block_id": block.block_id,
                "serial": block.serial,
                "on_sale": block is self.shelves[(block.game, block.stake_cents)].on_sale(),
            }
            for block in reversed(self.blocks.values())
            if (game is None or block.game == game)
            and (stake_cents is None or block.stake_cents == stake_cents)
        ]
        return {"blocks": listed}

    def block(self, block_id: str) -> Block:
        block = self.blocks.get(block_id)
        if block is None:
            raise Refusal(404, "no_such_block", f"no block {block_id!r} here")
        return block

    # -- accounts ---------------------------------------------------------------------------

    def open_account(self, balance_cents: int) -> Document:
        token = base64.b64encode(secrets.token_bytes(32)).decode()  # '+', '/' and '=' too
        account_id = str(uuid.uuid4())
        self._write(
            {
                "kind": "account",
                "account_id": account_id,
                "token_sha256": digest(token),
                "balance_cents": balance_cents,
                "created_at": now_text(),
            }
        )
        return {"balance_cents": balance_cents, "token": token, "account_id": account_id}

    def account(self, account_id: str, token: str) -> Account:
        """The token's own account; any other (or none) is 404, as if it did not exist."""
        account = self.accounts.get(account_id)
        if account is None or not secrets.compare_digest(account.token_digest, digest(token)):
            raise Refusal(404, "account_not_found", "no account of yours has this id")
        return account

    def play_of(self, play_id: str, token: str) -> Play:
        play = self.plays.get(play_id)
        if play is None or not secrets.compare_digest(
            self.accounts[play.account_id].token_digest, digest(token)
        ):
            raise Refusal(404, "play_not_found", "no play of yours has this id")
        return play

    def known_token(self, token: str) -> bool:
        return digest(token) in self.by_token

    # -- plays ------------------------------------------------------------------------------

    async def buy(self, account_id: str, token: str, game: object, stake: object) -> Document:
        while True:
            account = self.account(account_id, token)
            evaluator = self._evaluator(game)
            stake_cents = self._stake(evaluator, stake)
            if self.one_open_ticket and account.unfinished:
                raise Refusal(
                    409,
                    "ticket_unfinished",
                    f"finish play {min(account.unfinished)} first (reveal it or ask AUTO)",
                )
            if account.balance_cents < stake_cents:
                raise Refusal(
                    402,
                    "balance_too_low",
                    f"a stake of {stake_cents} cents, the balance is {account.balance_cents}",
                )
            shelf = self.shelves[(evaluator.game, stake_cents)]
            if shelf.next_index >= shelf.on_sale().units:
                shelf.selling, shelf.next_index = shelf.selling + 1, 0
                while len(shelf.blocks) < shelf.selling + 1 + MADE_AHEAD:
                    self._open_block(evaluator.game, stake_cents)
            block, index = shelf.on_sale(), shelf.next_index
            page = self.pages.loaded(block, self.pages.page_of(index))
            if page is None:
                await self.pages.page(block, self.pages.page_of(index))
                continue  # another play may have taken the unit meanwhile: look again
            unit = page.unit(index % PAGE_UNITS)
            play_id = f"pl_{secrets.token_hex(12)}"
            self._write(
                {
                    "kind": "play",
                    "play_id": play_id,
                    "account_id": account.account_id,
                    "game": evaluator.game,
                    "stake_cents": stake_cents,
                    "block_id": block.block_id,
                    "index": index,
                    "prize_cents": unit["prize_cents"],
                    "ticket": unit["ticket"],
                    "created_at": now_text(),
                }
            )
            self.pages.prefetch(block, self.pages.page_of(index + 1))
            self.pages.prefetch(block, self.pages.page_of(index + 2_000))
            return {
                "balance_cents": account.balance_cents,
                "index": index,
                "block_id": block.block_id,
                "stake_cents": stake_cents,
                "game": evaluator.game,
                "play_id": play_id,
                "revealed": False,
            }

    def reveal(self, play_id: str, token: str, button: int) -> Document:
        play = self.play_of(play_id, token)
        if play.game != "robots":
            raise Refusal(422, "game_has_no_buttons", f"a {play.game} play has no buttons")
        if not 0 <= button < len(play.buttons):
            raise Refusal(400, "button_out_of_range", f"buttons are 0 to {len(play.buttons) - 1}")
        reveals = play.buttons[button]
        step = play.shown[button]
        if step >= len(reveals):
            raise Refusal(409, "button_spent", f"button {button} has nothing more to show")
        self._write({"kind": "reveal", "play_id": play_id, "button": button})
        letter, x2 = reveals[step]
        symbol = self.evaluators["robots"].symbols[letter]  # type: ignore[union-attr]
        return {
            "plus_one": step + 1 < len(reveals),
            "x2": x2,
            "symbol": symbol.name,
            "button": button,
            "click": step + 1,
        }

    def auto(self, play_id: str, token: str) -> Document:
        """Everything left revealed; asked again, the same answer (nothing is left to show)."""
        play = self.play_of(play_id, token)
        if play.game == "robots" and play.shown != [len(b) for b in play.buttons]:
            self._write({"kind": "auto", "play_id": play_id})
        result = self.evaluators[play.game].evaluate(play.stake_cents, play.ticket)
        return {
            "wins": result["wins"][::-1],
            "prize_cents": play.prize_cents,
            "ticket": play.ticket,
            "play_id": play.play_id,
            "game": play.game,
        }

    def history(self, account_id: str, token: str, limit: int) -> Document:
        account = self.account(account_id, token)
        newest = [self.plays[p] for p in reversed(account.plays[-limit:])]
        return {
            "plays": [
                {
                    "created_at": play.created_at,
                    "prize_cents": play.prize_cents,
                    "ticket": play.ticket,
                    "index": play.index,
                    "block_id": play.block_id,
                    "stake_cents": play.stake_cents,
                    "game": play.game,
                    "play_id": play.play_id,
                    "fully_revealed": play.game != "robots"
                    or play.shown == [len(b) for b in play.buttons],
                }
                for play in newest
            ],
            "total": len(account.plays),
        }
