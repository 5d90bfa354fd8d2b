"""Reading a block back: what each aspect of a block must be (``EXPECTED``), a block list
entry's faults, a stream's chunks and lines, a slice compared with a larger read, and a block
audited again. The block checks (``blocks``) and the block replayers (``_block_evidence``) both
read blocks through these; this module knows neither.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from contract import ErrorReply, ProtocolViolation
from reference import _strict_json as strict_json

from .._audit import BlockAudit, Expectation, audit, chunks_from_lines

SLICE_DIFFERENCES = 3  # the units quoted of one slice's differences (the rest are counted)


EXPECTED = {
    "header": "a block/1 header for the block and slice asked for (contract 3)",
    "block_size": "the rules' block size (article 2)",
    "sequence": "indices start .. start+count-1, one line each, in order (article 2)",
    "unit_lines": '{"index": int, "prize_cents": int, "ticket": str} (contract 3)',
    "unit_fields": "no field beside index, prize_cents and ticket (the project's reading)",
    "tickets": "a valid ticket (contract 1)",
    "unit_prize": "prize_cents = the prize the ticket wins (article 3, lot global de l'unité)",
    "cumulated_gains": "prize_cents = the sum of all the ticket's gains (article 3)",
    "lot_table": "exactly the lot table's units of each prize and its total (article 3)",
    "payout_cap": "a payout of at most 70 % of the face value (Arrêté du 9 mars 2006, art. 2)",
}


def of_pair(listed: list[Any], game: str, stake: int) -> list[Any]:
    """The entries of a block list (``GET /v1/blocks?game=&stake_cents=``) that name ``game``
    at ``stake``. A target may list the blocks of other games and stakes too, whatever the
    query, each entry naming its own (the contract gives the entries ``game`` and
    ``stake_cents`` and never says the query narrows the list, row ``blocks-query``): those
    are left out here, never read as this pair's blocks. An entry that is no object is kept
    (its fault is ``entry_faults``'s, or the seam's)."""
    return [
        entry
        for entry in listed
        if not isinstance(entry, Mapping)
        or (entry.get("game"), entry.get("stake_cents")) == (game, stake)
    ]


def entry_faults(
    entry: dict[str, Any], game: str, stake: int
) -> tuple[dict[str, Any] | None, list[str]]:
    """The list entry if usable, and what is wrong with its values (contract 4: GET
    /v1/blocks). Its shape (an object, ``units`` an integer, ``block_id`` a string) passed
    block-list.schema.json at the seam (``contract.Validated``) before it came here."""
    faults = []
    block_id, units = entry["block_id"], entry["units"]
    if entry["game"] != game or entry["stake_cents"] != stake:
        faults.append(
            f"the block list for {game} at {stake} holds {entry['game']!r} at "
            f"{entry['stake_cents']!r}: {entry!r}"
        )
    if units < 0:
        faults.append(f"block list entry 'units' must be an integer >= 0, got {units!r}")
    if not block_id:
        faults.append(f"block list entry 'block_id' must be a non-empty string, got {block_id!r}")
        return None, faults
    return entry, faults


SLICE_PAGES = (10_000, 5_000, 2_000, 1_000)
"""The page sizes a block server may cap a slice's ``count`` at, largest first (row
``slice-own-limit``): a slice refused with a 4xx is read again in pieces of the largest of
these the target takes."""


def read_slice(
    adapter: Any, block_id: str, start: int | None, count: int | None, slowly: bool = False
) -> Any:
    """``adapter.read_block(block_id, start, count)`` (``read_block_slowly`` with ``slowly``,
    where the adapter has it: a slow reader's connection); a slice inside the block refused with a
    4xx (a ``count`` cap of the target's own: the contract bounds no ``count``, row
    ``slice-own-limit``) read in pieces of the largest ``SLICE_PAGES`` size the target takes
    (``PiecedStream``). A slice reaching past the block's end, or one no page size reads,
    keeps its refusal (a slice past the end may be refused: row ``slice-bounds``)."""
    read = (
        getattr(adapter, "read_block_slowly", adapter.read_block) if slowly else adapter.read_block
    )
    try:
        return read(block_id, start, count)
    except ErrorReply as refusal:
        if start is None or count is None or not 400 <= refusal.status < 500:
            raise
        for page in SLICE_PAGES:
            if page >= count:
                continue
            try:
                first = adapter.read_block(block_id, start, page)
            except ErrorReply as again:
                if not 400 <= again.status < 500:
                    raise
                continue
            units = first.header.get("units") if isinstance(first.header, dict) else None
            if type(units) is not int or start + count > units:  # past the end: refused as is
                first.close()
                raise refusal from None
            return PiecedStream(adapter, block_id, start, count, page, first)
        raise


class PiecedStream:
    """The slice [start, start + count) of a block read in pieces of ``page`` units, one
    request each, as one stream: the first piece's header with ``count`` the whole slice's
    (when that piece's own header says the piece asked for: otherwise as it came, for the
    audit to judge), then every piece's unit lines in turn. A later piece whose header is not
    the one its request asked for (another block, size, start or count) is the target's
    protocol fault."""

    def __init__(
        self, adapter: Any, block_id: str, start: int, count: int, page: int, first: Any
    ) -> None:
        self.adapter, self.block_id = adapter, block_id
        self.start, self.count, self.page = start, count, page
        self._current: Any = first
        self._first: Any = first
        self.header = dict(first.header)
        if self.header.get("start") == start and self.header.get("count") == page:
            self.header["count"] = count

    def _pieces(self) -> Iterator[Any]:
        first, self._first = self._first, None
        if first is None:
            raise RuntimeError("a block stream is read once")
        yield first
        for at in range(self.start + self.page, self.start + self.count, self.page):
            asked = min(self.page, self.start + self.count - at)
            self._current.close()
            self._current = piece = self.adapter.read_block(self.block_id, at, asked)
            header = piece.header if isinstance(piece.header, dict) else {}
            want = {**first.header, "start": at, "count": asked}
            differ = sorted(
                k
                for k in ("format", "game", "stake_cents", "block_id", "units", "start", "count")
                if header.get(k) != want.get(k)
            )
            if differ:
                raise ProtocolViolation(
                    f"block {self.block_id}: the slice [{at}, {at + asked}) read as a piece of "
                    f"[{self.start}, {self.start + self.count}) (a count of the target's own "
                    f"at most {self.page}) answered another header: "
                    + ", ".join(f"{k} {header.get(k)!r}, not {want.get(k)!r}" for k in differ)
                )
            yield piece

    def lines(self) -> Iterator[bytes]:
        for piece in self._pieces():
            yield from piece.lines()

    def chunks(self) -> Iterator[bytes]:
        for piece in self._pieces():
            yield from block_chunks(piece)

    def close(self) -> None:
        self._current.close()

    def __enter__(self) -> PiecedStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def block_chunks(stream: Any) -> Iterator[bytes]:
    chunks: Callable[[], Iterator[bytes]] | None = getattr(stream, "chunks", None)
    if chunks is not None:
        return chunks()
    lines: Iterator[bytes] = stream.lines()
    return chunks_from_lines(lines)


def line_value(line: bytes) -> Any:
    try:
        return strict_json.loads_block_line(line)
    except strict_json.JsonError:
        return line.decode("utf-8", "replace")


def compare_slice(
    adapter: Any,
    block_id: str,
    lo: int,
    hi: int,
    kept: Mapping[int, bytes],
    units: int,
    stalls: Mapping[int, float] | None = None,
) -> list[str]:
    """What differs between the slice [lo, hi) read alone and the same lines read before;
    ``stalls``: read as a slow reader reads it, stopping that many seconds before pulling each
    of those lines (a page sent again, or skipped, after the reader stalled shows against the
    larger read, made at full speed)."""
    problems: list[str] = []
    stream = read_slice(adapter, block_id, lo, hi - lo, slowly=bool(stalls))
    try:
        header = stream.header
        want = {"block_id": block_id, "units": units, "start": lo, "count": hi - lo}
        for key, value in want.items():
            if header.get(key) != value:
                problems.append(
                    f"slice [{lo}, {hi}): header {key} is {header.get(key)!r}, expected {value!r}"
                )
        lines: list[bytes] = []
        try:
            if stalls:
                lines.extend(stalled_lines(stream, hi - lo + 1, stalls))
            else:
                lines.extend(chunk_lines(block_chunks(stream), hi - lo + 1))
        except (EOFError, OSError, zlib.error) as exc:  # a damaged file; TargetError passes
            problems.append(f"slice [{lo}, {hi}): the document ended: {exc}")
    finally:
        stream.close()
    if len(lines) != hi - lo:
        problems.append(f"slice [{lo}, {hi}): {len(lines)} unit lines, expected {hi - lo}")
    differ = 0
    for n, line in enumerate(lines[: hi - lo]):
        before = kept.get(lo + n)
        if before is not None and line_value(line) != line_value(before):
            differ += 1
            if differ <= SLICE_DIFFERENCES:
                problems.append(
                    f"slice [{lo}, {hi}): unit {lo + n} is {line[:300]!r} read alone, "
                    f"{before[:300]!r} in the larger read"
                )
    if differ > SLICE_DIFFERENCES:
        problems.append(
            f"slice [{lo}, {hi}): {differ} of its {hi - lo} units differ from the larger read"
        )
    if stalls and problems:  # said: a read at full speed may be right
        where = ", ".join(f"{s:.1f} s before line {at}" for at, s in sorted(stalls.items()))
        problems = [f"{p} (read slowly: stopped {where})" for p in problems]
    return problems


def compare_read_twice(
    adapter: Any,
    block_id: str,
    lo: int,
    hi: int,
    stalls: Mapping[int, float],
    slow_first: bool = False,
) -> list[str]:
    """What differs between the slice [lo, hi) read at full speed and read as a slow reader
    (``stalls``), the slow read first with ``slow_first`` (drawn by the caller: a server must
    not learn that the second of two reads of a slice is the one to serve with care): a slice
    too long to keep from the audits (``blocks.long_slow_reads``). Only the difference is
    this check's: a slice both reads give alike (lines missing, a wrong header) is the
    block's own fault, which the block checks report."""

    def read(slowly: bool) -> tuple[Any, list[bytes]]:
        stream = read_slice(adapter, block_id, lo, hi - lo, slowly=slowly)
        header: Any = None
        try:
            header = stream.header
            limit = hi - lo + 1
            if slowly:
                return header, list(stalled_lines(stream, limit, stalls))
            return header, list(chunk_lines(block_chunks(stream), limit))
        except (EOFError, OSError, zlib.error) as exc:  # a damaged file; TargetError passes
            return header, [f"the document ended: {exc}".encode()]
        finally:
            stream.close()

    if slow_first:
        slow_header, slow = read(slowly=True)
        fast_header, fast = read(slowly=False)
    else:
        fast_header, fast = read(slowly=False)
        slow_header, slow = read(slowly=True)
    where = ", ".join(f"{s:.1f} s before line {at}" for at, s in sorted(stalls.items()))
    problems: list[str] = []
    named = ("block_id", "units", "start", "count")  # a header's own fields may differ by read

    def said(header: Any) -> dict[str, Any]:
        return {k: header.get(k) for k in named} if isinstance(header, dict) else {"": header}

    if said(slow_header) != said(fast_header):
        problems.append(
            f"slice [{lo}, {hi}): header {said(slow_header)!r}, at full speed {said(fast_header)!r}"
        )
    if len(slow) != len(fast):
        problems.append(
            f"slice [{lo}, {hi}): {len(slow)} unit lines, {len(fast)} read at full speed"
        )
    differ = 0
    for n, (line, before) in enumerate(zip(slow, fast, strict=False)):
        if line != before and line_value(line) != line_value(before):
            differ += 1
            if differ <= SLICE_DIFFERENCES:
                problems.append(
                    f"slice [{lo}, {hi}): unit {lo + n} is {line[:300]!r} read slowly, "
                    f"{before[:300]!r} at full speed"
                )
    if differ > SLICE_DIFFERENCES:
        problems.append(
            f"slice [{lo}, {hi}): {differ} of its units differ from a read at full speed"
        )
    return [f"{p} (read slowly: stopped {where})" for p in problems]


def stalled_lines(stream: Any, limit: int, stalls: Mapping[int, float]) -> Iterator[bytes]:
    """Up to ``limit`` unit lines of ``stream``, sleeping ``stalls[n]`` seconds before pulling
    line ``n``: a slow reader, whose socket takes none of the stream's bytes meanwhile (a
    server streaming over HTTP sees the client's back-pressure once its buffers fill;
    in-process, its generator is not resumed)."""
    # a stream of raw chunks (HTTP: the socket's bytes as they come) read so; one of lines
    # pulled line by line (in-process: batched into chunks, it would be read whole first)
    chunked = getattr(stream, "chunks", None) is not None
    source = chunk_lines(block_chunks(stream), limit) if chunked else iter(stream.lines())
    for n in range(limit):
        pause = stalls.get(n)
        if pause:
            time.sleep(pause)
        line = next(source, None)
        if line is None:
            return
        yield line


def chunk_lines(chunks: Iterator[bytes], limit: int) -> Iterator[bytes]:
    n = 0
    for chunk in chunks:
        for line in chunk.split(b"\n")[:-1]:
            yield line
            n += 1
            if n >= limit:
                return


def reaudit(
    adapter: Any, game: str, stake: int, block_id: str, start: int | None, count: int | None
) -> BlockAudit:
    stream = read_slice(adapter, block_id, start, count)
    try:
        return audit(
            stream.header,
            block_chunks(stream),
            Expectation.from_rules(game, stake, block_id, start, count),
            header_bytes=getattr(stream, "header_bytes", None),
        )
    finally:
        stream.close()


def read_prizes(adapter: Any, game: str, stake: int, block_id: str) -> tuple[int, Any]:
    """(start, declared prizes) of the whole of ``block_id``, read now through ``adapter`` and
    judged on this thread (no process forked: a check beside others may call it): for a play
    check that must know a block long before it buys from it and finds no audit of this run
    that read it (``audited_prizes``). A unit without a declared prize holds -1."""
    stream = adapter.read_block(block_id, None, None)
    try:
        found = audit(
            stream.header,
            block_chunks(stream),
            Expectation.from_rules(game, stake, block_id),
            header_bytes=getattr(stream, "header_bytes", None),
            workers=1,
            processes=False,
        )
    finally:
        stream.close()
    return found.start, found.prizes
