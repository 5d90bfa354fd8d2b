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
import email.utils
import heapq
import http.client
import itertools
import math
import re
import socket
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

import urllib3.connection
import urllib3.connectionpool
from requests.adapters import HTTPAdapter
from requests.models import PreparedRequest, Response
from requests.structures import CaseInsensitiveDict
from requests.utils import get_encoding_from_headers
from urllib3 import PoolManager

from ._errors import TargetTimeout

_active = threading.local()  # .deadline: the Deadline of the request this thread is sending

FRESH_AFTER_S = 1.0
"""A request that must not be sent twice (a play, a reveal) goes out on a new connection when
its kept-alive one has carried nothing for this long: a server may close an idle connection at
any moment (RFC 9112 9.3; gunicorn's keep-alive timeout is 2 s, nginx's 75 s), and a request
crossing that close on the wire is lost unanswered, with nothing to tell whether it was done.
Reads and other safe requests keep the connection: lost, they are sent again. A target seen
closing connections idle for less is given a shorter time (``IdleCloses``)."""

IDLE_SHARE = 0.25
"""The share of the shortest idle time after which the target was seen to have closed a
kept-alive connection that a play's or a reveal's connection may have been idle."""


class IdleCloses:
    """The shortest idle time after which a kept-alive connection was found closed by the
    target, as it was about to be reused (urllib3's check before every reuse sees the close:
    the request then goes on a new connection); thread-safe. A server may close idle
    connections after less than ``FRESH_AFTER_S`` (a gateway's keep-alive timeout of 300 ms),
    and a reveal sent as its connection closes is lost, its check *error* (a server closing
    connections idle for 0.3 s left a requirement in *error* so in a quick run). Once such a
    close is seen, a play or a reveal takes a new connection past ``IDLE_SHARE`` of that idle
    time (``fresh_after``)."""

    def __init__(self) -> None:
        self.shortest = math.inf
        self._lock = threading.Lock()

    def closed(self, idle: float) -> None:
        with self._lock:
            self.shortest = min(self.shortest, idle)

    def fresh_after(self) -> float:
        """How long a play's or a reveal's kept-alive connection may have been idle."""
        return min(FRESH_AFTER_S, self.shortest * IDLE_SHARE)


class Deadline:
    """One request's total deadline, from before it connects to the end of its answer."""

    def __init__(
        self,
        seconds: float,
        fresh_after: float | None = None,
        idle_closes: IdleCloses | None = None,
    ) -> None:
        self.seconds = seconds
        self.fresh_after = fresh_after  # a kept-alive connection idle this long is not reused
        self.idle_closes = idle_closes  # told when a kept-alive connection was found closed
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


MAX_INTERIM = 32
"""Informational (1xx) answers skipped before a request's final answer; more is a fault of the
target's (each is read within the request's deadline anyway)."""


class InterimSkipping(http.client.HTTPResponse):
    """An answer read past its informational (1xx) answers, as HTTP says (RFC 9110 15.2): a
    ``103 Early Hints`` or a ``102 Processing`` before the final answer is skipped like the
    ``100 Continue`` that ``http.client`` alone skips. ``101 Switching Protocols`` is final (the
    harness asks for no upgrade, so a 101 stays the surprise it is)."""

    _interim = 0

    def _read_status(self) -> tuple[str, int, str]:
        while True:
            version, status, reason = super()._read_status()  # type: ignore[misc]
            if 100 <= status < 200 and status != 101:
                self._interim += 1
                if self._interim > MAX_INTERIM:
                    raise http.client.HTTPException(
                        f"more than {MAX_INTERIM} informational (1xx) answers in a row"
                    )
                if status != 100:  # http.client's begin() skips a 100's headers itself
                    http.client._read_headers(self.fp)  # type: ignore[attr-defined]
                    continue
            return version, status, reason


class _Attaching(urllib3.connection.HTTPConnection):
    """Registers its socket with the sending thread's deadline, new or kept alive; reads its
    answers past informational ones (``InterimSkipping``)."""

    response_class = InterimSkipping
    _last_request = 0.0  # time.monotonic() when this connection last sent a request

    def connect(self) -> None:
        super().connect()
        _attach_current(self)

    @property
    def is_connected(self) -> bool:
        """urllib3's check before reusing a kept-alive connection; a connection the target
        closed after carrying a request tells the sending deadline's ``IdleCloses`` how long
        it had been idle."""
        connected: bool = super().is_connected
        if not connected and self.sock is not None and self._last_request:
            deadline = getattr(_active, "deadline", None)
            if isinstance(deadline, Deadline) and deadline.idle_closes is not None:
                deadline.idle_closes.closed(time.monotonic() - self._last_request)
        return connected

    def request(self, *args: Any, **kwargs: Any) -> None:
        """Sent on this connection; on a new one instead when the request must not be lost
        and this one has been idle ``Deadline.fresh_after`` s or more (``FRESH_AFTER_S``)."""
        deadline = getattr(_active, "deadline", None)
        fresh_after = deadline.fresh_after if isinstance(deadline, Deadline) else None
        now = time.monotonic()
        idle = now - self._last_request
        if fresh_after is not None and self.sock is not None and idle >= fresh_after:
            self.close()  # http.client connects again as it sends (connect() above)
        self._last_request = now
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
    """A ``requests`` transport whose connections answer to the sending thread's deadline.

    A device's requests (``_http_adapter.DEVICE``: an account's, from its sign-up on, and
    every request naming its account or plays, with its token or not) go on connections of
    their own, as a phone's do: no connection carries two accounts' plays, which a gateway
    could tell apart from an app's traffic (a fifth red team's open class), and a request
    without the account's token comes on the connections its token came on (a twelfth red
    team's vendor checked the token once per connection). A request of no device: its
    ``Authorization`` header decides. The pools of the ``ACCOUNT_POOLS`` devices used last are
    kept open, the others closed.

    Two of ``requests``' steps at each request are cut short, each costing as much as a
    twentieth of the harness's CPU per request: the pool of a target is found once (not by
    parsing the URL and building its pool key again), and an answer's cookies are not put in
    a jar (the harness sends none back: ``HttpAdapter._prepare``)."""

    ACCOUNT_POOLS = 128

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = {"http": _Pool, "https": _TLSPool}
        self._pools: OrderedDict[tuple[str, object, object, str | None], Any] = OrderedDict()
        self._pools_lock = threading.Lock()

    def get_connection_with_tls_context(
        self,
        request: PreparedRequest,
        verify: bool | str | None,
        proxies: Mapping[str, str] | None = None,
        cert: Any = None,
    ) -> Any:
        """The pool of the request's origin and account (its ``Authorization``), found once
        per origin, TLS settings and account; through a proxy, found by ``requests`` each
        time (one pool for every account)."""
        url = request.url if isinstance(request.url, str) else ""
        start = url.find("//") + 2
        end = url.find("/", start) if start >= 2 else -1
        if proxies or end < 0 or not isinstance(verify, bool):
            return super().get_connection_with_tls_context(request, verify, proxies, cert)
        account = getattr(request, "instantcert_device", None)  # _http_adapter.DEVICE
        if account is None:
            account = request.headers.get("Authorization")
        cert_key = cert if cert is None or isinstance(cert, str) else tuple(cert)
        key = (url[:end], verify, cert_key, account)
        with self._pools_lock:
            pool = self._pools.get(key)
            if pool is not None and pool.pool is not None:
                self._pools.move_to_end(key)
                return pool
        if account is None:  # none yet, or closed since (pool manager full)
            pool = super().get_connection_with_tls_context(request, verify, proxies, cert)
        else:
            pool = self._account_pool(request, verify, cert)
        with self._pools_lock:
            self._pools[key] = pool
            accounts = [k for k in self._pools if k[3] is not None]
            for old in accounts[: max(0, len(accounts) - self.ACCOUNT_POOLS)]:
                self._pools.pop(old).close()  # a connection in use closes when it is put back
        return pool

    def _account_pool(self, request: PreparedRequest, verify: bool, cert: Any) -> Any:
        """A pool of the request's origin and TLS settings for one account alone (its
        connections' receive buffer set where the request asks: ``_http_adapter``'s slow
        reader)."""
        host, pool_kwargs = self.build_connection_pool_key_attributes(request, verify, cert)
        options = dict(self.poolmanager.connection_pool_kw)
        receive = getattr(request, "instantcert_receive_buffer", None)  # _http_adapter's
        if isinstance(receive, int):
            options["socket_options"] = [
                *urllib3.connection.HTTPConnection.default_socket_options,
                (socket.SOL_SOCKET, socket.SO_RCVBUF, receive),
            ]
        manager = PoolManager(num_pools=1, **options)
        manager.pool_classes_by_scheme = {"http": _Pool, "https": _TLSPool}
        return manager.connection_from_host(**host, pool_kwargs=dict(pool_kwargs))

    def close(self) -> None:
        super().close()
        with self._pools_lock:
            for pool in self._pools.values():
                pool.close()
            self._pools.clear()

    def build_response(self, req: PreparedRequest, resp: Any) -> Response:
        """``requests``' response, but for its cookie jar: a target's cookies are not kept."""
        response = Response()
        response.status_code = resp.status
        response.headers = CaseInsensitiveDict(resp.headers)
        response.encoding = get_encoding_from_headers(response.headers)
        response.raw = resp
        response.reason = resp.reason
        response.url = req.url.decode("utf-8") if isinstance(req.url, bytes) else str(req.url)
        response.request = req
        response.connection = self
        return response

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
    """Timeouts in a row per endpoint; from ``threshold`` on, the endpoint is not called.
    ``what`` says what happened that many times (``timed out``)."""

    def __init__(self, threshold: int, what: str = "timed out") -> None:
        self.threshold = threshold
        self.what = what
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
            f"{key}: not called: it {self.what} {count} times in a row in this run, so it is "
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


# -- a target that asks for patience: 429, and 503 with Retry-After -----------------------------

# how long and how often: harness._patience (RATE_RETRIES, rate_wait, ...)


def retry_after(headers: Mapping[str, str], now: float | None = None) -> float | None:
    """The seconds a ``Retry-After`` header asks to wait (RFC 9110 10.2.3): a number of
    seconds, or an HTTP date, measured from the answer's own ``Date`` when it has one (the
    target's clock against itself: no skew), else from ``now`` (epoch seconds; the clock by
    default); None when absent or unreadable; never below 0."""
    value = (headers.get("Retry-After") or "").strip()
    if not value:
        return None
    if value.isascii() and value.isdigit():
        return float(min(int(value[:12]), 10**9))
    try:
        at = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if at.tzinfo is None:  # "-0000" or no zone: an HTTP date is in GMT
        return None
    base = now if now is not None else time.time()
    date = (headers.get("Date") or "").strip()
    if date:
        with contextlib.suppress(TypeError, ValueError, IndexError, OverflowError):
            told = email.utils.parsedate_to_datetime(date)
            if told.tzinfo is not None:
                base = told.timestamp()
    return max(0.0, at.timestamp() - base)


def asks_patience(status: int, headers: Mapping[str, str]) -> tuple[bool, float | None]:
    """Whether an answer asks the client to come back later rather than answering: ``429``
    (RFC 6585 4), or ``503`` with a ``Retry-After`` (RFC 9110 15.6.4); and the seconds it
    asks (None: a 429 that names none). A 503 without ``Retry-After`` is not one: the
    target's overload, handled as 502 and 504 are."""
    if status not in (429, 503):
        return False, None
    asked = retry_after(headers)
    return status == 429 or asked is not None, asked


# -- concurrency for a target that drops connections ------------------------------------------


class Counts:
    """What the transport did to get answers from a target: the run's report shows it.

    ``retries``: requests sent again because the connection failed before any answer (safe
    ones, or any whose connection was never made, so nothing was sent) or a 502/503/504 came;
    ``plays_settled``: plays whose answer was lost, settled from the history and the balance
    (``plays_bought``: found there; ``plays_resent``: not there, so sent again); ``lost``:
    answers lost that nothing could settle (the check says it could not judge: *error*);
    ``reductions``: times the limit on requests in flight was halved; ``lowest_limit``: the
    lowest it went; ``rate_limited``: answers that asked the harness to slow down (429, or 503
    with ``Retry-After``), each request then sent again after its wait; ``rate_waited_s``:
    those waits, added up (whole seconds, rounded up)."""

    FIELDS = (
        "retries",
        "plays_bought",
        "plays_resent",
        "lost",
        "reductions",
        "lowest_limit",
        "rate_limited",
        "rate_waited_s",
    )

    def __init__(self, ceiling: int) -> None:
        self.values = dict.fromkeys(self.FIELDS, 0)
        self.values["lowest_limit"] = ceiling
        self._waited = 0.0
        self._lock = threading.Lock()

    def add(self, name: str, amount: int = 1) -> None:
        with self._lock:
            self.values[name] += amount

    def waited(self, seconds: float) -> None:
        """``seconds`` more waited because the target asked for patience."""
        with self._lock:
            self._waited += seconds
            self.values["rate_waited_s"] = int(-(-self._waited // 1))

    def lowest(self, limit: int) -> None:
        with self._lock:
            self.values["lowest_limit"] = min(self.values["lowest_limit"], limit)

    def snapshot(self) -> dict[str, int]:
        with self._lock:
            return dict(self.values)


MAX_MARKS = 64
"""Windows of ``Limiter.mark`` open at once, at most (one a racing check)."""


class Limiter:
    """An AIMD limit on the requests a target has in flight (waiting for their answer's
    headers), shared by every thread of the adapter, as TCP shares a link.

    It starts at ``start`` (an initial window, as TCP's) and grows to ``ceiling`` (the pool's
    size) as answers come. A connection dropped before any answer halves it (down to
    ``floor``), at most once per ``cooldown`` seconds (the requests already in flight when it
    was halved drop for the same cause); each answer raises it by ``1 / limit`` (one more per
    round of ``limit`` answers: it recovers slowly). A request waits for a free slot at most
    its own deadline (``TargetTimeout`` then, said to be the harness's wait).

    A request that is not sent again if its connection drops (a play, a reveal) is let in only
    under ``share`` of the limit: it goes out when the target is far from the load at which it
    drops connections, so it is the least likely to be dropped."""

    def __init__(
        self,
        ceiling: int,
        counts: Counts,
        *,
        start: int | None = None,
        floor: int = 1,
        cooldown: float = 0.5,
    ) -> None:
        self.ceiling = ceiling
        self.floor = floor
        self.cooldown = cooldown
        self.limit = float(min(start or ceiling, ceiling))
        self.in_flight = 0
        self.counts = counts
        self._cut_at = -cooldown
        self._ready = threading.Condition()
        self.start = self.limit
        self._marks: dict[int, float] = {}  # a window's lowest limit (``mark``)
        self._lowered_by_target = False  # below ``start`` since the target asked for it
        self._next_mark = itertools.count()

    def acquire(self, seconds: float, share: float = 1.0) -> bool:
        """A slot within ``seconds``, under ``share`` of the limit; False: none came free."""
        ends = time.monotonic() + seconds
        with self._ready:
            while self.in_flight >= max(1, int(self.limit * share)):
                left = ends - time.monotonic()
                if left <= 0:
                    return False
                self._ready.wait(left)
            self.in_flight += 1
            return True

    def release(self, answered: bool) -> None:
        with self._ready:
            self.in_flight -= 1
            if answered and self.limit < self.ceiling:
                self.limit = min(float(self.ceiling), self.limit + 1.0 / self.limit)
                if self.limit >= self.start:  # back where it began: no longer the target's
                    self._lowered_by_target = False
            self._ready.notify_all()  # the waiting under a share, and the others

    def mark(self) -> int:
        """Open a window: ``lowest_since`` gives the lowest the limit was while the target had
        it lowered (below)."""
        with self._ready:
            if len(self._marks) >= MAX_MARKS:  # windows never read (their check was cut)
                del self._marks[next(iter(self._marks))]
            mark = next(self._next_mark)
            self._marks[mark] = self.limit if self._lowered_by_target else math.inf
            return mark

    def lowest_since(self, mark: int) -> float | None:
        """The lowest the limit was since ``mark`` while the target had it lowered by its own
        word (``dropped(asked=True)``: 429, 503, and the like, not a connection that dropped:
        an idle connection a server closes drops one request now and then); None when it
        was not lowered so meanwhile. The window is closed."""
        with self._ready:
            lowest = self._marks.pop(mark, math.inf)
            return None if lowest == math.inf else lowest

    def dropped(self, asked: bool = False) -> None:
        """A connection failed before any answer, or (``asked``) the target said it was
        overloaded or asked to slow down: halve the limit (once per cooldown)."""
        with self._ready:
            now = time.monotonic()
            halve = now - self._cut_at >= self.cooldown and self.limit > self.floor
            if halve:
                self._cut_at = now
                self.limit = max(float(self.floor), self.limit / 2)
            if asked:  # even within the cooldown: the windows open were held at this limit
                self._lowered_by_target = True
                for mark, lowest_then in self._marks.items():
                    self._marks[mark] = min(lowest_then, self.limit)
            if not halve:
                return
            lowest = int(self.limit)
        self.counts.add("reductions")
        self.counts.lowest(lowest)
