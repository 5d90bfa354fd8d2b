"""Judging a block document: the verdict on every unit line (the vectorised fast path, over
the lines ``layout`` reads as numbers, and the exact slow path, which alone writes faults), on
the header, and on the index sequence.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

import reference
from reference import TicketError
from reference import _strict_json as strict_json

from .. import _kernels
from . import layout as line_layout
from .model import FORMAT, Expectation, Fault, IntArray

EVIDENCE_BYTES = 400  # a faulty line is quoted up to this many bytes
PADDING = 32  # zero bytes after a chunk, so 8-byte windows near its end can be read

# -- the exact slow path -------------------------------------------------------------------


MAX_INDEX = 2**62  # an index past this is no block's (and would not fit the audit's arrays)
MAX_PRIZE_CENTS = 2**31 - 1  # a declared prize past this is no lot's (tallies are int32)


def header_count(header: Mapping[str, Any], key: str) -> int | None:
    """A header's ``units``, ``start`` or ``count`` when it is one the audit can use (an
    integer in [0, MAX_INDEX]); None for anything else, which ``_check_header`` reports."""
    value = header.get(key)
    return value if type(value) is int and 0 <= value <= MAX_INDEX else None


@dataclass
class _LineVerdict:
    prize: int  # declared prize, -1 when the line gives none
    faults: list[tuple[str, str]]
    index: int = -1  # the index the line declares, -1 when it gives none


def judge_line(
    line: bytes, game: str, stake: int, index: int | None, table: frozenset[int]
) -> _LineVerdict:
    """The exact verdict on one unit line that should hold block index ``index``.

    With ``index=None`` the line's index is read, not judged: the audit judges the sequence
    over the whole document (``sequence_faults``), so one missing line is one finding.
    """
    faults: list[tuple[str, str]] = []
    try:
        value = strict_json.loads_block_line(line, object_pairs_hook=strict_json.no_duplicate_keys)
    except strict_json.JsonError as exc:
        return _LineVerdict(-1, [("unit_lines", f"not a JSON document: {exc}")])
    if not isinstance(value, dict):
        return _LineVerdict(
            -1, [("unit_lines", f"a unit line is a JSON object, got {value!r}"[:300])]
        )
    keys = sorted(value)
    if not set(line_layout.UNIT_KEYS) <= set(keys):
        faults.append(
            (
                "unit_lines",
                f"a unit has the fields {list(line_layout.UNIT_KEYS)}, this one has {keys}",
            )
        )
    elif len(keys) > len(line_layout.UNIT_KEYS):  # fields of the generator's own: a reading's
        others = [k for k in keys if k not in line_layout.UNIT_KEYS]
        faults.append(("unit_fields", f"fields beside {list(line_layout.UNIT_KEYS)}: {others}"))
    got_index = value.get("index")
    declared = got_index if type(got_index) is int and 0 <= got_index <= MAX_INDEX else -1
    if type(got_index) is not int:
        faults.append(("unit_lines", f"'index' must be an integer, got {got_index!r}"))
    elif got_index > MAX_INDEX:
        faults.append(("unit_lines", f"'index' {got_index} is out of range (at most 2**62)"))
    elif index is not None and got_index != index:
        faults.append(("sequence", f"expected index {index}, got {got_index}"))
    prize = value.get("prize_cents")
    if type(prize) is not int or prize < 0:
        faults.append(("unit_lines", f"'prize_cents' must be an integer >= 0, got {prize!r}"))
        prize = -1
    elif prize > MAX_PRIZE_CENTS:
        faults.append(
            ("unit_lines", f"'prize_cents' {prize} is out of range (at most {MAX_PRIZE_CENTS})")
        )
        prize = -1
    elif prize not in table:
        faults.append(("lot_table", f"prize_cents {prize} is not a prize of the lot table"))
    ticket = value.get("ticket")
    if not isinstance(ticket, str):
        faults.append(("unit_lines", f"'ticket' must be a string, got {ticket!r}"[:300]))
        return _LineVerdict(prize, faults, declared)
    try:
        result = reference.evaluate(game, stake, ticket)
    except TicketError as exc:
        faults.append(("tickets", f"invalid ticket: {exc}"))
        return _LineVerdict(prize, faults, declared)
    truth = int(result["prize_cents"])
    if prize >= 0 and prize != truth:
        amounts = [int(w["amount_cents"]) for w in result["wins"]]
        if len(amounts) > 1 and prize in amounts:
            faults.append(
                (
                    "cumulated_gains",
                    f"declared {prize} cents, one of its gains {sorted(amounts)}; the unit's "
                    f"lot is their sum {truth} (article 3)",
                )
            )
        else:
            faults.append(("unit_prize", f"declared {prize} cents, the ticket wins {truth}"))
    return _LineVerdict(prize, faults, declared)


# -- the vectorised fast path --------------------------------------------------------------


@dataclass(frozen=True)
class _Params:
    game: str
    stake: int
    start: int  # block index of the document's first unit line
    table: frozenset[int]
    max_faults: int
    keep: tuple[tuple[int, int], ...]  # [begin, end) block index ranges whose lines are kept


@dataclass
class _ChunkResult:
    prizes: npt.NDArray[np.int32]
    faults: list[Fault]
    fault_counts: dict[str, int]
    kept: dict[int, bytes]
    indices: IntArray  # the index each line declares, -1 where it gives none ...
    edges: dict[int, bytes]  # document position -> line, where the indices may break
    # ... or, when they are ``first, first + 1, ...`` (the common case), empty, with ``first``
    # here: a chunk in order sends two integers back, not 8 bytes a line
    consecutive_from: int | None = None

    def declared(self) -> IntArray:
        """The index each line declares (-1 where it gives none)."""
        if self.consecutive_from is None:
            return self.indices
        return np.arange(self.consecutive_from, self.consecutive_from + len(self.prizes))


def audit_chunk(buf: bytes, first: int, params: _Params) -> _ChunkResult:
    """Audit the unit lines in ``buf`` (each ending in a newline), the first at ``first``.

    Each line's content is judged whatever index it declares; the declared indices are
    returned (``indices``) and the sequence is judged over the whole document by
    ``sequence_faults``, so a missing or repeated line is one finding, not a cascade.
    """
    return _audit(buf, len(buf), first, params, lambda: buf + bytes(PADDING))


def _unescaped_slashes(padded: bytes, size: int) -> tuple[bytes, int]:
    """The chunk with every ``\\/`` written ``/``, and its size then; the chunk itself when it
    holds no ``\\/``, or holds ``\\\\`` anywhere.

    ``"\\/"`` and ``"/"`` are the same JSON string, and PHP's ``json_encode`` and Java's
    json-simple escape every slash: every eldorado ticket of such a generator missed the fast
    path. Where no backslash follows another, each ``\\/`` is an escape (inside a string: the
    same character; outside, where the fast path accepts no ``/`` either, a fault either way),
    so the fast path's verdict on a line is the one the slow path gives the line as stored;
    the slow path and the evidence see the stored lines. A chunk holding ``\\\\`` (an escaped
    backslash, perhaps before a slash) is read as it stands.
    """
    if b"\\/" not in padded or b"\\\\" in padded:
        return padded, size
    unescaped = padded.replace(b"\\/", b"/")
    return unescaped, size - (len(padded) - len(unescaped))


def audit_padded(padded: bytes, size: int, first: int, params: _Params) -> _ChunkResult:
    """``audit_chunk`` of ``padded[:size]``, which ``PADDING`` zero bytes follow in ``padded``
    (a worker copies its chunk and the padding out of shared memory in one go)."""
    return _audit(padded, size, first, params, lambda: padded)


def _audit(
    buf: bytes, size: int, first: int, params: _Params, padded: Callable[[], bytes]
) -> _ChunkResult:
    """The chunk ``buf[:size]`` judged whole by its game's chunk judge when that vouches for
    every line, else by the vectorised path (over ``padded()``, the chunk with its padding:
    made only then) and the slow path."""
    whole = _kernels.judged_chunk(params.game, buf, size, params.stake, params.table)
    if whole is not None:
        starts = np.concatenate(([0], whole.ends[:-1] + 1))
        ok = np.ones(len(whole.ends), bool)
        return _verdicts(buf, first, params, starts, whole.ends, whole.prizes, whole.indices, ok)
    buf = padded()
    starts, ends, prizes, indices, ok = _fast_path(buf, size, params)
    return _verdicts(buf, first, params, starts, ends, prizes, indices, ok)


def _fast_path(
    padded: bytes, size: int, params: _Params
) -> tuple[IntArray, IntArray, IntArray, IntArray, npt.NDArray[np.bool_]]:
    """Each line's bounds in ``padded`` and, for the lines the vectorised path vouches for
    (``ok``), their prize and index; the other lines are left to the slow path."""
    stored, stored_size = padded, size  # the lines as they stand: judged slowly, quoted
    padded, size = _unescaped_slashes(padded, size)
    buf = padded  # the fast path reads it
    words = line_layout.words(padded)
    a = np.frombuffer(padded, np.uint8)
    ends = np.flatnonzero(a[:size] == 10).astype(np.int64, copy=False)
    n = len(ends)
    starts = np.empty(n, np.int64)
    if n:
        starts[0] = 0
        starts[1:] = ends[:-1] + 1
    prizes = np.full(n, -1, np.int64)
    indices = np.full(n, -1, np.int64)
    ok = np.zeros(n, bool)
    quotes = np.flatnonzero(a[:size] == 34).astype(np.int64, copy=False)
    q = quotes.reshape(-1, 8) if len(quotes) == 8 * n else np.zeros((0, 8), np.int64)
    if n and len(q) == n and bool(((q[:, 0] >= starts) & (q[:, 7] < ends)).all()):
        candidates = np.arange(n)  # the common case: 8 quotes on every line
    else:
        per_line = np.bincount(np.searchsorted(ends, quotes), minlength=n)[:n]
        candidates = np.flatnonzero(per_line == 8)
        q = quotes[np.repeat(per_line == 8, per_line[:n])].reshape(-1, 8)
    if len(candidates):
        s, e = starts[candidates], ends[candidates]
        layout = line_layout.layout_of(buf)
        good, values, (t0, t1) = line_layout.match_layout(a, words, q, s, e, layout)
        t0, t1 = line_layout.match_other_orders(a, words, q, s, e, layout, good, values, (t0, t1))
        index, prize = values["index"], values["prize_cents"]
        good &= np.isin(prize, np.fromiter(params.table, np.int64))
        truth = _kernels.ticket_prizes(buf, a, words, params.game, params.stake, t0, t1, good)
        good &= truth == prize
        ok[candidates] = good
        prizes[candidates] = np.where(good, prize, -1)
        indices[candidates] = np.where(good, index, -1)
    if stored is not padded:  # the same lines, each where it was: bounds in the stored bytes
        ends = np.flatnonzero(np.frombuffer(stored, np.uint8)[:stored_size] == 10)
        starts = np.concatenate(([0], ends[:-1] + 1)) if n else ends
    return starts, ends, prizes, indices, ok


def _verdicts(
    buf: bytes,
    first: int,
    params: _Params,
    starts: IntArray,
    ends: IntArray,
    prizes: IntArray,
    indices: IntArray,
    ok: npt.NDArray[np.bool_],
) -> _ChunkResult:
    """The chunk's result once its lines are bounded: the lines not ``ok`` judged by the exact
    slow path, the lines asked for kept, the lines where the indices may break quoted."""
    n = len(ends)
    faults: list[Fault] = []
    counts: dict[str, int] = {}
    for i in np.flatnonzero(~ok).tolist():
        line = buf[starts[i] : ends[i]]
        at = params.start + first + i
        verdict = judge_line(line, params.game, params.stake, None, params.table)
        prizes[i] = verdict.prize
        indices[i] = verdict.index
        for aspect, message in verdict.faults:
            counts[aspect] = counts.get(aspect, 0) + 1
            if counts[aspect] <= params.max_faults:
                faults.append(Fault(aspect, message, first + i, at, line[:EVIDENCE_BYTES]))
    kept: dict[int, bytes] = {}  # by the place the line stands at (its index, if in order)
    for lo, hi in params.keep:
        b = max(lo - params.start - first, 0)
        f = min(hi - params.start - first, n)
        for i in range(b, f):
            kept[params.start + first + i] = buf[starts[i] : ends[i]]
    edges: dict[int, bytes] = {}  # lines where the declared indices may break: evidence
    consecutive_from: int | None = None
    if n:
        jumps = np.flatnonzero(indices[1:] != indices[:-1] + 1) + 1
        for i in [0, *jumps[: params.max_faults].tolist()]:
            edges[first + i] = buf[starts[i] : ends[i]][:EVIDENCE_BYTES]
        if len(jumps) == 0 and indices[0] >= 0:
            consecutive_from, indices = int(indices[0]), indices[:0]
    return _ChunkResult(
        prizes.astype(np.int32), faults, counts, kept, indices, edges, consecutive_from
    )


def sequence_faults(
    indices: IntArray,
    start: int,
    count: int,
    lines: Mapping[int, bytes] | None = None,
    limit: int = 20,
) -> tuple[list[Fault], int]:
    """Where the declared indices break ``start, start+1, ...``: one fault per break, with its
    extent (units missing, a line repeated, a line out of place), and the number of breaks.

    A line that declares no index (it is judged under ``unit_lines``) is taken to stand where
    it should, so it adds no break of its own. After a break the next line is expected to
    follow *its* declared index: the audit resynchronises, so one deleted line is one finding.
    """
    n = len(indices)
    if n == 0:
        return [], 0
    last_wanted = start + count - 1
    filled = indices
    unknown = filled < 0
    if unknown.any():  # stands where it should: one past the line before it
        known = np.where(unknown, -1, np.arange(n))
        last_known = np.maximum.accumulate(known)
        base = np.where(last_known >= 0, filled[np.maximum(last_known, 0)], start - 1)
        gap = np.arange(n) - np.where(last_known >= 0, last_known, -1)
        filled = np.where(unknown, base + gap, filled)
    steps = np.diff(filled)
    steps -= 1  # in place: zero where a line follows the one before it
    breaks = np.flatnonzero(steps) + 1
    if filled[0] != start:
        breaks = np.concatenate(([0], breaks))
    faults: list[Fault] = []
    for at in breaks[:limit].tolist():
        before, got = (int(filled[at - 1]) if at else start - 1), int(filled[at])
        if got > before + 1:
            missing = got - before - 1
            span = f"{before + 1}" if missing == 1 else f"{before + 1}..{got - 1}"
            what = f"{missing} unit(s) missing: index {span}"
        elif got == before:
            what = f"index {got} repeated"
        else:
            what = f"index {got} out of place (it comes back after index {before})"
        where = "the first unit line" if at == 0 else f"unit line {at}"
        message = f"{what}: {where} holds index {got}, after index {before}"
        line = None if lines is None else lines.get(at)
        faults.append(Fault("sequence", message, at, before + 1, line))
    broken = len(breaks)
    if filled[-1] < last_wanted and filled[-1] >= start - 1:
        missing = last_wanted - int(filled[-1])
        span = f"{last_wanted}" if missing == 1 else f"{int(filled[-1]) + 1}..{last_wanted}"
        message = f"{missing} unit(s) missing at the end: index {span} (the last line holds index "
        faults.append(Fault("sequence", message + f"{int(filled[-1])})", n - 1, None, None))
        broken += 1
    return faults, broken


def _check_header(header: Mapping[str, Any], expect: Expectation) -> list[Fault]:
    faults: list[Fault] = []

    def fault(message: str, aspect: str = "header") -> None:
        faults.append(Fault(aspect, message))

    if header.get("format") != FORMAT:
        fault(f"'format' must be {FORMAT!r}, got {header.get('format')!r}")
    if header.get("game") != expect.game:
        fault(f"'game' must be {expect.game!r}, got {header.get('game')!r}")
    if type(header.get("stake_cents")) is not int or header["stake_cents"] != expect.stake_cents:
        fault(f"'stake_cents' must be {expect.stake_cents}, got {header.get('stake_cents')!r}")
    block_id = header.get("block_id")
    if not isinstance(block_id, str) or not block_id:
        fault(f"'block_id' must be a non-empty string, got {block_id!r}")
    elif expect.block_id is not None and block_id != expect.block_id:
        fault(f"'block_id' must be {expect.block_id!r} (the block asked for), got {block_id!r}")
    for key in ("units", "start", "count"):
        value = header.get(key)
        if type(value) is not int or value < 0:
            fault(f"{key!r} must be an integer >= 0, got {value!r}")
        elif value > MAX_INDEX:
            fault(f"{key!r} is out of range (at most 2**62), got {value!r}")
    units, start, count = header.get("units"), header.get("start"), header.get("count")
    if type(units) is int and units != expect.block_units:
        fault(
            f"the block holds {units} units; a {expect.game} block holds {expect.block_units}",
            "block_size",
        )
    if expect.start is not None and start != expect.start:
        fault(f"'start' must be {expect.start} (the slice asked for), got {start!r}")
    if expect.count is not None and count != expect.count:
        fault(f"'count' must be {expect.count} (the slice asked for), got {count!r}")
    if expect.start is None and expect.count is None and (start != 0 or count != units):
        fault(f"a whole block has start 0 and count = units; got start {start!r}, count {count!r}")
    if type(units) is int and type(start) is int and type(count) is int and start + count > units:
        fault(f"the slice [{start}, {start + count}) reaches past the block's {units} units")
    generator = header.get("generator")
    if generator is not None and not isinstance(generator, dict):
        fault(f"'generator' must be an object, got {generator!r}")
    return faults
