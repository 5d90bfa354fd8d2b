"""Block files (contract section 3): block/1 JSON Lines, plain or gzip, streamed and parallel.

The file's bytes depend on the block and the slice only, never on the number of workers:

- the slice is cut into chunks of ``CHUNK_UNITS`` units counted from its start; a worker
  renders a whole chunk, and the parent writes the chunks in order, holding at most a few
  chunks per worker at a time (bounded memory whatever the block size);
- ``.jsonl.gz``: one gzip member (RFC 1952) whose deflate stream is the concatenation of
  independently compressed pieces, as pigz does: the header line, then each chunk, each
  compressed by its own raw-deflate stream at ``COMPRESS_LEVEL`` and ended by a sync flush (an
  empty stored block, so the next piece starts on a byte boundary), then one final empty block.
  The header has mtime 0, no file name, XFL 0, OS 255 (unknown); the CRC-32 of the whole is
  combined from the chunks' CRCs. Any gzip reader reads it as one member. Identical bytes need
  the same zlib build; the uncompressed bytes are identical everywhere.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import zlib
from collections import deque
from collections.abc import Callable, Iterator
from typing import IO, Any

from ._blocks import Block, BlockError
from ._games import GameDefinition, ensure_registered, worker_definition

CHUNK_UNITS = 16384
COMPRESS_LEVEL = 4
GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"  # deflate, no flags, mtime 0
SUFFIXES = (".jsonl.gz", ".jsonl")
_CRC_POLY = 0xEDB88320


def _multmodp(a: int, b: int) -> int:
    """a(x) * b(x) modulo the CRC-32 polynomial (reflected bit order), as zlib computes it."""
    m = 1 << 31
    p = 0
    while True:
        if a & m:
            p ^= b
            if (a & (m - 1)) == 0:
                return p
        m >>= 1
        b = (b >> 1) ^ _CRC_POLY if b & 1 else b >> 1


def _x2n_table() -> tuple[int, ...]:
    table = [1 << 30]  # x^1
    for _ in range(31):
        table.append(_multmodp(table[-1], table[-1]))
    return tuple(table)


_X2N = _x2n_table()


def crc32_combine(crc1: int, crc2: int, length2: int) -> int:
    """CRC-32 of A + B from crc32(A), crc32(B) and len(B) (zlib's crc32_combine)."""
    p = 1 << 31  # x^0
    k = 3  # length in bytes: x^(8 * length2) = x^(2^3 * length2)
    n = length2
    while n:
        if n & 1:
            p = _multmodp(_X2N[k & 31], p)
        n >>= 1
        k += 1
    return _multmodp(p, crc1) ^ crc2


def _deflate_piece(data: bytes) -> bytes:
    """A raw deflate piece that ends on a byte boundary and lets the stream go on."""
    compressor = zlib.compressobj(COMPRESS_LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS)
    return compressor.compress(data) + compressor.flush(zlib.Z_SYNC_FLUSH)


def _final_piece() -> bytes:
    return zlib.compressobj(COMPRESS_LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS).flush(zlib.Z_FINISH)


# -- workers: one Block per process, built once --------------------------------------------

_WORKER_BLOCK: Block | None = None


def _init_worker(
    game: str, stake_cents: int, block_id: str, seed: bytes, definition: GameDefinition | None
) -> None:
    """``definition`` registers a game the parent registered at run time (a worker that is not
    forked starts with the package's games only)."""
    global _WORKER_BLOCK
    ensure_registered(definition)
    _WORKER_BLOCK = Block(game, stake_cents, block_id, seed)


_Chunk = tuple[bytes, int, int]  # bytes to write, CRC-32 and length of the uncompressed lines


def _render(block: Block, start: int, count: int, compress: bool) -> _Chunk:
    data = block.render(start, count)
    if not compress:
        return data, 0, len(data)
    return _deflate_piece(data), zlib.crc32(data), len(data)


def _render_in_worker(task: tuple[int, int, bool]) -> _Chunk:
    assert _WORKER_BLOCK is not None, "worker not initialised"
    return _render(_WORKER_BLOCK, *task)


def _chunks(block: Block, tasks: list[tuple[int, int, bool]], workers: int) -> Iterator[_Chunk]:
    """The chunks in order; with workers > 1, at most 2 per worker are in flight."""
    if workers <= 1:
        for task in tasks:
            yield _render(block, *task)
        return
    import multiprocessing  # for a block written on processes only: not at every start-up

    # spawn, never fork: a process with threads (a transport's deadline thread, a progress
    # bar's monitor) can fork a child that waits forever on a lock another thread held
    context = multiprocessing.get_context("spawn")
    args = (
        block.game,
        block.stake_cents,
        block.block_id,
        block.seed,
        worker_definition(block.game),
    )
    with context.Pool(workers, initializer=_init_worker, initargs=args) as pool:
        pending: deque[Any] = deque()
        todo = iter(tasks)
        for task in todo:
            pending.append(pool.apply_async(_render_in_worker, (task,)))
            if len(pending) >= 2 * workers:
                break
        while pending:
            chunk: _Chunk = pending.popleft().get()
            following = next(todo, None)
            if following is not None:
                pending.append(pool.apply_async(_render_in_worker, (following,)))
            yield chunk


def is_gzip_name(path: str | os.PathLike[str]) -> bool:
    """Whether the file name asks for gzip; BlockError if it names neither format."""
    name = os.fspath(path)
    if not isinstance(name, str) or not name.endswith(SUFFIXES):
        raise BlockError(
            f"block file name {name!r}: expected a name ending in .jsonl or .jsonl.gz "
            "(the suffix chooses plain or gzip-compressed JSON Lines)"
        )
    return name.endswith(".jsonl.gz")


def default_workers() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


class _HashingWriter:
    def __init__(self, out: IO[bytes]) -> None:
        self.out = out
        self.sha256 = hashlib.sha256()

    def write(self, data: bytes) -> None:
        self.out.write(data)
        self.sha256.update(data)


def write_block_file(
    path: str | os.PathLike[str],
    block: Block,
    start: int = 0,
    count: int | None = None,
    workers: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> str:
    """Write the block/1 document of ``block[start:start+count]`` to ``path``.

    ``.jsonl.gz`` gives gzip, ``.jsonl`` plain text. ``workers`` processes render the units
    (default: one per available core); the bytes are the same for any number of them.
    ``progress(units_done, units_total)`` is called after each chunk. The file appears only
    once complete (written aside, then renamed). Returns the SHA-256 hex of the file's bytes.
    """
    if not isinstance(block, Block):
        raise BlockError(f"block {block!r} ({type(block).__name__}): expected a reference Block")
    compress = is_gzip_name(path)
    first, size = block.check_slice(start, count)
    if workers is None:
        workers = default_workers()
    elif type(workers) is not int or workers < 1:
        raise BlockError(
            f"workers {workers!r} ({type(workers).__name__}): expected an integer >= 1"
        )
    tasks = [
        (at, min(CHUNK_UNITS, first + size - at), compress)
        for at in range(first, first + size, CHUNK_UNITS)
    ]
    workers = max(1, min(workers, len(tasks)))
    target = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(target))
    handle, temporary = tempfile.mkstemp(prefix=".block-", suffix=".part", dir=directory)
    try:
        with os.fdopen(handle, "wb") as raw:
            out = _HashingWriter(raw)
            header = block.header_line(first, size)
            if compress:
                out.write(GZIP_HEADER)
                out.write(_deflate_piece(header))
                crc, length = zlib.crc32(header), len(header)
            else:
                out.write(header)
            done = 0
            for (data, chunk_crc, chunk_length), task in zip(
                _chunks(block, tasks, workers), tasks, strict=True
            ):
                out.write(data)
                if compress:
                    crc = crc32_combine(crc, chunk_crc, chunk_length)
                    length += chunk_length
                done += task[1]
                if progress is not None:
                    progress(done, size)
            if compress:
                out.write(_final_piece())
                out.write(crc.to_bytes(4, "little") + (length & 0xFFFFFFFF).to_bytes(4, "little"))
        os.chmod(temporary, 0o644)
        os.replace(temporary, target)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
    return out.sha256.hexdigest()
