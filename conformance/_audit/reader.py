"""Reading a block document: a block file's bytes (plain or gzip, resumable at checkpoints)
into chunks of whole unit lines, and the header line split off the front.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import IO, Any, Protocol

from reference import _strict_json as strict_json
from reference._files import excerpt, open_regular

from .._gzip_ahead import GzipAhead
from .model import AuditError

_isal: Any
try:  # python-isal: the same inflate, about 3 x faster than zlib (an optional fast path)
    from isal import isal_zlib as _isal
except ImportError:  # pragma: no cover - isal is a dependency; a build without it falls back
    _isal = None

CHUNK_BYTES = 1 << 21
"""Lines per work item: 2 MiB. Each chunk costs the GIL a few times (cut out, handed to a
judge, its verdict read), and while the harness still loads, each time is a wait for the
switch interval: 2 MiB rather than 512 KiB took an eldorado block's command from 0.44 to
0.40 s (docs/block-audit.md, issue 32). The numpy path no longer gains from smaller chunks
(its temporaries in cache: 512 KiB once saved 30 % of its CPU against 4 MiB); at 2 MiB it
takes 7 % less CPU than at 512 KiB (1 MiB and 4 MiB: no better, 8 MiB worse)."""

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
        cut = data.rfind(b"\n") + 1
        if cut == 0:
            rest += data
            if len(rest) > MAX_FILE_LINE_BYTES:  # no line of block/1 is near this long
                raise EOFError(
                    f"a line longer than {MAX_FILE_LINE_BYTES} bytes from document byte {done}"
                )
            continue
        # one copy per chunk: the line carried over, then this read up to its last newline
        chunk = rest + memoryview(data)[:cut] if rest else data[:cut]
        done += len(chunk)
        rest = data[cut:]
        yield chunk
    if rest:
        yield rest + b"\n"


class ReadAgain(Exception):
    """A read with ``ahead`` that must start again without it (``DocumentReader``)."""


class Source(Protocol):
    """Where a block file's bytes come from: a ``Path``, or any object that opens a binary
    stream of them (the cluster engine's URL sources, ``conformance._dask_audit``)."""

    def open(self, mode: str) -> IO[bytes]: ...


RAW_READ = 1 << 16  # compressed bytes read at a time (a chunk is about one read inflated)
CHECKPOINT_BYTES = 1 << 20  # a recording reader keeps a checkpoint about every MiB of file
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
    aware) directly, faster than ``gzip.GzipFile``.

    The inflater is python-isal's when it is installed (``fast``), zlib's otherwise. isal does
    not say every fault the way zlib does (it stops silently on some corrupt data), so the
    moment isal raises, or the compressed bytes end before its end marker, the current gzip
    member is decompressed again with zlib from its start, the bytes already handed on
    skipped: a damaged file gets exactly zlib's salvage and message, a sound one isal's speed.

    With ``record=True`` it keeps a ``Checkpoint`` about every mebibyte of file, so a later
    reader can start near any position (``start=``) instead of at the beginning: this is how a
    file target serves small slices of a large ``.jsonl.gz`` quickly. An isal inflater cannot
    be copied: ``record`` then makes the reader use zlib unless ``fast=True`` is asked for
    (the file target does, and serves its slices from a forward cursor instead).

    With ``ahead`` (a fast read of a whole document from a path: the audits of whole files),
    the file is inflated ahead on a thread that lets the GIL go while it inflates
    (``conformance._gzip_ahead``; a ``GzipAhead`` already started may be given). Where that
    read fails, or does not end as the exact reader would surely end too
    (``GzipAhead.ends_cleanly``), the file is read by the reader above instead: from its start
    when nothing was handed on yet, else the read raises ``ReadAgain`` and its caller reads
    the document again without ``ahead`` (a damaged file, or one of several gzip members).
    """

    def __init__(
        self,
        path: Source,
        start: Checkpoint | None = None,
        record: bool = False,
        fast: bool | None = None,
        ahead: GzipAhead | bool = False,
    ) -> None:
        try:
            # a path: a FIFO or device refused, not read; another source opens its own bytes
            self.raw = (
                open_regular(str(path)) if isinstance(path, str | PurePath) else path.open("rb")
            )
        except OSError as exc:
            raise AuditError(f"cannot open block file {str(path)!r}: {exc.strerror}") from None
        self.gzip = self.raw.read(2) == b"\x1f\x8b"
        self.raw.seek(0 if start is None else start.raw_offset)
        self.position = 0 if start is None else start.position
        if fast is None:
            fast = not record
        resumed = start is not None and start.inflate is not None
        self.fast = fast and self.gzip and _isal is not None and not resumed
        self.record = record and not self.fast
        self.checkpoints: list[Checkpoint] = []
        self.inflate: Any = self._inflater()
        if resumed:
            assert start is not None
            self.inflate = start.inflate.copy()
        self.member_at = self.raw.tell()  # file offset where the current gzip member starts
        self.member_out = 0  # document bytes that member has given so far
        self.skip = 0  # document bytes zlib gives again after a fall-back, not handed on twice
        self.pending = b""
        self.eof = False
        self.truncated = False
        self.damage: str | None = None  # why the compressed data stopped making sense
        self.ahead: GzipAhead | None = None
        if self.fast and isinstance(ahead, GzipAhead):
            self.ahead = ahead
        elif isinstance(ahead, GzipAhead):  # not a gzip file after all: read as it is
            ahead.close()
        elif self.fast and ahead and isinstance(path, str | PurePath):
            self.ahead = GzipAhead.open(path)
        self._piece: bytearray | None = None  # the buffer taken from ``ahead`` being handed on
        self.hashed = self.ahead is not None  # the document's digest comes from ``ahead``
        self._sha256: str | None = None
        self._piece_at = self._piece_end = 0

    def _inflater(self) -> Any:
        return _isal.decompressobj(wbits=31) if self.fast else zlib.decompressobj(wbits=31)

    def _fall_back(self) -> None:
        """Decompress the current member again with zlib, from its start."""
        self.fast = False
        self.raw.seek(self.member_at)
        self.inflate = zlib.decompressobj(wbits=31)
        self.skip += self.member_out  # handed on or still to skip: given again, skipped
        self.member_out = 0
        self.pending = b""
        self.eof = False

    def _let_ahead_go(self) -> None:
        if self.ahead is not None:
            self.ahead.close()
            self.ahead, self._piece = None, None

    def _read_exactly(self) -> None:
        """Leave the inflate ahead for this reader's own inflater, from the file's start; or,
        once bytes have been handed on, ``ReadAgain``: zero bytes between two members, which
        the inflate ahead passes over and the exact reader calls damage, may stand before
        them, so the reader of the document must start again (without ``ahead``)."""
        self._let_ahead_go()
        if self.position:
            self.raw.close()
            raise ReadAgain("the inflate ahead did not end as one gzip member: read exactly")
        self.hashed = False
        self.raw.seek(0)
        self.inflate = self._inflater()

    def _from_ahead(self, size: int) -> bytes | None:
        """About ``size`` document bytes from the inflate ahead (one copy), cut after a line
        where the window holds a newline, so a chunk needs no other copy; b"" at its clean end;
        None once the file is to be read exactly (``_read_exactly``)."""
        assert self.ahead is not None
        while self._piece is None:
            try:
                taken = self.ahead.take()
            except Exception:  # damage or a read error: the exact reader says what it is
                self._read_exactly()
                return None
            if taken is None:
                if not self.ahead.ends_cleanly(self.position):
                    self._read_exactly()
                    return None
                self._sha256 = self.ahead.document_sha256()
                self._let_ahead_go()
                self.eof = True
                self.raw.close()
                return b""
            self._piece, self._piece_end = taken
            self._piece_at = 0
        piece, at, end = self._piece, self._piece_at, self._piece_end
        stop = min(at + size, end)
        if stop < end:
            stop = piece.rfind(b"\n", at, stop) + 1 or stop
        data = bytes(memoryview(piece)[at:stop])
        self._piece_at = stop
        if stop == end:
            self.ahead.give_back(piece)
            self._piece = None
        self.position += len(data)
        return data

    def document_sha256(self) -> str | None:
        """With ``hashed``, the SHA-256 of the document as ``chunks_from_reader`` gives it
        (a newline after a last line without one), once read to its end; else None."""
        return self._sha256

    def close(self) -> None:
        self._let_ahead_go()
        self.raw.close()

    def _mark(self, position: int) -> None:
        if self.record and not self.skip:
            if self.checkpoints and self.raw.tell() - self.checkpoints[-1].raw_offset < (
                CHECKPOINT_BYTES
            ):
                return
            state = self.inflate.copy() if self.gzip else None
            self.checkpoints.append(Checkpoint(position, self.raw.tell(), state))

    def __call__(self, size: int) -> bytes:
        if self.ahead is not None:
            ahead = self._from_ahead(size)
            if ahead is not None:
                return ahead
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
                if self.fast and not self.inflate.eof:  # isal stopped short: zlib says why
                    self._fall_back()
                    continue
                self.eof = True
                self.truncated = not self.inflate.eof
                break
            if self.fast:
                try:
                    piece: bytes = self.inflate.decompress(data)
                except _isal.error:  # an IsalError
                    self._fall_back()
                    continue
            else:
                piece = self._inflate(data)
            self.member_out += len(piece)
            if self.skip:  # given before the fall-back
                cut = min(self.skip, len(piece))
                piece, self.skip = piece[cut:], self.skip - cut
            out.append(piece)
            got += len(piece)
            if self.damage is not None:
                self.eof = True
                break
            if self.inflate.eof:  # a member ended: another may follow
                self.pending = self.inflate.unused_data or self.raw.read(RAW_READ)
                self.member_at = self.raw.tell() - len(self.pending)
                self.member_out = 0
                self.inflate = self._inflater()
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


def open_document(
    path: str | Path | Source,
    record: bool = False,
    fast: bool | None = None,
    ahead: GzipAhead | bool = False,
) -> DocumentReader:
    """A reader over a block file's document bytes, decompressing ``.gz`` files (with isal
    when installed, unless ``record`` asks for checkpoints; ``ahead`` for a whole document
    read fast: see ``DocumentReader``)."""
    source = Path(path) if isinstance(path, str) else path
    return DocumentReader(source, record=record, fast=fast, ahead=ahead)


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
        header = strict_json.loads_block_line(line)
    except strict_json.JsonError as exc:
        raise AuditError(f"line 1 is not a JSON header: {exc}; it starts {excerpt(line)}") from None
    if not isinstance(header, dict):
        raise AuditError(f"line 1 must be a JSON object (the header), got {excerpt(line)}")

    def rest() -> Iterator[bytes]:
        if first[cut:]:
            yield first[cut:]
        yield from chunks

    return header, line, rest()
