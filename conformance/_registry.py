"""Checks are plain functions in a registry (Schemathesis's lesson).

A check receives a ``CheckContext``, talks to the target through ``ctx.adapter``, and either
returns (pass, optionally with ``details`` for the reports) or raises:

- ``CheckFailure`` (verdict *fail*): the target answered and the answer breaks a requirement;
  it carries evidence (input, expected, got, request: ``conformance._evidence``), one per
  counterexample, and the requirements it breaks, all given when it is built;
- ``contract.TargetError`` (verdict *error*): the target misbehaved (timeout, 500, garbage);
- ``NotSupported`` (verdict *not_supported*): the target lacks what the check needs;
- ``Reservation`` (verdict *reserved*): the letter is not broken, but the target does not meet
  one of the project's readings of a point the contract leaves open (a row of
  docs/contract-decisions.md), or left out what the check needs where the contract lets it (one
  block listed): a finding with its evidence and what would lift it, never a failure. A check
  that goes on after such a finding records it with ``ctx.reserve(...)`` instead: it ends
  *reserved* if nothing fails.

Any other exception is a harness bug and is also reported as *error*, with its traceback.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, ExitStack, contextmanager, nullcontext
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Final, Protocol

from contract import Adapter

from ._errors import ConformanceError
from ._settings import coerce
from .games import CheckBook, GameKit, attach_check_registry, kit_names, kits

if TYPE_CHECKING:
    from ._evidence import Counterexample
    from ._settings import Settings

OUTCOMES: tuple[str, ...] = ("pass", "fail", "error", "reserved", "not_supported", "not_run")

RESERVATION_KINDS: tuple[str, ...] = ("reading", "unverifiable", "scope")
"""``reading``: the target does not meet a reading of the project (a failure only the letter
may give); ``unverifiable``: the run could not verify a requirement because the contract lets
the target leave out what it needs (one block listed at a stake); ``scope``: a capability or a
game the target does not declare, outside the certificate (the runner's, not a check's)."""


@dataclass(frozen=True)
class Evidence:
    """One counterexample, enough to replay it and to show it to a person: the untyped kind,
    for evidence that has no type of its own in ``conformance._evidence`` (yet)."""

    input: Mapping[str, Any]  # e.g. {"game", "stake_cents", "ticket"} or a play scenario
    expected: Any  # what the reference / the rules say
    got: Any  # what the target said
    request: Mapping[str, Any] | None = None  # the adapter call that produced ``got``
    note: str = ""

    @property
    def requirements(self) -> tuple[str, ...]:
        """The requirement(s) this evidence proves broken: untyped evidence names none."""
        return ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "input": dict(self.input),
            "expected": self.expected,
            "got": self.got,
            "request": dict(self.request) if self.request is not None else None,
            "note": self.note,
        }


class CheckFailure(ConformanceError):
    """The target broke a requirement; ``evidence`` shows how (minimal case first).

    Built complete, never changed after: ``requirements`` are the narrowest requirement ids
    the failure proves broken (the check picks them, often from its evidence's own
    ``requirements``); None or empty: the check's own (``conformance._execute``)."""

    def __init__(
        self,
        message: str,
        evidence: Iterable[Counterexample] | None = None,
        *,
        requirements: Sequence[str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.evidence: list[Counterexample] = list(evidence or [])
        self._requirements = tuple(dict.fromkeys(requirements)) if requirements else None

    @property
    def requirements(self) -> tuple[str, ...] | None:
        return self._requirements


class NotSupported(ConformanceError):
    """The target does not have the capability (or game, or stake) a check needs."""


class Reservation(ConformanceError):
    """A finding that may not fail a run: the target does not meet the reading ``basis`` (the
    row id of docs/contract-decisions.md the check applies), or (``kind="unverifiable"``) the
    run could not verify the requirement because the contract let the target leave out what it
    needs. ``lift`` says what would lift it; ``evidence`` shows it, as a failure's would.

    Raised, it ends the check *reserved*; given to ``CheckContext.reserve``, it is recorded and
    the check goes on (what else it checks may still fail)."""

    def __init__(
        self,
        message: str,
        *,
        basis: str,
        lift: str,
        evidence: Iterable[Counterexample] | None = None,
        kind: str = "reading",
        requirements: Sequence[str] | None = None,
    ) -> None:
        super().__init__(message)
        if kind not in RESERVATION_KINDS:
            raise ConformanceError(f"reservation kind {kind!r}: one of {RESERVATION_KINDS}")
        if not basis or not lift:
            raise ConformanceError("a reservation names its basis and what would lift it")
        self.message = message
        self.basis = basis
        self.lift = lift
        self.kind = kind
        self.evidence: list[Counterexample] = list(evidence or [])
        self._requirements = tuple(dict.fromkeys(requirements)) if requirements else None

    @property
    def requirements(self) -> tuple[str, ...] | None:
        return self._requirements

    def to_dict(self, requirements: Sequence[str]) -> dict[str, Any]:
        """The reservation as the reports carry it, for ``requirements``."""
        return {
            "kind": self.kind,
            "basis": self.basis,
            "message": self.message,
            "lift": self.lift,
            "requirements": list(requirements),
            "evidence": [e.to_dict() for e in self.evidence],
        }


class ProgressSink(Protocol):
    def __call__(self, done: int, total: int | None, what: str) -> None: ...


EVERY_STREAM: Final = "every stream"
"""What a check holds when what it watches is not one (game, stake): every play waits."""

StreamHold = Callable[[Collection[tuple[str, int]] | str], AbstractContextManager[None]]


def _no_other_check(streams: Collection[tuple[str, int]] | str) -> AbstractContextManager[None]:
    """The hold where no other check runs (the pytest plugin runs one check at a time)."""
    return nullcontext()


@dataclass
class CheckContext:
    """What a check may use: the target, the run's settings, a seed, and a progress callback."""

    adapter: Adapter  # the target, through the harness's guard and the seam's schema check
    implementation: Mapping[str, Any]  # the target's /v1/implementation document
    settings: Settings  # the run's, validated once: hypothesis examples, block sampling, alpha...
    seed: int
    progress: ProgressSink = field(default=lambda done, total, what: None)
    details: dict[str, Any] = field(default_factory=dict)  # filled by the check for the reports
    block_sink: Callable[[Mapping[str, Any]], None] = field(default=lambda block: None)
    """Receives one mapping per audited block, with the fields of ``harness.BlockAudited``."""
    stream_gate: StreamHold = field(default=_no_other_check)
    """The run's hold of streams (``hold`` enters it): given by the runner, which runs checks
    side by side (``harness._streams``)."""
    hold_watchers: list[StreamHold] = field(default_factory=list)
    """Entered with every ``hold``, inside the gate's, in the order given (``watch_holds``)."""
    reservations: list[Reservation] = field(default_factory=list)
    """Findings recorded with ``reserve``: the check ends *reserved* unless it fails."""
    endings: list[Callable[[], None]] = field(default_factory=list)
    """Called once the check has ended, whichever way, in the order given (``at_end``)."""

    def __post_init__(self) -> None:

        # a mapping (a test's, a plugin's own) is validated here, once, as it enters
        self.settings = coerce(self.settings, "check context settings")

    def reserve(self, reservation: Reservation) -> None:
        """Record ``reservation`` and go on: the letter is still checked after it."""
        self.reservations.append(reservation)

    def at_end(self, ending: Callable[[], None]) -> None:
        """Call ``ending`` once the check has ended, passed or not (a session of the check
        hands over what its scenarios could not judge: ``checks._session``)."""
        self.endings.append(ending)

    @contextmanager
    def hold(self, streams: Collection[tuple[str, int]] | str) -> Iterator[None]:
        """``with ctx.hold([(game, stake), ...]):`` no other check buys a unit of these (game,
        stake) streams meanwhile (``EVERY_STREAM``: of any); the check's own plays go on, and
        every watcher of the check's holds knows it holds them (``watch_holds``)."""
        with self.stream_gate(streams), ExitStack() as watched:
            for watcher in self.hold_watchers:
                watched.enter_context(watcher(streams))
            yield

    def watch_holds(self, watcher: StreamHold) -> None:
        """Enter ``watcher(streams)`` inside every later ``hold`` of the check (a session of
        the check keeps its own plays off the streams the check holds: ``checks._session``)."""
        self.hold_watchers.append(watcher)

    def supports(self, capability: str) -> bool:
        return capability in self.implementation.get("capabilities", [])

    def stakes(self, game: str) -> list[int]:
        """The stakes of ``game`` in scope: the target's, narrowed by ``settings.stakes``."""
        games = self.implementation.get("games", {})
        offered = list(games.get(game, {}).get("stakes_cents", []))
        wanted = self.settings.stakes_for(game)
        return [s for s in offered if wanted is None or s in wanted]

    def games(self, applicable: Sequence[str] | None = None) -> list[str]:
        """The games in scope: implemented by the target, kept by ``settings.games``;
        ``applicable``: only these (default: every game with a kit, ``conformance.games``)."""
        if applicable is None:
            applicable = kit_names()
        wanted = self.settings.games
        offered = self.implementation.get("games", {})
        return [g for g in applicable if g in offered and (wanted is None or g in wanted)]


CheckFunction = Callable[[CheckContext], None]


@dataclass(frozen=True)
class Check:
    id: str
    requirements: tuple[str, ...]
    capability: str  # "evaluate" | "blocks" | "play" | "reveal"
    games: tuple[str, ...]
    function: CheckFunction
    doc: str
    cost: str = "fast"  # "fast" | "block" (whole blocks) | "long" (many plays)
    exclusive: bool = False
    """The check judges what the target sells as a whole (units sold in block order, a
    refused play that takes no unit off sale): no other check may buy a unit of what it
    watches while it watches. Unless it ``holds_streams``, that is every stream, for its
    whole run (``conformance._execute``)."""
    holds_streams: bool = False
    """The exclusive check holds the streams it watches itself, scenario by scenario
    (``CheckContext.hold``): other checks play on every other stream meanwhile."""
    first: bool = False
    """Start it before the other checks of its kind (block, exclusive, long or fast): it
    reads the units about to be sold, and what it finds there should depend on the run's
    seed, not on what checks beside it bought first (``play.top_lots``: the largest lot among
    the next units); or it is among the longest, and the run should not end waiting on it
    alone (a reveal check: each play clicked through is dozens of requests)."""


_REGISTRY: dict[str, Check] = {}
PerGame = Callable[["GameKit"], Sequence[str]]


@dataclass(frozen=True)
class _Spec:
    """What ``check`` was given, for checks whose games or requirements follow the kits."""

    covers: tuple[str, ...]
    games: tuple[str, ...] | None
    per_game: PerGame | None


_DYNAMIC: dict[str, _Spec] = {}


def _resolved(spec: _Spec) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(requirements, games) of a check from its spec and the kits registered now."""
    games = spec.games if spec.games is not None else kit_names()
    requirements = list(spec.covers)
    if spec.per_game is not None:
        for kit in kits():
            if kit.name in games:
                requirements += [r for r in spec.per_game(kit) if r not in requirements]
    return tuple(requirements), tuple(games)


def check(
    id: str,
    *,
    covers: tuple[str, ...] | list[str] = (),
    capability: str,
    games: tuple[str, ...] | None = None,
    per_game: PerGame | None = None,
    cost: str = "fast",
    exclusive: bool = False,
    holds_streams: bool = False,
    first: bool = False,
) -> Callable[[CheckFunction], CheckFunction]:
    """Register a check function under ``id``, covering the given requirement ids.

    ``games``: the games the check applies to; None: every game with a kit, now and
    registered later (``conformance.games``). ``per_game(kit)``: requirement ids the check
    covers for each of its games' kits (``<game>.contract.invalid_stake``), added to
    ``covers``. ``exclusive``: no other check may buy units while the check watches the units
    on sale (which every account shares); ``holds_streams``: it says which (game, stake) it
    watches, and when, with ``CheckContext.hold``; see ``Check.exclusive``. ``first``: see
    ``Check.first``."""
    if holds_streams and not exclusive:
        raise ConformanceError(f"check {id!r}: holds_streams=True is for an exclusive check")

    def register(function: CheckFunction) -> CheckFunction:
        if id in _REGISTRY:
            raise ConformanceError(f"check id {id!r} registered twice")
        spec = _Spec(tuple(covers), games, per_game)
        requirements, applies = _resolved(spec)
        if games is None or per_game is not None:
            _DYNAMIC[id] = spec
        _REGISTRY[id] = Check(
            id=id,
            requirements=requirements,
            capability=capability,
            games=applies,
            function=function,
            doc=(function.__doc__ or "").strip(),
            cost=cost,
            exclusive=exclusive,
            holds_streams=holds_streams,
            first=first,
        )
        return function

    return register


def refresh_checks() -> None:
    """Recompute the games and requirements of the checks that follow the kits (a kit was
    registered or unregistered)."""
    for cid, spec in _DYNAMIC.items():
        if cid in _REGISTRY:
            requirements, games = _resolved(spec)
            _REGISTRY[cid] = replace(_REGISTRY[cid], requirements=requirements, games=games)


def unregister_check(id: str) -> None:
    """Forget check ``id`` (a game kit registered for a test is unregistered with its checks)."""
    _REGISTRY.pop(id, None)
    _DYNAMIC.pop(id, None)


def checks_so_far() -> dict[str, Check]:
    """The checks registered so far: those of the check modules loaded now
    (``conformance._suite.registered_checks`` loads every one first)."""
    return dict(_REGISTRY)


attach_check_registry(
    CheckBook(ids=lambda: set(_REGISTRY), unregister=unregister_check, refresh=refresh_checks)
)
