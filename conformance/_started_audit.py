"""A block file's audit begun before the suite has loaded (``instantcert audit-block FILE``).

Loading the harness, its reports and every check module is about a third of a second of one
core before the first byte of a block could be read. ``start_file_audit`` begins reading,
hashing and judging the file on threads of its own at once; the harness loads meanwhile, and
when the block checks come to audit that block (``checks.blocks``), they take the running
audit up (``StartedAudit.take``) instead of reading the file again.

It audits exactly what the checks would ask (``request_for``: the file's whole document, the
rules' expectation for the game and stake its header names, the units kept for the slice check
drawn from the run's seed); ``take`` hands the audit over only for that very request, and the
checks then judge it as any audit of theirs: the same ``audit`` on the same bytes, so every
verdict, figure and case file is the same as without it. Any other request, a file it could
not read, or an audit that failed leaves the checks to read the file themselves, as before.
Only a whole block in a ``.gz`` file inflated by python-isal is started: a plain or slice file
keeps the file target's own reads (its checkpoints for slice reads). The file is inflated
ahead on a thread that lets the GIL go (``conformance._gzip_ahead``), begun by the command's
entry point before anything else loads; a file that does not end as one clean gzip member
(damage, several members) fails the started audit (``ReadAgain``), and the checks read it
themselves, exactly.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ._audit import (
    AuditError,
    BlockAudit,
    Expectation,
    audit,
    expectation_for,
    header_count,
    open_document,
    read_header,
)
from ._audit_engine import BlockRequest, keep_ranges
from ._gzip_ahead import GzipAhead

PROGRESS_EVERY_S = 0.1  # how often ``take`` passes on the unit lines read while it waits


def request_for(header: dict[str, Any], seed: int) -> BlockRequest | None:
    """What the block checks ask of a block file holding ``header``, as ``checks.blocks``
    asks it (``_block_request`` over the file target's block list), for the parts an audit
    uses (``expect``, ``keep``); None if the file holds a slice or names no game and stake
    of the rules. ``segments`` and ``alpha`` are the checks' own, given to ``take``."""
    units, start, count = (header_count(header, key) for key in ("units", "start", "count"))
    units = 0 if units is None else units
    if (0 if start is None else start, units if count is None else count) != (0, units):
        return None  # a slice: audited as a slice, through the file target
    block_id = header.get("block_id")
    block_id = block_id if isinstance(block_id, str) else ""
    try:
        expectation_for(header)  # a game and stake of the rules, as the file target asks
    except AuditError:
        return None
    expect = Expectation.from_rules(header["game"], header["stake_cents"], block_id)
    keep = keep_ranges(0, units, f"{seed}:{block_id}")
    return BlockRequest(block_id, expect, keep, segments=0, alpha=0.0)


class StartedAudit:
    """The audit of one block file, running on a thread from ``start_file_audit`` on."""

    def __init__(self, path: Path, seed: int, ahead: GzipAhead | None = None) -> None:
        self.path = path
        self.seed = seed
        self._ahead = ahead
        self.request: BlockRequest | None = None
        self.read = 0  # unit lines read so far
        self._result: BlockAudit | None = None
        self._done = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="audit-started", daemon=True)

    def _run(self) -> None:
        try:
            reader = open_document(self.path, fast=True, ahead=self._ahead or True)
        except Exception:
            if self._ahead is not None:
                self._ahead.close()
            self._done.set()
            return
        try:
            if not reader.fast:  # plain or without isal: the file target's reads, as before
                return
            header, line, chunks = read_header(reader)
            self.request = request_for(header, self.seed)
            if self.request is None:
                return
            self._result = audit(
                header,
                self._until_stopped(chunks),
                self.request.expect,
                header_bytes=line,
                keep=self.request.keep,
                progress=self._count,
                processes=False,  # no fork from a thread while the harness imports
                digested=reader.document_sha256 if reader.hashed else None,
            )
            if self._stop.is_set():
                self._result = None
        except Exception:  # the checks read the file themselves, and meet it there
            self._result = None
        finally:
            reader.close()
            self._done.set()

    def _until_stopped(self, chunks: Iterator[bytes]) -> Iterator[bytes]:
        for chunk in chunks:
            if self._stop.is_set():
                return
            yield chunk

    def _count(self, read: int) -> None:
        self.read = read

    def take(
        self, request: BlockRequest, progress: Callable[[int], None] | None = None
    ) -> BlockAudit | None:
        """The audit of ``request``, once it is done (``progress`` told the unit lines read
        meanwhile); None if this audit is not of that request, or did not come to an end
        (the caller then audits the block itself). Stops the audit if it is not the one."""
        while not self._done.wait(PROGRESS_EVERY_S if progress is not None else None):
            if self.request is not None and not _same(self.request, request):
                break
            if progress is not None and self.read:
                progress(self.read)
        if self.request is None or not _same(self.request, request):
            self.stop()
            return None
        self._done.wait()
        if progress is not None and self._result is not None:
            progress(self._result.audited_units)
        return self._result

    def stop(self) -> None:
        """Let the audit go (it stops at its next chunk)."""
        self._stop.set()


def _same(started: BlockRequest, asked: BlockRequest) -> bool:
    return (started.block_id, started.expect, started.keep) == (
        asked.block_id,
        asked.expect,
        asked.keep,
    )


def start_file_audit(path: str | Path, seed: int, ahead: GzipAhead | None = None) -> StartedAudit:
    """Begin auditing the block file at ``path`` for a run of ``seed``, on a thread; ``ahead``:
    its inflate, already begun (``conformance._gzip_ahead.start_early``)."""
    started = StartedAudit(Path(path), seed, ahead)
    started._thread.start()
    return started


__all__ = ["PROGRESS_EVERY_S", "StartedAudit", "request_for", "start_file_audit"]
