"""Deadlines and a circuit breaker for the HTTP adapter: no request can outlast its deadline.

``requests``/``urllib3`` bound each socket operation (connect, every read), never a request as
a whole: a target that sends its headers one byte a second stays inside every read timeout
forever. Here each request gets one total ``Deadline``; the connection it uses registers its
socket with it (``DeadlineHTTPAdapter`` mounts connection classes that do so), and one shared
watchdog thread shuts that socket down when the deadline passes. A shut-down socket wakes any
read blocked on it at once, so the wait for headers and body together is bounded by the
deadline (plus the connect timeout per address, which the socket's own timeout bounds: the
socket exists only once it is connected). The reader then sees ``Deadline.expired`` and
reports the deadline, not a cut body.

``Breaker`` remembers, per endpoint (method and path template), the timeouts in a row: past
``threshold`` the endpoint is not waited on again; later calls fail at once, citing the first.
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import re
import socket
import threading
import time
from typing import Any

import urllib3.connection
import urllib3.connectionpool
from requests.adapters import HTTPAdapter

from ._errors import TargetTimeout

_active = threading.local()  # .deadline: the Deadline of the request this thread is sending


class Deadline:
    """One request's total deadline, from before it connects to the end of its answer."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.at = time.monotonic() + seconds
        self.expired = False
        self.done = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()

    def attach(self, sock: socket.socket | None) -> None:
        """``sock`` carries this request; shut at once if the deadline has passed already."""
        if sock is None:
            return
        with self._lock:
            if self.done:
                return
            if sock not in self._sockets:
                self._sockets.append(sock)
            if self.expired:
                _shut(sock)

    def expire(self) -> None:
        """The deadline passed: shut every socket of the request (the watchdog calls this)."""
        with self._lock:
            if self.done:
                return
            self.expired = True
            for sock in self._sockets:
                _shut(sock)

    def finish(self) -> None:
        """The answer is complete (or given up): the watchdog leaves its sockets alone, so a
        connection back in the pool is never shut by a deadline that is no longer its own."""
        with self._lock:
            self.done = True
            self._sockets.clear()

    def __enter__(self) -> Deadline:
        """This deadline is the sending thread's while ``session.request`` runs."""
        _WATCHDOG.watch(self)
        _active.deadline = self
        return self

    def __exit__(self, *exc: object) -> None:
        _active.deadline = None


def _shut(sock: socket.socket) -> None:
    # the plain socket's shutdown, also under TLS: wakes a blocked read, keeps the fd; an
    # OSError: closed already, or never connected
    with contextlib.suppress(OSError):
        socket.socket.shutdown(sock, socket.SHUT_RDWR)


class _Watchdog:
    """One daemon thread for every deadline of the process: a heap ordered by time."""

    def __init__(self) -> None:
        self._heap: list[tuple[float, int, Deadline]] = []
        self._order = itertools.count()
        self._wake = threading.Condition()
        self._thread: threading.Thread | None = None

    def watch(self, deadline: Deadline) -> None:
        with self._wake:
            while self._heap and self._heap[0][2].done:
                heapq.heappop(self._heap)
            heapq.heappush(self._heap, (deadline.at, next(self._order), deadline))
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._run, name="instantcert-deadlines", daemon=True
                )
                self._thread.start()
            if self._heap[0][2] is deadline:
                self._wake.notify()

    def _run(self) -> None:
        while True:
            with self._wake:
                while self._heap and self._heap[0][2].done:
                    heapq.heappop(self._heap)
                if not self._heap:
                    self._wake.wait()
                    continue
                wait = self._heap[0][0] - time.monotonic()
                if wait > 0:
                    self._wake.wait(wait)
                    continue
                deadline = heapq.heappop(self._heap)[2]
            deadline.expire()


_WATCHDOG = _Watchdog()


def _attach_current(connection: Any) -> None:
    deadline = getattr(_active, "deadline", None)
    if isinstance(deadline, Deadline):
        deadline.attach(connection.sock)


class _Attaching(urllib3.connection.HTTPConnection):
    """Registers its socket with the sending thread's deadline, new or kept alive."""

    def connect(self) -> None:
        super().connect()
        _attach_current(self)

    def request(self, *args: Any, **kwargs: Any) -> None:
        _attach_current(self)
        super().request(*args, **kwargs)


class HTTPConnection(_Attaching):
    pass


class HTTPSConnection(_Attaching, urllib3.connection.HTTPSConnection):
    pass


class _Pool(urllib3.connectionpool.HTTPConnectionPool):
    ConnectionCls = HTTPConnection


class _TLSPool(urllib3.connectionpool.HTTPSConnectionPool):
    ConnectionCls = HTTPSConnection


class DeadlineHTTPAdapter(HTTPAdapter):
    """A ``requests`` transport whose connections answer to the sending thread's deadline."""

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = {"http": _Pool, "https": _TLSPool}

    def proxy_manager_for(self, proxy: str, **proxy_kwargs: Any) -> Any:
        """Through an HTTP proxy (``HTTP_PROXY``...) too; a SOCKS proxy keeps its own pools
        and only the read timeouts."""
        manager = super().proxy_manager_for(proxy, **proxy_kwargs)
        if not proxy.lower().startswith("socks"):
            manager.pool_classes_by_scheme = {"http": _Pool, "https": _TLSPool}
        return manager


# -- the circuit breaker ------------------------------------------------------------------

_ID_SEGMENT = {"blocks": "{block_id}", "accounts": "{account_id}", "plays": "{play_id}"}
_SEGMENTS = re.compile(r"/")


def endpoint(method: str, path: str) -> str:
    """``POST /v1/plays/{play_id}/reveal`` for ``POST /v1/plays/p-12/reveal``: the contract's
    endpoint a request goes to, ids replaced by their names."""
    parts = _SEGMENTS.split(path)
    if len(parts) > 3 and parts[1] == "v1" and parts[2] in _ID_SEGMENT:
        parts[3] = _ID_SEGMENT[parts[2]]
    return f"{method} {'/'.join(parts)}"


class Breaker:
    """Timeouts in a row per endpoint; from ``threshold`` on, the endpoint is not called."""

    def __init__(self, threshold: int) -> None:
        self.threshold = threshold
        self._timeouts: dict[str, list[str]] = {}
        self._lock = threading.Lock()

    def check(self, key: str) -> None:
        """TargetTimeout at once if ``key`` has timed out ``threshold`` times in a row."""
        with self._lock:
            seen = self._timeouts.get(key, [])
            if self.threshold <= 0 or len(seen) < self.threshold:
                return
            count, first = len(seen), seen[0]
        raise TargetTimeout(
            f"{key}: not called: it timed out {count} times in a row in this run, so it is "
            f"not waited on again (the first time: {first})"
        )

    def timed_out(self, key: str, message: str) -> None:
        with self._lock:
            self._timeouts.setdefault(key, []).append(message)

    def answered(self, key: str) -> None:
        """A complete answer ends a run of timeouts (below the threshold: once open, open)."""
        with self._lock:
            seen = self._timeouts.get(key)
            if seen and len(seen) < self.threshold:
                del self._timeouts[key]
