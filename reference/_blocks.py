"""Blocks of predetermined units (article 2): unit i is computable on its own from (seed, i).

A block is fixed by (game, stake, block id, 256-bit seed). From the seed, keyed BLAKE2b derives
independent keys, bound to the game, stake and block id:

- the *permutation key* keys a Feistel permutation of ``range(units)`` (``_permutation``):
  unit i takes the slot ``perm(i)`` of the lot table laid out in order (its lots as listed,
  largest first, then the losing units), so each lot has exactly its count and where winners
  sit is unpredictable without the seed;
- the *pool key* seeds the pools of scenarios drawn per prize by the slow generator, and the
  *scenario key* keys the words (Philox, counter i) that pick unit i's scenario and the
  prize-keeping transformations it shows (the game engine's ``scenario_pools``, built on
  ``_scenarios``); they decide what a unit shows, never
  which prize it has.

Any slice is therefore produced without the rest, in any order, byte-identical to the same
slice of the whole; slices are computed vectorised (numpy) a batch at a time. The seed never
leaves this object: headers show its SHA-256 only.
"""

from __future__ import annotations

import bisect
import hashlib
import itertools
import json
import re
import secrets
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

from ._errors import GameError
from ._games import check_game, check_stake, game_engine, load_rules
from ._permutation import FeistelPermutation
from ._rules import GameRules
from ._scenarios import unit_words

FORMAT = "block/1"
GENERATOR_NAME = "instantcert-reference"
SEED_BYTES = 32
BLOCK_ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
KEY_PERSON = b"instcert-block/1"
STREAM_BATCH = 4096  # units computed at a time by document_lines
BATCH = 4096  # units whose tickets are computed together


class BlockError(GameError):
    """A block, block id, seed or slice that cannot be: the message names which and why."""

    code = "invalid_block"


@dataclass(frozen=True)
class Unit:
    """One unit of a block: its index, its predetermined prize and the scenario showing it."""

    index: int
    prize_cents: int
    ticket: str

    def to_json_line(self) -> bytes:
        """``{"index":I,"prize_cents":P,"ticket":"T"}``: compact, keys in this order, no newline.

        Tickets are printable ASCII without '"' or '\\', so this is also ``json.dumps`` with
        ``separators=(",", ":")``.
        """
        return b'{"index":%d,"prize_cents":%d,"ticket":"%s"}' % (
            self.index,
            self.prize_cents,
            self.ticket.encode("ascii"),
        )


@cache
def generator_version() -> str:
    from importlib import metadata  # 6 ms of imports (email, csv, zipfile): when first asked

    try:
        return metadata.version("instantcert")
    except metadata.PackageNotFoundError:  # pragma: no cover - running from a bare checkout
        return "0+unknown"


def default_block_id(game: str, stake_cents: int, number: int) -> str:
    """``robots-100-0001``: game, stake in cents and the block's number, 1 first."""
    check_stake(game, stake_cents)
    if type(number) is not int or number < 1:
        raise BlockError(
            f"block number {number!r} ({type(number).__name__}): expected an integer >= 1"
        )
    return f"{game}-{stake_cents}-{number:04d}"


def check_block_id(block_id: object) -> str:
    """A block id fit for file names and URLs; BlockError otherwise."""
    if not isinstance(block_id, str) or not BLOCK_ID_PATTERN.fullmatch(block_id):
        raise BlockError(
            f"block_id {block_id!r} ({type(block_id).__name__}): expected 1 to 128 ASCII "
            "letters, digits, '.', '_' or '-', starting with a letter or digit"
        )
    return block_id


def check_slice(units: int, start: object = 0, count: object = None) -> tuple[int, int]:
    """(start, count) of a slice of a block of ``units`` units; count None: up to the end."""
    if type(start) is not int or not 0 <= start <= units:
        raise BlockError(f"start {start!r} ({type(start).__name__}): expected 0 to {units}")
    if count is None:
        return start, units - start
    if type(count) is not int or not 0 <= count <= units - start:
        raise BlockError(
            f"count {count!r} ({type(count).__name__}): expected 0 to {units - start} "
            f"(the block has {units} units, the slice starts at {start})"
        )
    return start, count


def new_seed() -> bytes:
    """A fresh 256-bit block seed from the operating system's CSPRNG (``secrets``)."""
    return secrets.token_bytes(SEED_BYTES)


def _derive(seed: bytes, context: bytes, purpose: bytes) -> bytes:
    return hashlib.blake2b(
        context + b"\x00" + purpose, key=seed, digest_size=32, person=KEY_PERSON
    ).digest()


_LINE_PARTS = (b'{"index":', b',"prize_cents":', b',"ticket":"', b'"}\n')


def _decimal(values: npt.NDArray[np.int64], width: int) -> npt.NDArray[np.uint8]:
    """Each value's decimal digits in ``width`` columns, the leading zeros as zero bytes."""
    powers = 10 ** np.arange(width - 1, -1, -1, dtype=np.int64)
    digits = ((values[:, None] // powers) % 10 + 48).astype(np.uint8)
    leading = values[:, None] < powers
    leading[:, -1] = False  # 0 is written "0"
    digits[leading] = 0
    return digits


def unit_lines(first: int, prizes: npt.NDArray[np.int64], tickets: npt.NDArray[np.uint8]) -> bytes:
    """The unit lines ``{"index":I,"prize_cents":P,"ticket":"T"}`` of units ``first``.. (their
    ``prizes``, their ``tickets`` as ``ScenarioPools.padded_tickets`` gives them), each with its
    newline: every line laid out at one width, numbers right-aligned over zero bytes, and the
    zero bytes dropped in one pass; the same bytes as ``Unit.to_json_line``
    (``tests/reference/test_blocks.py``)."""
    count = len(prizes)
    if count == 0:
        return b""
    index = _decimal(np.arange(first, first + count, dtype=np.int64), len(str(first + count - 1)))
    prize = _decimal(prizes.astype(np.int64, copy=False), len(str(int(prizes.max()))))
    fields = (index, prize, tickets)
    width = sum(len(p) for p in _LINE_PARTS) + sum(f.shape[1] for f in fields)
    rows = np.empty((count, width), np.uint8)
    at = 0
    for part, field in zip(_LINE_PARTS, (*fields, None), strict=True):
        rows[:, at : at + len(part)] = np.frombuffer(part, np.uint8)
        at += len(part)
        if field is not None:
            rows[:, at : at + field.shape[1]] = field
            at += field.shape[1]
    return rows.tobytes().translate(None, b"\0")  # faster than a boolean mask, measured


def _checked_block(
    game: str, stake_cents: int, block_id: str, seed: bytes
) -> tuple[GameRules, bytes]:
    """The rules of a block's game, and the context its keys are derived under."""
    rules = load_rules(check_game(game))
    check_stake(game, stake_cents)
    check_block_id(block_id)
    if not isinstance(seed, bytes) or len(seed) != SEED_BYTES:
        # a seed is a secret: its type and length are shown, never its value
        size = f" of length {len(seed)}" if hasattr(seed, "__len__") else ""
        raise BlockError(
            f"seed: a {type(seed).__name__}{size}, expected {SEED_BYTES} bytes "
            "(a 256-bit seed, e.g. reference.new_seed() or bytes.fromhex(64 hex digits))"
        )
    return rules, f"{FORMAT}\x00{game}\x00{stake_cents}\x00{block_id}".encode("ascii")


def _slots(rules: GameRules, stake_cents: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(ends, prizes): slots [ends[k-1], ends[k]) hold prizes[k], the lots as listed, then
    the losing units."""
    ends: list[int] = []
    prizes: list[int] = []
    for lot in rules.lot_table(stake_cents).lots:
        ends.append((ends[-1] if ends else 0) + lot.units)
        prizes.append(lot.prize_cents)
    ends.append(rules.block_units)
    prizes.append(0)
    return tuple(ends), tuple(prizes)


def probe_prizes(
    game: str, stake_cents: int, block_id: str, seed: bytes, indices: Sequence[int]
) -> list[int]:
    """The prizes of a few units of a block, the same as ``Block(...).prize_cents(i)``,
    without building the block: its permutation's round functions are evaluated only where
    these units need them (a ``Block`` tabulates them all, about 35 ms), for comparing a
    layout with the blocks of many seeds."""
    rules, context = _checked_block(game, stake_cents, block_id, seed)
    key = _derive(seed, context, b"permutation")
    permutation = FeistelPermutation(key, rules.block_units, tabulate=False)
    ends, prizes = _slots(rules, stake_cents)
    return [prizes[bisect.bisect_right(ends, permutation(i))] for i in indices]


class Block:
    """One block of ``game`` at ``stake_cents``; ``units`` is the rules' block size."""

    def __init__(self, game: str, stake_cents: int, block_id: str, seed: bytes) -> None:
        rules, context = _checked_block(game, stake_cents, block_id, seed)
        self.game = game
        self.stake_cents = stake_cents
        self.block_id = block_id
        self.seed = seed
        self.units = rules.block_units
        self.rules_sha256 = rules.sha256
        table = rules.lot_table(stake_cents)
        self._permutation = FeistelPermutation(_derive(seed, context, b"permutation"), self.units)
        self._scenario_key = int.from_bytes(_derive(seed, context, b"scenarios")[:16], "big")
        ends, prizes = _slots(rules, stake_cents)
        self._ends = ends
        self._prizes = prizes
        self._ends_array = np.array(ends, dtype=np.int64)
        self._prizes_array = np.array(prizes, dtype=np.int64)
        sizes = {lot.prize_cents: lot.units for lot in table.lots}
        pool_key = _derive(seed, context, b"pools")
        self._pools = game_engine(game).scenario_pools(stake_cents, pool_key, sizes)

    @property
    def compiled(self) -> bool:
        """Whether ``render`` runs compiled code that releases the GIL (``ScenarioPools``)."""
        return self._pools.compiled

    def __repr__(self) -> str:  # never the seed
        return (
            f"Block(game={self.game!r}, stake_cents={self.stake_cents}, "
            f"block_id={self.block_id!r}, seed_sha256={self.seed_sha256[:16]}...)"
        )

    @property
    def seed_sha256(self) -> str:
        """A commitment to the seed: publishing it reveals nothing, and checks a disclosed seed."""
        return hashlib.sha256(self.seed).hexdigest()

    def _check_index(self, index: object) -> int:
        if type(index) is not int or not 0 <= index < self.units:
            raise BlockError(
                f"unit index {index!r} ({type(index).__name__}) is not in block "
                f"{self.block_id!r}: expected 0 to {self.units - 1}"
            )
        return index

    def check_slice(self, start: object = 0, count: object = None) -> tuple[int, int]:
        """(start, count) of a slice of this block; count None means up to the end."""
        return check_slice(self.units, start, count)

    def prize_cents(self, index: int) -> int:
        """Unit ``index``'s prize alone, without drawing its ticket."""
        slot = self._permutation(self._check_index(index))
        return self._prizes[bisect.bisect_right(self._ends, slot)]

    def _slots(self, first: int, size: int, compiled: bool = True) -> npt.NDArray[np.int64]:
        """``perm(i)`` for a checked slice: vectorised (in C unless ``compiled`` is False), or
        one by one for a permutation without ``many`` (a stand-in some tests put in its
        place)."""
        indices = np.arange(first, first + size, dtype=np.int64)
        many = getattr(self._permutation, "many", None)
        if many is not None:
            found = many(indices) if compiled else many(indices, compiled=False)
            return np.asarray(found, dtype=np.int64)
        one = self._permutation.unchecked
        return np.fromiter((one(i) for i in range(first, first + size)), np.int64, size)

    def _tickets(self, first: int, prizes: npt.NDArray[np.int64]) -> list[bytes]:
        """The tickets of units first.. given their prizes: what ``_scenarios`` shows."""
        words = unit_words(self._scenario_key, first, len(prizes))
        return self._pools.tickets(words, prizes)

    def unit(self, index: int) -> Unit:
        """Unit ``index``, computed from the seed and ``index`` alone."""
        prize = self.prize_cents(index)
        ticket = self._tickets(index, np.array([prize], dtype=np.int64))[0]
        return Unit(index, prize, ticket.decode("ascii"))

    def _slice_lots(self, first: int, size: int, compiled: bool = True) -> npt.NDArray[np.int64]:
        """The lot of each unit of a checked slice, vectorised: its slot's, an index into
        ``_prizes`` (the losing units' last)."""
        slots = self._slots(first, size, compiled)
        return np.searchsorted(self._ends_array, slots, side="right")

    def _slice_prizes(self, first: int, size: int) -> npt.NDArray[np.int64]:
        """The prizes of a checked slice, vectorised: each unit's slot's lot."""
        return self._prizes_array[self._slice_lots(first, size)]

    def _units(self, first: int, size: int) -> tuple[list[int], list[bytes]]:
        """The prizes and tickets of a checked slice, computed together, ``BATCH`` units at a
        time (the arrays of a batch stay in the processor's caches)."""
        prizes = self._slice_prizes(first, size)
        tickets: list[bytes] = []
        for at in range(0, size, BATCH):
            tickets += self._tickets(first + at, prizes[at : at + BATCH])
        return prizes.tolist(), tickets

    def iter_units(self, start: int = 0, count: int | None = None) -> Iterator[Unit]:
        first, size = self.check_slice(start, count)
        for at in range(first, first + size, STREAM_BATCH):
            prizes, tickets = self._units(at, min(STREAM_BATCH, first + size - at))
            for index, prize, ticket in zip(itertools.count(at), prizes, tickets, strict=False):
                yield Unit(index, prize, ticket.decode("ascii"))

    def _lines(self, first: int, size: int) -> list[bytes]:
        """The hot path: lines of a checked slice, the same bytes as ``Unit.to_json_line`` plus a
        newline."""
        prizes, tickets = self._units(first, size)
        line = b'{"index":%d,"prize_cents":%d,"ticket":"%s"}\n'
        return [
            line % unit for unit in zip(range(first, first + size), prizes, tickets, strict=True)
        ]

    def render(self, start: int, count: int, *, compiled: bool = True) -> bytes:
        """Unit lines ``start`` to ``start + count - 1``, each ending in a newline: the bytes
        of ``_lines``, a batch at a time, by the game's compiled path where it has one
        (``ScenarioPools.lines``), else laid out in numpy (``unit_lines``). ``compiled=False``
        runs no compiled code at all (numpy's permutation too): the path the compiled one is
        held to (``tests/reference/test_fastlines.py``)."""
        first, size = self.check_slice(start, count)
        lots = self._slice_lots(first, size, compiled)
        parts = []
        key = self._scenario_key
        for at in range(0, size, BATCH):
            batch = lots[at : at + BATCH]
            lines = self._pools.lines(first + at, batch, key, self._prizes) if compiled else None
            if lines is None:
                words = unit_words(key, first + at, len(batch))
                prizes = self._prizes_array[batch]
                tickets = self._pools.padded_tickets(words, prizes)
                lines = unit_lines(first + at, prizes, tickets)
            parts.append(lines)
        return b"".join(parts)

    def header(self, start: int = 0, count: int | None = None) -> dict[str, Any]:
        """The block/1 header of contract section 3 for this slice, plus ``seed_sha256`` and
        ``rules_sha256`` (the seed itself never appears)."""
        first, size = self.check_slice(start, count)
        return {
            "format": FORMAT,
            "game": self.game,
            "stake_cents": self.stake_cents,
            "block_id": self.block_id,
            "units": self.units,
            "start": first,
            "count": size,
            "generator": {"name": GENERATOR_NAME, "version": generator_version()},
            "seed_sha256": self.seed_sha256,
            "rules_sha256": self.rules_sha256,
        }

    def header_line(self, start: int = 0, count: int | None = None) -> bytes:
        """The header as one compact JSON line, newline included."""
        text = json.dumps(self.header(start, count), separators=(",", ":"), ensure_ascii=True)
        return text.encode("ascii") + b"\n"

    def document_lines(self, start: int = 0, count: int | None = None) -> Iterator[bytes]:
        """The block/1 document of the slice: header line, then one line per unit, each
        ending in a newline (what ``GET /v1/blocks/{id}`` streams)."""
        first, size = self.check_slice(start, count)
        yield self.header_line(first, size)
        for at in range(first, first + size, STREAM_BATCH):
            yield from self._lines(at, min(STREAM_BATCH, first + size - at))
