"""Tickets at block speed: scenario pools per prize, and prize-keeping transformations keyed by i.

A game's slow generator (``GameEngine.ticket_maker``) draws one ticket in about 10 µs of
Python; a block needs millions. So a block draws, for each prize it holds, a **pool** of
scenarios with that slow generator (lazily, the first time the prize is needed, from a
``random.Random`` seeded by the block's pool key and the prize), and unit i shows one scenario
of its prize's pool put through transformations that provably keep both the prize and the
validity, all chosen by words keyed by (block key, i).

Which transformations keep a game's prize and validity is the game's own knowledge: each engine
builds its pools (``GameEngine.scenario_pools``) from ``ScenarioPools`` here; robots and
eldorado document theirs in ``_robots_make`` and ``_eldorado_make``. A game without any shows
each unit one scenario of its prize's pool as drawn (``PlainPools``, the default).

The slow generator's own distribution is invariant under a game's transformations, so each unit
follows that distribution, with the pool standing in for fresh draws: every kind of scenario the
generator makes is in the pools and shows in the block, at about the generator's frequencies.

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
import random
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence

import numpy as np
import numpy.typing as npt

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


def shuffled_columns(words: U64, width: int) -> I64:
    """A uniform permutation of range(width) per row (Fisher-Yates, step k uses column
    width - 1 - k of ``words``).

    The permutations are kept column by column (``by_column[k]``: entry k of every row), so
    each step swaps through one flat index per row and copies one contiguous column."""
    rows = words.shape[0]
    bounds = np.arange(width, 1, -1, dtype=np.uint64)  # k + 1 for k = width - 1 .. 1
    draws = uniform_below(words[:, : width - 1], bounds)
    by_column = np.empty((width, rows), np.int64)
    by_column[:] = np.arange(width, dtype=np.int64)[:, None]
    flat = by_column.ravel()
    swaps = draws.T * rows + np.arange(rows)  # where entry j of each row is, in ``flat``
    for k in range(width - 1, 0, -1):
        at = swaps[width - 1 - k]
        swapped = flat[at]
        flat[at] = by_column[k]
        by_column[k] = swapped
    return np.ascontiguousarray(by_column.T)


def split_tickets(rows: U8) -> list[bytes]:
    """Fixed-width rows, padded with zero bytes and ended by a newline, as ticket bytes."""
    flat = rows.ravel()
    data: bytes = flat[flat != 0].tobytes()
    pieces = data.split(b"\n")
    pieces.pop()  # after the last newline
    return pieces


def row_tickets(rows: U8) -> list[bytes]:
    """Ticket rows (``ScenarioPools._rows``: a ticket's bytes, zero bytes anywhere among them)
    as ticket bytes."""
    ended = np.empty((rows.shape[0], rows.shape[1] + 1), np.uint8)
    ended[:, :-1] = rows
    ended[:, -1] = ord("\n")
    return split_tickets(ended)


def ticket_rows(tickets: Sequence[bytes]) -> U8:
    """Ticket bytes as rows, each padded with zero bytes to the longest."""
    width = max(map(len, tickets), default=0)
    text = b"".join([t.ljust(width, b"\0") for t in tickets])
    return np.frombuffer(text, np.uint8).reshape(len(tickets), width).copy()


#: a game's slow generator at one stake: a ticket of the prize, drawn from the random source
Maker = Callable[[int, random.Random], str]
#: one lot as the compiled path reads it: (prize_cents, pool, per-scenario data, cell width)
LotEntry = tuple[int, U8, U8, int]
MAX_COMPILED_LOTS = 64  # _fastlines.c's MAX_LOTS


class _DrawnPools:
    """The pools drawn in this process, the newest ``MAX_DRAWN_BYTES`` of them: a block built
    again over the same seed (another service over the same master seed, a server restarted in
    the process, a test's target made again) shows the same pools, so it takes them rather than
    drawing 4 096 scenarios per prize again (about 0.1 s of Python each). Speed only: a pool is
    a function of its key (the pools' class, the slow generator, the block's pool key, the prize
    and its pool's size), and read-only (``np.frombuffer`` of bytes)."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._pools: OrderedDict[Hashable, U8] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> U8 | None:
        with self._lock:
            found = self._pools.get(key)
            if found is not None:
                self._pools.move_to_end(key)
            return found

    def put(self, key: Hashable, pool: U8) -> U8:
        with self._lock:
            if key not in self._pools:
                self._pools[key] = pool
                self._bytes += pool.nbytes
                while self._bytes > self.max_bytes and len(self._pools) > 1:
                    self._bytes -= self._pools.popitem(last=False)[1].nbytes
        return pool


#: the drawn pools kept in a process (``_DrawnPools``): about a hundred robots or eldorado pools
MAX_DRAWN_BYTES = 64 << 20
_DRAWN = _DrawnPools(MAX_DRAWN_BYTES)


class ScenarioPools:
    """Lazily drawn pools of scenarios per prize; the transformations are the subclasses'.

    ``maker`` is the game's slow generator at ``stake_cents`` (``GameEngine.ticket_maker``).
    A subclass encodes a pool as a numpy array (``_encode``) and shows the units of one prize
    from it (``_show``); ``tickets`` is what ``Block`` calls.
    """

    def __init__(
        self,
        game: str,
        stake_cents: int,
        maker: Maker,
        pool_key: bytes,
        sizes: Mapping[int, int],
    ) -> None:
        self.game = game
        self.stake_cents = stake_cents
        self._pool_key = pool_key
        self._sizes = dict(sizes)
        self._maker = maker
        self._pools: dict[int, U8] = {}
        self._entries: dict[int | None, LotEntry] = {}
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
        """A pool as an array: one row per scenario."""
        raise NotImplementedError

    def pool(self, prize: int) -> U8:
        found = self._pools.get(prize)
        if found is None:
            with self._lock:
                found = self._pools.get(prize)
                if found is None:
                    key = (type(self), self._maker, self._pool_key, prize, self.pool_size(prize))
                    found = _DRAWN.get(key)
                    if found is None:
                        found = _DRAWN.put(key, self._encode(self.scenarios(prize)))
                    self._pools[prize] = found
        return found

    def _show(self, pool: U8, choice: I64, words: U64, selected: I64) -> list[bytes]:
        """The tickets of the ``selected`` units (rows of ``words``), which all have one prize:
        unit k shows scenario ``choice[k]`` of ``pool``, transformed by its words. A subclass
        gives these, or their rows (``_rows``), or both."""
        if type(self)._rows is ScenarioPools._rows:
            raise NotImplementedError(f"{type(self).__name__} defines neither _show nor _rows")
        return row_tickets(self._rows(pool, choice, words, selected))

    def _rows(self, pool: U8, choice: I64, words: U64, selected: I64) -> U8:
        """``_show``'s tickets as rows of bytes, zero bytes anywhere among a ticket's (dropped):
        what a block's lines are assembled from without a Python step per unit."""
        if type(self)._show is ScenarioPools._show:
            raise NotImplementedError(f"{type(self).__name__} defines neither _show nor _rows")
        return ticket_rows(self._show(pool, choice, words, selected))

    def _groups(self, words: U64, prizes: I64) -> Iterator[tuple[I64, U8, I64]]:
        """(the units of one prize, its pool, the scenario each shows), prize by prize."""
        for prize in np.unique(prizes).tolist():
            selected = np.flatnonzero(prizes == prize)
            pool = self.pool(prize)
            yield selected, pool, uniform_below(words[selected, 0], len(pool))

    def tickets(self, words: U64, prizes: I64) -> list[bytes]:
        """The ticket of each unit, given its keyed words and its prize."""
        out: list[bytes] = [b""] * len(prizes)
        for selected, pool, choice in self._groups(words, prizes):
            for at, ticket in zip(
                selected.tolist(), self._show(pool, choice, words, selected), strict=True
            ):
                out[at] = ticket
        return out

    #: whether ``lines`` is compiled code that releases the GIL: then slices render on threads
    #: (``_render.SliceRenderer``), not worker processes
    compiled = False

    def lines(self, first: int, lots: I64, key: int, lot_prizes: Sequence[int]) -> bytes | None:
        """The unit lines of units ``first``.. (each unit's lot, an index into ``lot_prizes``;
        their words are ``unit_words(key, first, len(lots))``) at once, or None: then ``Block``
        lays them out from ``padded_tickets``. A game with a compiled path (``compiled``)
        gives the same bytes here through its ``_compiled_lines`` (``RobotsPools``,
        ``EldoradoPools``: ``_fastlines.c``)."""
        if not self.compiled:
            return None
        table = self.lot_table(lots, lot_prizes)
        if table is None:
            return None
        return self._compiled_lines(first, lots, key & 0xFFFF_FFFF_FFFF_FFFF, key >> 64, table)

    def _compiled_lines(
        self, first: int, lots: I64, key_low: int, key_high: int, table: list[LotEntry]
    ) -> bytes | None:
        """The game's kernel over the lot table (``lines``), or None for what it cannot take."""
        raise NotImplementedError

    def _lot_entry(self, prize: int) -> LotEntry:
        """What the compiled path reads of one lot: (prize, pool, per-scenario data, cell)."""
        raise NotImplementedError

    def _absent_entry(self) -> LotEntry:
        """An entry of the right shape for a lot with no unit in a batch: never read."""
        raise NotImplementedError

    def lot_table(self, lots: I64, lot_prizes: Sequence[int]) -> list[LotEntry] | None:
        """Every lot's entry for the compiled path (made once per prize, on first need; one
        absent lot's stand-in, made once, otherwise), or None when it cannot take this many
        lots."""
        if len(lot_prizes) > MAX_COMPILED_LOTS:
            return None
        present = np.bincount(lots, minlength=len(lot_prizes))
        table = []
        for k, prize in enumerate(lot_prizes):
            key = prize if present[k] else None  # None: the absent lots' stand-in
            found = self._entries.get(key)
            if found is None:
                made = self._lot_entry(prize) if key is not None else self._absent_entry()
                found = self._entries[key] = made
            table.append(found)
        return table

    def padded_tickets(self, words: U64, prizes: I64) -> U8:
        """``tickets`` as one array: unit k's ticket in row k, zero bytes anywhere among it."""
        groups = [
            (selected, self._rows(pool, choice, words, selected))
            for selected, pool, choice in self._groups(words, prizes)
        ]
        out = np.zeros((len(prizes), max((r.shape[1] for _, r in groups), default=0)), np.uint8)
        for selected, rows in groups:
            out[selected, : rows.shape[1]] = rows
        return out


class PlainPools(ScenarioPools):
    """A unit shows scenario ``choice`` of its prize's pool as drawn (word 0 picks it): the
    default of a game that declares no prize-keeping transformation."""

    def _encode(self, scenarios: Sequence[str]) -> U8:
        """(scenarios, width): each ticket, then zero padding."""
        return ticket_rows([t.encode("ascii") for t in scenarios])

    def _rows(self, pool: U8, choice: I64, words: U64, selected: I64) -> U8:
        return pool[choice]
