"""Driving a block audit: chunks spread over worker processes (one per core), the findings
over the whole document (lot counts, payout, the 70 % cap), and the entry points the checks,
the file target and the CLI call (``audit``, ``audit_file``, ``expectation_for``).
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import itertools
import json
import mmap
import os
import signal
import sys
import zlib
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

import reference

from .. import _kernels
from .._compiled import compiled
from .judge import (
    PADDING,
    _check_header,
    _ChunkResult,
    _Params,
    audit_chunk,
    audit_padded,
    header_count,
    sequence_faults,
)
from .model import ASPECTS, AuditError, BlockAudit, Expectation, Fault
from .reader import CHUNK_BYTES, ReadAgain, open_document, read_header

CURVE_POINTS = 500
PARALLEL_MIN_UNITS = 100_000  # smaller documents are audited in-process: no fork, no pickling


def _payout_and_curve(prizes: npt.NDArray[np.int32], start: int) -> tuple[int, list[list[int]]]:
    """The document's payout (its positive prizes summed) and the cumulative payout at
    ``CURVE_POINTS`` units spread over it, summed between the points (one int64 a point, not
    one a unit: 16 MB of fresh pages on a robots block, on the wall after the read); in one
    pass of ``_fastaudit.between_sums`` where it is built."""
    if len(prizes) == 0:
        return 0, []
    at = np.linspace(0, len(prizes) - 1, min(CURVE_POINTS, len(prizes))).astype(np.int64)
    at = at[np.concatenate(([True], at[1:] != at[:-1]))]  # rising: each point once
    starts = np.concatenate(([0], at[:-1] + 1))
    between_sums = compiled("between_sums")
    if between_sums is not None and prizes.dtype == np.int32 and prizes.flags.c_contiguous:
        between = np.frombuffer(between_sums(prizes, starts), np.int64)
    else:
        between = np.add.reduceat(np.maximum(prizes, 0), starts, dtype=np.int64)
    cumulative = np.cumsum(between)  # at[-1] is the last unit: the last sum runs to the end
    curve = [[start + int(i) + 1, int(total)] for i, total in zip(at, cumulative, strict=True)]
    return int(cumulative[-1]), curve


TALLY_BINS = 1 << 24  # prizes below this are tallied by counting, not by sorting


def _tallies(prizes: npt.NDArray[np.int32]) -> dict[int, int]:
    """How many units declare each prize (negative ones, lines without a prize, left out), in
    ascending order of prize: counted in one pass of ``_fastaudit.tallies`` where it is built,
    else into bins (a robots block: 2 000 000 prizes below 1 000 000 cents, 5 ms, where sorting
    them took 50), sorted when a prize is too large for bins."""
    if len(prizes) == 0:
        return {}
    tallies_of = compiled("tallies")
    if tallies_of is not None and prizes.dtype == np.int32 and prizes.flags.c_contiguous:
        counted = tallies_of(prizes)
        if counted is not None:
            values, tallies = (np.frombuffer(part, np.int64) for part in counted)
            return dict(zip(values.tolist(), tallies.tolist(), strict=True))
    high = int(prizes.max())
    if high < 0:
        return {}
    if high < TALLY_BINS:
        bins = np.bincount(prizes if int(prizes.min()) >= 0 else prizes[prizes >= 0])
        values = np.flatnonzero(bins)
        tallies = bins[values]
    else:
        values, tallies = np.unique(prizes[prizes >= 0], return_counts=True)
    return {int(v): int(c) for v, c in zip(values, tallies, strict=True)}


def default_workers() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1)


_WORKER_PARAMS: _Params | None = None

_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters (malloc.h)
WORKER_HEAP_BYTES = 32 << 20
"""Allocations below this are served from the heap, and freed memory up to it stays there
(glibc; elsewhere nothing changes): a few chunks' temporaries, and the whole block's arrays of
prizes and indices in the parent; what a process keeps is bounded by it."""


def _keep_heap() -> bool:
    """Keep freed memory for the next chunk instead of giving it back at once.

    glibc maps every allocation of 128 KiB or more afresh and unmaps it when freed, so each
    chunk's buffers paid a page fault per 4 KiB page, in the kernel: about a quarter of a
    worker's CPU on a robots block (0.24-0.32 s of system time per 9 chunks measured, 0.00-0.05
    s with this). Memory stays bounded by a chunk's temporaries, now reused instead of mapped
    again. True if the C library took it.
    """
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc (macOS, ...): the default allocator's way
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    return bool(mallopt(_M_MMAP_THRESHOLD, WORKER_HEAP_BYTES)) and bool(
        mallopt(_M_TRIM_THRESHOLD, WORKER_HEAP_BYTES)
    )


def _init_worker(params: _Params, ring: _Ring | None = None) -> None:
    global _WORKER_PARAMS, _WORKER_RING
    _WORKER_PARAMS, _WORKER_RING = params, ring
    # a forked worker inherits the command's SIGTERM handler (harness/_cli: it stops the run):
    # a worker ends on SIGTERM as a process does, without a traceback of its own
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _end_with_the_command()
    _keep_heap()
    _kernels.prepare(params.game, params.stake)


PR_SET_PDEATHSIG = 1  # linux/prctl.h


def _end_with_the_command() -> None:
    """A forked worker gets SIGTERM when the thread that forked it ends (Linux's parent-death
    signal): a command that exits mid-audit (SIGTERM, Ctrl-C: ``os._exit`` once its grace is
    spent) leaves no worker behind. Without it, each worker waited for ever on a task queue
    whose pipe its sibling held open, after the command had gone."""
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def _work(buf: bytes, first: int) -> _ChunkResult:
    assert _WORKER_PARAMS is not None
    return audit_chunk(buf, first, _WORKER_PARAMS)


class _Ring:
    """Slots of memory shared with the worker processes (an anonymous shared mapping, made
    before they are forked), through which chunks reach them.

    A chunk sent through the pool's pipe is pickled, written to the pipe, read and unpickled
    again: four copies and a page fault per fresh 4 KiB, about 0.3 s of CPU on a robots block
    (measured), on a 2-core machine half of it on the wall. Through a slot it is one copy in
    and one out (the worker's, padding included). A slot is reused once the chunk's result
    is back; a chunk larger than a slot goes through the pipe as before.
    """

    def __init__(self, slots: int, slot_bytes: int) -> None:
        self.slot_bytes = slot_bytes
        self.memory = mmap.mmap(-1, slots * slot_bytes)
        self.free = list(range(slots))

    def fits(self, size: int) -> bool:
        return size + PADDING <= self.slot_bytes

    def put(self, buf: bytes) -> int:
        """Copy ``buf`` and its zero padding into a free slot, and return the slot."""
        slot = self.free.pop()
        at = slot * self.slot_bytes
        self.memory[at : at + len(buf)] = buf
        self.memory[at + len(buf) : at + len(buf) + PADDING] = bytes(PADDING)
        return slot

    def padded(self, slot: int, size: int) -> bytes:
        """A private copy of the chunk in ``slot`` (``size`` bytes) with its padding."""
        at = slot * self.slot_bytes
        return self.memory[at : at + size + PADDING]


_WORKER_RING: _Ring | None = None  # a worker's: its pool's ring, inherited when forked
RING_SLOT_BYTES = 4 * CHUNK_BYTES


def _work_in_slot(slot: int, size: int, first: int) -> _ChunkResult:
    assert _WORKER_PARAMS is not None and _WORKER_RING is not None
    return audit_padded(_WORKER_RING.padded(slot, size), size, first, _WORKER_PARAMS)


class _Hasher:
    """The SHA-256 of the document, computed on a thread of its own, in order, while the
    reading thread inflates the next chunk (hashlib lets the GIL go over a chunk): on a robots
    block, 0.14 s of CPU off the reading thread, the one every judge waits on. At most
    ``AHEAD`` chunks wait to be hashed, so memory stays bounded if hashing falls behind.
    Without ``threaded`` (a document audited on one core) it hashes in the caller's thread."""

    AHEAD = 4

    def __init__(self, first: bytes, threaded: bool = True) -> None:
        self._digest = hashlib.sha256(first)
        self._threaded = threaded
        self._pool: ThreadPoolExecutor | None = None
        self._waiting: deque[Future[None]] = deque()

    def update(self, buf: bytes) -> None:
        if not self._threaded:
            self._digest.update(buf)
            return
        if self._pool is None:
            self._pool = ThreadPoolExecutor(1, thread_name_prefix="audit-sha256")
        while len(self._waiting) >= self.AHEAD:
            self._waiting.popleft().result()
        self._waiting.append(self._pool.submit(self._digest.update, buf))

    def hexdigest(self) -> str:
        """The digest of everything given (waiting for the thread); the thread is let go."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
        while self._waiting:
            self._waiting.popleft().result()
        return self._digest.hexdigest()


def _in_order(results: Sequence[_ChunkResult], start: int, count: int) -> bool:
    """Whether the chunks' lines declare exactly ``start .. start + count - 1``, in order: every
    chunk consecutive (``_ChunkResult.consecutive_from``) and each going on from the last.
    Then ``sequence_faults`` has nothing to find, and the indices need not be put together."""
    at = start
    for r in results:
        if r.consecutive_from != at and len(r.prizes):
            return False
        at += len(r.prizes)
    return at == start + count


def _judged(
    pieces: Iterable[tuple[bytes, int]], params: _Params, workers: int, processes: bool = True
) -> list[_ChunkResult]:
    """Every chunk's result, in order: in this process, on threads, or on worker processes.

    Threads when the game's chunk judge vouches for the first chunk: a generator writes all its
    lines one way, so the judge will most likely vouch for the others too. A document in
    another layout takes the numpy path, which holds the GIL for part of its work, so it goes
    to worker processes (900 000 eldorado lines written with ``", "`` and ``": "``: 0.70-0.74 s
    a command on processes, 0.75-0.90 s on threads, three runs each). Without ``processes``
    (a process that must not fork: a Dask worker is daemonic and runs threads of its own),
    every document goes to threads: the same results, the numpy path slower."""
    if workers <= 1:
        return [audit_chunk(buf, first, params) for buf, first in pieces]
    ahead = iter(pieces)
    head = next(ahead, None)
    if head is None:
        return []
    pieces = itertools.chain([head], ahead)
    buf = head[0]
    if not processes or (
        _kernels.judged_chunk(params.game, buf, len(buf), params.stake, params.table) is not None
    ):
        return _judged_on_threads(pieces, params, workers)
    return _judged_on_processes(pieces, params, workers)


def _judged_on_processes(
    pieces: Iterable[tuple[bytes, int]], params: _Params, workers: int
) -> list[_ChunkResult]:
    """Chunks judged on ``workers`` forked processes, reaching them through shared slots."""
    # multiprocessing loads here, for a block with a faulty chunk: not at every audit's
    # start-up (4 ms of a block audit's, with concurrent.futures.process)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    results: list[_ChunkResult] = []
    context = multiprocessing.get_context("fork")
    _keep_heap()  # the chunks this process reads are as large as the workers'
    # the ring reaches the workers as an initializer argument, inherited by the fork (never
    # pickled): audits running side by side each have their own
    ring = _Ring(2 * workers, RING_SLOT_BYTES)
    try:
        with ProcessPoolExecutor(workers, context, _init_worker, (params, ring)) as pool:
            flight: deque[tuple[Future[_ChunkResult], int | None]] = deque()

            def collect() -> None:
                future, slot = flight.popleft()
                results.append(future.result())
                if slot is not None:
                    ring.free.append(slot)

            for buf, first in pieces:
                if len(flight) >= 2 * workers:
                    collect()
                if ring.fits(len(buf)):
                    slot = ring.put(buf)
                    flight.append((pool.submit(_work_in_slot, slot, len(buf), first), slot))
                else:
                    flight.append((pool.submit(_work, buf, first), None))
            while flight:
                collect()
    finally:
        ring.memory.close()
    return results


def _judged_on_threads(
    pieces: Iterable[tuple[bytes, int]], params: _Params, workers: int
) -> list[_ChunkResult]:
    """Chunks judged on ``workers`` threads, at most two each in flight: for a game whose
    chunk judge is compiled and lets the GIL go, so a thread judges while this one inflates
    and hashes the next chunk, with no process to fork and no chunk to copy to it (eldorado,
    900 000 lines, in a warm process: 0.15-0.17 s on threads, 0.20 s on two worker processes,
    a profile). A chunk the judge does not vouch for takes the vectorised path on its thread."""
    results: list[_ChunkResult] = []
    _keep_heap()  # every chunk and its arrays reuse the memory of the ones before
    with ThreadPoolExecutor(workers, thread_name_prefix="audit") as pool:
        flight: deque[Future[_ChunkResult]] = deque()
        for buf, first in pieces:
            if len(flight) >= 2 * workers:
                results.append(flight.popleft().result())
            flight.append(pool.submit(audit_chunk, buf, first, params))
        while flight:
            results.append(flight.popleft().result())
    return results


def without_blank_end(buf: bytes) -> bytes:
    """The last chunk of a document without the whitespace after its last line (a blank line
    at the file's end, as a writer adding a newline after its last one writes): dropped, as
    an HTTP block stream drops it (``HttpBlockStream``), never judged as a unit line; the
    document's digest is of its bytes as read, whitespace included (row ``blank-end``)."""
    stripped = len(buf.rstrip(b" \t\r\n"))
    if not stripped:
        return b""
    cut = buf.find(b"\n", stripped)
    return buf if cut < 0 else buf[: cut + 1]


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
    processes: bool = True,
    digested: Callable[[], str | None] | None = None,
) -> BlockAudit:
    """Audit one block document: ``header`` (parsed) and ``chunks`` of whole unit lines.

    ``header_bytes`` is the header line as read (newline included), hashed with the unit lines
    into ``sha256``; without it the header is hashed as compact JSON. ``digested``: the reader
    hashed the document itself (``DocumentReader.hashed``), header line included, and gives
    the digest once the chunks are read; a document it does not give one for, or whose chunks
    end early, raises ``ReadAgain`` (it is then read again, without it).

    Where the line falls between the target's misbehaviour and the block's fault: a
    ``harness.TargetError`` the stream raises (an HTTP body cut by the transport or mid-line,
    far more lines than asked, a timeout) propagates, so the checks end in *error*; whatever
    the stream does hand on is judged, so a well-formed document that lacks units (it ends
    cleanly, early) or skips an index fails ``sequence``. A block *file* has no transport: a
    truncated ``.gz`` (``EOFError``, ``zlib.error``) or an unreadable file ends its document,
    a ``sequence`` fault, since the units after it are missing. ``processes=False`` keeps the
    judging on threads (see ``_judged``).
    """
    header = dict(header)
    faults = _check_header(header, expect)
    units = header_count(header, "units")
    units = expect.block_units if units is None else units
    start = expect.start if expect.start is not None else header_count(header, "start") or 0
    count = expect.count if expect.count is not None else header_count(header, "count")
    count = units if count is None else count
    params = _Params(
        expect.game,
        expect.stake_cents,
        start,
        frozenset(expect.lots),
        max_faults,
        tuple((int(lo), int(hi)) for lo, hi in keep),
    )
    if header_bytes is None:
        header_bytes = json.dumps(header, separators=(",", ":")).encode() + b"\n"
    read = 0
    ended: str | None = None
    if workers is None:
        workers = default_workers() if count >= PARALLEL_MIN_UNITS else 1
    digest = _Hasher(header_bytes, threaded=workers > 1) if digested is None else None

    def handed(buf: bytes) -> Iterator[tuple[bytes, int]]:
        nonlocal read
        lines = int(np.count_nonzero(np.frombuffer(buf, np.uint8) == 10))  # > bytes.count
        yield buf, read
        read += lines
        if progress is not None:
            progress(read)

    def pieces() -> Iterator[tuple[bytes, int]]:
        nonlocal ended
        held: bytes | None = None  # the last chunk, judged once the document's end is known
        try:
            for buf in chunks:
                if digest is not None:
                    digest.update(buf)
                if held is not None:
                    yield from handed(held)
                held = buf
        except (EOFError, OSError, zlib.error) as exc:  # a damaged file; TargetError passes
            ended = str(exc) or type(exc).__name__
        if held is not None:
            yield from handed(held if ended is not None else without_blank_end(held))

    _kernels.prepare(expect.game, expect.stake_cents)  # before any fork: workers inherit it
    try:
        results = _judged(pieces(), params, workers, processes)
    finally:
        sha256 = digest.hexdigest() if digest is not None else None
    if digested is not None:
        sha256 = digested() if ended is None else None
        if sha256 is None:  # the reader's digest is not of the bytes judged
            raise ReadAgain(f"the document was not hashed as read ({ended})")
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
    if not _in_order(results, start, count):  # else there is no break to find
        declared = [r.declared() for r in results]
        indices = np.concatenate(declared) if declared else np.zeros(0, np.int64)
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
    observed = _tallies(prizes)
    payout, curve = _payout_and_curve(prizes, start)
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
    assert sha256 is not None
    order = {aspect: n for n, aspect in enumerate(ASPECTS)}
    faults.sort(key=lambda f: (order.get(f.aspect, 99), -1 if f.position is None else f.position))
    return BlockAudit(
        header=header,
        expectation=expect,
        start=start,
        count=count,
        units=units,
        audited_units=audited,
        sha256=sha256,
        prizes=prizes,
        lots_observed=observed,
        payout_cents=payout,
        cumulative_payout=curve,
        faults=tuple(faults),
        fault_counts=counts,
        kept=kept,
    )


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
