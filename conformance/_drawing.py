"""Hypothesis's first pass of a search, drawn in worker processes.

A property-based check draws its examples first and only collects them (``hunt`` in
``checks/_differential.py``); the target then answers them in batches. Drawing is pure CPU in
hypothesis's engine, about 0.5 to 1 ms an example, and the checks of a run share one
interpreter (threads, one lock): in a full certify the first passes were more than half of the
CPU, all of it on one core. A check whose strategy is given as a ``Recipe`` (a module-level
function and picklable arguments, which another process can call to build the same strategy)
has that pass drawn on a pool of worker processes instead, started on first use and kept for
the run (``for_a_run``; ``shutdown`` ends it).

The examples are the same wherever they are drawn: the same seed, settings and strategy, and
the same pinned hypothesis (``conformance._hypothesis``) in every process; the shrink pass,
drawn in the check's own thread, relies on it (a test compares the two). A pass is drawn in
the check's thread when the run says so (``draw_workers: 0``), below ``WORKERS_FROM_EXAMPLES``
examples (the quick profile: a worker's start costs more than it saves), for a strategy given
as a strategy object, and whenever the workers cannot be used (no process may be started, the
strategy's game is not known in a fresh process, a worker died): those fall back, never fail.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import pickle
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import CancelledError, Future
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from ._audit.driver import default_workers

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

    from hypothesis import Phase, settings
    from hypothesis.strategies import SearchStrategy

T = TypeVar("T")

MAX_DEFAULT_WORKERS = 4
"""``draw_workers: null`` is one worker per core, at most this many: a run draws at most
``check_concurrency`` (4) passes at once, and each worker holds its own hypothesis."""

WORKERS_FROM_EXAMPLES = 250
"""A first pass of fewer examples is drawn in the check's own thread (the quick profile's 200)."""

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Recipe(Generic[T]):
    """A strategy another process can build: ``function(*args)``. ``function`` is defined at
    a module's top level and ``args`` are plain values or recipes, so the recipe pickles (a
    strategy object does not)."""

    function: Callable[..., SearchStrategy[T]]
    args: tuple[Any, ...] = ()

    def build(self) -> SearchStrategy[T]:
        return self.function(*self.args)


def hypothesis_settings(examples: int, phases: Sequence[Phase]) -> settings:
    """The settings of every search's passes (the first pass and the shrink pass)."""
    from hypothesis import HealthCheck, settings

    return settings(
        max_examples=examples,
        database=None,
        deadline=None,
        derandomize=False,
        phases=tuple(phases),
        report_multiple_bugs=False,
        suppress_health_check=list(HealthCheck),
        print_blob=False,
    )


def draw_here(cases: Recipe[T] | SearchStrategy[T], seed: int, examples: int) -> list[T]:
    """The first pass, in this thread: the ``examples`` cases hypothesis draws from ``cases``
    under ``seed``, in the order it draws them."""
    from hypothesis import Phase, given
    from hypothesis import seed as seeded

    from . import _hypothesis  # noqa: F401  (draws depend on the seed alone)

    strategy = cases.build() if isinstance(cases, Recipe) else cases
    drawn: list[T] = []

    @seeded(seed)
    @hypothesis_settings(examples, [Phase.generate])
    @given(strategy)
    def collect(case: T) -> None:
        drawn.append(case)

    collect()
    return drawn


def draw(
    cases: Recipe[T] | SearchStrategy[T], seed: int, examples: int, workers: int | None
) -> list[T]:
    """``draw_here(cases, seed, examples)``, on a worker process when it pays and is possible
    (see the module's docstring); ``workers`` is the run's ``draw_workers`` (None: one per
    core, 0: none)."""
    submitted = _submit(cases, seed, examples, workers)
    if submitted is not None:
        from concurrent.futures.process import BrokenProcessPool  # loaded with the pool

        pool, future = submitted
        try:
            drawn: list[T] = future.result()
            return drawn
        except (BrokenProcessPool, CancelledError) as exc:
            if pool is not _POOL:  # ended by shutdown(): the run is over, this check was cut
                raise RuntimeError(
                    "the run ended before this search's examples were drawn"
                ) from exc
            _give_up(exc)  # no worker can run here: none again in this process
        except Exception as exc:  # e.g. a game not known in a fresh process: draw it here
            _log.debug("drawing %s in this thread: the worker failed (%r)", cases, exc)
    return draw_here(cases, seed, examples)


def _submit(
    cases: Recipe[T] | SearchStrategy[T], seed: int, examples: int, workers: int | None
) -> tuple[ProcessPoolExecutor, Future[list[T]]] | None:
    if not isinstance(cases, Recipe) or examples < WORKERS_FROM_EXAMPLES:
        return None
    count = min(default_workers(), MAX_DEFAULT_WORKERS) if workers is None else workers
    if count < 1:
        return None
    try:
        pickle.dumps(cases)
    except Exception:  # a recipe of a lambda or of a local function: not for another process
        return None
    # the reference's renderer (and multiprocessing with it) loads here: not at every run's
    # start-up (a block audit never draws on processes)
    from reference._render import _spawn_can_start

    if not _spawn_can_start():  # a __main__ read from stdin: spawn cannot import it again
        return None
    pool = _pool(count)
    if pool is None:
        return None
    try:
        return pool, pool.submit(draw_here, cases, seed, examples)
    except Exception as exc:  # no process could start (or the run's end shut the pool down)
        if pool is _POOL:
            _give_up(exc)
        return None


_LOCK = threading.Lock()
_POOL: ProcessPoolExecutor | None = None
_UNAVAILABLE: str | None = None


def _pool(workers: int) -> ProcessPoolExecutor | None:
    """The pool, started with ``workers`` processes on first use (a later ``workers`` does not
    resize it: a run's searches may still wait on it)."""
    global _POOL, _UNAVAILABLE
    with _LOCK:
        if _UNAVAILABLE is not None:
            return None
        if _POOL is None:
            # multiprocessing loads here, with the first pool: not at a run's start-up
            # (4 ms of a block audit's, which never draws on processes)
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            # spawn, not fork: the checks drawing in other threads hold hypothesis's locks
            context = multiprocessing.get_context("spawn")
            try:
                _POOL = ProcessPoolExecutor(workers, mp_context=context, initializer=_init_worker)
            except Exception as exc:  # no semaphores here (a container without /dev/shm), ...
                _UNAVAILABLE = repr(exc)
                _log.info("examples drawn in the checks' threads: no pool (%r)", exc)
                return None
        return _POOL


def _give_up(why: BaseException) -> None:
    """Workers cannot be used in this process (e.g. a ``__main__`` read from stdin cannot be
    imported again by ``spawn``): every later pass is drawn in its check's thread."""
    global _POOL, _UNAVAILABLE
    with _LOCK:
        if _UNAVAILABLE is None:
            _UNAVAILABLE = repr(why)
            _log.info("examples drawn in the checks' threads: workers unavailable (%r)", why)
        if _POOL is not None:
            _POOL.shutdown(wait=False, cancel_futures=True)
            _POOL = None


def _init_worker() -> None:
    """As the reference's block workers: Ctrl+C is the parent's to handle (no traceback from
    each worker), and a worker whose parent died unannounced (SIGKILL, ``os._exit``) exits
    within a second."""
    from reference._render import _init_worker as like_a_block_worker

    from . import _hypothesis

    like_a_block_worker()
    _hypothesis.unmanage_numpy_random()


_RUNS = 0  # runs under way in this process (``for_a_run``)


@contextlib.contextmanager
def for_a_run() -> Iterator[None]:
    """The span of one run: the workers end when the last run under way in this process ends
    (two runs side by side in one process share the pool; one ending must not cut the
    other's searches)."""
    global _RUNS
    with _LOCK:
        _RUNS += 1
    try:
        yield
    finally:
        with _LOCK:
            _RUNS -= 1
            last = _RUNS == 0
        if last:
            shutdown()


TERMINATE_WAIT_S = 2.0
"""How long a worker asked to end (SIGTERM) has before it is killed (SIGKILL)."""


def shutdown() -> None:
    """End the workers (at the end of a run; again at exit): passes not yet drawn are
    dropped, a pass still being drawn (for a check cut at its budget) is stopped, and a later
    search starts a new pool. A worker left drawing would outlive the command, holding its
    output open (``instantcert certify | tee log`` would wait for it)."""
    global _POOL
    with _LOCK:
        pool, _POOL = _POOL, None
    if pool is None:
        return
    workers = list((getattr(pool, "_processes", None) or {}).values())  # shutdown forgets them
    pool.shutdown(wait=False, cancel_futures=True)
    for worker in workers:
        if worker.is_alive():
            worker.terminate()
    for worker in workers:  # one that did not end on SIGTERM (seen, rarely, in a full test
        worker.join(TERMINATE_WAIT_S)  # tier: a worker still starting up) is killed
        if worker.is_alive():
            worker.kill()
            worker.join(TERMINATE_WAIT_S)


atexit.register(shutdown)
