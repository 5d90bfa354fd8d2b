"""The faults themselves: evaluator, block and game-service classes, each one realistic bug.

``variants.py`` names them, says which article and requirement each breaks, and registers
them. Every class here is the reference (or the independent evaluator) with one method
overridden, and a docstring that says the bug as a vendor would have written it.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import secrets
import sqlite3
import time
from collections.abc import Callable, Iterator
from itertools import groupby
from typing import Any

import numpy as np

import reference
import reference.robots
from reference._blocks import Block, Unit
from reference._permutation import FeistelPermutation
from reference._render import SliceRenderer
from reference._service import (
    Document,
    GameService,
    ServiceError,
    game_and_stake,
    not_found,
    require_int,
)

from ._base import stored_balance
from ._evaluator import Click, EldoradoEvaluator, RobotsEvaluator, RobotSymbol

# == robots rules (article 4) ===================================================================


class X2CountedOnce(RobotsEvaluator):
    """4.6: an X2 reveal raises the gauge by one notch, like a plain one."""

    def notches(self, click: Click) -> int:
        return 1


class PlusOneRevealIgnored(RobotsEvaluator):
    """4.7: only each button's first reveal is counted; the one a +1 grants is not."""

    def clicks(self, buttons: list[list[Click]]) -> list[Click]:
        return [button[0] for button in buttons]


class PlusOneX2Ignored(RobotsEvaluator):
    """R-I4: the reveal a +1 grants counts one notch even when it carries an X2."""

    def clicks(self, buttons: list[list[Click]]) -> list[Click]:
        return [b[0] for b in buttons] + [Click(c.letter, False) for b in buttons for c in b[1:]]


class GaugeOneShort(RobotsEvaluator):
    """4.8: a gauge wins one notch before it is full (off by one)."""

    def full(self, symbol: RobotSymbol, notches: int) -> bool:
        return notches >= symbol.notches - 1


class GaugesNotCumulated(RobotsEvaluator):
    """4.5/4.6: plain and X2 notches are not added up; the gauge holds the larger of the two."""

    def gauges(self, clicks: list[Click]) -> dict[str, int]:
        plain = dict.fromkeys(self.symbols, 0)
        doubled = dict.fromkeys(self.symbols, 0)
        for click in clicks:
            if click.x2:
                doubled[click.letter] += 2
            else:
                plain[click.letter] += 1
        return {k: max(plain[k], doubled[k]) for k in self.symbols}


class OnlyHighestGain(RobotsEvaluator):
    """4.9: with several full gauges, only the highest amount is paid."""

    def gains(self, robots: str, gauge: dict[str, int]) -> list[dict[str, Any]]:
        wins = super().gains(robots, gauge)
        return [max(wins, key=lambda w: w["amount_cents"])] if wins else []


class GaugeWinsPerFill(RobotsEvaluator):
    """R-I3: a gauge pushed to twice its size wins twice."""

    def gains(self, robots: str, gauge: dict[str, int]) -> list[dict[str, Any]]:
        wins = super().gains(robots, gauge)
        by_name = {s.name: s for s in self.symbols.values()}
        extra = [
            w
            for w in wins
            if gauge[by_name[w["symbol"]].letter] >= 2 * by_name[w["symbol"]].notches
        ]
        return wins + extra


class HexagonAmountTypo(RobotsEvaluator):
    """4.8 table: the blue hexagon pays 100 € instead of 1 000 € (one zero lost)."""

    def __init__(self) -> None:
        super().__init__()
        h = self.symbols["H"]
        self.symbols["H"] = type(h)(h.letter, h.name, h.notches, h.amount_cents // 10)


class CircleAmountTypo(RobotsEvaluator):
    """4.8 table: the orange circle pays 6 € instead of 5 €."""

    def __init__(self) -> None:
        super().__init__()
        c = self.symbols["C"]
        self.symbols["C"] = type(c)(c.letter, c.name, c.notches, 600)


class RobotIndexCanonical(RobotsEvaluator):
    """R-I1: a win names the robot by its symbol's place in the rules (D Q T C S P H O), not
    by where it stands on this unit's screen."""

    def gains(self, robots: str, gauge: dict[str, int]) -> list[dict[str, Any]]:
        wins = super().gains(robots, gauge)
        canonical = list(self.symbols)
        names = {s.name: s.letter for s in self.symbols.values()}
        return [{**w, "robot": canonical.index(names[w["symbol"]])} for w in wins]


class RobotTwiceAccepted(RobotsEvaluator):
    """R-I1 / contract 1: robots are only checked to be symbol letters, so a robot carrying a
    symbol twice (and one symbol missing) is evaluated instead of refused."""

    def parse(self, ticket: object) -> tuple[str, list[list[Click]]]:
        if isinstance(ticket, str) and "|" in ticket:
            robots, body = ticket.split("|", 1)
            if len(robots) == 8 and set(robots) <= set(self.symbols):
                canonical = robots + "".join(s for s in self.symbols if s not in robots)
                _, buttons = super().parse("".join(dict.fromkeys(canonical)) + "|" + body)
                return robots, buttons
        return super().parse(ticket)

    def gains(self, robots: str, gauge: dict[str, int]) -> list[dict[str, Any]]:
        return [
            {"robot": robots.index(letter), "symbol": s.name, "amount_cents": s.amount_cents}
            for letter, s in self.symbols.items()
            if letter in robots and self.full(s, gauge[letter])
        ]


class X2DoublesWholeButton(RobotsEvaluator):
    """4.6: an X2 on one reveal of a button doubles every reveal of that button."""

    def clicks(self, buttons: list[list[Click]]) -> list[Click]:
        return [
            Click(c.letter, True) if any(k.x2 for k in button) else c
            for button in buttons
            for c in button
        ]


class LastButtonIgnored(RobotsEvaluator):
    """4.3: the loop over the buttons stops one short: the 18th button never counts."""

    def clicks(self, buttons: list[list[Click]]) -> list[Click]:
        return super().clicks(buttons[:-1])


class PrizeIsHighestGain(RobotsEvaluator):
    """4.10: the wins are all listed, but the unit's prize is the highest of them, not their
    sum."""

    def evaluate(self, stake_cents: int, ticket: object) -> dict[str, Any]:
        result = super().evaluate(stake_cents, ticket)
        wins = result["wins"]
        return {**result, "prize_cents": max(w["amount_cents"] for w in wins) if wins else 0}


class NineteenButtonsAccepted(RobotsEvaluator):
    """4.3 / contract 1: the notation is checked 18 buttons at a time, so a ticket with a
    19th button is evaluated (all 19 of them) instead of refused."""

    def parse(self, ticket: object) -> tuple[str, list[list[Click]]]:
        if isinstance(ticket, str) and ticket.count("|") == 1:
            robots, body = ticket.split("|")
            buttons = body.split(" ")
            if len(buttons) == self.buttons + 1:
                _, first = super().parse(robots + "|" + " ".join(buttons[:-1]))
                _, last = super().parse(robots + "|" + " ".join(buttons[1:]))
                return robots, first + last[-1:]
        return super().parse(ticket)


# == eldorado rules (article 4) =================================================================


class FivePaidAsFivePlusFour(EldoradoEvaluator):
    """E-I2: five of a kind also pays the four-of-a-kind amount."""

    def row_wins(self, row: str) -> list[tuple[str, int]]:
        wins = super().row_wins(row)
        return wins + [(letter, 4) for letter, n in wins if n == 5]


class AdjacentOnly(EldoradoEvaluator):
    """E-I1: only adjacent identical symbols are counted (``YSYYY`` is 3 pyramids)."""

    def count(self, row: str, letter: str) -> int:
        return max((len(list(g)) for k, g in groupby(row) if k == letter), default=0)


class ExtraPaysAsSymbol(EldoradoEvaluator):
    """E-I3: 4 or 5 EXTRA on a row pay, at the pendant's amounts."""

    def paying(self, letter: str) -> bool:
        return True

    def row_wins(self, row: str) -> list[tuple[str, int]]:
        wins = super().row_wins(row)
        n = row.count(self.extra)
        return wins + ([(self.extra, n)] if n >= 4 else [])

    def amount(self, letter: str, count: int, stake_cents: int) -> int:
        return super().amount("P" if letter == self.extra else letter, count, stake_cents)


class ExtraSpoilsCombination(EldoradoEvaluator):
    """E-I3: an EXTRA on a row is taken for a blank that breaks it: 4 identical symbols and
    an EXTRA pay nothing."""

    def row_wins(self, row: str) -> list[tuple[str, int]]:
        return [] if self.extra in row else super().row_wins(row)


class ExtraGridsIgnored(EldoradoEvaluator):
    """4.5: the Extra stage grids are shown but not evaluated."""

    def played_grids(self, grids: list[list[str]]) -> list[list[str]]:
        return grids[:1]


class ExtraAtOneEuro(EldoradoEvaluator):
    """E-I6: the Extra stage grids are paid at the 1 € table whatever the stake."""

    def stake_of_grid(self, stake_cents: int, grid: int) -> int:
        return stake_cents if grid == 0 else 100


class ExtraInExtraIgnored(EldoradoEvaluator):
    """E-I4: only the Extra stages granted by the main grid are played; an EXTRA found in an
    Extra stage grants nothing."""

    def played_grids(self, grids: list[list[str]]) -> list[list[str]]:
        return grids[: 1 + sum(row.count(self.extra) for row in grids[0])]


class SevenFiftyRounded(EldoradoEvaluator):
    """Money in float euros, rounded to whole euros: 7,5 € pays 8 €, 2,5 € pays 2 €."""

    def amount(self, letter: str, count: int, stake_cents: int) -> int:
        euros = super().amount(letter, count, stake_cents) / 100.0
        return round(euros) * 100


class SevenFiftyRoundedUp(EldoradoEvaluator):
    """4.4 table: the 7,50 € amount is written as 8 € (every other amount right)."""

    def amount(self, letter: str, count: int, stake_cents: int) -> int:
        amount = super().amount(letter, count, stake_cents)
        return 800 if amount == 750 else amount


class LastRowIgnored(EldoradoEvaluator):
    """4.1/4.4: the loop over rows stops one short: the third row never pays."""

    def evaluate(self, stake_cents: int, ticket: object) -> dict[str, Any]:
        result = super().evaluate(stake_cents, ticket)
        wins = [w for w in result["wins"] if w["row"] != self.rows - 1]
        return {"prize_cents": sum(w["amount_cents"] for w in wins), "wins": wins}


class UngrantedGridAccepted(EldoradoEvaluator):
    """E-I4 / contract 1: grids are counted, not checked: more grids than EXTRA symbols, or a
    grid no EXTRA granted, is evaluated instead of refused."""

    def parse(self, ticket: object) -> list[list[str]]:
        if isinstance(ticket, str) and all(self._grid.fullmatch(t) for t in ticket.split("|")):
            return [text.split("/") for text in ticket.split("|")]
        return super().parse(ticket)


class SurplusGridAccepted(EldoradoEvaluator):
    """E-I4 / contract 1: a ticket with one grid more than its EXTRA symbols grant is checked
    without that grid, and that grid alone, then evaluated whole instead of refused."""

    def parse(self, ticket: object) -> list[list[str]]:
        if isinstance(ticket, str):
            grids = ticket.split("|")
            if ticket.count(self.extra) + 2 == len(grids):
                super().parse("|".join(grids[:-1]))
                super().parse(grids[-1].replace(self.extra, "Y"))
                return [grid.split("/") for grid in grids]
        return super().parse(ticket)


class EldoradoOnlyHighestGain(EldoradoEvaluator):
    """4.4: with several winning rows, only the highest amount is paid (combinations do not
    add up)."""

    def evaluate(self, stake_cents: int, ticket: object) -> dict[str, Any]:
        result = super().evaluate(stake_cents, ticket)
        wins = [max(result["wins"], key=lambda w: w["amount_cents"])] if result["wins"] else []
        return {"prize_cents": sum(w["amount_cents"] for w in wins), "wins": wins}


class LastCellIgnored(EldoradoEvaluator):
    """4.3: the loop over a row's cells stops one short: the fifth cell never counts."""

    def row_wins(self, row: str) -> list[tuple[str, int]]:
        return super().row_wins(row[:-1])


# == blocks (articles 2 and 3) ==================================================================


def _first_with(block: Block, wanted: Callable[[int], bool], start: int = 0) -> int:
    """The first index from ``start`` whose prize satisfies ``wanted``."""
    prize = Block.prize_cents
    for index in range(start, block.units):
        if wanted(prize(block, index)):
            return index
    raise ValueError(f"block {block.block_id}: no unit wanted")  # pragma: no cover


class PatchedBlock(Block):
    """A block with a few units replaced, in its stream and in play alike."""

    def patches(self) -> dict[int, Unit]:
        raise NotImplementedError

    def _patches(self) -> dict[int, Unit]:
        cached: dict[int, Unit] | None = self.__dict__.get("_patch_cache")
        if cached is None:
            cached = self.patches()
            self.__dict__["_patch_cache"] = cached
        return cached

    def _new_unit(self, index: int, prize: int) -> Unit:
        rng = random.Random(f"{self.block_id}/{index}")
        return Unit(
            index, prize, reference.generate_ticket(self.game, self.stake_cents, prize, rng)
        )

    def prize_cents(self, index: int) -> int:
        patch = self._patches().get(index)
        return patch.prize_cents if patch is not None else super().prize_cents(index)

    def unit(self, index: int) -> Unit:
        patch = self._patches().get(index)
        return patch if patch is not None else super().unit(index)

    def _lines(self, first: int, size: int) -> list[bytes]:
        out = super()._lines(first, size)
        for index, unit in self._patches().items():
            if first <= index < first + size:
                out[index - first] = unit.to_json_line() + b"\n"
        return out


class LotSwapped(PatchedBlock):
    """Article 3: one unit of the fourth lot of the table (10 € at robots, 100 € at eldorado
    1 €) is made a unit of the fifth (5 €, 50 €): two lot counts are off by one."""

    def patches(self) -> dict[int, Unit]:
        lots = [
            lot.prize_cents
            for lot in reference.load_rules(self.game).lot_table(self.stake_cents).lots
        ]
        high, low = lots[3], lots[4]
        index = _first_with(self, lambda p: p == high)
        return {index: self._new_unit(index, low)}


class WinnerOnLosingTicket(Block):
    """Article 3: the generator's 1 € scenarios sometimes come out losing (about 1 in 100 of
    them): a winner declared on a losing ticket (lot counts still exact)."""

    EVERY = 97

    def _losing(self, index: int) -> Unit | None:
        if index % self.EVERY or Block.prize_cents(self, index) != self.lowest():
            return None
        ticket = reference.generate_ticket(
            self.game, self.stake_cents, 0, random.Random(f"{self.block_id}/{index}")
        )
        return Unit(index, self.lowest(), ticket)

    def lowest(self) -> int:
        return reference.load_rules(self.game).lot_table(self.stake_cents).lots[-1].prize_cents

    def unit(self, index: int) -> Unit:
        return self._losing(index) or super().unit(index)

    def _lines(self, first: int, size: int) -> list[bytes]:
        out = super()._lines(first, size)
        for index in range(first + (-first) % self.EVERY, first + size, self.EVERY):
            unit = self._losing(index)
            if unit is not None:
                out[index - first] = unit.to_json_line() + b"\n"
        return out


class PayoutAboveCap(PatchedBlock):
    """Arrêté 2006 art. 2: two losing units turned into 100 € winners: 70.01 % paid out."""

    def patches(self) -> dict[int, Unit]:
        first = _first_with(self, lambda p: p == 0)
        second = _first_with(self, lambda p: p == 0, first + 1)
        extra = 100 * 100 * self.stake_cents // 100  # 100 € per euro of stake: +0.01 %
        return {i: self._new_unit(i, extra) for i in (first, second)}


class UnitDuplicated(Block):
    """Article 2: the stream resends the last unit of every batch it flushes (a retried
    write), so some units appear twice."""

    def _lines(self, first: int, size: int) -> list[bytes]:
        out = super()._lines(first, size)
        return [*out, out[-1]] if out else out


class SliceOneShort(Block):
    """Contract 3: a slice [start, start+count) ends one unit early (off by one), the header
    still says ``count``."""

    def document_lines(self, start: int = 0, count: int | None = None) -> Iterator[bytes]:
        lines = super().document_lines(start, count)
        header = next(lines)
        yield header
        size = json.loads(header)["count"]
        for n, line in enumerate(lines):
            if n < size - 1:
                yield line


class IndexMap:
    """A replacement for a block's permutation: the same call shapes as FeistelPermutation."""

    def __init__(self, function: Callable[[int], int]) -> None:
        self.unchecked = function

    def __call__(self, index: int) -> int:
        return self.unchecked(index)


def _key(seed: bytes, purpose: bytes) -> bytes:
    return hashlib.blake2b(purpose, key=seed, digest_size=32).digest()


class WinnersClustered(Block):
    """Randomness: the winning units are shuffled into the first half of the block only."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        half = self.units // 2
        inner = FeistelPermutation(_key(self.seed, b"half"), half)
        self._permutation = IndexMap(lambda i: inner(i) if i < half else i)  # type: ignore[assignment]


class PredictableOrder(Block):
    """Randomness: an affine 'shuffle', slot = a*i + b mod units: winners in a fixed rhythm
    that anyone who saw a few units can continue."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        n = self.units
        a = int(n * 0.6180339887)
        while math.gcd(a, n) != 1:
            a += 1
        b = 12345
        self._permutation = IndexMap(lambda i: (a * i + b) % n)  # type: ignore[assignment]


# == game services (plays, blocks issued) ========================================================


class BlockService(GameService):
    """A service whose blocks are of ``block_class``."""

    block_class: type[Block] = Block
    fault_on: tuple[tuple[str, int], ...] = ()  # the (game, stake) pairs served faulty

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # the reference renders big slices in worker processes from plain Blocks: render in
        # this thread, from this service's own blocks
        self.renderer.close()
        self.renderer = SliceRenderer(workers=1)

    def _block(self, game: str, stake_cents: int, number: int) -> Block:  # type: ignore[override]
        cache: dict[tuple[str, int, int], Block] = self.__dict__.setdefault("_blocks", {})
        key = (game, stake_cents, number)
        if key not in cache:
            block_id = reference.default_block_id(game, stake_cents, number)
            cache[key] = self.make_block(game, stake_cents, block_id, number)
        return cache[key]

    def make_block(self, game: str, stake_cents: int, block_id: str, number: int) -> Block:
        faulty = (game, stake_cents) in self.fault_on
        cls = self.block_class if faulty else Block
        return cls(game, stake_cents, block_id, self.block_seed(block_id))


def block_service(block_class: type[Block], *fault_on: tuple[str, int]) -> type[GameService]:
    """A service whose blocks of the ``fault_on`` (game, stake) pairs are ``block_class``."""
    attrs = {"block_class": block_class, "fault_on": fault_on, "__doc__": block_class.__doc__}
    return type(f"{block_class.__name__}Service", (BlockService,), attrs)


class IdenticalOrders(BlockService):
    """Randomness across blocks: block 2 reuses block 1's shuffle (the permutation key was
    derived from the game and stake, not the block): its winners sit where block 1's do."""

    fault_on = (("robots", 100),)

    def make_block(self, game: str, stake_cents: int, block_id: str, number: int) -> Block:
        block = super().make_block(game, stake_cents, block_id, number)
        if number > 1 and (game, stake_cents) in self.fault_on:
            block._permutation = self._block(game, stake_cents, 1)._permutation
        return block


def _play_row(service: GameService, play_id: str) -> Any:
    with service._connection() as db:
        return db.execute("SELECT * FROM plays WHERE play_id = ?", (play_id,)).fetchone()


def _add_balance(service: GameService, account_id: str, delta: int) -> None:
    with service._transaction() as db:
        db.execute(
            "UPDATE accounts SET balance_cents = MAX(0, balance_cents + ?) WHERE account_id = ?",
            (delta, account_id),
        )


class StakeDebitedTwice(GameService):
    """Robots 4.1 / eldorado 4.2: the stake is debited by the purchase and again by the
    settlement step."""

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        result = super().play(account_id, token, game, stake_cents)
        _add_balance(self, result_owner(self, result), -result["stake_cents"])
        return {**result, "balance_cents": max(0, result["balance_cents"] - result["stake_cents"])}


def result_owner(service: GameService, result: Document) -> str:
    return str(_play_row(service, result["play_id"])["account_id"])


class PrizeNotCredited(GameService):
    """Robots 4.10 / eldorado 4.6: the stake is debited but the prize is never credited."""

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        result = super().play(account_id, token, game, stake_cents)
        prize = int(_play_row(self, result["play_id"])["prize_cents"])
        _add_balance(self, result_owner(self, result), -prize)
        return {**result, "balance_cents": result["balance_cents"] - prize}


class EldoradoDebitsOneEuro(GameService):
    """Eldorado 4.2: the debit is the game's default 1 € whatever stake was chosen."""

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        result = super().play(account_id, token, game, stake_cents)
        if result["game"] == "eldorado" and result["stake_cents"] != 100:
            delta = result["stake_cents"] - 100
            _add_balance(self, result_owner(self, result), delta)
            return {**result, "balance_cents": result["balance_cents"] + delta}
        return result


class EldoradoCreditsMainGrid(GameService):
    """Eldorado 4.6: only the main grid's gains are credited, not the Extra stages'."""

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        result = super().play(account_id, token, game, stake_cents)
        if result["game"] != "eldorado":
            return result
        row = _play_row(self, result["play_id"])
        main = str(row["ticket"]).split("|")[0].split("/")
        rows = EldoradoEvaluator()
        paid = sum(
            rows.amount(letter, n, int(row["stake_cents"]))
            for text in main
            for letter, n in rows.row_wins(text)
        )
        lost = int(row["prize_cents"]) - paid
        if lost:
            _add_balance(self, str(row["account_id"]), -lost)
        return {**result, "balance_cents": result["balance_cents"] - lost}


class HistoryHidesUnrevealed(GameService):
    """Robots 4.1 / eldorado 4.2: the history lists a play only once it was revealed (AUTO
    or a click): a player who lost the connection cannot check the unit."""

    def history(self, account_id: object, token: object, limit: object = None) -> Document:
        plays = super().history(account_id, token, None)["plays"]
        with self._connection() as db:
            shown = {
                r["play_id"]
                for r in db.execute("SELECT play_id, revealed FROM plays").fetchall()
                if any(json.loads(r["revealed"]))
            }
        kept = [p for p in plays if p["play_id"] in shown]
        if limit is not None:
            kept = kept[: require_int(limit, "limit", low=1, high=2**62)]
        return {"plays": kept}


class RevealIgnoresButton(GameService):
    """Robots 4.4: a click reveals the next symbol of the unit in button order, whichever
    button was clicked (right only when the buttons are clicked in turn)."""

    def reveal(self, play_id: object, token: object, button: object) -> Document:
        self.authenticate(token)
        row = _play_row(self, play_id) if type(play_id) is str else None
        if row is not None and row["game"] == "robots" and type(button) is int:
            shown = json.loads(row["revealed"])
            buttons = reference.parse_ticket("robots", row["ticket"]).buttons  # type: ignore[union-attr]
            pending = [b for b, reveals in enumerate(buttons) if shown[b] < len(reveals)]
            if pending and 0 <= button < len(buttons):
                answer = super().reveal(play_id, token, pending[0])
                return {**answer, "button": button}
        return super().reveal(play_id, token, button)


class PlusOneTwoClicks(GameService):
    """Robots 4.7: a button that showed a +1 accepts one click too many (the last reveal is
    shown again) instead of 409."""

    def reveal(self, play_id: object, token: object, button: object) -> Document:
        try:
            return super().reveal(play_id, token, button)
        except ServiceError as exc:
            extra: set[tuple[object, object]] = self.__dict__.setdefault("_extra", set())
            row = _play_row(self, play_id) if type(play_id) is str else None
            if exc.status != 409 or row is None or (play_id, button) in extra:
                raise
            if row["game"] != "robots":  # no buttons: refused as the reference refuses it
                raise
            buttons = reference.parse_ticket("robots", row["ticket"]).buttons  # type: ignore[union-attr]
            reveals = buttons[int(button)]  # type: ignore[call-overload]
            if len(reveals) < 2:
                raise
            extra.add((play_id, button))
            last = reveals[-1]
            symbol = reference.robots.robots_rules().symbol(last.symbol).name
            return {"button": button, "symbol": symbol, "x2": last.x2, "plus_one": False}


class RevealDropsX2(GameService):
    """Robots 4.3 / 4.6: the reveal endpoint never reports the X2 above a symbol."""

    def reveal(self, play_id: object, token: object, button: object) -> Document:
        return {**super().reveal(play_id, token, button), "x2": False}


class AutoRedrawsUnrevealed(GameService):
    """Robots 4.4: AUTO after a click redraws the buttons not yet clicked (same prize, other
    ticket): the ticket shown is not the one bought."""

    def auto(self, play_id: object, token: object) -> Document:
        row = _play_row(self, play_id) if type(play_id) is str else None
        result = super().auto(play_id, token)
        if row is None or row["game"] != "robots" or not any(json.loads(row["revealed"])):
            return result
        shown = json.loads(row["revealed"])
        robots, body = str(row["ticket"]).split("|")
        buttons = body.split(" ")
        hidden = [b for b in range(len(buttons)) if shown[b] == 0]
        texts = [buttons[b] for b in hidden]
        texts = texts[1:] + texts[:1]
        for b, text in zip(hidden, texts, strict=True):
            buttons[b] = text
        return {**result, "ticket": robots + "|" + " ".join(buttons)}


class OtherHistoryReadable(GameService):
    """Security: the history endpoint checks the token is valid, not whose account it is."""

    def history(self, account_id: object, token: object, limit: object = None) -> Document:
        self.authenticate(token)
        with self._connection() as db:
            row = db.execute(
                "SELECT token_sha256 FROM accounts WHERE account_id = ?", (account_id,)
            ).fetchone()
        if row is None:
            raise not_found(f"no account {account_id!r}")
        with self._connection() as db:
            rows = db.execute(
                "SELECT * FROM plays WHERE account_id = ? ORDER BY seq DESC", (account_id,)
            ).fetchall()
        plays = [
            {
                "play_id": r["play_id"],
                "game": r["game"],
                "stake_cents": r["stake_cents"],
                "block_id": r["block_id"],
                "index": r["unit_index"],
                "ticket": r["ticket"],
                "prize_cents": r["prize_cents"],
                "created_at": r["created_at"],
            }
            for r in rows
        ]
        if limit is not None:
            plays = plays[: require_int(limit, "limit", low=1, high=2**62)]
        return {"plays": plays}


class BalanceWithoutToken(GameService):
    """Security: the balance endpoint forgot its authentication: no token needed."""

    def balance(self, account_id: object, token: object) -> Document:
        if token is None:
            with self._connection() as db:
                balance = stored_balance(db, account_id)
            return {"account_id": account_id, "balance_cents": balance}
        return super().balance(account_id, token)


class RevealWithAnyToken(GameService):
    """Security: reveal and AUTO check that the token opens an account, not that the play is
    that account's."""

    def _own_play(self, db: Any, play_id: object, owner: str) -> Any:
        row = None
        if type(play_id) is str:
            row = db.execute("SELECT * FROM plays WHERE play_id = ?", (play_id,)).fetchone()
        if row is None:
            raise not_found(f"no play {play_id!r}")
        return row


class OverdraftAllowed(GameService):
    """Contract 4: a stake above the balance is sold anyway; the balance stops at 0."""

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        try:
            return super().play(account_id, token, game, stake_cents)
        except ServiceError as exc:
            if exc.status != 402:
                raise
        owner = self.authorize_account(account_id, token)
        stake = game_and_stake(game, stake_cents)[1]
        _add_balance(self, owner, stake)  # lend the missing stake ...
        result = super().play(account_id, token, game, stake_cents)
        with self._connection() as db:
            balance = stored_balance(db, owner)
        _add_balance(self, owner, -stake)  # ... and take it back, down to 0 at most
        return {**result, "balance_cents": max(0, balance - stake)}


class RefusalConsumesUnit(GameService):
    """Contract 4: the unit is taken off sale before the funds are checked, so a refused
    play (402) still uses up a unit."""

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        try:
            return super().play(account_id, token, game, stake_cents)
        except ServiceError as exc:
            if exc.status == 402:
                name, stake = game_and_stake(game, stake_cents)
                _advance(self, name, stake, 1)
            raise


def _advance(service: GameService, game: str, stake: int, units: int) -> None:
    with service._transaction() as db:
        row = db.execute(
            "SELECT block_number, next_index FROM sales WHERE game = ? AND stake_cents = ?",
            (game, stake),
        ).fetchone()
        number, index = (1, 0) if row is None else (row["block_number"], row["next_index"])
        db.execute(
            "INSERT INTO sales VALUES (?, ?, ?, ?) ON CONFLICT (game, stake_cents) DO UPDATE "
            "SET next_index = excluded.next_index",
            (game, stake, number, index + units),
        )


class _RefusalChargesACent(GameService):
    """A play refused with ``CHARGED`` still takes a cent off the balance."""

    CHARGED = 0

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        try:
            return super().play(account_id, token, game, stake_cents)
        except ServiceError as exc:
            if exc.status == self.CHARGED:
                _add_balance(self, self.authorize_account(account_id, token), -1)
            raise


class RefusalChargesAFee(_RefusalChargesACent):
    """Contract 4: a play refused for lack of funds (402) still takes a cent off the balance
    (a "failed purchase" fee): the refusal changes the account."""

    CHARGED = 402


class InvalidPlayChargesAFee(_RefusalChargesACent):
    """Contract 4: a play refused as invalid (422: a stake the game does not sell, an unknown
    game) still takes a cent off the balance: the refusal changes the account."""

    CHARGED = 422


class InvalidStakeRounded(GameService):
    """Contract 4: a stake the game does not sell is rounded to the nearest one it sells
    instead of refused with 422."""

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        if game in reference.GAMES and type(stake_cents) is int:
            stakes = reference.load_rules(str(game)).stakes_cents
            stake_cents = min(stakes, key=lambda s: (abs(s - stake_cents), s))  # type: ignore[operator]
        return super().play(account_id, token, game, stake_cents)


class EldoradoInvalidStakeTakesAUnit(GameService):
    """Contract 4 (a refused play changes nothing, the unit on sale included): the eldorado
    module reserves the next unit of its 1 € stream as soon as a play comes in, and checks the
    stake after; a stake it does not sell is refused with 422, but the reserved unit is never
    put back on sale: the next 1 € play gets the unit after it. Robots, and every stake sold,
    are right."""

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        sold = reference.load_rules("eldorado").stakes_cents
        if game == "eldorado" and type(stake_cents) is int and stake_cents not in sold:
            self.authorize_account(account_id, token)
            with self._transaction() as db:
                self._take_next_unit(db, "eldorado", 100)
        return super().play(account_id, token, game, stake_cents)


class SkipsUnits(GameService):
    """Contract 4: the sales counter is advanced twice per play: every other unit is sold."""

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        result = super().play(account_id, token, game, stake_cents)
        _advance(self, result["game"], result["stake_cents"], 1)
        return result


class TicketRedrawnAtSale(GameService):
    """Contract 4: the play's scenario is drawn afresh at sale for the unit's prize, so the
    ticket played is not the block's."""

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        result = super().play(account_id, token, game, stake_cents)
        row = _play_row(self, result["play_id"])
        rng = random.Random(secrets.randbits(64))
        ticket = reference.generate_ticket(row["game"], row["stake_cents"], row["prize_cents"], rng)
        with self._transaction() as db:
            db.execute("UPDATE plays SET ticket = ? WHERE play_id = ?", (ticket, result["play_id"]))
        return result


class RacySales(GameService):
    """Contract 4: the next unit is read, then sold in a second transaction, with no lock and
    no unique constraint: two accounts playing at once can buy the same unit."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        with self._transaction() as db:
            db.execute("DROP INDEX IF EXISTS plays_by_account")
            db.execute("ALTER TABLE plays RENAME TO plays_unique")
            db.execute(
                "CREATE TABLE plays (seq INTEGER PRIMARY KEY AUTOINCREMENT, play_id TEXT NOT NULL"
                " UNIQUE, account_id TEXT NOT NULL, game TEXT NOT NULL, stake_cents INTEGER NOT"
                " NULL, block_id TEXT NOT NULL, unit_index INTEGER NOT NULL, ticket TEXT NOT NULL,"
                " prize_cents INTEGER NOT NULL, created_at TEXT NOT NULL, revealed TEXT NOT NULL)"
            )
            db.execute("DROP TABLE plays_unique")

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        owner = self.authorize_account(account_id, token)
        name, stake = game_and_stake(game, stake_cents)
        with self._connection() as db:
            row = db.execute(
                "SELECT block_number, next_index FROM sales WHERE game = ? AND stake_cents = ?",
                (name, stake),
            ).fetchone()
        number, index = (1, 0) if row is None else (row["block_number"], row["next_index"])
        time.sleep(0.003)  # the vendor's work between reading the counter and writing it
        block = self._block(name, stake, number)
        unit = block.unit(index)
        play_id = "play_" + secrets.token_hex(12)
        with self._transaction() as db:
            balance = stored_balance(db, owner)
            if balance < stake:
                raise ServiceError(402, "insufficient_funds", f"balance {balance} < stake {stake}")
            db.execute(
                "INSERT INTO sales VALUES (?, ?, ?, ?) ON CONFLICT (game, stake_cents) DO UPDATE"
                " SET block_number = excluded.block_number, next_index = excluded.next_index",
                (name, stake, number, index + 1),
            )
            balance += unit.prize_cents - stake
            db.execute(
                "UPDATE accounts SET balance_cents = ? WHERE account_id = ?", (balance, owner)
            )
            return self._record_play(db, play_id, owner, block, unit, balance)


# == faults a red team found past the suite (session 6): each caught since ======================


class TopLotRemoved(PatchedBlock):
    """The production block: the units of its top lot made losing units."""

    def patches(self) -> dict[int, Unit]:
        top = reference.load_rules(self.game).lot_table(self.stake_cents).lots[0].prize_cents
        prizes = Block._slice_prizes(self, 0, self.units)
        return {int(i): self._new_unit(int(i), 0) for i in np.flatnonzero(prizes == top)}


class SalesFromUnlistedBlocks(BlockService):
    """Contract 4: plays are sold from the production emission (block ids ``<id>-prod``),
    which ``GET /v1/blocks/{id}`` serves but ``GET /v1/blocks`` does not list; the listed
    blocks are the certification emission. The production blocks lost their top lot."""

    SUFFIX = "-prod"

    def _production(self, game: str, stake: int, number: int) -> Block:
        cache: dict[tuple[str, int, int], Block]
        cache = self.__dict__.setdefault("_production_blocks", {})
        key = (game, stake, number)
        if key not in cache:
            block_id = reference.default_block_id(game, stake, number) + self.SUFFIX
            cache[key] = TopLotRemoved(game, stake, block_id, self.block_seed(block_id))
        return cache[key]

    def block(self, block_id: object) -> Block:
        if isinstance(block_id, str) and block_id.endswith(self.SUFFIX):
            parsed = self._parse_block_id(block_id.removesuffix(self.SUFFIX))
            if parsed is not None:
                return self._production(*parsed)
        return super().block(block_id)

    def _take_next_unit(self, db: sqlite3.Connection, name: str, stake: int) -> tuple[Block, Unit]:
        listed, unit = super()._take_next_unit(db, name, stake)
        number = self._parse_block_id(listed.block_id)
        assert number is not None
        production = self._production(*number)
        return production, production.unit(unit.index)


class ExtraStagesCapped(EldoradoEvaluator):
    """Eldorado 4.5 / E-I4: the Extra stages live in a fixed array of 5 (our generator never
    makes more): a 7th grid and beyond is parsed but never played."""

    def played_grids(self, grids: list[list[str]]) -> list[list[str]]:
        return grids[:6]
