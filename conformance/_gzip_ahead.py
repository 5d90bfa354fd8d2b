"""A ``.gz`` file inflated ahead, on a thread of its own that holds the GIL only between pieces:
the block audit's whole-document read (``conformance._audit.reader.DocumentReader``).

python-isal's ``decompressobj`` keeps the GIL while it inflates: on a robots block that is
0.2 s during which no other Python code of the process runs (the judging threads' glue, the
harness still loading, the randomness tests), and a busy Python thread beside it slowed the
inflate itself several-fold (its GIL waits). isal's ``_GzipReader`` (what
``python -m isal.igzip -d`` uses, the audit's floor) lets the GIL go while it inflates, so
here a thread inflates the file ``PIECE_BYTES`` at a time into reused buffers, at most
``AHEAD_BYTES`` ahead of the reader, and ``take`` hands the buffers on in order (a ring:
the same three buffers from the first take on). A second
thread hashes them in the same order (``document_sha256``; hashlib lets the GIL go too): the
inflate, a robots block's longest path, no longer waits for the SHA-256 as well, and while
the harness loads, the core it leaves idle inflates and hashes.

Only the standard library and isal are imported: ``instantcert audit-block FILE`` starts the
inflate before numpy, the reference and the harness load (``start_early``, from
``harness._cli.entry_point``; ``started_early`` hands it to the audit), on the core those
imports leave idle.

``_GzipReader`` reads every member of a file, checks each one's CRC and length, and raises on
damage; it differs from the exact reader in two ways, both left to that reader: it accepts
zero bytes where a member could begin (the exact reader calls them damage), and it names
damage its own way (and, like the exact reader, hands on what it inflated before it found
the damage). So its end is taken as the document's only where the file surely holds one member
and nothing after it (``ends_cleanly``); any other end, and any error, is the caller's to read
exactly: ``DocumentReader`` reads the file with the exact reader from its start when nothing
was handed on yet, else raises ``ReadAgain`` (zero bytes before the bytes handed on may be
damage to the exact reader), and the document is read again without the inflate ahead.
"""

from __future__ import annotations

import hashlib
import os
import stat
import threading
import zlib
from collections import deque
from pathlib import Path, PurePath
from typing import Any, BinaryIO

_GzipReader: Any
try:  # python-isal, a dependency; without it the exact reader reads alone
    from isal.isal_zlib import _GzipReader
except ImportError:  # pragma: no cover - isal is a dependency
    _GzipReader = None

RAW_BUFFER_BYTES = 4 << 20
"""Compressed bytes read at a time: the GIL is taken once a read (a thread waiting for it while
the harness loads waits up to the switch interval, 5 ms)."""
PIECE_BYTES = 8 << 20  # document bytes inflated per call, into one buffer
AHEAD_BYTES = 24 << 20
"""At most this many document bytes inflated and not yet handed on (three buffers: one read,
one hashed, one inflated into), reused from then on; memory bounded while the harness loads
(a robots block is 188 MB inflated). Each buffer's pages are faulted at its first use: 64 MiB
(eight buffers) took a robots block's command 35-50 ms more CPU, 10 500 more page faults, and
no less wall time (docs/block-audit.md, 5 December 2026)."""


class GzipAhead:
    """The document bytes of a gzip file, inflated ahead on a thread (see the module)."""

    def __init__(self, raw: BinaryIO, path: Path | None = None) -> None:
        self.path = path
        self._raw = raw
        self._lock = threading.Condition()
        self._ready: deque[tuple[bytearray, int] | BaseException | None] = deque()
        self._free: list[bytearray] = []
        self._buffers = 0
        self._stopped = False
        self._digest = hashlib.sha256()  # of every byte inflated, on the hashing thread
        self._to_hash: deque[tuple[bytearray, int] | None] = deque()
        self._holders: dict[int, int] = {}  # a buffer handed on: how many have yet to let it go
        self._inflating = True  # the inflate's thread is inflating (not waiting, not done)
        self._taken = False  # the reader has taken a piece: the audit has begun
        self._last = 10  # the last byte inflated
        self._thread = threading.Thread(target=self._run, name="audit-inflate", daemon=True)
        self._hasher = threading.Thread(target=self._hash, name="audit-sha256", daemon=True)
        self._thread.start()
        self._hasher.start()

    @classmethod
    def open(cls, path: str | PurePath) -> GzipAhead | None:
        """The file at ``path`` inflated ahead; None when it is no regular gzip file this
        reads (the caller's own reader then says why), or isal is not installed."""
        if _GzipReader is None:
            return None
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            return None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode) or os.pread(fd, 2, 0) != b"\x1f\x8b":
                os.close(fd)
                return None
            os.set_blocking(fd, True)
            raw = os.fdopen(fd, "rb", buffering=0)
        except OSError:
            os.close(fd)
            return None
        return cls(raw, Path(path))

    def _buffer(self) -> bytearray | None:
        """A free buffer, once fewer than ``AHEAD_BYTES`` wait; None once stopped."""
        with self._lock:
            full = self._buffers * PIECE_BYTES >= AHEAD_BYTES
            if not self._stopped and not self._free and full:
                self._inflating = False  # the hashing thread may take this core meanwhile
                self._lock.notify_all()
                while not self._stopped and not self._free:
                    self._lock.wait()
                self._inflating = True
            if self._stopped:
                return None
            if self._free:
                return self._free.pop()
            self._buffers += 1
        return bytearray(PIECE_BYTES)

    def _put(self, item: tuple[bytearray, int] | BaseException | None) -> None:
        """``item`` to the reader (``take``) and, a piece or the end, to the hashing thread:
        a piece's buffer is free again once both have let it go."""
        with self._lock:
            if isinstance(item, tuple):
                self._holders[id(item[0])] = 2
            else:
                self._inflating = False  # the end, or what stopped the inflate
            self._ready.append(item)
            self._to_hash.append(item if isinstance(item, tuple) else None)
            self._lock.notify_all()

    def _let_go(self, buffer: bytearray) -> None:
        """One holder of ``buffer`` is done with it (the lock held)."""
        left = self._holders.pop(id(buffer)) - 1
        if left:
            self._holders[id(buffer)] = left
        else:
            self._free.append(buffer)
            self._lock.notify_all()

    def _hash(self) -> None:
        """Hash the pieces in order, beside the inflate (hashlib lets the GIL go): the
        inflate's thread, the audit's longest path on a large block, no longer hashes too.

        Until the reader takes its first piece, it hashes only while the inflate waits (the
        read-ahead full, or the file inflated): the command's modules are loading on the main
        thread then, and a third busy thread on two cores would slow them, the longest path
        of a small block."""
        while True:
            with self._lock:
                while not self._stopped and (
                    not self._to_hash or (self._inflating and not self._taken)
                ):
                    self._lock.wait()
                if self._stopped:
                    return
                item = self._to_hash.popleft()
            if item is None:
                return
            buffer, size = item
            self._digest.update(memoryview(buffer)[:size])
            with self._lock:
                self._let_go(buffer)

    def _run(self) -> None:
        try:
            reader = _GzipReader(self._raw, RAW_BUFFER_BYTES)
            while (buffer := self._buffer()) is not None:
                size = reader.readinto(buffer)  # the GIL let go while it inflates
                if not size:
                    self._put(None)
                    return
                self._last = buffer[size - 1]
                self._put((buffer, size))
        except BaseException as exc:  # damage, a read error: the caller reads exactly
            self._put(exc)

    def take(self) -> tuple[bytearray, int] | None:
        """The next buffer and how many of its bytes are document bytes, in order; None at
        the end of the compressed data. Raises what the inflate raised, in its place. A buffer
        taken is the caller's until it gives it back (``give_back``)."""
        with self._lock:
            if not self._taken:
                self._taken = True
                self._lock.notify_all()  # the hashing thread hashes freely from now on
            while not self._ready:
                self._lock.wait()
            item = self._ready.popleft()
        if isinstance(item, BaseException):
            raise item
        return item

    def give_back(self, buffer: bytearray) -> None:
        """A buffer taken and read: the thread inflates into it again."""
        with self._lock:
            self._let_go(buffer)

    def document_sha256(self) -> str:
        """The SHA-256 of the document as the audit reads it (``conformance._audit``: its
        bytes, a newline after a last line without one), once ``take`` has given its end."""
        self._hasher.join()  # it hashes the last pieces, then meets the end
        digest = self._digest.copy()
        if self._last != 10:
            digest.update(b"\n")
        return digest.hexdigest()

    def ends_cleanly(self, total: int) -> bool:
        """Whether the file surely holds one member and nothing after it, ``total`` document
        bytes: it ends in a trailer giving that length (its last four bytes, the length modulo
        2**32, and the document is under 4 GiB) and its first member is not empty. Then no
        zero bytes follow a member (a second member would have to follow an empty first one),
        the one thing ``_GzipReader`` accepts and the exact reader does not. Any other file
        (several members, none written by the reference) is read again exactly."""
        if not 0 < total < 1 << 32:
            return False
        fd = self._raw.fileno()
        try:
            end = os.fstat(fd).st_size
            tail = os.pread(fd, 4, end - 4) if end >= 4 else b""
            head = os.pread(fd, 1 << 16, 0)
        except OSError:
            return False
        first = zlib.decompressobj(wbits=31)
        try:
            empty_first = not first.decompress(head, 1) and first.eof
        except zlib.error:
            return False
        return not empty_first and tail == total.to_bytes(4, "little")

    def close(self) -> None:
        """Stop the thread (after the piece it is inflating) and close the file."""
        with self._lock:
            self._stopped = True
            self._lock.notify_all()
        self._thread.join()
        self._hasher.join()
        self._raw.close()


_early: GzipAhead | None = None


def start_early(path: str) -> None:
    """Begin inflating ``path`` now (``instantcert audit-block FILE`` names one file, before
    the command's modules load); ``started_early`` hands it to the audit of that file."""
    global _early
    if _early is None:
        _early = GzipAhead.open(path)


def started_early(path: str | Path | None) -> GzipAhead | None:
    """The inflate ``start_early`` began, if it is of the file at ``path``; any other (an
    argument mistaken for the file, a command that audits otherwise: ``path`` None) is
    stopped."""
    global _early
    ahead, _early = _early, None
    if ahead is None:
        return None
    try:
        same = path is not None and ahead.path is not None and os.path.samefile(ahead.path, path)
    except OSError:
        same = False
    if same:
        return ahead
    ahead.close()
    return None


__all__ = [
    "AHEAD_BYTES",
    "PIECE_BYTES",
    "RAW_BUFFER_BYTES",
    "GzipAhead",
    "start_early",
    "started_early",
]
