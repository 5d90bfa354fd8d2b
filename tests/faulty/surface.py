"""The contract's surface, and which of it a certification run tries.

``surface(describe)`` lists every element a vendor serves, from the contract (docs and
``contract/``): each operation at each (game, stake) the target declares, each robots button
0..17 (clicked at all, clicked first on a ticket, clicked again after a +1), each class of a
history ``limit`` (absent, 1, below, at and above the account's number of plays, an account
with none), batch sizes at their bounds (1 and 1 000 tickets; 0 and 1 001, refused), a block
read whole, from its start, from inside it, past its end, AUTO on a ticket untouched, half
revealed and revealed to its end, and each 4xx status the contract names as an operation
met it. ``Recording(adapter)`` is a ``Delegating`` adapter that notes, for each call the
suite makes to the target, the elements it tries: ``tried`` is their multiset.

``tests/faulty/test_round13_surface.py`` certifies the reference through it and fails when an
element is never tried, so a change that silently stops trying a surface is seen;
``docs/coverage.md`` is the table it keeps (quick and full runs).
"""

from __future__ import annotations

import contextlib
import threading
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from contract import EVALUATE_BATCH_LIMIT, ErrorReply

from ._base import Delegating

Document = dict[str, Any]

#: robots' 18 buttons (contract 4: ``{"button": 0..17}``)
BUTTONS = tuple(range(18))
#: the statuses of section 4's refusals, per operation that can meet them (an element each)
REFUSALS: dict[str, tuple[int, ...]] = {
    "evaluate": (400, 422),
    "open_account": (400,),
    "balance": (401, 404),
    "play": (400, 401, 402, 404, 422),
    "reveal": (400, 401, 404, 409),
    "auto": (401, 404),
    "history": (401, 404),
    "read_block": (404,),
}

HISTORY_CLASSES = (
    "history limit absent",
    "history limit 1",
    "history limit below the plays",
    "history limit at the plays",
    "history limit above the plays",
    "history of an account with no play",
    "history of an account with plays of every pair",
    "history listing a ticket untouched",
    "history listing a ticket half revealed",
    "history listing a ticket revealed to its end, no AUTO",
    "history listing a ticket finished by AUTO",
)
AUTO_CLASSES = (
    "auto of a ticket untouched",
    "auto of a ticket half revealed",
    "auto of a ticket revealed to its end",
    "auto asked again",
)
READ_CLASSES = (
    "read_block whole",
    "read_block from unit 0",
    "read_block from inside",
    "read_block up to the end",
    "read_block past the end",
)
BATCH_CLASSES = (
    "evaluate 1 ticket",
    "evaluate 2 to 999 tickets",
    f"evaluate {EVALUATE_BATCH_LIMIT} tickets",
    "evaluate 0 tickets (refused)",
    f"evaluate {EVALUATE_BATCH_LIMIT + 1} tickets (refused)",
    "evaluate a batch holding a ticket twice",
)


def pairs_of(describe: Mapping[str, Any]) -> list[tuple[str, int]]:
    """The (game, stake) pairs ``describe`` (``GET /v1/implementation``) declares."""
    return [
        (game, int(stake))
        for game, entry in sorted(describe["games"].items())
        for stake in entry["stakes_cents"]
    ]


def surface(describe: Mapping[str, Any], buttons_game: str = "robots") -> list[str]:
    """Every element of the contract's surface for a target declaring ``describe``."""
    pairs = pairs_of(describe)
    elements = ["describe"]
    for game, stake in pairs:
        elements += [
            f"evaluate {game} {stake}",
            f"evaluate an invalid ticket {game} {stake}",
            f"evaluate 1 ticket {game} {stake}",
            f"evaluate {EVALUATE_BATCH_LIMIT} tickets {game} {stake}",
            f"list_blocks {game} {stake}",
            f"read_block {game} {stake}",
            f"play {game} {stake}",
            f"play {game} {stake}: an account's first play",
            f"play {game} {stake}: an account's later play",
            f"play {game} {stake} refused 402",
            f"play {game} {stake} refused 401",
            f"play {game} {stake} refused 404",
            f"auto {game} {stake} refused 401",
            f"auto {game} {stake} refused 404",
            f"evaluate 0 tickets (refused) {game} {stake}",
            f"evaluate {EVALUATE_BATCH_LIMIT + 1} tickets (refused) {game} {stake}",
            f"auto {game} {stake}",
            f"history lists {game} {stake}",
        ]
    elements += list(BATCH_CLASSES) + list(READ_CLASSES)
    elements += ["open_account", "balance"]
    if buttons_game in {g for g, _ in pairs}:
        for button in BUTTONS:
            elements += [
                f"reveal button {button}",
                f"reveal button {button} first on its ticket",
                f"reveal button {button} again after a +1",
                f"reveal button {button} with nothing left (409)",
            ]
        elements += ["reveal the click that ends a ticket", "reveal button out of range (400)"]
    elements += list(AUTO_CLASSES) + list(HISTORY_CLASSES)
    for operation, statuses in REFUSALS.items():
        if operation == "reveal" and buttons_game not in {g for g, _ in pairs}:
            continue
        elements += [f"{operation} refused {status}" for status in statuses]
    return elements


class Recording(Delegating):
    """``inner`` with every call the suite makes noted as the surface elements it tries."""

    def __init__(self, inner: Any, name: str = "surface:recording") -> None:
        super().__init__(inner, name)
        self.tried: Counter[str] = Counter()
        self.calls: Counter[str] = Counter()  # operation -> requests sent
        self._lock = threading.RLock()
        self._blocks: dict[str, tuple[str, int, int]] = {}  # block id -> game, stake, units
        self._tokens: dict[str, str] = {}  # account id -> token
        self._plays: dict[str, int] = {}  # account id -> plays bought
        self._pairs: dict[str, set[tuple[str, int]]] = {}  # account id -> pairs played
        self._tickets: dict[str, dict[str, Any]] = {}  # play id -> what was revealed of it
        self._declared: list[tuple[str, int]] = []

    def _note(self, *elements: str) -> None:
        with self._lock:
            self.tried.update(elements)

    def _count(self, operation: str) -> None:
        with self._lock:
            self.calls[operation] += 1

    def _refused(self, operation: str, exc: ErrorReply) -> None:
        self._note(f"{operation} refused {exc.status}")

    # -- the operations -----------------------------------------------------------------------

    def describe(self) -> Document:
        self._count("describe")
        answer = super().describe()
        self._note("describe")
        with contextlib.suppress(KeyError, TypeError, ValueError, AttributeError):
            self._declared = pairs_of(answer)
        return answer

    def evaluate(self, game: str, stake_cents: int, tickets: Sequence[str]) -> list[Document]:
        self._count("evaluate")
        try:
            results = super().evaluate(game, stake_cents, tickets)
        except ErrorReply as exc:
            self._refused("evaluate", exc)
            raise
        self._batch(len(tickets), f"{game} {stake_cents}")
        self._note(f"evaluate {game} {stake_cents}")
        if len(set(tickets)) < len(tickets):
            self._note("evaluate a batch holding a ticket twice")
        if any(isinstance(r, dict) and "error" in r for r in results):
            self._note(f"evaluate an invalid ticket {game} {stake_cents}")
        return results

    def _batch(self, size: int, pair: str) -> None:
        for first in range(0, size, EVALUATE_BATCH_LIMIT):  # as an HTTP adapter chunks it
            part = min(EVALUATE_BATCH_LIMIT, size - first)
            if part == 1:
                what = "evaluate 1 ticket"
            elif part == EVALUATE_BATCH_LIMIT:
                what = f"evaluate {EVALUATE_BATCH_LIMIT} tickets"
            else:
                what = "evaluate 2 to 999 tickets"
            self._note(what, f"{what} {pair}")

    def evaluate_once(self, game: object, stake_cents: object, tickets: object) -> list[Document]:
        self._count("evaluate")
        size = len(tickets) if isinstance(tickets, list) else None
        try:
            results: list[Document] = self.inner.evaluate_once(game, stake_cents, tickets)
        except ErrorReply as exc:
            self._refused("evaluate", exc)
            if size == 0:
                what = "evaluate 0 tickets (refused)"
                self._note(what, f"{what} {game} {stake_cents}")
            elif size == EVALUATE_BATCH_LIMIT + 1:
                what = f"evaluate {EVALUATE_BATCH_LIMIT + 1} tickets (refused)"
                self._note(what, f"{what} {game} {stake_cents}")
            raise
        if size is not None and isinstance(game, str) and isinstance(stake_cents, int):
            self._batch(size, f"{game} {stake_cents}")
            self._note(f"evaluate {game} {stake_cents}")
        return results

    def list_blocks(self, game: str, stake_cents: int) -> list[Document]:
        self._count("list_blocks")
        blocks = super().list_blocks(game, stake_cents)
        self._note(f"list_blocks {game} {stake_cents}")
        with self._lock:
            for entry in blocks:
                with contextlib.suppress(KeyError, TypeError, ValueError):
                    self._blocks[str(entry["block_id"])] = (
                        str(entry["game"]),
                        int(entry["stake_cents"]),
                        int(entry["units"]),
                    )
        return blocks

    def read_block(self, block_id: str, start: int | None = None, count: int | None = None) -> Any:
        self._count("read_block")
        known = self._blocks.get(block_id)
        if known is not None:
            game, stake, units = known
            self._note(f"read_block {game} {stake}")
            first = start or 0
            if start is None and count is None:
                self._note("read_block whole", "read_block up to the end")
            elif first >= units:
                self._note("read_block past the end")
            else:
                self._note("read_block from unit 0" if first == 0 else "read_block from inside")
                end = units if count is None else first + count
                if end == units:
                    self._note("read_block up to the end")
                elif end > units:
                    self._note("read_block past the end")
        try:
            return super().read_block(block_id, start, count)
        except ErrorReply as exc:
            self._refused("read_block", exc)
            raise

    def open_account(self, balance_cents: int) -> Document:
        self._count("open_account")
        try:
            account = super().open_account(balance_cents)
        except ErrorReply as exc:
            self._refused("open_account", exc)
            raise
        self._note("open_account")
        with self._lock:
            self._tokens[str(account.get("account_id"))] = str(account.get("token"))
        return account

    def balance(self, account_id: str, token: str | None) -> Document:
        self._count("balance")
        try:
            answer = super().balance(account_id, token)
        except ErrorReply as exc:
            self._refused("balance", exc)
            raise
        self._note("balance")
        return answer

    def play(self, account_id: str, token: str | None, game: str, stake_cents: int) -> Document:
        self._count("play")
        try:
            bought = super().play(account_id, token, game, stake_cents)
        except ErrorReply as exc:
            self._refused("play", exc)
            self._note(f"play {game} {stake_cents} refused {exc.status}")
            raise
        with self._lock:
            made = self._plays.get(account_id, 0)
            self._plays[account_id] = made + 1
            self._pairs.setdefault(account_id, set()).add((game, stake_cents))
            self._tickets[str(bought.get("play_id"))] = {
                "account": account_id,
                "game": game,
                "stake": stake_cents,
                "clicks": 0,
                "done": False,
                "ended": set(),
                "plus": set(),
            }
        order = "an account's first play" if made == 0 else "an account's later play"
        self._note(f"play {game} {stake_cents}", f"play {game} {stake_cents}: {order}")
        return bought

    def reveal(self, play_id: str, token: str | None, button: int) -> Document:
        self._count("reveal")
        ticket = self._tickets.get(play_id)
        try:
            answer = super().reveal(play_id, token, button)
        except ErrorReply as exc:
            self._refused("reveal", exc)
            if exc.status == 409 and isinstance(button, int):
                self._note(f"reveal button {button} with nothing left (409)")
            if exc.status == 400 and not (isinstance(button, int) and 0 <= button < 18):
                self._note("reveal button out of range (400)")
            raise
        self._note(f"reveal button {button}")
        if ticket is not None:
            with self._lock:
                if ticket["clicks"] == 0:
                    self._note(f"reveal button {button} first on its ticket")
                if button in ticket["plus"]:
                    self._note(f"reveal button {button} again after a +1")
                ticket["clicks"] += 1
                if answer.get("plus_one"):
                    ticket["plus"].add(button)
                else:
                    ticket["plus"].discard(button)
                    ticket["ended"].add(button)
                if len(ticket["ended"]) == len(BUTTONS):
                    self._note("reveal the click that ends a ticket")
        return answer

    def auto(self, play_id: str, token: str | None) -> Document:
        self._count("auto")
        ticket = self._tickets.get(play_id)
        try:
            answer = super().auto(play_id, token)
        except ErrorReply as exc:
            self._refused("auto", exc)
            if ticket is not None:
                self._note(f"auto {ticket['game']} {ticket['stake']} refused {exc.status}")
            raise
        if ticket is not None:
            with self._lock:
                self._note(f"auto {ticket['game']} {ticket['stake']}")
                if ticket["done"]:
                    self._note("auto asked again")
                elif len(ticket["ended"]) == len(BUTTONS):
                    self._note("auto of a ticket revealed to its end")
                elif ticket["clicks"]:
                    self._note("auto of a ticket half revealed")
                else:
                    self._note("auto of a ticket untouched")
                ticket["done"] = True
        return answer

    def history(self, account_id: str, token: str | None, limit: int | None = None) -> Document:
        self._count("history")
        with self._lock:
            made = self._plays.get(account_id, 0)
            pairs = set(self._pairs.get(account_id, set()))
        try:
            answer = super().history(account_id, token, limit)
        except ErrorReply as exc:
            self._refused("history", exc)
            raise
        notes = []
        if made == 0:
            notes.append("history of an account with no play")
        if self._declared and pairs >= set(self._declared):
            notes.append("history of an account with plays of every pair")
        if limit is None:
            notes.append("history limit absent")
        elif limit == 1:
            notes.append("history limit 1")
        if isinstance(limit, int) and made > 0:
            if limit < made:
                notes.append("history limit below the plays")
            elif limit == made:
                notes.append("history limit at the plays")
            else:
                notes.append("history limit above the plays")
        for entry in answer.get("plays", []) if isinstance(answer, dict) else []:
            if isinstance(entry, dict):
                notes.append(f"history lists {entry.get('game')} {entry.get('stake_cents')}")
                ticket = self._tickets.get(str(entry.get("play_id")))
                if ticket is not None:
                    notes.append(f"history listing {_state(ticket)}")
        self._note(*notes)
        return answer


def _state(ticket: Mapping[str, Any]) -> str:
    """What was revealed of a bought ticket, as the history classes name it."""
    if ticket["done"]:
        return "a ticket finished by AUTO"
    if len(ticket["ended"]) == len(BUTTONS):
        return "a ticket revealed to its end, no AUTO"
    if ticket["clicks"]:
        return "a ticket half revealed"
    return "a ticket untouched"


def untried(elements: Sequence[str], tried: Mapping[str, int]) -> list[str]:
    """The elements of ``elements`` no call tried."""
    return [e for e in elements if not tried.get(e)]
