"""Time budgets: a check, and the whole run, end in bounded time whatever the target does.

A check runs in a worker thread (``run_within``); the runner waits for it up to its budget.
Past the budget the check is *cut*: the runner marks it *error* naming the budget and moves
on, and the check's ``CancelToken`` is cancelled, so the ``GuardedAdapter`` the check talks
through refuses every later call (and every later chunk of a block stream) by raising
``Cancelled`` in the check's thread. A call already in flight is bounded by the transport's
own deadline (HTTP); a Python adapter that never returns leaves its daemon thread behind,
blocked, harmless: it can no longer reach the target through the guard nor report anything.

``Cancelled`` derives from ``BaseException`` so that a check's ``except Exception`` (e.g. to
record a fault and go on) cannot swallow it and spin.

``Stalls`` is the circuit breaker of adapter calls: an operation (``evaluate``, ...) that was
still running, hung for at least half a check budget, when ``STALL_THRESHOLD`` checks were
cut is not called again in that run: later calls raise ``TargetTimeout`` at once, citing
the first.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import random
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Collection, Iterator
from contextlib import AbstractContextManager
from functools import partial
from typing import Any, Generic, NoReturn, TypeVar

from ._errors import ErrorReply, TargetTimeout
from ._patience import RATE_RETRIES, RATE_WAIT_CAP_S, rate_wait
from ._streams import StreamGate

T = TypeVar("T")

STALL_THRESHOLD = 2
CLOSE_WAIT_S = 10.0  # how long closing an adapter may take before the run goes on without it
_CHECK_EVERY = 1024  # a block stream's lines between two looks at the token


class Cancelled(BaseException):
    """Raised in a cut check's thread at its next call to the target."""


_calling = threading.local()  # .token: the CancelToken of the check this thread calls for


def wait_unless_cut(seconds: float, step: float = 0.25) -> None:
    """Sleep ``seconds``, unless the check on whose behalf this thread is calling the target
    (through a ``GuardedAdapter``) is cut meanwhile: then ``Cancelled`` at once (within
    ``step``). How a transport waits when a target asks it to (``Retry-After``): the wait
    counts against the check's budget and the run's, and a cut check sends nothing more."""
    token = getattr(_calling, "token", None)
    ends = time.monotonic() + seconds
    while True:
        if token is not None:
            token.check()
        left = ends - time.monotonic()
        if left <= 0:
            return
        time.sleep(min(left, step))


class CancelToken:
    """Set once a check is cut; ``lock`` orders the cut with the check's own reports."""

    def __init__(self) -> None:
        self.reason: str | None = None
        self.lock = threading.Lock()

    def cancel(self, reason: str) -> None:
        with self.lock:
            self.reason = reason

    @property
    def cancelled(self) -> bool:
        return self.reason is not None

    def check(self) -> None:
        if self.reason is not None:
            raise Cancelled(self.reason)


class _Outcome(Generic[T]):
    def __init__(self) -> None:
        self.done = threading.Event()
        self.value: T | None = None
        self.error: BaseException | None = None


def run_within(
    function: Callable[[], T],
    seconds: float,
    name: str,
    *,
    paused: Callable[[], float] = lambda: 0.0,
    until: float = float("inf"),
) -> tuple[bool, T | None]:
    """``(True, function())`` if it returns within ``seconds``, else ``(False, None)`` with the
    call left running in its daemon thread. An exception it raises is raised here.
    ``paused()``: seconds the call spent waiting on something else (the stream gate), which do
    not count against ``seconds``; never past ``until`` (a monotonic time: the run's end)."""
    outcome: _Outcome[T] = _Outcome()

    def work() -> None:
        try:
            outcome.value = function()
        except Cancelled:
            pass  # cut: nobody waits for this thread any more
        except BaseException as exc:  # handed to the waiting thread
            outcome.error = exc
        finally:
            outcome.done.set()

    thread = threading.Thread(target=work, name=name, daemon=True)
    began = time.monotonic()
    thread.start()
    while not outcome.done.is_set():
        now = time.monotonic()
        deadline = min(began + max(seconds, 0.0) + paused(), until)
        if now >= deadline:
            return False, None
        outcome.done.wait(min(deadline - now, PAUSE_POLL_S))
    if outcome.error is not None:
        raise outcome.error
    return True, outcome.value


def close_within(adapter: Any, seconds: float = CLOSE_WAIT_S) -> None:
    """``adapter.close()``, given up after ``seconds`` (a hung vendor adapter must not keep
    the reports from being written)."""
    run_within(adapter.close, seconds, "instantcert-close")


PAUSE_POLL_S = 0.5
"""How often a check's deadline is moved on by the time it has spent waiting at the gate."""


class Stalls:
    """Adapter operations that hung in checks that were cut, per operation."""

    def __init__(self, threshold: int = STALL_THRESHOLD) -> None:
        self.threshold = threshold
        self._seen: dict[str, list[str]] = {}
        self._lock = threading.Lock()

    def record(self, operation: str, message: str) -> None:
        with self._lock:
            self._seen.setdefault(operation, []).append(message)

    def check(self, operation: str) -> None:
        with self._lock:
            seen = self._seen.get(operation, [])
            if len(seen) < self.threshold:
                return
            count, first = len(seen), seen[0]
        raise TargetTimeout(
            f"{operation}(): not called: it hung in {count} checks cut at their budget in this "
            f"run, so it is not waited on again (the first: {first})"
        )


_COUNTED = threading.Lock()  # the run's call counts, shared by every check's guard


class GuardedAdapter:
    """The adapter as one check sees it: every operation refused once the check is cut.

    ``underlying`` is the run's adapter (what a cache shared by checks keys on); calls in
    flight are tracked so that a cut can tell which operation hung, and for how long.
    """

    def __init__(
        self,
        underlying: Any,
        token: CancelToken,
        stalls: Stalls,
        gate: StreamGate | None = None,
        calls: Counter[str] | None = None,
    ) -> None:
        self.underlying = underlying
        self._counted = calls  # the run's calls by operation, every check's (``Runner.reach``)
        self._gate = gate if gate is not None else StreamGate(())
        self.name = getattr(underlying, "name", "target")
        self._token = token
        self._stalls = stalls
        self._in_flight: dict[int, tuple[str, float]] = {}
        self._streams: list[GuardedStream] = []  # block streams being read
        self._lock = threading.Lock()
        self._calls = 0
        self._waiting = 0  # its threads waiting at the stream gate now
        self._waited_s = 0.0  # wall time during which one at least waited, before now
        self._wait_began = 0.0
        self._jitter = random.Random()  # the spread of the waits on a 429: timing only

    def _call(self, operation: str, *args: Any, _method: str | None = None, **kwargs: Any) -> Any:
        """``operation`` on the adapter (its method ``_method``, default ``operation``'s own),
        counted, watched and cut as the check's."""
        self._token.check()
        self._stalls.check(operation)
        with self._lock:
            self._calls += 1
            ticket = self._calls
            self._in_flight[ticket] = (operation, time.monotonic())
        if self._counted is not None:
            with _COUNTED:
                self._counted[operation] += 1
        outer = getattr(_calling, "token", None)
        _calling.token = self._token
        try:
            result = self._patiently(operation, args, kwargs, _method or operation)
        finally:
            _calling.token = outer
            with self._lock:
                del self._in_flight[ticket]
        self._token.check()  # the answer of a call made before the cut is not handed on
        return result

    def _patiently(
        self, operation: str, args: tuple[Any, ...], kwargs: dict[str, Any], method: str
    ) -> Any:
        """The call, made again after a wait each time the adapter raises ``ErrorReply`` with
        status 429 (an in-process adapter over a rate-limited service: the HTTP adapter waits
        on a target's 429 itself), as the HTTP adapter waits on a 429 without ``Retry-After``
        (``harness._patience``): no verdict on the request; refused ``RATE_RETRIES`` times
        more, ``TargetTimeout`` (the check: *error*, never a refusal it judges)."""
        refused = 0
        while True:
            try:
                return getattr(self.underlying, method)(*args, **kwargs)
            except ErrorReply as exc:
                if exc.status != 429:
                    raise
                refused += 1
                if refused > RATE_RETRIES:
                    raise TargetTimeout(
                        f"{operation}: refused {refused} times in a row ({exc}), waited on "
                        f"{RATE_RETRIES} times (at most {RATE_WAIT_CAP_S:g} s each): the target "
                        "did not answer the request"
                    ) from None
                wait_unless_cut(rate_wait(None, refused, self._jitter.random))  # timing only

    def in_flight(self) -> list[tuple[str, float]]:
        """(operation, seconds running) of each call still running; a block stream still
        being read counts as ``read_block`` running since its last chunk of lines came."""
        now = time.monotonic()
        with self._lock:
            calls = [(op, now - began) for op, began in self._in_flight.values()]
            streams = [("read_block", now - s.last) for s in self._streams if not s.ended]
        return calls + streams

    def describe(self, *args: Any, **kwargs: Any) -> Any:
        return self._call("describe", *args, **kwargs)

    def evaluate(self, *args: Any, **kwargs: Any) -> Any:
        return self._call("evaluate", *args, **kwargs)

    def list_blocks(self, *args: Any, **kwargs: Any) -> Any:
        return self._call("list_blocks", *args, **kwargs)

    def read_block(self, *args: Any, **kwargs: Any) -> Any:
        return self._stream("read_block", *args, **kwargs)

    def read_block_slowly(self, *args: Any, **kwargs: Any) -> Any:
        """``read_block`` for a slow reader: the adapter's own ``read_block_slowly`` where it
        has one (``harness._http_adapter``: a connection of its own, whose small receive
        buffer lets the stall reach the server), its ``read_block`` elsewhere; a
        ``read_block`` call of the check's, either way."""
        slowly = hasattr(self.underlying, "read_block_slowly")
        return self._stream("read_block_slowly" if slowly else "read_block", *args, **kwargs)

    def _stream(self, method: str, *args: Any, **kwargs: Any) -> Any:
        stream = GuardedStream(
            self._call("read_block", *args, _method=method, **kwargs), self._token
        )
        with self._lock:
            self._streams = [s for s in self._streams if not s.ended] + [stream]
        return stream

    def open_account(self, *args: Any, **kwargs: Any) -> Any:
        return self._call("open_account", *args, **kwargs)

    def balance(self, *args: Any, **kwargs: Any) -> Any:
        return self._call("balance", *args, **kwargs)

    def _gate_wait(self, delta: int) -> None:
        """One more (``1``) or one fewer (``-1``) of its threads waiting at the gate."""
        with self._lock:
            now = time.monotonic()
            if self._waiting == 0 and delta > 0:
                self._wait_began = now
            self._waiting += delta
            if self._waiting == 0:
                self._waited_s += now - self._wait_began

    def waited_s(self) -> float:
        """Seconds during which the check waited at the stream gate (some of its threads, at
        least): they do not count against its budget (``run_within``'s ``paused``)."""
        with self._lock:
            ongoing = time.monotonic() - self._wait_began if self._waiting else 0.0
            return self._waited_s + ongoing

    @contextlib.contextmanager
    def _through(self, gate: AbstractContextManager[None]) -> Iterator[None]:
        """Inside ``gate`` (a play's or a hold's passage through the run's gate), the time
        spent waiting to enter it counted as waiting (``waited_s``)."""
        self._gate_wait(1)
        waiting = True
        try:
            with gate:
                self._gate_wait(-1)
                waiting = False
                yield
        finally:
            if waiting:
                self._gate_wait(-1)

    def play(self, account_id: Any, token: Any, game: Any, stake_cents: Any) -> Any:
        """A play waits at the run's gate while another check watches its (game, stake)
        (``harness._streams``); the wait is not a call in flight, and a cut ends it."""
        with self._through(self._gate.playing(self, game, stake_cents, self._token.check)):
            return self._call("play", account_id, token, game, stake_cents)

    def hold(self, streams: Collection[tuple[str, int]] | str) -> AbstractContextManager[None]:
        """``CheckContext.hold`` for this check: its hold at the run's gate; the wait for it
        does not count against the check's budget either, and a cut ends it."""
        return self._through(self._gate.hold(self, streams, self._token.check))

    def reveal(self, *args: Any, **kwargs: Any) -> Any:
        return self._call("reveal", *args, **kwargs)

    def auto(self, *args: Any, **kwargs: Any) -> Any:
        return self._call("auto", *args, **kwargs)

    def history(self, *args: Any, **kwargs: Any) -> Any:
        return self._call("history", *args, **kwargs)

    def close(self) -> None:
        """A check does not close the run's adapter: the runner does."""

    def __getattr__(self, name: str) -> Any:  # a vendor adapter's extras, unguarded
        value = getattr(self.underlying, name)
        if name in GUARDED_EXTRAS and callable(value):
            return partial(self._call, name)
        return value


GUARDED_EXTRAS = frozenset({"send_raw"})
"""Optional operations a check calls on the target (``contract.RawRequests``): guarded like
the contract's, where the adapter has them (and absent, as on it, where it has not)."""


class GuardedStream:
    """A block stream that stops (``Cancelled``) once its check is cut: checked every chunk
    and every ``_CHECK_EVERY`` lines, so a cut check stops reading a block within a chunk.
    ``last`` is when the last chunk (or ``_CHECK_EVERY`` lines) came: a cut tells from it a
    stream that hangs."""

    def __init__(self, stream: Any, token: CancelToken) -> None:
        self._stream = stream
        self._token = token
        self.last = time.monotonic()
        self.ended = False

    def lines(self) -> Iterator[bytes]:
        try:
            for number, line in enumerate(self._stream.lines()):
                if not number % _CHECK_EVERY:
                    self._token.check()
                    self.last = time.monotonic()
                yield line
        finally:
            self.ended = True

    def close(self) -> None:
        self.ended = True
        self._stream.close()

    def __enter__(self) -> GuardedStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._stream, name)
        if name != "chunks":
            return value

        def chunks() -> Iterator[bytes]:
            try:
                for chunk in value():
                    self._token.check()
                    self.last = time.monotonic()
                    yield chunk
            finally:
                self.ended = True

        return chunks


EXIT_GRACE_S = 2.0


def _joined_at_exit() -> list[threading.Thread]:
    """The threads Python waits for at exit: non-daemon ones, and every thread-pool worker
    (``concurrent.futures`` joins its workers even when they are daemons, as the workers of a
    pool started in a check's daemon thread are)."""
    from concurrent.futures import thread as pool_threads

    workers = list(getattr(pool_threads, "_threads_queues", {}))
    main = threading.main_thread()
    return [
        t
        for t in {*workers, *threading.enumerate()}
        if t is not main and t.is_alive() and (not t.daemon or t in workers)
    ]


def exit_process(code: int, grace_s: float = EXIT_GRACE_S) -> NoReturn:
    """End the process with ``code``, even if a cut check left threads that never end.

    Python joins those threads at exit: one blocked for ever in a hung Python adapter (a
    check that played scenarios side by side on a thread pool, then was cut) would keep a
    finished run's process alive for ever, its reports written. Such threads get ``grace_s``
    to end; then the process ends without them (``os._exit``), its output flushed. A process
    without such threads runs its ``atexit`` handlers first, as ``sys.exit`` would.
    """
    ends = time.monotonic() + grace_s
    for thread in _joined_at_exit():
        thread.join(max(0.0, ends - time.monotonic()))
    if not _joined_at_exit():
        atexit._run_exitfuncs()  # what sys.exit would run first (logging's flush, ...)
    _flush_standard_streams()
    # and not the interpreter's teardown (every module and object freed one by one: 40 ms
    # of a 0.6 s block audit, measured): every file the command wrote is closed by now
    os._exit(code)


def _flush_standard_streams() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe (``| head``) or stream
            stream.flush()
