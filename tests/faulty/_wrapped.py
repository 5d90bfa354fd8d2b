"""Deliberately broken adapters: the reference adapter wrapped (``Wrapper``) or subclassed,
one fault each, named in its docstring.

The play checks' tests (tests/conformance/test_play_checks.py) run the ``Wrapper`` faults,
and the ``GameService`` faults of ``_faults.py`` where a wrapper would break the same thing
(one fault, one class), each failing exactly the requirements it breaks; the runner and
report tests (tests/harness/) run the ``ReferenceAdapter`` subclasses at the end, a broken
rule (``BrokenX2Adapter``) and targets that misbehave rather than being wrong.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

import reference
import reference.robots
from contract import ErrorReply, ProtocolViolation, TargetTimeout, TargetUnreachable
from harness._reference_adapter import ReferenceAdapter

from ._base import Delegating

Document = dict[str, Any]


# -- the play faults: the reference adapter wrapped --------------------------------------------


class Wrapper(Delegating):
    """The reference adapter, passed through; subclasses break one thing. ``offset`` is the
    money a fault moved on an account: every balance it answers is shifted by it."""

    def __init__(self, inner: ReferenceAdapter) -> None:
        super().__init__(inner, f"faulty:{type(self).__name__}")
        self.tokens: dict[str, str] = {}  # account -> token
        self.offset: dict[str, int] = {}  # account -> cents the fault moved

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def open_account(self, balance_cents: int) -> Document:
        doc = self.inner.open_account(balance_cents)
        self.tokens[doc["account_id"]] = doc["token"]
        return doc

    def balance(self, account_id: str, token: str | None) -> Document:
        doc = self.inner.balance(account_id, token)
        return {**doc, "balance_cents": doc["balance_cents"] + self.offset.get(account_id, 0)}

    def play(self, account_id: str, token: str | None, game: str, stake_cents: int) -> Document:
        doc = self.inner.play(account_id, token, game, stake_cents)
        self.after_play(account_id, doc)
        return {**doc, "balance_cents": doc["balance_cents"] + self.offset.get(account_id, 0)}

    def after_play(self, account_id: str, doc: Document) -> None:
        pass

    def prize(self, account_id: str, play_id: str) -> int:
        plays = self.inner.history(account_id, self.tokens[account_id], 5)["plays"]
        return int(next(p["prize_cents"] for p in plays if p["play_id"] == play_id))


class RevealInClickOrder(Wrapper):
    """Each button keeps its number of clicks and its +1s, but the symbols come from the
    ticket read button after button, in the order of the clicks."""

    def __init__(self, inner: ReferenceAdapter) -> None:
        super().__init__(inner)
        self.owner: dict[str, str] = {}
        self.clicks: dict[str, list[int]] = {}

    def after_play(self, account_id: str, doc: Document) -> None:
        self.owner[doc["play_id"]] = account_id

    def reveal(self, play_id: str, token: str | None, button: int) -> Document:
        account = self.owner[play_id]
        plays = self.inner.history(account, token, None)["plays"]  # the whole listing
        entry = next(p for p in plays if p["play_id"] == play_id)
        if entry["game"] != "robots" or not 0 <= button < 18:  # refused as the reference does
            return self.inner.reveal(play_id, token, button)
        ticket = entry["ticket"]
        parsed = reference.parse_ticket("robots", ticket)
        assert isinstance(parsed, reference.robots.RobotsTicket)
        clicks = self.clicks.setdefault(play_id, [])
        if clicks.count(button) >= len(parsed.buttons[button]):
            raise ErrorReply(409, "nothing_to_reveal", f"button {button} has nothing left")
        flat = [r for reveals in parsed.buttons for r in reveals]
        shown = flat[len(clicks)]
        plus_one = parsed.buttons[button][clicks.count(button)].plus_one
        clicks.append(button)
        name = reference.robots.robots_rules().symbol(shown.symbol).name
        return {"button": button, "symbol": name, "x2": shown.x2, "plus_one": plus_one}

    def auto(self, play_id: str, token: str | None) -> Document:
        """AUTO reveals the rest, as the reference's does: no button has anything left."""
        done = dict(self.inner.auto(play_id, token))
        self.clicks[play_id] = [b for b in range(18) for _ in range(64)]
        return done


class PlusOneRefused(Wrapper):
    """The click a +1 allows is refused."""

    def __init__(self, inner: ReferenceAdapter) -> None:
        super().__init__(inner)
        self.plus: set[tuple[str, int]] = set()

    def reveal(self, play_id: str, token: str | None, button: int) -> Document:
        if (play_id, button) in self.plus:
            raise ErrorReply(409, "nothing_to_reveal", "nothing left (wrongly)")
        doc = self.inner.reveal(play_id, token, button)
        if doc["plus_one"]:
            self.plus.add((play_id, button))
        return doc


class HouseCoversStake(Wrapper):
    """A play the balance cannot pay is sold anyway, the balance going below zero."""

    def __init__(self, inner: ReferenceAdapter) -> None:
        super().__init__(inner)
        self.house: Document | None = None

    def play(self, account_id: str, token: str | None, game: str, stake_cents: int) -> Document:
        try:
            return super().play(account_id, token, game, stake_cents)
        except ErrorReply as reply:
            if reply.status != 402:
                raise
        if self.house is None:
            self.house = self.inner.open_account(10**9)
        doc = self.inner.play(self.house["account_id"], self.house["token"], game, stake_cents)
        self.offset[account_id] = self.offset.get(account_id, 0) - stake_cents
        balance = self.balance(account_id, token)["balance_cents"]
        return {**doc, "balance_cents": balance}


class RefusalCharges(Wrapper):
    """A refused play still takes a cent."""

    def play(self, account_id: str, token: str | None, game: str, stake_cents: int) -> Document:
        try:
            return super().play(account_id, token, game, stake_cents)
        except ErrorReply as reply:
            if reply.status in (402, 422):
                self.offset[account_id] = self.offset.get(account_id, 0) - 1
            raise


def _swap(index: int) -> int:
    return index ^ 1


class PairsSwapped(Wrapper):
    """Sells units 1, 0, 3, 2, ...: the served block is relabelled to match, so each play is
    still the unit at its (block_id, index); only the order is wrong."""

    def play(self, account_id: str, token: str | None, game: str, stake_cents: int) -> Document:
        doc = super().play(account_id, token, game, stake_cents)
        return {**doc, "index": _swap(doc["index"])}

    def history(self, account_id: str, token: str | None, limit: int | None = None) -> Document:
        plays = self.inner.history(account_id, token, limit)["plays"]
        return {"plays": [{**p, "index": _swap(p["index"])} for p in plays]}

    def read_block(self, block_id: str, start: int | None = None, count: int | None = None) -> Any:
        return Relabelled(self.inner, block_id, start, count, _swap)


class BlockShifted(Wrapper):
    """Serves a block whose unit i is the unit i + 1 it sells."""

    def read_block(self, block_id: str, start: int | None = None, count: int | None = None) -> Any:
        return Relabelled(self.inner, block_id, start, count, lambda i: i + 1)


class Relabelled:
    """A block slice whose line for index i holds the inner block's unit ``source(i)``."""

    def __init__(
        self,
        inner: ReferenceAdapter,
        block_id: str,
        start: int | None,
        count: int | None,
        source: Any,
    ) -> None:
        first = start or 0
        size = count if count is not None else 0
        stream = inner.read_block(block_id, max(0, first - 1), size + 2)
        self.header = {**stream.header, "start": first, "count": size}
        units = {u["index"]: u for u in map(json.loads, stream.lines())}
        stream.close()
        self._lines = [
            json.dumps({**units[source(i)], "index": i}).encode()
            for i in range(first, first + size)
            if source(i) in units
        ]

    def lines(self) -> Iterator[bytes]:
        return iter(self._lines)

    def close(self) -> None:
        pass


# -- the runner's and reports' faults: the reference adapter subclassed --------------------


class BrokenX2Adapter(ReferenceAdapter):
    """A robots implementation that counts an X2 reveal as one notch (breaks robots 4.6)."""

    def evaluate(self, game: str, stake_cents: int, tickets: Sequence[str]) -> list[dict[str, Any]]:
        if game != "robots":
            return super().evaluate(game, stake_cents, tickets)
        plain = [t.replace("2", "") for t in tickets]
        return super().evaluate(game, stake_cents, plain)


class SlowEvaluateAdapter(ReferenceAdapter):
    """Never answers an evaluation in time: the target misbehaves (error), it is not wrong."""

    def evaluate(self, game: str, stake_cents: int, tickets: Sequence[str]) -> list[dict[str, Any]]:
        raise TargetTimeout("POST /v1/evaluate: no answer within 0.5 s")


class GarbageDescribeAdapter(ReferenceAdapter):
    """Answers describe() outside the contract: the adapter is broken, not the rules."""

    def describe(self) -> dict[str, Any]:
        return {"name": "x", "version": "1", "games": ["robots"], "capabilities": []}


class ViolatingAdapter(ReferenceAdapter):
    """Answers describe() with a body that is no JSON: a protocol violation, not a wrong rule."""

    def describe(self) -> dict[str, Any]:
        raise ProtocolViolation("GET /v1/implementation: 200 with body b'<html>'")


class UnreachableAdapter(ReferenceAdapter):
    """Cannot be reached at all: every requirement is *error*, none is failed."""

    def describe(self) -> dict[str, Any]:
        raise TargetUnreachable("connection refused at http://127.0.0.1:9")
