"""Tickets for a given prize: a random, valid and varied scenario that evaluates to exactly it.

Everything is derived from the rules data: the gains a unit can hold (robots: each robot's full
gauge, at most once; eldorado: each row combination, on any number of rows), every way a prize
can be reached by cumulating them (``prize_decompositions``), and the symbols, gauges, rows and
grids a scenario is drawn from. The distribution each draw follows is stated next to the code
and in ``docs/blocks.md``; all randomness comes from the ``random.Random`` passed in, so a
block seeds one per unit and any unit can be rebuilt alone.
"""

from __future__ import annotations

import bisect
import itertools
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, TypeVar

from ._eldorado import GRID_SEPARATOR, ROW_SEPARATOR, row_combination
from ._errors import GameError
from ._evaluate import check_stake
from ._robots import PLUS_ONE_MARK, X2_MARK
from ._rules import EldoradoRules, RobotsRules, check_game, eldorado_rules, robots_rules

#: When a prize is one single gain (one gauge, one row), that form is drawn with this
#: probability; otherwise, or in the remaining draws, every other decomposition is equally likely.
SINGLE_GAIN_SHARE = 0.5
#: robots: each winning gauge receives one notch more than it needs with this probability.
ROBOTS_OVERFILL = 0.25
#: eldorado: a unit holds at most this many grids (the main grid and 4 Extra stages) ...
ELDORADO_MAX_GRIDS = 5
#: ... and at most this many winning rows (2 per grid that grants a stage, 3 in the last grid).
ELDORADO_MAX_WINS = 2 * ELDORADO_MAX_GRIDS + 1
#: eldorado: P(one more grid than needed) / P(as many as needed); geometric, capped.
ELDORADO_EXTRA_GRID_RATIO = 1 / 3
#: eldorado: probability that an EXTRA is moved from the grid just before the one it grants to
#: a uniformly chosen earlier grid (otherwise each Extra stage is granted from inside the last).
ELDORADO_EARLIER_EXTRA = 0.5


T = TypeVar("T")


class PrizeError(GameError):
    """A prize that is not an amount in cents the game's gains can add up to."""

    code = "invalid_prize"


@dataclass(frozen=True, order=True)
class Gain:
    """One gain a unit can hold.

    robots: a full gauge (``symbol`` the robot's letter, ``count`` its notches, article 4.8);
    eldorado: a winning row (``count`` identical ``symbol`` on one row, article 4.4).
    """

    amount_cents: int
    symbol: str
    count: int


Decomposition = tuple[Gain, ...]


def _check_prize(prize_cents: object) -> int:
    if type(prize_cents) is not int or prize_cents < 0:
        raise PrizeError(
            f"prize_cents {prize_cents!r} ({type(prize_cents).__name__}) is not a prize: "
            "expected an integer number of cents, 0 or more"
        )
    return prize_cents


@cache
def _robots_sums() -> dict[int, tuple[Decomposition, ...]]:
    """Every subset of the robots' gains by its total: each gauge wins once (4.8, R-I3)."""
    rules = robots_rules()
    gains = [Gain(s.amount_cents, s.letter, s.gauge_notches) for s in rules.symbols]
    sums: dict[int, list[Decomposition]] = {}
    for size in range(len(gains) + 1):
        for subset in itertools.combinations(gains, size):
            dec = tuple(sorted(subset, reverse=True))
            sums.setdefault(sum(g.amount_cents for g in dec), []).append(dec)
    return {amount: tuple(sorted(decs, key=_dec_key)) for amount, decs in sums.items()}


def _dec_key(dec: Decomposition) -> tuple[int, tuple[Gain, ...]]:
    return len(dec), tuple(sorted(dec, reverse=True))


@cache
def _eldorado_gains(stake_cents: int) -> tuple[Gain, ...]:
    rules = eldorado_rules()
    gains = (Gain(c.amount_cents[stake_cents], c.symbol, c.count) for c in rules.combinations)
    return tuple(sorted(gains, reverse=True))


@cache
def _eldorado_decompositions(
    stake_cents: int, prize: int, first: int, parts: int
) -> tuple[Decomposition, ...]:
    """Multisets of gains ``first..`` (in descending order) of at most ``parts`` gains."""
    if prize == 0:
        return ((),)
    gains = _eldorado_gains(stake_cents)
    if first >= len(gains) or prize > parts * gains[first].amount_cents:
        return ()  # even the largest gains left cannot reach it
    found: list[Decomposition] = []
    for i in range(first, len(gains)):
        gain = gains[i]
        if gain.amount_cents <= prize and parts > 0:
            for rest in _eldorado_decompositions(
                stake_cents, prize - gain.amount_cents, i, parts - 1
            ):
                found.append((gain, *rest))
    return tuple(found)


def prize_decompositions(
    game: str, stake_cents: int, prize_cents: int
) -> tuple[Decomposition, ...]:
    """Every way ``prize_cents`` is reached by cumulating gains (article 3, "cumul de gains").

    robots: the sets of full gauges whose amounts add up to it; eldorado: the multisets of row
    combinations, at most ``ELDORADO_MAX_WINS`` of them. Each decomposition lists its gains in
    descending order; decompositions come fewest gains first. ``((),)`` for 0; ``()`` when the
    amount cannot be reached.
    """
    check_stake(game, stake_cents)
    prize = _check_prize(prize_cents)
    if game == "robots":
        return _robots_sums().get(prize, ())
    found = _eldorado_decompositions(stake_cents, prize, 0, ELDORADO_MAX_WINS)
    return tuple(sorted(found, key=_dec_key))


Rand = Callable[[], float]


# A uniform integer in 0..n-1 is drawn as ``int(rand() * n)`` throughout: one ``random()``,
# bias below n / 2^53 (as Python's own shuffle had it until 3.11), several times cheaper than
# ``randrange``, which matters at 2 000 000 tickets a block.


def _shuffle(items: list[Any], rand: Rand) -> None:
    """Fisher-Yates, in place."""
    for i in range(len(items) - 1, 0, -1):
        j = int(rand() * (i + 1))
        items[i], items[j] = items[j], items[i]


def _sample(items: Sequence[T], k: int, rand: Rand) -> list[T]:
    """``k`` distinct positions' items, uniformly: the first k steps of a Fisher-Yates."""
    pool = list(items)
    n = len(pool)
    for i in range(k):
        j = i + int(rand() * (n - i))
        pool[i], pool[j] = pool[j], pool[i]
    return pool[:k]


class _Chooser:
    """Draws a decomposition: the single-gain one with SINGLE_GAIN_SHARE, else uniformly."""

    def __init__(self, decompositions: Sequence[Decomposition]) -> None:
        self.singles = [d for d in decompositions if len(d) <= 1]
        self.others = [d for d in decompositions if len(d) > 1]
        if not self.others:
            self.others = self.singles
        elif not self.singles:
            self.singles = self.others

    def __call__(self, rand: Rand) -> Decomposition:
        pool = self.singles if rand() < SINGLE_GAIN_SHARE else self.others
        return pool[int(rand() * len(pool))] if len(pool) > 1 else pool[0]


@dataclass(frozen=True)
class _RobotsPlan:
    """Everything about one decomposition that does not depend on the draw."""

    winners: tuple[int, ...]  # symbol indices of the full gauges
    base: tuple[int, ...]  # notches per symbol before the draw: winners full, others one short
    pool: tuple[int, ...]  # one entry per notch the losing gauges may lose
    removable: int  # most notches they may lose and still fill the 18 buttons


class _RobotsMaker:
    """robots scenarios; see ``make`` for the distribution."""

    def __init__(self, rules: RobotsRules) -> None:
        self.rules = rules
        self.letters = tuple(s.letter for s in rules.symbols)
        self.doubled = tuple(letter + X2_MARK for letter in self.letters)
        self.sizes = tuple(s.gauge_notches for s in rules.symbols)
        self.buttons = rules.buttons
        # R-I1: every order of the 8 robots, so one draw picks one uniformly
        self.orders = tuple("".join(p) + "|" for p in itertools.permutations(self.letters))
        self._plans: dict[int, tuple[_Chooser, dict[Decomposition, _RobotsPlan]]] = {}

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

    def plans(self, prize: int) -> tuple[_Chooser, dict[Decomposition, _RobotsPlan]]:
        found = self._plans.get(prize)
        if found is None:
            plans = {}
            for dec in _robots_sums().get(prize, ()):
                plan = self._plan(dec)
                if plan is not None:
                    plans[dec] = plan
            if not plans:
                raise PrizeError(
                    f"prize_cents {prize!r}: no set of robots' gauges adds up to it "
                    f"(amounts {sorted(s.amount_cents for s in self.rules.symbols)})"
                )
            found = self._plans[prize] = (_Chooser(list(plans)), plans)
        return found

    def make(self, prize: int, rng: random.Random) -> str:
        """A robots ticket of ``prize``, drawn as follows (in this order).

        1. The robots' order: uniform over the 8! orders (R-I1).
        2. The decomposition (``_Chooser``); its gauges get exactly their notches, or one more
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
            for i in _sample(plan.pool, removed, rand):
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
        _shuffle(reveals, rand)
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


@dataclass(frozen=True)
class _RowTemplate:
    row: str
    extra_cells: tuple[int, ...]  # cells an EXTRA may take without changing the row's win


class _EldoradoMaker:
    """eldorado scenarios at one stake; see ``make`` for the distribution."""

    def __init__(self, rules: EldoradoRules, stake_cents: int) -> None:
        self.rules = rules
        self.stake = stake_cents
        self.extra = rules.extra_letter
        self.rows = rules.rows
        self.cells = rules.cells
        paying = [s.letter for s in rules.symbols if s.paying]
        # E-I5: rows of paying symbols; the losing ones hold no combination (near misses of
        # three alike included), the winning ones exactly one (E-I1: adjacent or not, E-I2)
        self.losing_rows: list[str] = []
        self.winning_rows: dict[tuple[str, int], list[_RowTemplate]] = {}
        for cells in itertools.product(paying, repeat=rules.cells):
            row = "".join(cells)
            combination = row_combination(row, rules)
            if combination is None:
                self.losing_rows.append(row)
                continue
            extra_cells = tuple(
                c
                for c in range(rules.cells)
                if row_combination(row[:c] + self.extra + row[c + 1 :], rules) == combination
            )  # E-I3: EXTRA pays nothing, so it may sit on a winning row's spare cell
            self.winning_rows.setdefault(combination, []).append(_RowTemplate(row, extra_cells))
        # P(grids = fewest needed + e) ~ ratio ** e, for every possible fewest
        self.grid_weights = {
            fewest: list(
                itertools.accumulate(
                    ELDORADO_EXTRA_GRID_RATIO**e for e in range(ELDORADO_MAX_GRIDS - fewest + 1)
                )
            )
            for fewest in range(1, ELDORADO_MAX_GRIDS + 1)
        }
        self._choosers: dict[int, _Chooser] = {}

    @staticmethod
    def fewest_grids(wins: int) -> int:
        """Fewest grids that hold ``wins`` winning rows and a free row in each granting grid.

        G grids hold 3 G rows, of which at most G - 1 are kept free: room for 2 G + 1 wins.
        """
        return max(1, wins // 2)

    def chooser(self, prize: int) -> _Chooser:
        found = self._choosers.get(prize)
        if found is None:
            decompositions = _eldorado_decompositions(self.stake, prize, 0, ELDORADO_MAX_WINS)
            if not decompositions:
                amounts = sorted({g.amount_cents for g in _eldorado_gains(self.stake)})
                raise PrizeError(
                    f"prize_cents {prize!r}: no {ELDORADO_MAX_WINS} or fewer winning rows add up "
                    f"to it at stake {self.stake} (row amounts {amounts})"
                )
            found = self._choosers[prize] = _Chooser(sorted(decompositions, key=_dec_key))
        return found

    def make(self, prize: int, rng: random.Random) -> str:
        """An eldorado ticket of ``prize`` at this maker's stake, drawn as follows.

        1. The decomposition (``_Chooser``): p winning rows.
        2. The number of grids G: the fewest that hold p rows (``fewest_grids``) plus e more,
           P(e) proportional to ``ELDORADO_EXTRA_GRID_RATIO ** e``, G at most
           ``ELDORADO_MAX_GRIDS``.
        3. The G - 1 EXTRA (4.5, E-I4): the one granting grid k sits in grid k - 1 (an Extra
           stage inside an Extra stage) or, with ``ELDORADO_EARLIER_EXTRA``, in a uniformly
           chosen earlier grid; the last grid holds none.
        4. Each grid holding EXTRA keeps one uniformly chosen row free of wins; the p winning
           rows take uniformly chosen rows among the others, in random order.
        5. A winning row: uniform over the rows of paying symbols that make exactly its
           combination (positions and spare symbol alike); a free row: uniform over the rows of
           paying symbols that make none (so three alike occur often).
        6. Each grid's EXTRA take uniformly chosen cells among its free rows' cells and its
           winning rows' spare cells (E-I3: an EXTRA on a winning row changes nothing).
        """
        rand = rng.random
        dec = self.chooser(prize)(rand)
        fewest = self.fewest_grids(len(dec))
        weights = self.grid_weights[fewest]
        grids = fewest + bisect.bisect(weights, rand() * weights[-1])
        extras = [0] * grids
        for granted in range(1, grids):
            home = granted - 1
            if home and rand() < ELDORADO_EARLIER_EXTRA:
                home = int(rand() * home)
            extras[home] += 1
        rows = self.rows
        free_rows = [g * rows + int(rand() * rows) for g in range(grids) if extras[g]]
        open_rows = [r for r in range(grids * rows) if r not in free_rows]
        losing = self.losing_rows
        grid_rows = [losing[int(rand() * len(losing))] for _ in range(grids * rows)]
        full = tuple(range(self.cells))
        extra_cells = [full] * (grids * rows)
        if dec:
            wins = list(dec)
            _shuffle(wins, rand)
            for slot, gain in zip(_sample(open_rows, len(wins), rand), wins, strict=True):
                templates = self.winning_rows[gain.symbol, gain.count]
                template = templates[int(rand() * len(templates))]
                grid_rows[slot] = template.row
                extra_cells[slot] = template.extra_cells
        for g, count in enumerate(extras):
            if not count:
                continue
            candidates = [(r, c) for r in range(g * rows, g * rows + rows) for c in extra_cells[r]]
            for r, c in _sample(candidates, count, rand):
                row = grid_rows[r]
                grid_rows[r] = row[:c] + self.extra + row[c + 1 :]
        return GRID_SEPARATOR.join(
            ROW_SEPARATOR.join(grid_rows[g * rows : g * rows + rows]) for g in range(grids)
        )


@cache
def _robots_maker() -> _RobotsMaker:
    return _RobotsMaker(robots_rules())


@cache
def _eldorado_maker(stake_cents: int) -> _EldoradoMaker:
    return _EldoradoMaker(eldorado_rules(), stake_cents)


class TicketMaker:
    """The fast path for blocks: one game and stake, arguments checked once, tables built once."""

    def __init__(self, game: str, stake_cents: int) -> None:
        check_stake(game, stake_cents)
        self.game = game
        self.stake_cents = stake_cents
        self._make = _robots_maker().make if game == "robots" else _eldorado_maker(stake_cents).make

    def __call__(self, prize_cents: int, rng: random.Random) -> str:
        return self._make(prize_cents, rng)


def generate_ticket(game: str, stake_cents: int, prize_cents: int, rng: random.Random) -> str:
    """A random valid ticket of ``game`` that evaluates to exactly ``prize_cents`` at that stake.

    Works for 0 and for every amount the game's gains can add up to (every lot of every lot
    table among them); the draw follows the distribution documented in ``docs/blocks.md``.
    """
    check_game(game)
    check_stake(game, stake_cents)
    prize = _check_prize(prize_cents)
    if not isinstance(rng, random.Random):
        raise GameError(
            f"rng {rng!r} ({type(rng).__name__}) is not a random source: "
            "expected a random.Random (seed it to reproduce the ticket)"
        )
    return TicketMaker(game, stake_cents)(prize, rng)
