"""Tickets at block speed: scenario pools per prize, and prize-keeping transformations keyed by i.

``_generate`` draws one ticket in about 10 µs of Python; a block needs millions. So a block
draws, for each prize it holds, a **pool** of scenarios with that slow generator (lazily, the
first time the prize is needed, from a ``random.Random`` seeded by the block's pool key and the
prize), and unit i shows one scenario of its prize's pool put through transformations that
provably keep both the prize and the validity, all chosen by words keyed by (block key, i):

- robots: the robots' order is replaced by one drawn uniformly among the 8! orders (a reveal
  names a symbol, not a robot, so which robot carries which symbol changes no gauge), and the
  18 buttons are permuted uniformly (Fisher-Yates): each button keeps its reveals, X2 and +1
  chain, and the gauges count reveals wherever they are (article 4.4: buttons are independent).
- eldorado: inside each grid the 3 rows are permuted, and inside each row the 5 cells (E-I1
  counts a row's symbols, adjacent or not); no cell leaves its grid, so every grid keeps its
  EXTRA count and every Extra stage stays granted (E-I4), and every row keeps its combination.

The slow generator's own distribution is invariant under both (it shuffles the reveals over the
buttons and places rows and cells uniformly), so each unit follows that distribution, with the
pool standing in for fresh draws: every kind of scenario the generator makes (cumulated gains,
X2 and +1 chains, near misses, Extra stages inside Extra stages, EXTRA on winning rows) is in
the pools and shows in the block, at about the generator's frequencies.

**Keyed words.** Unit i's ``WORDS`` 64-bit words are the outputs of Philox4x64-10 (Salmon et
al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011; numpy's ``Philox`` bit generator,
checked against the Random123 known-answer vectors by the tests) under the block's 128-bit
scenario key, for the counters ``BLOCKS * i`` to ``BLOCKS * i + BLOCKS - 1``: a counter-based
generator, so the words of any slice are computed alone, in one vectorised call, identical
whatever the slice or the worker. Philox passes TestU01's BigCrush; it is not a cryptographic
primitive, which is not needed here: these words decide what a unit shows, never which prize it
has (the BLAKE2b Feistel permutation of ``_permutation`` decides that). A uniform integer in
``0..n-1`` is ``floor(w * n / 2^64)``, computed exactly in 64-bit halves (bias below n / 2^64).
"""

from __future__ import annotations

import hashlib
import itertools
import random
import threading
from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt

from ._generate import ELDORADO_MAX_GRIDS, TicketMaker
from ._rules import eldorado_rules, robots_rules

#: scenarios drawn per prize (fewer for a lot with fewer units): 4 096 of each amount.
POOL_SCENARIOS = 4096
#: Philox blocks (4 words each) per unit, and the words they give.
BLOCKS = 6
WORDS = 4 * BLOCKS
POOL_PERSON = b"instcert-pool/1"

U8 = npt.NDArray[np.uint8]
U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]


def unit_words(key: int, first: int, size: int) -> U64:
    """The (size, WORDS) keyed words of units first..first+size-1.

    numpy's Philox increments its counter before each block, so starting it one below the
    first unit's first counter gives exactly the Random123 output for that counter.
    """
    counter = (first * BLOCKS - 1) % (1 << 256)
    generator = np.random.Philox(key=key, counter=counter)
    return generator.random_raw(size * WORDS).reshape(size, WORDS)


def uniform_below(words: U64, n: int | U64) -> I64:
    """``floor(w * n / 2^64)`` for each word: uniform in 0..n-1 (n below 2^32), exactly."""
    bound = np.asarray(n, dtype=np.uint64)
    high, low = words >> np.uint64(32), words & np.uint64(0xFFFFFFFF)
    return ((high * bound + ((low * bound) >> np.uint64(32))) >> np.uint64(32)).astype(np.int64)


def _shuffled_columns(words: U64, width: int) -> I64:
    """A uniform permutation of range(width) per row (Fisher-Yates, step k uses column
    width - 1 - k of ``words``)."""
    rows = words.shape[0]
    perm = np.broadcast_to(np.arange(width, dtype=np.int64), (rows, width)).copy()
    at = np.arange(rows)
    bounds = np.arange(width, 1, -1, dtype=np.uint64)  # k + 1 for k = width - 1 .. 1
    draws = uniform_below(words[:, : width - 1], bounds)
    for k in range(width - 1, 0, -1):
        j = draws[:, width - 1 - k]
        swapped = perm[at, j]
        perm[at, j] = perm[:, k]
        perm[:, k] = swapped
    return perm


def _split_tickets(rows: U8) -> list[bytes]:
    """Fixed-width rows, padded with zero bytes and ended by a newline, as ticket bytes."""
    flat = rows.ravel()
    data: bytes = flat[flat != 0].tobytes()
    pieces = data.split(b"\n")
    pieces.pop()  # after the last newline
    return pieces


class _Pools:
    """Lazily drawn pools of scenarios per prize; the transformations are the subclasses'."""

    def __init__(
        self, game: str, stake_cents: int, pool_key: bytes, sizes: Mapping[int, int]
    ) -> None:
        self.game = game
        self.stake_cents = stake_cents
        self._pool_key = pool_key
        self._sizes = dict(sizes)
        self._maker = TicketMaker(game, stake_cents)
        self._pools: dict[int, U8] = {}
        self._lock = threading.Lock()

    def pool_size(self, prize: int) -> int:
        return min(POOL_SCENARIOS, self._sizes.get(prize, POOL_SCENARIOS))

    def scenarios(self, prize: int) -> list[str]:
        """The pool of ``prize``, as the slow generator drew it (a seeded ``random.Random``)."""
        digest = hashlib.blake2b(
            prize.to_bytes(8, "big"), key=self._pool_key, digest_size=16, person=POOL_PERSON
        ).digest()
        rng = random.Random(int.from_bytes(digest, "big"))
        return [self._maker(prize, rng) for _ in range(self.pool_size(prize))]

    def _encode(self, scenarios: Sequence[str]) -> U8:
        raise NotImplementedError

    def pool(self, prize: int) -> U8:
        found = self._pools.get(prize)
        if found is None:
            with self._lock:
                found = self._pools.get(prize)
                if found is None:
                    found = self._pools[prize] = self._encode(self.scenarios(prize))
        return found

    def _show(self, pool: U8, choice: I64, words: U64, selected: I64) -> list[bytes]:
        raise NotImplementedError

    def tickets(self, words: U64, prizes: I64) -> list[bytes]:
        """The ticket of each unit, given its keyed words and its prize."""
        out: list[bytes] = [b""] * len(prizes)
        for prize in np.unique(prizes).tolist():
            selected = np.flatnonzero(prizes == prize)
            pool = self.pool(prize)
            choice = uniform_below(words[selected, 0], len(pool))
            for at, ticket in zip(
                selected.tolist(), self._show(pool, choice, words, selected), strict=True
            ):
                out[at] = ticket
        return out


class RobotsPools(_Pools):
    """robots: word 0 picks the scenario, word 1 the robots' order, words 2-18 the buttons'."""

    def __init__(self, stake_cents: int, pool_key: bytes, sizes: Mapping[int, int]) -> None:
        super().__init__("robots", stake_cents, pool_key, sizes)
        rules = robots_rules()
        self.buttons = rules.buttons
        letters = [s.letter for s in rules.symbols]
        self.orders = np.frombuffer(
            "".join("".join(p) for p in itertools.permutations(letters)).encode("ascii"),
            dtype=np.uint8,
        ).reshape(-1, rules.robots)

    def _encode(self, scenarios: Sequence[str]) -> U8:
        """(scenarios, buttons, width + 1): each button's text, zero padding, then a space."""
        buttons = [b for ticket in scenarios for b in ticket.split("|", 1)[1].split(" ")]
        width = max(map(len, buttons))
        text = "".join([b.ljust(width, "\0") + " " for b in buttons]).encode("ascii")
        return np.frombuffer(text, dtype=np.uint8).reshape(len(scenarios), self.buttons, width + 1)

    def _show(self, pool: U8, choice: I64, words: U64, selected: I64) -> list[bytes]:
        unit_words = words[selected]
        count, robots = len(selected), self.orders.shape[1]
        perm = _shuffled_columns(unit_words[:, 2 : 1 + self.buttons], self.buttons)
        buttons = pool[choice[:, None], perm]  # (count, buttons, width + 1)
        buttons[:, -1, -1] = ord("\n")  # the last button ends the ticket
        rows = np.empty((count, robots + 1 + buttons[0].size), dtype=np.uint8)
        rows[:, :robots] = self.orders[uniform_below(unit_words[:, 1], len(self.orders))]
        rows[:, robots] = ord("|")
        rows[:, robots + 1 :] = buttons.reshape(count, -1)
        return _split_tickets(rows)


class EldoradoPools(_Pools):
    """eldorado: word 0 picks the scenario, words 1-5 each grid's row order, words 6-20 each
    row's cell order."""

    def __init__(self, stake_cents: int, pool_key: bytes, sizes: Mapping[int, int]) -> None:
        super().__init__("eldorado", stake_cents, pool_key, sizes)
        rules = eldorado_rules()
        self.grids, self.rows, self.cells = ELDORADO_MAX_GRIDS, rules.rows, rules.cells
        self.row_width = self.cells + 1  # the cells, then '/' (or '|', or the end)
        self.width = self.row_width * self.rows * self.grids
        self.row_orders = np.array(list(itertools.permutations(range(self.rows))), np.int64)
        self.cell_orders = np.array(list(itertools.permutations(range(self.cells))), np.int64)

    def _encode(self, scenarios: Sequence[str]) -> U8:
        """(scenarios, 5 grids of text): the ticket, a newline where its next '|' would be, then
        zeros; every row starts at a multiple of 6, as in the ticket."""
        text = "".join([(t + "\n").ljust(self.width, "\0") for t in scenarios]).encode("ascii")
        return np.frombuffer(text, dtype=np.uint8).reshape(len(scenarios), self.width)

    def _show(self, pool: U8, choice: I64, words: U64, selected: I64) -> list[bytes]:
        """Shown cell (g, r, c) is scenario cell (g, row_order[g][r], cell_order[3 g + r][c]);
        the separators ('/', '|', the end) stay in place."""
        unit_words = words[selected]
        count, grids, rows, cells = len(selected), self.grids, self.rows, self.cells
        row_order = self.row_orders[
            uniform_below(unit_words[:, 1 : 1 + grids], len(self.row_orders))
        ]  # (count, grids, rows): the scenario row each row shows
        cell_order = self.cell_orders[
            uniform_below(
                unit_words[:, 1 + grids : 1 + grids + grids * rows], len(self.cell_orders)
            )
        ]  # (count, grids * rows, cells): the scenario cell each cell shows
        source_rows = (row_order + (np.arange(grids) * rows)[None, :, None]).reshape(count, -1)
        by_row = pool.reshape(len(pool), grids * rows, self.row_width)
        moved = by_row[choice[:, None], source_rows]
        shown = np.empty_like(moved)
        shown[..., :cells] = np.take_along_axis(moved[..., :cells], cell_order, axis=2)
        shown[..., cells] = by_row[choice, :, cells]
        return _split_tickets(shown)


def scenario_pools(
    game: str, stake_cents: int, pool_key: bytes, sizes: Mapping[int, int]
) -> _Pools:
    """The pools of one block: ``sizes`` caps each prize's pool (a lot's unit count)."""
    if game == "robots":
        return RobotsPools(stake_cents, pool_key, sizes)
    return EldoradoPools(stake_cents, pool_key, sizes)
