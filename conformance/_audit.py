"""Streaming, multi-core audit of one block document (contract section 3).

The audit reads a block (or a slice of it) once, in large chunks of whole lines, and checks
every line: the header; the index sequence; the exact line shape (contract 3); every ticket's
validity (contract 1); every declared prize against the reference's evaluation ("lot global de
l'unité", article 3); prizes outside the lot table; then, over the whole document, the lot counts
and the payout against the table (article 3) and the 70 % cap (Arrêté du 9 mars 2006, art. 2).

Speed comes from a vectorised fast path: a chunk's lines are split, matched against the
canonical line shape and (for robots) evaluated with numpy over the whole byte buffer. Any line
the fast path does not recognise, or finds faulty, is re-done by the exact slow path
(``json.loads`` and ``reference``), which alone writes faults: both paths agree on every line a
correct block holds, and only the slow path ever judges a line, so results never differ.
Chunks are spread over worker processes (one per core); memory stays bounded by the number of
chunks in flight, plus one int32 per unit for the randomness tests.

Faults are tagged with an *aspect*; ``conformance.checks.blocks`` maps aspects to requirement
ids (``robots.3.lot_table``...). Aspects: ``header``, ``block_size``, ``sequence``,
``unit_lines``, ``tickets``, ``unit_prize``, ``cumulated_gains``, ``lot_table``, ``payout_cap``.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import zlib
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

import reference
from reference import TicketError
from reference import _strict_json as strict_json

from . import _kernels, _scipy

ASPECTS: tuple[str, ...] = (
    "header",
    "block_size",
    "sequence",
    "unit_lines",
    "tickets",
    "unit_prize",
    "cumulated_gains",
    "lot_table",
    "payout_cap",
)
FORMAT = "block/1"
CHUNK_BYTES = 1 << 22  # 4 MiB of lines per work item: large enough for numpy, small in flight
EVIDENCE_BYTES = 400  # a faulty line is quoted up to this many bytes
PADDING = 32  # zero bytes after a chunk, so 8-byte windows near its end can be read
CURVE_POINTS = 500
PARALLEL_MIN_UNITS = 100_000  # smaller documents are audited in-process: no fork, no pickling

IntArray = npt.NDArray[np.int64]


class AuditError(Exception):
    """The audit could not start: unreadable file, no header line (message names the fault)."""


@dataclass(frozen=True)
class Expectation:
    """What the block must be: from the rules of its game and from the request that read it.

    ``start``/``count`` are the slice asked for (``None``: the whole block). ``lots`` maps every
    prize of the lot table, 0 (losing) included, to its units in a whole block.
    """

    game: str
    stake_cents: int
    block_units: int
    lots: Mapping[int, int]
    payout_cap_percent: int
    block_id: str | None = None
    start: int | None = None
    count: int | None = None

    @staticmethod
    def from_rules(
        game: str,
        stake_cents: int,
        block_id: str | None = None,
        start: int | None = None,
        count: int | None = None,
    ) -> Expectation:
        rules = reference.load_rules(game)
        table = rules.lot_table(stake_cents)
        return Expectation(
            game=game,
            stake_cents=stake_cents,
            block_units=rules.block_units,
            lots=dict(sorted(table.counts().items())),
            payout_cap_percent=rules.payout_cap_percent,
            block_id=block_id,
            start=start,
            count=count,
        )


@dataclass(frozen=True)
class Fault:
    """One broken rule in one place: ``position`` is the unit line's 0-based place in the
    document (None for the header or the document as a whole); ``line`` is its bytes, shortened."""

    aspect: str
    message: str
    position: int | None = None
    index: int | None = None  # the block index the line should hold
    line: bytes | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "aspect": self.aspect,
            "message": self.message,
            "position": self.position,
            "index": self.index,
            "line": None if self.line is None else self.line.decode("utf-8", "replace"),
        }


@dataclass(frozen=True)
class BlockAudit:
    """Everything one audit found; ``prizes`` holds each unit's declared prize (-1: none)."""

    header: dict[str, Any]
    expectation: Expectation
    start: int  # the slice the document should hold
    count: int
    units: int  # the block size the header declares (the rules' when it declares none)
    audited_units: int  # unit lines read
    sha256: str
    prizes: npt.NDArray[np.int32]
    lots_observed: dict[int, int]
    payout_cents: int
    cumulative_payout: list[list[int]]
    faults: tuple[Fault, ...]  # the first ``max_faults`` of each aspect, in document order
    fault_counts: dict[str, int]  # every fault, by aspect
    kept: dict[int, bytes] = field(default_factory=dict)  # block index -> unit line, on request

    @property
    def whole(self) -> bool:
        return self.start == 0 and self.count == self.expectation.block_units

    @property
    def face_value_cents(self) -> int:
        return self.audited_units * self.expectation.stake_cents

    def failed(self, aspect: str) -> bool:
        return self.fault_counts.get(aspect, 0) > 0

    def faults_of(self, aspect: str) -> list[Fault]:
        return [f for f in self.faults if f.aspect == aspect]

    def lots_expected(self) -> dict[int, int]:
        return dict(self.expectation.lots)

    def block_audited(self, p_values: Mapping[str, float] | None = None) -> dict[str, Any]:
        """The fields of ``harness.BlockAudited`` for ``ctx.block_sink``."""
        return {
            "block_id": str(self.header.get("block_id", self.expectation.block_id or "")),
            "game": self.expectation.game,
            "stake_cents": self.expectation.stake_cents,
            "units": self.units,
            "audited_units": self.audited_units,
            "sha256": self.sha256,
            "header": dict(self.header),
            "lots_expected": {str(k): v for k, v in self.expectation.lots.items()},
            "lots_observed": {str(k): v for k, v in sorted(self.lots_observed.items())},
            "payout_cents": self.payout_cents,
            "face_value_cents": self.face_value_cents,
            "p_values": dict(p_values or {}),
            "cumulative_payout": self.cumulative_payout,
        }


# -- chunk sources -------------------------------------------------------------------------


def chunks_from_lines(lines: Iterable[bytes], target: int = CHUNK_BYTES) -> Iterator[bytes]:
    """Join unit lines (no trailing newline, as ``BlockStream.lines()`` yields them) into
    chunks of whole lines, each line ending in ``b"\\n"``."""
    batch: list[bytes] = []
    size = 0
    for line in lines:
        batch.append(line)
        size += len(line) + 1
        if size >= target:
            batch.append(b"")
            yield b"\n".join(batch)
            batch, size = [], 0
    if batch:
        batch.append(b"")
        yield b"\n".join(batch)


def chunks_from_reader(read: Callable[[int], bytes], target: int | None = None) -> Iterator[bytes]:
    """Chunks of whole lines from a byte reader; a last line without newline gets one."""
    target = CHUNK_BYTES if target is None else target
    rest = b""
    done = 0  # document bytes handed on
    while True:
        data = read(target)
        if not data:
            break
        data = rest + data
        cut = data.rfind(b"\n") + 1
        if cut == 0:
            rest = data
            if len(rest) > MAX_FILE_LINE_BYTES:  # no line of block/1 is near this long
                raise EOFError(
                    f"a line longer than {MAX_FILE_LINE_BYTES} bytes from document byte {done}"
                )
            continue
        done += cut
        rest = data[cut:]
        yield data[:cut]
    if rest:
        yield rest + b"\n"


RAW_READ = 1 << 20  # compressed bytes read at a time
MAX_FILE_LINE_BYTES = 64 << 20  # a line without end past this ends the document


@dataclass(frozen=True)
class Checkpoint:
    """A place to resume reading a block file: ``position`` document bytes in, at file offset
    ``raw_offset``, with the decompressor's state there (None for an uncompressed file)."""

    position: int
    raw_offset: int
    inflate: Any = None


class DocumentReader:
    """``read(size)`` over a block file's document bytes, decompressing gzip (multi-member
    aware) with zlib directly, faster than ``gzip.GzipFile``.

    With ``record=True`` it keeps a ``Checkpoint`` about every mebibyte of file, so a later
    reader can start near any position (``start=``) instead of at the beginning: this is how a
    file target serves small slices of a large ``.jsonl.gz`` quickly.
    """

    def __init__(self, path: Path, start: Checkpoint | None = None, record: bool = False) -> None:
        try:
            self.raw = path.open("rb")
        except OSError as exc:
            raise AuditError(f"cannot open block file {str(path)!r}: {exc.strerror}") from None
        self.gzip = self.raw.read(2) == b"\x1f\x8b"
        self.raw.seek(0 if start is None else start.raw_offset)
        self.position = 0 if start is None else start.position
        self.record = record
        self.checkpoints: list[Checkpoint] = []
        self.inflate: Any = zlib.decompressobj(wbits=31)
        if start is not None and start.inflate is not None:
            self.inflate = start.inflate.copy()
        self.pending = b""
        self.eof = False
        self.truncated = False
        self.damage: str | None = None  # why the compressed data stopped making sense

    def close(self) -> None:
        self.raw.close()

    def _mark(self, position: int) -> None:
        if self.record:
            state = self.inflate.copy() if self.gzip else None
            self.checkpoints.append(Checkpoint(position, self.raw.tell(), state))

    def __call__(self, size: int) -> bytes:
        if not self.gzip:
            self._mark(self.position)
            data: bytes = self.raw.read(max(size, RAW_READ))
            self.position += len(data)
            if not data:
                self.raw.close()
            return data
        out: list[bytes] = []
        got = 0
        while got < size and not self.eof:
            if not self.pending:
                self._mark(self.position + got)
            data = self.pending or self.raw.read(RAW_READ)
            self.pending = b""
            if not data:
                self.eof = True
                self.truncated = not self.inflate.eof
                break
            piece = self._inflate(data)
            out.append(piece)
            got += len(piece)
            if self.damage is not None:
                self.eof = True
                break
            if self.inflate.eof:  # a member ended: another may follow
                self.pending = self.inflate.unused_data or self.raw.read(RAW_READ)
                self.inflate = zlib.decompressobj(wbits=31)
                self.eof = not self.pending
        self.position += got
        if self.eof:
            self.raw.close()
        if self.truncated and not any(out):  # the data before the cut has been handed out
            raise EOFError("the compressed stream ended before its end marker (truncated)")
        if self.damage is not None and not any(out):
            raise EOFError(self.damage)
        return b"".join(out)

    def _inflate(self, data: bytes) -> bytes:
        """``data`` decompressed; on corrupt data, what decompresses before the damage, with
        ``damage`` naming the file offset where it was found (the next read raises EOFError)."""
        before = self.inflate.copy()
        try:
            piece: bytes = self.inflate.decompress(data)
            return piece
        except zlib.error:
            pass
        at = self.raw.tell() - len(data)
        self.inflate, pieces, step = before, [], 4096
        offset = 0
        while offset < len(data):  # salvage what decompresses before the damage, finer and finer
            saved = self.inflate.copy()
            try:
                pieces.append(self.inflate.decompress(data[offset : offset + step]))
                offset += step
            except zlib.error as exc:
                self.inflate = saved
                if step > 1:
                    step //= 16
                    continue
                self.damage = (
                    f"the compressed file is corrupt near byte {at + offset} of the file ({exc})"
                )
                break
        return b"".join(pieces)


def open_document(path: str | Path, record: bool = False) -> DocumentReader:
    """A reader over a block file's document bytes, decompressing ``.gz`` files."""
    return DocumentReader(Path(path), record=record)


def resume_document(path: str | Path, at: Checkpoint, offset: int) -> Callable[[int], bytes]:
    """A reader of the document bytes from ``offset`` on, started at checkpoint ``at``."""
    reader = DocumentReader(Path(path), start=at)
    parts: list[bytes] = []
    have = 0
    while have < offset - at.position:
        data = reader(CHUNK_BYTES)
        if not data:
            break
        parts.append(data)
        have += len(data)
    rest = [b"".join(parts)[offset - at.position :]]

    def read(size: int) -> bytes:
        if rest:
            return rest.pop() or reader(size)
        return reader(size)

    return read


# -- the exact slow path -------------------------------------------------------------------


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        twice = sorted({k for k in keys if keys.count(k) > 1})
        raise ValueError(f"key(s) {twice} appear more than once")
    return dict(pairs)


UNIT_KEYS = ("index", "prize_cents", "ticket")


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
        value = strict_json.loads(line, object_pairs_hook=_no_duplicates)
    except strict_json.JsonError as exc:
        return _LineVerdict(-1, [("unit_lines", f"not a JSON document: {exc}")])
    if not isinstance(value, dict):
        return _LineVerdict(
            -1, [("unit_lines", f"a unit line is a JSON object, got {value!r}"[:300])]
        )
    keys = sorted(value)
    if keys != sorted(UNIT_KEYS):
        faults.append(
            ("unit_lines", f"a unit has exactly the fields {list(UNIT_KEYS)}, this one has {keys}")
        )
    got_index = value.get("index")
    declared = got_index if type(got_index) is int and got_index >= 0 else -1
    if type(got_index) is not int:
        faults.append(("unit_lines", f"'index' must be an integer, got {got_index!r}"))
    elif index is not None and got_index != index:
        faults.append(("sequence", f"expected index {index}, got {got_index}"))
    prize = value.get("prize_cents")
    if type(prize) is not int or prize < 0:
        faults.append(("unit_lines", f"'prize_cents' must be an integer >= 0, got {prize!r}"))
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
    indices: IntArray  # the index each line declares, -1 where it gives none
    edges: dict[int, bytes]  # document position -> line, where the indices may break


def _templates(spaced: bool) -> tuple[bytes, bytes, bytes]:
    sp = b" " if spaced else b""
    return (
        b'{"index":' + sp,
        b"," + sp + b'"prize_cents":' + sp,
        b"," + sp + b'"ticket":' + sp + b'"',
    )


def _words(buf: bytes) -> npt.NDArray[np.uint64]:
    """Every 8-byte window of ``buf`` as a little-endian uint64 (a strided view, no copy);
    ``buf`` must end in at least 24 bytes of padding so any window that starts in it exists."""
    return np.ndarray(shape=(len(buf) - 7,), dtype="<u8", buffer=buf, strides=(1,))


def _match_at(words: npt.NDArray[np.uint64], pos: IntArray, text: bytes) -> npt.NDArray[np.bool_]:
    """Whether ``text`` (at most 24 bytes) stands at each of ``pos``: one gather per 8 bytes."""
    ok = np.ones(len(pos), bool)
    for offset in range(0, len(text), 8):
        piece = text[offset : offset + 8]
        mask = np.uint64((1 << (8 * len(piece))) - 1)
        ok &= (words[pos + offset] & mask) == np.uint64(int.from_bytes(piece, "little"))
    return ok


def _digits(
    a: npt.NDArray[np.uint8], begin: IntArray, end: IntArray, ok: npt.NDArray[np.bool_]
) -> IntArray:
    """Parse canonical JSON non-negative integers in [begin, end); clears ``ok`` elsewhere."""
    length = end - begin
    ok &= (length >= 1) & (length <= 12)
    value = np.zeros(len(begin), np.int64)
    if len(begin) == 0:
        return value
    last = len(a) - 1
    width = int(length[ok].max()) if ok.any() else 0
    for k in range(width):
        inside = k < length
        d = a[np.minimum(begin + k, last)].astype(np.int64) - 48
        ok &= ~inside | ((d >= 0) & (d <= 9))
        value = np.where(inside, value * 10 + d, value)
    ok &= (length == 1) | (a[np.minimum(begin, last)] != 48)  # JSON: no leading zero
    return value


def audit_chunk(buf: bytes, first: int, params: _Params) -> _ChunkResult:
    """Audit the unit lines in ``buf`` (each ending in a newline), the first at ``first``.

    Each line's content is judged whatever index it declares; the declared indices are
    returned (``indices``) and the sequence is judged over the whole document by
    ``sequence_faults``, so a missing or repeated line is one finding, not a cascade.
    """
    padded = buf + bytes(PADDING)
    words = _words(padded)
    a = np.frombuffer(padded, np.uint8)
    ends = np.flatnonzero(a[: len(buf)] == 10).astype(np.int64)
    n = len(ends)
    starts = np.empty(n, np.int64)
    if n:
        starts[0] = 0
        starts[1:] = ends[:-1] + 1
    prizes = np.full(n, -1, np.int64)
    indices = np.full(n, -1, np.int64)
    ok = np.zeros(n, bool)
    quotes = np.flatnonzero(a[: len(buf)] == 34).astype(np.int64)
    q = quotes.reshape(-1, 8) if len(quotes) == 8 * n else np.zeros((0, 8), np.int64)
    if n and len(q) == n and bool(((q[:, 0] >= starts) & (q[:, 7] < ends)).all()):
        candidates = np.arange(n)  # the common case: 8 quotes on every line
    else:
        per_line = np.bincount(np.searchsorted(ends, quotes), minlength=n)[:n]
        candidates = np.flatnonzero(per_line == 8)
        q = quotes[np.repeat(per_line == 8, per_line[:n])].reshape(-1, 8)
    if len(candidates):
        s, e = starts[candidates], ends[candidates]
        spaced = bool(len(buf) > 10 and buf[9:10] == b" ")
        p0, p1, p2 = _templates(spaced)
        w = len(p1) - len(p1.lstrip(b", "))  # bytes before the key's opening quote
        good = (e - s >= len(p0) + len(p1) + len(p2) + 4) & (a[e - 1] == ord("}"))
        good &= (q[:, 7] == e - 2) & (q[:, 0] == s + 1) & (q[:, 1] == s + 7)
        p1_at = q[:, 2] - w
        p2_at = q[:, 4] - w
        good &= (p1_at > s) & (p2_at > p1_at)
        good &= _match_at(words, s, p0) & _match_at(words, np.where(good, p1_at, s), p1)
        good &= _match_at(words, np.where(good, p2_at, s), p2)
        index = _digits(a, s + len(p0), p1_at, good)
        prize = _digits(a, p1_at + len(p1), p2_at, good)
        t0, t1 = p2_at + len(p2), q[:, 7]
        good &= np.isin(prize, np.fromiter(params.table, np.int64))
        truth = _kernels.ticket_prizes(buf, a, words, params.game, params.stake, t0, t1, good)
        good &= truth == prize
        ok[candidates] = good
        prizes[candidates] = np.where(good, prize, -1)
        indices[candidates] = np.where(good, index, -1)
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
    if n:
        jumps = np.flatnonzero(indices[1:] != indices[:-1] + 1) + 1
        for i in [0, *jumps[: params.max_faults].tolist()]:
            edges[first + i] = buf[starts[i] : ends[i]][:EVIDENCE_BYTES]
    return _ChunkResult(prizes.astype(np.int32), faults, counts, kept, indices, edges)


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
    filled = indices.copy()
    unknown = filled < 0
    if unknown.any():  # stands where it should: one past the line before it
        known = np.where(unknown, -1, np.arange(n))
        last_known = np.maximum.accumulate(known)
        base = np.where(last_known >= 0, filled[np.maximum(last_known, 0)], start - 1)
        gap = np.arange(n) - np.where(last_known >= 0, last_known, -1)
        filled = np.where(unknown, base + gap, filled)
    previous = np.empty(n, np.int64)
    previous[0] = start - 1
    previous[1:] = filled[:-1]
    breaks = np.flatnonzero(filled != previous + 1)
    faults: list[Fault] = []
    for at in breaks[:limit].tolist():
        before, got = int(previous[at]), int(filled[at])
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


# -- the driver ----------------------------------------------------------------------------


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


def _curve(prizes: npt.NDArray[np.int32], start: int) -> list[list[int]]:
    if len(prizes) == 0:
        return []
    cumulative = np.cumsum(np.maximum(prizes, 0), dtype=np.int64)
    at = np.unique(np.linspace(0, len(prizes) - 1, min(CURVE_POINTS, len(prizes))).astype(np.int64))
    return [[start + int(i) + 1, int(cumulative[i])] for i in at]


def default_workers() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1)


_WORKER_PARAMS: _Params | None = None


def _init_worker(params: _Params) -> None:
    global _WORKER_PARAMS
    _WORKER_PARAMS = params
    _kernels.prepare(params.game, params.stake)


def _work(buf: bytes, first: int) -> _ChunkResult:
    assert _WORKER_PARAMS is not None
    return audit_chunk(buf, first, _WORKER_PARAMS)


def audit(
    header: Mapping[str, Any],
    chunks: Iterable[bytes],
    expect: Expectation,
    *,
    header_bytes: bytes | None = None,
    workers: int | None = None,
    max_faults: int = 20,
    keep: Sequence[tuple[int, int]] = (),
    progress: Callable[[int], None] | None = None,
) -> BlockAudit:
    """Audit one block document: ``header`` (parsed) and ``chunks`` of whole unit lines.

    ``header_bytes`` is the header line as read (newline included), hashed with the unit lines
    into ``sha256``; without it the header is hashed as compact JSON.

    Where the line falls between the target's misbehaviour and the block's fault: a
    ``harness.TargetError`` the stream raises (an HTTP body cut by the transport or mid-line,
    far more lines than asked, a timeout) propagates, so the checks end in *error*; whatever
    the stream does hand on is judged, so a well-formed document that lacks units (it ends
    cleanly, early) or skips an index fails ``sequence``. A block *file* has no transport: a
    truncated ``.gz`` (``EOFError``, ``zlib.error``) or an unreadable file ends its document,
    a ``sequence`` fault, since the units after it are missing.
    """
    header = dict(header)
    faults = _check_header(header, expect)
    units = header["units"] if type(header.get("units")) is int else expect.block_units
    start = expect.start if expect.start is not None else 0
    count = expect.count if expect.count is not None else units
    if expect.start is None and type(header.get("start")) is int:
        start = header["start"]
    if expect.count is None and type(header.get("count")) is int:
        count = header["count"]
    params = _Params(
        expect.game,
        expect.stake_cents,
        start,
        frozenset(expect.lots),
        max_faults,
        tuple((int(lo), int(hi)) for lo, hi in keep),
    )
    digest = hashlib.sha256()
    if header_bytes is None:
        header_bytes = json.dumps(header, separators=(",", ":")).encode() + b"\n"
    digest.update(header_bytes)
    results: list[_ChunkResult] = []
    read = 0
    ended: str | None = None
    if workers is None:
        workers = default_workers() if count >= PARALLEL_MIN_UNITS else 1

    def pieces() -> Iterator[tuple[bytes, int]]:
        nonlocal read, ended
        try:
            for buf in chunks:
                digest.update(buf)
                lines = buf.count(b"\n")
                yield buf, read
                read += lines
                if progress is not None:
                    progress(read)
        except (EOFError, OSError, zlib.error) as exc:  # a damaged file; TargetError passes
            ended = str(exc) or type(exc).__name__

    _kernels.prepare(expect.game, expect.stake_cents)  # before any fork: workers inherit it
    # the randomness tests' scipy loads while the block is read (in a thread: only once every
    # worker process has been forked, so no fork ever copies an import half done)
    if workers <= 1:
        _scipy.prefetch()
        results = [audit_chunk(buf, first, params) for buf, first in pieces()]
    else:
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(workers, context, _init_worker, (params,)) as pool:
            flight: deque[Future[_ChunkResult]] = deque()
            for buf, first in pieces():
                flight.append(pool.submit(_work, buf, first))
                if len(flight) == workers:  # each submit found no idle worker: all forked
                    _scipy.prefetch()
                if len(flight) >= 2 * workers:
                    results.append(flight.popleft().result())
            results.extend(f.result() for f in flight)
    prizes = np.concatenate([r.prizes for r in results]) if results else np.zeros(0, np.int32)
    counts: dict[str, int] = {}
    for f in faults:
        counts[f.aspect] = counts.get(f.aspect, 0) + 1
    for r in results:
        for f in r.faults:
            if sum(1 for g in faults if g.aspect == f.aspect) < max_faults:
                faults.append(f)
        for aspect, n in r.fault_counts.items():
            counts[aspect] = counts.get(aspect, 0) + n
    kept: dict[int, bytes] = {}
    edges: dict[int, bytes] = {}
    for r in results:
        kept.update(r.kept)
        edges.update(r.edges)
    audited = len(prizes)
    indices = np.concatenate([r.indices for r in results]) if results else np.zeros(0, np.int64)
    breaks, broken = sequence_faults(indices, start, count, edges, max_faults)
    faults.extend(breaks)
    if broken:
        counts["sequence"] = counts.get("sequence", 0) + broken

    def document_fault(aspect: str, message: str) -> None:
        counts[aspect] = counts.get(aspect, 0) + 1
        faults.append(Fault(aspect, message))

    if ended is not None:
        document_fault("sequence", f"the document ended after {audited} unit lines: {ended}")
    if audited != count:
        document_fault(
            "sequence",
            f"the document holds {audited} unit lines; its slice [{start}, {start + count}) "
            f"needs exactly {count}",
        )
    values, tallies = np.unique(prizes[prizes >= 0], return_counts=True)
    observed = {int(v): int(c) for v, c in zip(values, tallies, strict=True)}
    payout = int(np.maximum(prizes, 0).sum(dtype=np.int64))
    whole = start == 0 and count == expect.block_units
    if whole:
        for prize in sorted(set(expect.lots) | set(observed)):
            want, got = expect.lots.get(prize, 0), observed.get(prize, 0)
            if want != got and prize in expect.lots:
                document_fault(
                    "lot_table",
                    f"prize {prize} cents: the lot table has {want} units, the block {got}",
                )
        table_total = sum(p * n for p, n in expect.lots.items())
        if payout != table_total:
            document_fault(
                "lot_table",
                f"the block pays {payout} cents in all; its lot table pays {table_total}",
            )
        face = expect.block_units * expect.stake_cents
        if payout * 100 > face * expect.payout_cap_percent:
            document_fault(
                "payout_cap",
                f"the block pays {payout} cents of {face} sold: {100 * payout / face:.4f} %, above "
                f"the {expect.payout_cap_percent} % cap (Arrêté du 9 mars 2006, art. 2)",
            )
    else:
        for prize, got in observed.items():
            limit = expect.lots.get(prize)
            if limit is not None and got > limit:
                document_fault(
                    "lot_table",
                    f"prize {prize} cents: {got} units in this slice alone, the whole block's "
                    f"lot table has {limit}",
                )
    order = {aspect: n for n, aspect in enumerate(ASPECTS)}
    faults.sort(key=lambda f: (order.get(f.aspect, 99), -1 if f.position is None else f.position))
    return BlockAudit(
        header=header,
        expectation=expect,
        start=start,
        count=count,
        units=units,
        audited_units=audited,
        sha256=digest.hexdigest(),
        prizes=prizes,
        lots_observed=observed,
        payout_cents=payout,
        cumulative_payout=_curve(prizes, start),
        faults=tuple(faults),
        fault_counts=counts,
        kept=kept,
    )


def read_header(read: Callable[[int], bytes]) -> tuple[dict[str, Any], bytes, Iterator[bytes]]:
    """Split a document reader into (header, header line bytes, chunks of unit lines)."""
    chunks = chunks_from_reader(read)
    try:
        first = next(chunks, b"")
    except (EOFError, OSError, zlib.error) as exc:
        raise AuditError(f"the file ends before its header line: {exc}") from None
    cut = first.find(b"\n") + 1
    line = first[:cut]
    try:
        header = strict_json.loads(line)
    except strict_json.JsonError as exc:
        raise AuditError(f"line 1 is not a JSON header: {exc}; it starts {line[:200]!r}") from None
    if not isinstance(header, dict):
        raise AuditError(f"line 1 must be a JSON object (the header), got {line[:200]!r}")

    def rest() -> Iterator[bytes]:
        if first[cut:]:
            yield first[cut:]
        yield from chunks

    return header, line, rest()


def audit_file(
    path: str | Path,
    expect: Expectation | None = None,
    *,
    workers: int | None = None,
    max_faults: int = 20,
) -> BlockAudit:
    """Audit a ``.jsonl`` / ``.jsonl.gz`` block file; ``expect`` defaults to the rules of the
    game and stake its header names."""
    header, line, chunks = read_header(open_document(path))
    if expect is None:
        expect = expectation_for(header)
    return audit(header, chunks, expect, header_bytes=line, workers=workers, max_faults=max_faults)


def expectation_for(header: Mapping[str, Any]) -> Expectation:
    """The rules' expectation for the game and stake a header names (AuditError if unknown)."""
    game, stake = header.get("game"), header.get("stake_cents")
    try:
        reference.check_stake(reference.check_game(game), stake)
    except reference.GameError as exc:
        raise AuditError(f"the header names no game and stake the rules know: {exc}") from None
    assert isinstance(game, str) and isinstance(stake, int)
    return Expectation.from_rules(game, stake)
