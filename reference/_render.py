"""Big block slices rendered in parallel, streamed in order: what ``GET /v1/blocks`` sends.

Blocks are never stored, so serving one whole means computing it. ``SliceRenderer`` splits a
big slice into pieces, renders them side by side with at most two pieces per worker in flight,
and yields them in block order: the bytes are exactly those of ``Block.document_lines``, memory
stays bounded, and a reader that stops early cancels what is left. Small slices are rendered in
the calling thread.

Where a game's render is compiled code that releases the GIL (robots and eldorado,
``_fastlines.c``; ``Block.compiled``), the pieces render on threads of this process: no worker
to start, no Block built again per worker, no piece pickled through a pipe. Otherwise (a game
without compiled lines, or a build without the extension: numpy holds the GIL between its
steps) they render on a small pool of worker processes (``spawn``: safe in a threaded server).
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Generator
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from ._blocks import Block
from ._games import GameDefinition, ensure_registered, worker_definition

PIECE_UNITS = 8192  # about 0.8 MB of robots lines per piece
PARALLEL_FROM_UNITS = 4 * PIECE_UNITS

_log = logging.getLogger(__name__)
_WORKER_BLOCKS: dict[tuple[str, int, str, bytes], Block] = {}


def _render_piece(
    game: str,
    stake_cents: int,
    block_id: str,
    seed: bytes,
    definition: GameDefinition | None,
    start: int,
    count: int,
) -> bytes:
    """In a worker: the unit lines [start, start + count) of the block, each Block built once;
    ``definition`` registers a game the server registered at run time (spawned workers start
    with the package's games only)."""
    key = (game, stake_cents, block_id, seed)
    block = _WORKER_BLOCKS.get(key)
    if block is None:
        if len(_WORKER_BLOCKS) >= 8:
            _WORKER_BLOCKS.clear()
        ensure_registered(definition)
        block = _WORKER_BLOCKS[key] = Block(game, stake_cents, block_id, seed)
    return block.render(start, count)


def _init_worker() -> None:
    """Ctrl+C reaches the whole process group: the server, not its workers, handles it; and a
    worker whose server died without closing the pool (SIGKILL) exits within a second."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _spawn_can_start() -> bool:
    """``spawn`` re-imports ``__main__`` in each worker: not possible when it came from stdin."""
    main = sys.modules.get("__main__")
    if getattr(main, "__spec__", None) is not None:
        return True
    path = getattr(main, "__file__", None)
    return path is None or os.path.exists(path)


def default_workers() -> int:
    """The cores this process may use, at most 4; 1 where workers cannot be started."""
    if not _spawn_can_start():
        return 1
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, 4))


class SliceRenderer:
    """Renders block documents; big slices in parallel on a pool started on first use."""

    def __init__(
        self, workers: int | None = None, parallel_from: int = PARALLEL_FROM_UNITS
    ) -> None:
        self.workers = default_workers() if workers is None else workers
        self.parallel_from = parallel_from
        self._executor: ProcessPoolExecutor | None = None
        self._threads: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()

    def _pool(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._executor is None:
                context = multiprocessing.get_context("spawn")
                self._executor = ProcessPoolExecutor(
                    self.workers, mp_context=context, initializer=_init_worker
                )
            return self._executor

    def _thread_pool(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._threads is None:
                self._threads = ThreadPoolExecutor(self.workers, thread_name_prefix="render")
            return self._threads

    def _give_up_workers(self, why: BaseException) -> None:
        """Workers cannot run here (e.g. ``__main__`` read from stdin cannot be re-imported by
        ``spawn``): render in the calling thread from now on, and say so once."""
        with self._lock:
            if self.workers > 1:
                _log.warning("block workers unavailable (%s); rendering in one thread", why)
            self.workers = 1
            if self._executor is not None:
                self._executor.shutdown(wait=False, cancel_futures=True)
                self._executor = None

    def document_lines(self, block: Block, start: int, count: int) -> Generator[bytes, None, None]:
        """The block/1 document of the slice: the same bytes as ``block.document_lines``,
        header line first; a unit line each, or a piece of many lines at a time."""
        if self.workers <= 1 or count < self.parallel_from:
            yield from block.document_lines(start, count)
            return
        yield block.header_line(start, count)
        end = start + count
        pieces = iter(range(start, end, PIECE_UNITS))
        in_flight: deque[tuple[int, Future[bytes]]] = deque()
        args = (
            block.game,
            block.stake_cents,
            block.block_id,
            block.seed,
            worker_definition(block.game),
        )
        resume = start  # the first unit not yet handed to the reader

        def submit(pool: Executor) -> None:
            at = next(pieces, None)
            if at is not None:
                size = min(PIECE_UNITS, end - at)
                if block.compiled:
                    future = pool.submit(block.render, at, size)
                else:
                    future = pool.submit(_render_piece, *args, at, size)
                in_flight.append((at, future))

        try:
            pool: Executor = self._thread_pool() if block.compiled else self._pool()
            for _ in range(2 * self.workers):
                submit(pool)
            while in_flight:
                at, future = in_flight.popleft()
                piece = future.result()
                submit(pool)
                yield piece
                resume = min(end, at + PIECE_UNITS)
        except BrokenProcessPool as exc:
            self._give_up_workers(exc)
        finally:
            for _, future in in_flight:  # the reader stopped early: drop what is left
                future.cancel()
        for first in range(resume, end, PIECE_UNITS):  # workers failed: the rest, in this thread
            yield block.render(first, min(PIECE_UNITS, end - first))

    def close(self) -> None:
        with self._lock:
            if self._executor is not None:
                self._executor.shutdown(wait=True, cancel_futures=True)
                self._executor = None
            if self._threads is not None:
                self._threads.shutdown(wait=True, cancel_futures=True)
                self._threads = None
