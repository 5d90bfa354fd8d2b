"""Which units on sale a watching check holds: the plays of other checks wait at the gate.

Each (game, stake) sells the units of its own blocks, one after another, to every account
(contract section 4): a *stream*. A few checks judge what a stream sells as a whole (plays in
a row get consecutive units, a refused play takes no unit off sale, the largest lot among the
next units is sold to them): while one of their scenarios runs, no other check may buy a unit
of the stream it watches. The runner used to give them that by running them while no other
check that plays ran at all: against a target 20 ms away, the refusal, order and largest-lot
checks were then seconds of round trips with most of the run waiting behind them.

The gate gives the same guarantee stream by stream. A check *holds* the streams it watches
(``hold``) for as long as it watches them; every play of any other check passes the gate
(``playing``) and waits while its stream is held, or wanted by a holder still waiting (so a
holder is never starved by a flow of plays). A play whose (game, stake) is no stream of the
target (a refusal check's invalid play) might touch any stream in a faulty target, so it waits
for every hold; a holder of ``EVERY`` stream waits for, and stops, every play.

One check holds at a time (its scenarios may hold several streams at once, each its own): the
runner runs its watching checks one at a time anyway, and it is what keeps the gate free of
deadlock. A holder waits for nothing but the plays in flight on what it takes (each a single
request, which ends), and its own plays never wait: no wait can close a cycle. Every wait is
cut by its check's ``cancelled`` callable (a check cut at its budget stops waiting), polled
every ``POLL_S``.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Collection, Hashable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from conformance._registry import EVERY_STREAM as EVERY

Stream = tuple[str, int]

POLL_S = 0.25
"""How often a waiting play or holder looks whether its check was cut meanwhile."""


def offered_streams(implementation: Mapping[str, Any]) -> list[Stream]:
    """Every (game, stake) the target's implementation document offers."""
    games = implementation.get("games")
    found: list[Stream] = []
    for game, offer in games.items() if isinstance(games, Mapping) else ():
        stakes = offer.get("stakes_cents") if isinstance(offer, Mapping) else None
        for stake in stakes if isinstance(stakes, list) else ():
            if isinstance(game, str) and type(stake) is int:
                found.append((game, stake))
    return found


def _never_cut() -> None:
    return None


class StreamGate:
    """Holds on the streams of one run, and the plays in flight, by owner (one per check).
    ``EVERY`` (``conformance.EVERY_STREAM``) is held in place of a list of streams: every play
    of another owner waits, whatever it buys."""

    def __init__(self, streams: Collection[Stream]) -> None:
        self._known = frozenset(streams)
        self._changed = threading.Condition()
        self._held: dict[Hashable, Counter[object]] = {}  # stream (or EVERY) -> owners' depth
        self._wanted: dict[Hashable, Counter[object]] = {}  # the same, holders still waiting
        self._playing: dict[Hashable, Counter[object]] = {}  # stream (or EVERY) -> plays

    def _key(self, game: object, stake: object) -> Hashable:
        """The stream a play buys from; ``EVERY`` when it names no stream of the target."""
        try:
            stream = (game, stake)
            return stream if stream in self._known else EVERY
        except TypeError:  # an unhashable value sent on purpose: no stream of the target
            return EVERY

    @staticmethod
    def _others(table: dict[Hashable, Counter[object]], key: Hashable, owner: object) -> bool:
        """Whether an owner other than ``owner`` has ``key`` in ``table`` (any key, for
        ``EVERY``; ``EVERY`` itself stands in for every key)."""
        keys = list(table) if key == EVERY else [key, EVERY]
        return any(who != owner for k in keys for who in table.get(k, ()))

    def _holds(self, owner: object) -> bool:
        return any(owner in owners for owners in self._held.values())

    def _may_play(self, key: Hashable, owner: object) -> bool:
        if self._holds(owner):  # the holder's own plays: waiting would close a cycle
            return True
        return not self._others(self._held, key, owner) and not self._others(
            self._wanted, key, owner
        )

    def _may_hold(self, keys: list[Hashable], owner: object) -> bool:
        held_by_another = self._others(self._held, EVERY, owner)  # one holder at a time
        return not held_by_another and not any(self._others(self._playing, k, owner) for k in keys)

    def _wait(self, ready: Callable[[], bool], cancelled: Callable[[], None]) -> None:
        while not ready():
            cancelled()  # raises when the check was cut: it stops waiting
            self._changed.wait(POLL_S)
        cancelled()

    @staticmethod
    def _add(table: dict[Hashable, Counter[object]], key: Hashable, owner: object, n: int) -> None:
        count = table.setdefault(key, Counter())
        count[owner] += n
        if count[owner] <= 0:
            del count[owner]
        if not count:
            del table[key]

    @contextmanager
    def playing(
        self, owner: object, game: object, stake: object, cancelled: Callable[[], None] = _never_cut
    ) -> Iterator[None]:
        """Around one play of ``owner``'s: it starts once no other owner holds (or waits to
        hold) the stream it buys from; at once when ``owner`` holds streams itself."""
        key = self._key(game, stake)
        with self._changed:
            self._wait(lambda: self._may_play(key, owner), cancelled)
            self._add(self._playing, key, owner, 1)
        try:
            yield
        finally:
            with self._changed:
                self._add(self._playing, key, owner, -1)
                if self._wanted:  # only a holder waits for plays to end; plays never do
                    self._changed.notify_all()

    @contextmanager
    def hold(
        self,
        owner: object,
        streams: Collection[Stream] | str,
        cancelled: Callable[[], None] = _never_cut,
    ) -> Iterator[None]:
        """``owner`` holds ``streams`` (or ``EVERY``) while the block runs: taken once no other
        owner holds anything or has a play in flight on them, all at once; plays of other
        owners on them wait from the moment this starts waiting."""
        keys: list[Hashable] = [EVERY] if streams == EVERY else list(dict.fromkeys(streams))
        with self._changed:
            for key in keys:
                self._add(self._wanted, key, owner, 1)
            try:
                self._wait(lambda: self._may_hold(keys, owner), cancelled)
            finally:
                for key in keys:
                    self._add(self._wanted, key, owner, -1)
                self._changed.notify_all()
            for key in keys:
                self._add(self._held, key, owner, 1)
        try:
            yield
        finally:
            with self._changed:
                for key in keys:
                    self._add(self._held, key, owner, -1)
                self._changed.notify_all()

    def release(self, owner: object) -> None:
        """Whatever ``owner`` holds or wants, let go: its check was cut, and its thread, left
        to end on its own, may be stuck in a call that never returns (every later call of a
        cut check is refused, so it buys nothing more). Its own ``hold`` blocks, if they ever
        end, then let go of nothing."""
        with self._changed:
            for table in (self._held, self._wanted):
                for key in list(table):
                    table[key].pop(owner, None)
                    if not table[key]:
                        del table[key]
            self._changed.notify_all()
