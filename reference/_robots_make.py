"""Le Retour des Robots tickets for a given prize: the slow generator and its block fast path.

Derived from the rules data: the gains a unit can hold (each robot's full gauge, at most once),
every set of them that adds up to a prize (``robots_sums``), and the scenario drawn for it
(``RobotsMaker.make``, whose docstring states the distribution, as ``docs/blocks.md`` does).

Blocks (``RobotsPools``) show pool scenarios through two prize-keeping transformations keyed by
the unit's words: the robots' order is replaced by one drawn uniformly among the 8! orders (a
reveal names a symbol, not a robot, so which robot carries which symbol changes no gauge), and
the 18 buttons are permuted uniformly (Fisher-Yates): each button keeps its reveals, X2 and +1
chain, and the gauges count reveals wherever they are (article 4.4: buttons are independent).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ._compiled import fastlines
from ._gains import Chooser, Decomposition, Gain, PrizeError, decomposition_key, sample, shuffle
from ._robots_rules import PLUS_ONE_MARK, X2_MARK, RobotsRules
from ._scenarios import (
    BLOCKS,
    I64,
    U8,
    U64,
    LotEntry,
    Maker,
    ScenarioPools,
    shuffled_columns,
    uniform_below,
)

#: robots: each winning gauge receives one notch more than it needs with this probability.
ROBOTS_OVERFILL = 0.25


def robots_sums(rules: RobotsRules) -> dict[int, tuple[Decomposition, ...]]:
    """Every subset of the robots' gains by its total: each gauge wins once (4.8, R-I3)."""
    gains = [Gain(s.amount_cents, s.letter, s.gauge_notches) for s in rules.symbols]
    sums: dict[int, list[Decomposition]] = {}
    for size in range(len(gains) + 1):
        for subset in itertools.combinations(gains, size):
            dec = tuple(sorted(subset, reverse=True))
            sums.setdefault(sum(g.amount_cents for g in dec), []).append(dec)
    return {amount: tuple(sorted(decs, key=decomposition_key)) for amount, decs in sums.items()}


@dataclass(frozen=True)
class _RobotsPlan:
    """Everything about one decomposition that does not depend on the draw."""

    winners: tuple[int, ...]  # symbol indices of the full gauges
    base: tuple[int, ...]  # notches per symbol before the draw: winners full, others one short
    pool: tuple[int, ...]  # one entry per notch the losing gauges may lose
    removable: int  # most notches they may lose and still fill the 18 buttons


class RobotsMaker:
    """robots scenarios; see ``make`` for the distribution."""

    def __init__(self, rules: RobotsRules, sums: Mapping[int, Sequence[Decomposition]]) -> None:
        self.rules = rules
        self.sums = sums
        self.letters = tuple(s.letter for s in rules.symbols)
        self.doubled = tuple(letter + X2_MARK for letter in self.letters)
        self.sizes = tuple(s.gauge_notches for s in rules.symbols)
        self.buttons = rules.buttons
        # R-I1: every order of the 8 robots, so one draw picks one uniformly
        self.orders = tuple("".join(p) + "|" for p in itertools.permutations(self.letters))
        self._plans: dict[int, tuple[Chooser, dict[Decomposition, _RobotsPlan]]] = {}

    def _plan(self, dec: Decomposition) -> _RobotsPlan | None:
        index = {letter: i for i, letter in enumerate(self.letters)}
        winners = tuple(index[g.symbol] for g in dec)
        # 4.8, 4.11: a losing gauge stays at least one notch short of full
        base = tuple(size if i in winners else size - 1 for i, size in enumerate(self.sizes))
        pool = tuple(
            i for i, size in enumerate(self.sizes) if i not in winners for _ in range(size - 1)
        )
        removable = sum(base) - self.buttons
        if removable < 0:
            return None  # the 18 buttons cannot be filled without filling another gauge
        return _RobotsPlan(winners, base, pool, min(removable, len(pool)))

    def plans(self, prize: int) -> tuple[Chooser, dict[Decomposition, _RobotsPlan]]:
        found = self._plans.get(prize)
        if found is None:
            plans = {}
            for dec in self.sums.get(prize, ()):
                plan = self._plan(dec)
                if plan is not None:
                    plans[dec] = plan
            if not plans:
                raise PrizeError(
                    f"prize_cents {prize!r}: no set of robots' gauges adds up to it "
                    f"(amounts {sorted(s.amount_cents for s in self.rules.symbols)})"
                )
            found = self._plans[prize] = (Chooser(list(plans)), plans)
        return found

    def make(self, prize: int, rng: random.Random) -> str:
        """A robots ticket of ``prize``, drawn as follows (in this order).

        1. The robots' order: uniform over the 8! orders (R-I1).
        2. The decomposition (``Chooser``); its gauges get exactly their notches, or one more
           with ``ROBOTS_OVERFILL`` (R-I3: a gauge pushed past full wins once).
        3. Every other gauge starts one notch short of full; a uniform number of notches between
           0 and as many as the 18 buttons allow is taken away from them, uniformly among their
           notches (so near misses abound, as in the game); the green square, 1 notch, never
           shows on a ticket it does not pay.
        4. Of the N notches, d are paired into X2 reveals, d uniform in 0..min(N - 18, pairs),
           each on a uniformly chosen symbol with two single notches left (4.6).
        5. The N - d reveals are shuffled uniformly; the N - d - 18 surplus reveals hang on +1s
           (4.7), each on a uniformly chosen button, so a button may show +1 after +1 (R-I4).
        """
        rand = rng.random
        order = self.orders[int(rand() * len(self.orders))]
        chooser, plans = self.plans(prize)
        plan = plans[chooser(rand)]
        counts = list(plan.base)
        for i in plan.winners:
            if rand() < ROBOTS_OVERFILL:
                counts[i] += 1
        removed = int(rand() * (plan.removable + 1))
        if removed:
            for i in sample(plan.pool, removed, rand):
                counts[i] -= 1
        buttons = self.buttons
        doubles = min(sum(counts) - buttons, sum([c >> 1 for c in counts]))
        doubles = int(rand() * (doubles + 1)) if doubles > 0 else 0
        reveals: list[str] = []
        if doubles:
            doubled = [0] * len(counts)
            for _ in range(doubles):
                eligible = [i for i, c in enumerate(counts) if c >= 2]
                i = eligible[int(rand() * len(eligible))]
                counts[i] -= 2
                doubled[i] += 1
            for i, n in enumerate(doubled):
                if n:
                    reveals += [self.doubled[i]] * n
        # the single reveals, symbol by symbol (a string extends the list letter by letter)
        reveals += "".join([letter * n for letter, n in zip(self.letters, counts, strict=True)])
        shuffle(reveals, rand)
        surplus = len(reveals) - buttons
        if surplus == 0:
            return order + " ".join(reveals)
        extra = [1] * buttons
        for _ in range(surplus):
            extra[int(rand() * buttons)] += 1
        parts = []
        at = 0
        for size in extra:
            parts.append(PLUS_ONE_MARK.join(reveals[at : at + size]))
            at += size
        return order + " ".join(parts)


class RobotsPools(ScenarioPools):
    """robots: word 0 picks the scenario, word 1 the robots' order, words 2-18 the buttons'."""

    def __init__(
        self,
        rules: RobotsRules,
        stake_cents: int,
        maker: Maker,
        pool_key: bytes,
        sizes: Mapping[int, int],
    ) -> None:
        super().__init__(rules.game, stake_cents, maker, pool_key, sizes)
        self.buttons = rules.buttons
        letters = [s.letter for s in rules.symbols]
        self.orders = np.frombuffer(
            "".join("".join(p) for p in itertools.permutations(letters)).encode("ascii"),
            dtype=np.uint8,
        ).reshape(-1, rules.robots)

    compiled = fastlines is not None

    def _lot_entry(self, prize: int) -> LotEntry:
        """(prize, pool, each button's text length, cell): what ``robots_lines`` reads."""
        pool = self.pool(prize)
        lengths = np.count_nonzero(pool[:, :, :-1], axis=2).astype(np.uint8)
        return (prize, pool, lengths, pool.shape[2])

    def _absent_entry(self) -> LotEntry:
        return (0, np.zeros(self.buttons, np.uint8), np.zeros(self.buttons, np.uint8), 1)

    def _compiled_lines(
        self, first: int, lots: I64, key_low: int, key_high: int, table: list[LotEntry]
    ) -> bytes | None:
        """The lines of ``_rows`` laid out by ``unit_lines``, in C (``robots_lines``): each
        unit's words (Philox under the key), then its scenario, robots' order and buttons'
        order drawn from them the same way. None past what the kernel takes: 64 buttons, and
        text lengths that fit its uint8 table."""
        if self.buttons > 64 or any(cell > 255 for *_, cell in table):
            return None
        result: bytes = fastlines.robots_lines(
            first,
            lots,
            key_low,
            key_high,
            BLOCKS,
            table,
            self.orders,
            self.orders.shape[1],
            self.buttons,
        )
        return result

    def _encode(self, scenarios: Sequence[str]) -> U8:
        """(scenarios, buttons, width + 1): each button's text, zero padding, then a space."""
        buttons = [b for ticket in scenarios for b in ticket.split("|", 1)[1].split(" ")]
        width = max(map(len, buttons))
        text = "".join([b.ljust(width, "\0") + " " for b in buttons]).encode("ascii")
        return np.frombuffer(text, dtype=np.uint8).reshape(len(scenarios), self.buttons, width + 1)

    def _rows(self, pool: U8, choice: I64, words: U64, selected: I64) -> U8:
        """The robots' order, '|', then the buttons in their drawn order, each its text, zero
        padding and a space (the last none): one gather of whole buttons from the pool."""
        unit_words = words[selected]
        count, robots, buttons = len(selected), self.orders.shape[1], self.buttons
        perm = shuffled_columns(unit_words[:, 2 : 1 + buttons], buttons)
        cell = pool.shape[2]
        whole = np.ascontiguousarray(pool).reshape(-1, cell).view(np.dtype((np.void, cell)))
        shown = whole.ravel()[choice[:, None] * buttons + perm].view(np.uint8)  # (count, b*cell)
        rows = np.empty((count, robots + 1 + buttons * cell), dtype=np.uint8)
        rows[:, :robots] = self.orders[uniform_below(unit_words[:, 1], len(self.orders))]
        rows[:, robots] = ord("|")
        rows[:, robots + 1 :] = shown
        rows[:, -1] = 0  # the last button is followed by no space
        return rows
