"""Correct implementations written differently from the reference: the suite must certify them.

- ``independent``: evaluation by ``_evaluator`` (its own reading of the rules YAML, no call
  into ``reference``), the robots reveal protocol and AUTO kept by the adapter itself (its own
  state, its own token checks);
- ``other_generator``: blocks made by another generator (a numpy shuffle of the lot table,
  scenarios drawn by the simple maker below), sold and served by the reference service.

A suite that rejected either would be rejecting the rules' freedom, not a fault.
"""

from __future__ import annotations

import hashlib
import random
import threading
import uuid
from collections.abc import Iterator
from typing import Any

import numpy as np

import reference
import reference.robots
from harness._errors import ErrorReply
from reference._blocks import Block, Unit
from reference._service import GameService

from ._base import Delegating, EvaluatorAdapter, reference_adapter
from ._evaluator import EldoradoEvaluator, RobotsEvaluator, rules_yaml
from ._faults import BlockService

Document = dict[str, Any]


# == independent: evaluation, reveal protocol ==================================================


class OwnRevealProtocol(EvaluatorAdapter):
    """Reveal and AUTO kept here: per play, how many reveals each button has shown."""

    def __init__(self, inner: Any, name: str) -> None:
        super().__init__(inner, name, [RobotsEvaluator(), EldoradoEvaluator()])
        self._accounts: dict[str, str] = {}  # token -> account id
        self._plays: dict[str, Document] = {}  # play id -> {account, game, stake, ticket?}
        self._shown: dict[str, list[int]] = {}
        self._lock = threading.Lock()

    def open_account(self, balance_cents: int) -> Document:
        account = super().open_account(balance_cents)
        with self._lock:
            self._accounts[account["token"]] = account["account_id"]
        return account

    def play(self, account_id: str, token: str | None, game: str, stake_cents: int) -> Document:
        result = super().play(account_id, token, game, stake_cents)
        with self._lock:
            self._plays[result["play_id"]] = {
                "account": account_id,
                "token": token,
                "game": result["game"],
                "stake": result["stake_cents"],
            }
        return result

    def _own(self, play_id: str, token: str | None) -> Document:
        if not token or token not in self._accounts:
            raise ErrorReply(401, "unauthorized", "this call needs the account's token")
        play = self._plays.get(play_id) if isinstance(play_id, str) else None
        if play is None or self._accounts[token] != play["account"]:
            raise ErrorReply(404, "not_found", f"no play {play_id!r} for this token")
        if "ticket" not in play:
            history = super().history(play["account"], play["token"])["plays"]
            play["ticket"] = next(p["ticket"] for p in history if p["play_id"] == play_id)
        return play

    def reveal(self, play_id: str, token: str | None, button: int) -> Document:
        with self._lock:
            play = self._own(play_id, token)
            if type(button) is not int or not 0 <= button < 18:
                raise ErrorReply(400, "malformed_request", f"button {button!r}: 0 to 17")
            if play["game"] != "robots":
                raise ErrorReply(409, "nothing_to_reveal", "an eldorado play has no buttons")
            robots = self.evaluators["robots"]
            assert isinstance(robots, RobotsEvaluator)
            buttons = robots.parse(play["ticket"])[1]
            shown = self._shown.setdefault(play_id, [0] * len(buttons))
            if shown[button] >= len(buttons[button]):
                raise ErrorReply(409, "nothing_to_reveal", f"button {button} is all revealed")
            click = buttons[button][shown[button]]
            shown[button] += 1
        return {
            "button": button,
            "symbol": robots.symbols[click.letter].name,
            "x2": click.x2,
            "plus_one": shown[button] < len(buttons[button]),
        }

    def auto(self, play_id: str, token: str | None) -> Document:
        with self._lock:
            play = self._own(play_id, token)
            self._shown.pop(play_id, None)
            self._shown[play_id] = [99] * 18
        result = self.evaluators[play["game"]].evaluate(play["stake"], play["ticket"])
        return {"play_id": play_id, "ticket": play["ticket"], **result}


def independent() -> OwnRevealProtocol:
    """Independent evaluation and reveal protocol over the reference's sales and blocks."""
    name = "correct:independent"
    return OwnRevealProtocol(reference_adapter(name=name), name)


# == other_generator: another block generator ==================================================


class SimpleMaker:
    """Scenarios for a prize, drawn its own way: robots fill the winning gauges exactly and the
    others short of full; eldorado puts the winning combination on one row, the rest losing,
    sometimes with one EXTRA and its (losing) Extra grid."""

    def __init__(self, game: str, stake_cents: int) -> None:
        self.game = game
        self.stake = stake_cents
        if game == "robots":
            data = rules_yaml("robots")
            self.gauges = {s["letter"]: int(s["gauge_notches"]) for s in data["symbols"]["list"]}
            self.amounts = {s["letter"]: int(s["amount_cents"]) for s in data["symbols"]["list"]}
            letters = sorted(self.gauges)
            self.ways: dict[int, list[tuple[str, ...]]] = {}
            for mask in range(1 << len(letters)):
                subset = tuple(x for k, x in enumerate(letters) if mask >> k & 1)
                self.ways.setdefault(sum(self.amounts[x] for x in subset), []).append(subset)
        else:
            data = rules_yaml("eldorado")
            self.paying = [s["letter"] for s in data["symbols"]["list"] if s["paying"]]
            self.extra = next(s["letter"] for s in data["symbols"]["list"] if not s["paying"])
            self.combos = {
                int(c["amount_cents"][stake_cents]): (c["symbol"], int(c["count"]))
                for c in data["paytable"]["combinations"]
            }

    def __call__(self, prize: int, rng: random.Random) -> str:
        return self._robots(prize, rng) if self.game == "robots" else self._eldorado(prize, rng)

    def _robots(self, prize: int, rng: random.Random) -> str:
        while True:  # the losing gauges may run out of room before 18 reveals: draw again
            ticket = self._robots_draw(prize, rng)
            if ticket is not None:
                return ticket

    def _robots_draw(self, prize: int, rng: random.Random) -> str | None:
        winners = rng.choice(self.ways[prize])
        reveals: list[str] = []
        for letter in winners:
            left = self.gauges[letter]
            while left > 0:
                doubled = left >= 2 and rng.random() < 0.3
                reveals.append(letter + ("2" if doubled else ""))
                left -= 2 if doubled else 1
        room = {x: n - 1 for x, n in self.gauges.items() if x not in winners}
        wanted = 18 + rng.randrange(3)
        while len(reveals) < wanted:
            open_ = [x for x, n in room.items() if n > 0]
            if not open_:
                return None
            letter = rng.choice(open_)
            doubled = room[letter] >= 2 and rng.random() < 0.05
            reveals.append(letter + ("2" if doubled else ""))
            room[letter] -= 2 if doubled else 1
        rng.shuffle(reveals)
        buttons = [[r] for r in reveals[:18]]
        for extra in reveals[18:]:
            buttons[rng.randrange(18)].append(extra)
        robots = list(self.gauges)
        rng.shuffle(robots)
        return "".join(robots) + "|" + " ".join("+".join(b) for b in buttons)

    def _losing_row(self, rng: random.Random, extras: int = 0) -> str:
        while True:
            cells = [rng.choice(self.paying) for _ in range(5 - extras)] + [self.extra] * extras
            if max(cells.count(x) for x in self.paying) <= 3:
                rng.shuffle(cells)
                return "".join(cells)

    def _eldorado(self, prize: int, rng: random.Random) -> str:
        rows = [self._losing_row(rng) for _ in range(3)]
        if prize:
            letter, count = self.combos[prize]
            cells = [letter] * count
            while len(cells) < 5:
                cells.append(rng.choice([x for x in self.paying if x != letter]))
            rng.shuffle(cells)
            rows[rng.randrange(3)] = "".join(cells)
        grids = ["/".join(rows)]
        losing = [r for r in range(3) if rows[r].count(max(rows[r], key=rows[r].count)) <= 3]
        if losing and rng.random() < 0.2:
            rows[rng.choice(losing)] = self._losing_row(rng, extras=1)
            grids = ["/".join(rows), "/".join(self._losing_row(rng) for _ in range(3))]
        return "|".join(grids)


class OtherGeneratorBlock(Block):
    """A block laid out by a numpy shuffle of the lot table, scenarios by ``SimpleMaker``."""

    def __init__(self, game: str, stake_cents: int, block_id: str, seed: bytes) -> None:
        super().__init__(game, stake_cents, block_id, seed)
        table = reference.load_rules(game).lot_table(stake_cents)
        prizes = np.zeros(self.units, dtype=np.int64)
        at = 0
        for lot in table.lots:
            prizes[at : at + lot.units] = lot.prize_cents
            at += lot.units
        generator = np.random.Generator(np.random.PCG64(int.from_bytes(seed, "big")))
        self._layout = generator.permutation(prizes)
        self._make = SimpleMaker(game, stake_cents)

    def prize_cents(self, index: int) -> int:
        return int(self._layout[self._check_index(index)])

    def _unit(self, index: int) -> Unit:
        digest = hashlib.blake2b(index.to_bytes(8, "big"), key=self.seed, digest_size=16)
        rng = random.Random(int.from_bytes(digest.digest(), "big"))
        prize = int(self._layout[index])
        return Unit(index, prize, self._make(prize, rng))

    def unit(self, index: int) -> Unit:
        return self._unit(self._check_index(index))

    def _lines(self, first: int, size: int) -> list[bytes]:
        return [self._unit(i).to_json_line() + b"\n" for i in range(first, first + size)]

    def header(self, start: int = 0, count: int | None = None) -> dict[str, Any]:
        header = super().header(start, count)
        header["generator"] = {"name": "tests-faulty-other-generator", "version": "1"}
        return header

    def document_lines(self, start: int = 0, count: int | None = None) -> Iterator[bytes]:
        first, size = self.check_slice(start, count)
        yield self.header_line(first, size)
        for at in range(first, first + size, 1024):
            yield from self._lines(at, min(1024, first + size - at))


class OtherGeneratorService(BlockService):
    block_class = OtherGeneratorBlock
    fault_on = tuple((g, s) for g in reference.GAMES for s in reference.load_rules(g).stakes_cents)


def other_generator() -> Delegating:
    """The reference service selling and serving blocks of another generator."""
    adapter = reference_adapter(OtherGeneratorService, "correct:other_generator")
    return Delegating(adapter, "correct:other_generator")


# == other_formats: other ids and tokens, extra fields, letters in reveals ======================


class OtherFormatsService(GameService):
    """Correct, written differently: UUID4 account ids and tokens, plain-hex play ids, extra
    fields in every answer, and a reveal that gives the symbol's letter, not its name."""

    def open_account(self, balance_cents: object) -> Document:
        account = super().open_account(balance_cents)
        account_id, token = str(uuid.uuid4()), str(uuid.uuid4())
        with self._transaction() as db:
            db.execute(
                "UPDATE accounts SET account_id = ?, token_sha256 = ? WHERE account_id = ?",
                (account_id, hashlib.sha256(token.encode()).hexdigest(), account["account_id"]),
            )
        return {**account, "account_id": account_id, "token": token, "currency": "EUR"}

    def balance(self, account_id: object, token: object) -> Document:
        return {**super().balance(account_id, token), "currency": "EUR"}

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        result = super().play(account_id, token, game, stake_cents)
        play_id = uuid.uuid4().hex
        with self._transaction() as db:
            db.execute(
                "UPDATE plays SET play_id = ? WHERE play_id = ?", (play_id, result["play_id"])
            )
        return {**result, "play_id": play_id, "currency": "EUR", "revealed": False}

    def reveal(self, play_id: object, token: object, button: object) -> Document:
        answer = super().reveal(play_id, token, button)
        letter = next(
            s.letter for s in reference.robots.robots_rules().symbols if s.name == answer["symbol"]
        )
        return {**answer, "symbol": letter, "play_id": play_id}

    def history(self, account_id: object, token: object, limit: object = None) -> Document:
        plays = super().history(account_id, token, limit)["plays"]
        return {"plays": [{**p, "revealed": None} for p in plays], "next": None}


def other_formats() -> Delegating:
    """The reference service with other id and token formats and extra fields."""
    adapter = reference_adapter(OtherFormatsService, "correct:other_formats")
    return Delegating(adapter, "correct:other_formats")


CORRECT: dict[str, Any] = {
    "independent": independent,
    "other_generator": other_generator,
    "other_formats": other_formats,
}

__all__ = ["CORRECT", "GameService", "independent", "other_formats", "other_generator"]
