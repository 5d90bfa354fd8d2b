"""The clients the HTTP adapter's requests come from: a population of players' devices, not one
client a vendor could single out (docs/http-api.md, "Nothing says 'harness'").

A twelfth red team's vendors knew the harness by its traffic: every request came from one
client (``okhttp/4.12.0``, one header set, one JSON key order) and the tokenless requests of
an account never came on its connection; a gateway that sent every other client to a wallet
that credits late, a body scanner that read the keys in the contract's order only, and a
token checked once per connection were each certified. Here every account is a device of its
own, drawn from the run's seed: a client family, its version, the headers it writes and their
order, its JSON body's key order; the run's devices cycle through the families, so each
family plays in every run. Requests that belong to no account (describe, evaluate, blocks)
come from a few devices of their own, one for each thread that sends them.

- ``okhttp``: an Android app on OkHttp (``okhttp/4.x.y``), OkHttp's headers and order;
- ``dalvik``: an Android app on OkHttp whose interceptor writes the platform's agent
  (``Dalvik/2.1.0 (Linux; U; Android 14; Pixel 7 Build/...)``), as many apps do;
- ``urlsession``: an iOS app on URLSession (``<app>/<build> CFNetwork/<v> Darwin/<v>``),
  with ``Accept: */*`` and ``Accept-Language``, ``Connection: keep-alive``, the body's type
  without its charset, its JSON keys in no fixed order (Foundation's encoder keeps none).

An Android device writes every body's keys in one order of its own (its data classes' field
order: the contract's, or reversed); an iOS device in a new order each request.

A fifteenth red team's vendor knew the harness by an account's life: every account was played
from the one device it signed up on, to its end, and a wallet that queued the lots of plays
from any other device (a "new device" step-up: the player's tablet, the app after an update
that changed its agent) was certified. Here one account in ``SECOND_SHARE`` (drawn from the
seed) is a player on two devices: after its first ``FIRST_ON_ONE`` requests from the device
it signed up on, its requests come in runs from one device or the other, a switch drawn
before each (``SWITCH``), the second a device of its own (another client, its connections).
"""

from __future__ import annotations

import json
import random
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

FAMILIES = ("okhttp", "dalvik", "urlsession")

OKHTTP_VERSIONS = ("4.9.3", "4.10.0", "4.11.0", "4.12.0")
ANDROID = (
    ("13", "SM-A536B", "TP1A.220624.014"),
    ("14", "Pixel 7", "UQ1A.240205.004"),
    ("14", "SM-S911B", "UP1A.231005.007"),
    ("15", "Pixel 8", "AP3A.241005.015"),
    ("13", "M2101K6G", "TKQ1.221013.002"),
)
CFNETWORK = (
    ("1410.0.3", "22.4.0"),
    ("1494.0.7", "23.4.0"),
    ("1496.0.7", "23.5.0"),
    ("1568.100.1", "24.1.0"),
)
APPS = ("Loterie", "Grattage", "JeuxFR")

#: the orders the families write their headers in, after any header of the request's own
#: (OkHttp: the app's ``Authorization`` first, then its BridgeInterceptor's)
OKHTTP_ORDER = (
    "content-type",
    "content-length",
    "transfer-encoding",
    "host",
    "connection",
    "accept-encoding",
    "cookie",
    "user-agent",
)
URLSESSION_ORDER = (
    "host",
    "content-type",
    "accept",
    "authorization",
    "cookie",
    "accept-encoding",
    "accept-language",
    "content-length",
    "user-agent",
    "connection",
)


@dataclass
class Client:
    """One device: the headers it sends on every request (in ``order``), the type of its JSON
    bodies, and how it orders their keys (``keys``: ``declared``, ``reversed``, ``shuffled``)."""

    family: str
    headers: dict[str, str]
    order: tuple[str, ...]
    body_type: str
    keys: str
    rng: random.Random = field(repr=False, default_factory=random.Random)
    lock: threading.Lock = field(repr=False, default_factory=threading.Lock)

    @property
    def user_agent(self) -> str:
        return self.headers["User-Agent"]

    def body(self, value: object) -> bytes:
        """``value`` as this device's JSON library writes it: compact, its object's keys in
        the device's order (nested objects as given)."""
        if isinstance(value, dict) and len(value) > 1 and self.keys != "declared":
            items = list(value.items())
            if self.keys == "reversed":
                items.reverse()
            else:
                with self.lock:
                    self.rng.shuffle(items)
            value = dict(items)
        return json.dumps(value, separators=(",", ":"), allow_nan=False).encode()


def okhttp_client(user_agent: str) -> Client:
    """The OkHttp client with ``user_agent``, bodies in the contract's key order: what the
    harness sent before devices (and what a request built outside a device is)."""
    return Client(
        "okhttp",
        {"User-Agent": user_agent, "Accept-Encoding": "gzip", "Connection": "Keep-Alive"},
        OKHTTP_ORDER,
        "application/json; charset=utf-8",
        "declared",
    )


def draw_client(seed: object, number: int, user_agent: str | None = None) -> Client:
    """Device ``number`` of the run of ``seed``: its family (the run's families in an order
    drawn from the seed, device after device), then everything else from its own draw;
    ``user_agent``, when the lab names one, replaces every device's."""
    cycle = list(FAMILIES)
    random.Random(f"{seed}:clients").shuffle(cycle)
    family = cycle[number % len(cycle)]
    rng = random.Random(f"{seed}:client:{number}")
    if family == "urlsession":
        cf, darwin = rng.choice(CFNETWORK)
        agent = f"{rng.choice(APPS)}/{rng.randint(1, 900)} CFNetwork/{cf} Darwin/{darwin}"
        headers = {
            "Accept": "*/*",
            "Accept-Language": rng.choice(("fr-FR,fr;q=0.9", "fr-FR,fr;q=0.9,en;q=0.8")),
            # URLSession also offers br; the harness has no brotli decoder to read it with
            "Accept-Encoding": "gzip, deflate",
            "Connection": "keep-alive",
        }
        client = Client(family, headers, URLSESSION_ORDER, "application/json", "shuffled")
    else:
        if family == "okhttp":
            agent = f"okhttp/{rng.choice(OKHTTP_VERSIONS)}"
        else:
            android, model, build = rng.choice(ANDROID)
            agent = f"Dalvik/2.1.0 (Linux; U; Android {android}; {model} Build/{build})"
        client = okhttp_client(agent)
        client.family = family
        client.keys = rng.choice(("declared", "reversed"))
    client.headers["User-Agent"] = user_agent or agent
    client.rng = random.Random(rng.getrandbits(64))
    return client


class Devices:
    """The run's devices: one for each account opened (its requests, and those of its plays,
    come from it, on connections of its own), and ``TOOLS`` for the requests of no account,
    one drawn for each thread; thread-safe. ``seed`` is the run's (``reseed``: the runner gives it
    before the first check)."""

    TOOLS = 3
    SECOND_SHARE = 3
    """One account in this many (drawn from the seed) is played from two devices."""
    FIRST_ON_ONE = 3
    """... its first requests after the sign-up come from the device it signed up on ..."""
    SWITCH = 0.25
    """... then, before each request, the chance that it moves to its other device."""
    SECOND_BASE = 1 << 40
    """The second device of the account of device ``n`` is device ``SECOND_BASE + n``: drawn
    from the seed as any other (of the family after ``n``'s in the run's cycle), never taking a
    number from the sign-ups (their devices stay the seed's whatever the order of requests)."""
    PLAYS_KEPT = 65_536
    """The plays whose device is remembered, the newest (a soak buys hundreds of thousands):
    a request of an older play with its owner's token still comes from the owner's device
    (found by the token); one without it, or with another's, from a device of no account."""

    def __init__(self, seed: object = 0, user_agent: str | None = None) -> None:
        self._lock = threading.Lock()
        self._local = threading.local()
        self.user_agent = user_agent
        self.reseed(seed)

    def reseed(self, seed: object) -> None:
        with self._lock:
            self._generation = getattr(self, "_generation", 0) + 1
            self.seed = seed
            self._count = self.TOOLS
            self._clients: dict[int, Client] = {}
            self._owners: dict[tuple[str, str], int] = {}  # ("account"|"token", id)
            self._plays: OrderedDict[str, int] = OrderedDict()  # the newest PLAYS_KEPT
            self._pick = random.Random(f"{seed}:tools")
            self._slow: int | None = None  # the slow reader's device, once it has read
            # by sign-up device: a player on two devices, or None for one on its own
            self._two: dict[int, _TwoDevices | None] = {}

    def client(self, number: int) -> Client:
        with self._lock:
            found = self._clients.get(number)
            if found is None:
                found = draw_client(self.seed, number, self.user_agent)
                self._clients[number] = found
            return found

    def new(self) -> int:
        """A new device (a sign-up's)."""
        with self._lock:
            self._count += 1
            return self._count - 1

    def sender(self, number: int) -> int:
        """The device a request of the account of device ``number`` (its sign-up's) comes
        from: that one, or for a player on two devices (one account in ``SECOND_SHARE``, drawn
        from the seed), after its first ``FIRST_ON_ONE`` requests, the one it is on, moved
        to the other with chance ``SWITCH`` before each request."""
        with self._lock:
            if number < self.TOOLS or number == self._slow or number >= self._count:
                return number
            if number not in self._two:
                rng = random.Random(f"{self.seed}:second:{number}")
                two = None if rng.randrange(self.SECOND_SHARE) else _TwoDevices(rng, number)
                self._two[number] = two
            two = self._two[number]
            if two is None:
                return number
            two.requests += 1
            if two.requests > self.FIRST_ON_ONE and two.rng.random() < self.SWITCH:
                two.used = True
                two.on = self.SECOND_BASE + number if two.on == number else number
            return two.on

    def devices_of(self, number: int) -> tuple[int, ...]:
        """The devices the account of device ``number`` has been played from so far."""
        with self._lock:
            two = self._two.get(number)
            return (number, self.SECOND_BASE + number) if two and two.used else (number,)

    def slow_reader(self) -> int:
        """The device the run's slow reads of block streams come from (a phone on a slow
        network: ``HttpAdapter.read_block_slowly``), one for the run, made at its first."""
        with self._lock:
            if self._slow is None:
                self._count += 1
                self._slow = self._count - 1
            return self._slow

    def is_slow_reader(self, number: int) -> bool:
        with self._lock:
            return number == self._slow

    def tool(self) -> int:
        """The device of no account this thread's requests come from (drawn at its first such
        request: a check's requests of no account come from one client, on its connections)."""
        with self._lock:
            mine = getattr(self._local, "tool", None)
            if mine is None or mine[0] != self._generation:
                mine = (self._generation, self._pick.randrange(self.TOOLS))
                self._local.tool = mine
            return mine[1]

    def own(self, number: int, kind: str, key: object) -> None:
        """``key`` (an account id, a play id, a token) belongs to device ``number``."""
        if not isinstance(key, str):
            return
        with self._lock:
            if kind != "play":
                self._owners[(kind, key)] = number
                return
            self._plays[key] = number
            if len(self._plays) > self.PLAYS_KEPT:
                self._plays.popitem(last=False)

    def of(self, kind: str, key: object) -> int | None:
        if not isinstance(key, str):
            return None
        with self._lock:
            return self._plays.get(key) if kind == "play" else self._owners.get((kind, key))


@dataclass
class _TwoDevices:
    """A player on two devices: its draws, the device it is on (first its sign-up's), its
    requests so far and whether it has used its second device."""

    rng: random.Random
    on: int
    requests: int = 0
    used: bool = False


def header_order(headers: dict[str, str], order: tuple[str, ...]) -> list[tuple[str, Any]]:
    """``headers`` in a client's ``order``: the request's own (not in ``order``) first, in
    their order, then the known ones in the client's."""
    own = [(k, v) for k, v in headers.items() if k.lower() not in order]
    known = sorted(
        ((k, v) for k, v in headers.items() if k.lower() in order),
        key=lambda kv: order.index(kv[0].lower()),
    )
    return own + known
