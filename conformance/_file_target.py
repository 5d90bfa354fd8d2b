"""A block file (``.jsonl`` / ``.jsonl.gz``) seen as a target with the ``blocks`` capability only.

``instantcert audit-block FILE`` audits a file by running the very block checks a live target
gets: this adapter lists the file's one block and streams it, so verdicts, evidence and reports
are the same. A file holding a slice says so in ``describe()["document_slice"]``; the checks then
audit that slice as a slice (no whole-block lot counts). Reads stream from disk every time:
memory stays bounded whatever the file's size. ``conformance._file_audit`` runs the block checks
on one (``audit_block_file``); this module knows no check.
"""

from __future__ import annotations

import bisect
import itertools
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, NoReturn

from contract import ErrorReply

from ._audit import (
    AuditError,
    Checkpoint,
    chunks_from_reader,
    expectation_for,
    header_count,
    open_document,
    read_header,
    resume_document,
)
from ._audit_engine import AuditEngine
from ._started_audit import StartedAudit

Document = dict[str, Any]


def _nth_line_end(chunk: bytes, begin: int, lines: int) -> int:
    """The offset just past ``lines`` more newlines from ``begin``."""
    for _ in range(lines):
        begin = chunk.index(b"\n", begin) + 1
    return begin


class FileBlockStream:
    """``BlockStream`` over a file, plus ``chunks()`` (whole lines, for the fast audit) and
    ``header_bytes`` (the header line as stored, for the SHA-256)."""

    def __init__(
        self,
        header: Document,
        header_bytes: bytes | None,
        chunks: Iterator[bytes],
        close: Callable[[], None] = lambda: None,
    ) -> None:
        self.header = header
        self.header_bytes = header_bytes
        self._chunks = chunks
        self._close = close

    def chunks(self) -> Iterator[bytes]:
        yield from self._chunks

    def lines(self) -> Iterator[bytes]:
        for chunk in self._chunks:
            yield from chunk.split(b"\n")[:-1]

    def close(self) -> None:
        self._chunks = iter(())
        self._close()


class FileTarget:
    """The adapter of one block file: ``describe``, ``list_blocks``, ``read_block``.

    A whole read records where each chunk of lines starts and resumable checkpoints of the
    decompression; a later slice read starts from the nearest one instead of from the top.
    """

    engine: AuditEngine | None = None
    """Where its block is audited when not in this process (``audit-block --scheduler``)."""
    started: StartedAudit | None = None
    """Its block's audit, begun in this process before the suite loaded (``audit-block``)."""

    def __init__(
        self, path: str | Path, header: Document | None = None, source: str | None = None
    ) -> None:
        """The file at ``path``, its header read from it; or, given the ``header`` an engine's
        worker read, a file named ``source`` (a path or URL) that this process never opens."""
        self.path = Path(path)
        self.source = str(self.path) if source is None else source
        self.name = f"file:{self.source}"
        if header is None:
            reader = open_document(self.path)
            try:
                header, _, _ = read_header(reader)
            finally:
                reader.close()
        expectation_for(header)  # AuditError unless it names a game and stake of the rules
        self.header = header
        self.game: str = header["game"]
        self.stake_cents: int = header["stake_cents"]
        block_id = header.get("block_id")
        self.block_id = block_id if isinstance(block_id, str) else ""
        units, start, count = (header_count(header, k) for k in ("units", "start", "count"))
        self.units = 0 if units is None else units
        self.start = 0 if start is None else start
        self.count = self.units if count is None else count
        self._chunk_starts: list[tuple[int, int]] = []  # (unit line number, document offset)
        self._checkpoints: list[Checkpoint] = []
        self._cursor: tuple[int, Iterator[bytes]] | None = None  # (unit lines before, chunks)

    def _whole(self) -> FileBlockStream:
        reader = open_document(self.path, record=True, fast=True)
        header, line, chunks = read_header(reader)
        self._cursor = None
        if not reader.record:  # isal: no checkpoints to index; slices read from a cursor
            self._chunk_starts, self._checkpoints = [], []
            return FileBlockStream(header, line, chunks, reader.close)
        starts: list[tuple[int, int]] = []
        self._chunk_starts, self._checkpoints = starts, reader.checkpoints

        def indexed() -> Iterator[bytes]:
            lines, offset = 0, len(line)
            for chunk in chunks:
                starts.append((lines, offset))
                yield chunk
                lines += chunk.count(b"\n")
                offset += len(chunk)

        return FileBlockStream(header, line, indexed(), reader.close)

    def _part(self, skip: int, take: int) -> Iterator[bytes]:
        """Unit lines ``skip`` to ``skip + take - 1`` of the file: on from where the last
        slice read stopped if that is not past ``skip`` (the slice check reads its slices in
        order), else from the nearest checkpoint, else from the top."""
        cursor, self._cursor = self._cursor, None
        if cursor is not None and cursor[0] <= skip:
            base, chunks = cursor
        else:
            base, chunks = self._resume(skip)
        yield from self._take(chunks, skip - base, take, base)

    def _resume(self, skip: int) -> tuple[int, Iterator[bytes]]:
        """(unit lines before, chunks from there) from the checkpoint nearest ``skip``."""
        at = bisect.bisect_right(self._chunk_starts, (skip, 1 << 62)) - 1
        if at < 0 or not self._checkpoints:
            _, _, chunks = read_header(open_document(self.path))
            return 0, chunks
        first, offset = self._chunk_starts[at]
        marks = [c.position for c in self._checkpoints]
        mark = self._checkpoints[bisect.bisect_right(marks, offset) - 1]
        return first, chunks_from_reader(resume_document(self.path, mark, offset))

    def _take(self, chunks: Iterator[bytes], skip: int, take: int, base: int) -> Iterator[bytes]:
        """The lines ``skip`` to ``skip + take - 1`` of a stream of whole-line chunks, leaving a
        cursor just after them (``base``: the unit lines before ``chunks``)."""
        for chunk in chunks:
            if take <= 0:
                return
            lines = chunk.count(b"\n")
            if skip >= lines:
                skip -= lines
                base += lines
                continue
            begin = _nth_line_end(chunk, 0, skip)
            left = lines - skip
            if left < take:
                take -= left
                skip = 0
                base += lines
                yield chunk[begin:]
                continue
            end = _nth_line_end(chunk, begin, take)
            rest = chunk[end:]
            after = base + skip + take
            self._cursor = (after, itertools.chain([rest], chunks) if rest else chunks)
            yield chunk[begin:end]
            return  # reading on could only meet a damaged file's end: not asked for

    @property
    def document_slice(self) -> tuple[int, int] | None:
        """(start, count) of the units the file holds, if it holds a slice, not a whole block."""
        return None if (self.start, self.count) == (0, self.units) else (self.start, self.count)

    def describe(self) -> Document:
        document: Document = {
            "name": f"block file {self.path.name}",
            "version": str(self.header.get("generator", {}).get("version", ""))
            if isinstance(self.header.get("generator"), dict)
            else "",
            "games": {self.game: {"stakes_cents": [self.stake_cents]}},
            "capabilities": ["blocks"],
        }
        if (self.start, self.count) != (0, self.units):
            document["document_slice"] = {"start": self.start, "count": self.count}
        return document

    def list_blocks(self, game: str, stake_cents: int) -> list[Document]:
        if (game, stake_cents) != (self.game, self.stake_cents):
            return []
        return [
            {
                "block_id": self.block_id,
                "game": self.game,
                "stake_cents": self.stake_cents,
                "units": self.units,
            }
        ]

    def read_block(
        self, block_id: str, start: int | None = None, count: int | None = None
    ) -> FileBlockStream:
        if block_id != self.block_id:
            raise ErrorReply(404, "unknown_block", f"the file holds block {self.block_id!r} only")
        if (start is None and count is None) or (
            self.document_slice is not None and (start, count) == self.document_slice
        ):  # the whole document as stored: its own header line, and its bytes for the SHA-256
            return self._whole()
        first = self.start if start is None else start
        size = self.start + self.count - first if count is None else count
        if first < self.start or size < 0 or first + size > self.start + self.count:
            raise ErrorReply(
                404,
                "out_of_range",
                f"the file holds units [{self.start}, {self.start + self.count}), "
                f"not [{first}, {first + size})",
            )
        header = {**self.header, "start": first, "count": size}
        return FileBlockStream(header, None, self._part(first - self.start, size))

    def _no(self, *args: object) -> NoReturn:
        raise ErrorReply(404, "not_supported", "a block file has the blocks capability only")

    def evaluate(self, game: str, stake_cents: int, tickets: Sequence[str]) -> list[Document]:
        self._no()

    def open_account(self, balance_cents: int) -> Document:
        self._no()

    def balance(self, account_id: str, token: str | None) -> Document:
        self._no()

    def play(self, account_id: str, token: str | None, game: str, stake_cents: int) -> Document:
        self._no()

    def reveal(self, play_id: str, token: str | None, button: int) -> Document:
        self._no()

    def auto(self, play_id: str, token: str | None) -> Document:
        self._no()

    def history(self, account_id: str, token: str | None, limit: int | None = None) -> Document:
        self._no()

    def close(self) -> None:
        if self.started is not None:
            self.started.stop()
        if self.engine is not None:
            self.engine.close()


class FileTargets:
    """Several block files as one target (``instantcert audit-block FILE FILE ...``): every
    file's block is listed under its game and stake, in the order given, so the checks pool
    them: the randomness family over every block, consecutive blocks of a stake compared,
    the top tiers of all of them pooled. Files holding slices must all hold the same slice."""

    engine: AuditEngine | None = None
    """Where their blocks are audited when not in this process (``audit-block --scheduler``)."""

    def __init__(
        self, paths: Sequence[str | Path], files: Sequence[FileTarget] | None = None
    ) -> None:
        """The files at ``paths``; or the ``files`` given (an engine read their headers)."""
        self.files = [open_file_target(p) for p in paths] if files is None else list(files)
        self.name = "file:" + os.pathsep.join(f.source for f in self.files)
        self._by_id: dict[str, FileTarget] = {}
        for target in self.files:
            other = self._by_id.get(target.block_id)
            if other is not None:
                raise AuditError(
                    f"{target.source} and {other.source} both hold block {target.block_id!r}: "
                    "a block can be audited once"
                )
            self._by_id[target.block_id] = target
        spans = {(f.start, f.count, f.units) for f in self.files}
        slices = [f for f in self.files if (f.start, f.count) != (0, f.units)]
        if slices and len(spans) > 1:
            raise AuditError(
                f"{slices[0].source} holds the slice [{slices[0].start}, "
                f"{slices[0].start + slices[0].count}): files audited together must all hold a "
                "whole block, or all the same slice"
            )

    @property
    def document_slice(self) -> tuple[int, int] | None:
        """The slice every file holds (they hold the same one, or none)."""
        return self.files[0].document_slice

    def describe(self) -> Document:
        games: dict[str, set[int]] = {}
        for target in self.files:
            games.setdefault(target.game, set()).add(target.stake_cents)
        document = self.files[0].describe()
        document["name"] = f"{len(self.files)} block files"
        document["games"] = {g: {"stakes_cents": sorted(s)} for g, s in sorted(games.items())}
        return document

    def list_blocks(self, game: str, stake_cents: int) -> list[Document]:
        return [entry for f in self.files for entry in f.list_blocks(game, stake_cents)]

    def read_block(
        self, block_id: str, start: int | None = None, count: int | None = None
    ) -> FileBlockStream:
        target = self._by_id.get(block_id)
        if target is None:
            raise ErrorReply(404, "unknown_block", f"no file holds block {block_id!r}")
        return target.read_block(block_id, start, count)

    def _no(self, *args: object) -> NoReturn:
        raise ErrorReply(404, "not_supported", "block files have the blocks capability only")

    evaluate = open_account = balance = play = reveal = auto = history = _no

    def close(self) -> None:
        for target in self.files:
            target.close()
        if self.engine is not None:
            self.engine.close()


def block_file_of(adapter: object) -> FileTarget | FileTargets | None:
    """The harness's own block-file target behind ``adapter`` (through the seam's wrappers,
    ``underlying``), or None for any other target.

    What a file holds (a slice, not a whole block) is the file's to say, and only the file's:
    a target's ``describe()`` is the implementation's own word, so a key like
    ``document_slice`` there could otherwise turn a whole-block audit into a slice audit that
    judges no lot table. Checks ask this instead.
    """
    for _ in range(8):  # a guard around a validator around the run's adapter, at most
        if isinstance(adapter, (FileTarget, FileTargets)):
            return adapter
        try:
            inner = getattr(adapter, "underlying", None)
        except Exception:  # a vendor adapter's attribute that raises: not a block file
            return None
        if inner is None or inner is adapter:
            return None
        adapter = inner
    return None


def open_file_targets(paths: Sequence[str | Path]) -> FileTarget | FileTargets:
    """One file's target, or several files' (AuditError naming the fault if one is unusable,
    two hold the same block, or their slices differ)."""
    if len(paths) == 1:
        return open_file_target(paths[0])
    return FileTargets(paths)


def open_file_target(path: str | Path) -> FileTarget:
    """The target of a block file; AuditError (naming the fault) if it has no usable header."""
    try:
        return FileTarget(path)
    except AuditError:
        raise
    except (KeyError, TypeError) as exc:  # pragma: no cover - expectation_for vets the header
        raise AuditError(f"{path}: unusable header: {exc}") from None


__all__ = [
    "FileBlockStream",
    "FileTarget",
    "FileTargets",
    "block_file_of",
    "chunks_from_reader",
    "open_file_target",
    "open_file_targets",
]
