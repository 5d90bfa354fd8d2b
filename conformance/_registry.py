"""Checks are plain functions in a registry (Schemathesis's lesson).

A check receives a ``CheckContext``, talks to the target through ``ctx.adapter``, and either
returns (pass, optionally with ``details`` for the reports) or raises:

- ``CheckFailure`` (verdict *fail*): the target answered and the answer breaks a requirement;
  it carries evidence (input, expected, got, request: ``conformance._evidence``), one per
  counterexample, and the requirements it breaks, all given when it is built;
- ``contract.TargetError`` (verdict *error*): the target misbehaved (timeout, 500, garbage);
- ``NotSupported`` (verdict *not_supported*): the target lacks what the check needs.

Any other exception is a harness bug and is also reported as *error*, with its traceback.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

if TYPE_CHECKING:
    from ._evidence import Counterexample
    from ._settings import Settings

from contract import Adapter

OUTCOMES: tuple[str, ...] = ("pass", "fail", "error", "not_supported", "not_run")


@dataclass(frozen=True)
class Evidence:
    """One counterexample, enough to replay it and to show it to a person: the untyped kind,
    for evidence that has no type of its own in ``conformance._evidence`` (yet)."""

    input: Mapping[str, Any]  # e.g. {"game", "stake_cents", "ticket"} or a play scenario
    expected: Any  # what the reference / the rules say
    got: Any  # what the target said
    request: Mapping[str, Any] | None = None  # the adapter call that produced ``got``
    note: str = ""
    requirements: ClassVar[tuple[str, ...]] = ()  # untyped evidence names none itself

    def to_dict(self) -> dict[str, Any]:
        return {
            "input": dict(self.input),
            "expected": self.expected,
            "got": self.got,
            "request": dict(self.request) if self.request is not None else None,
            "note": self.note,
        }


class ConformanceError(Exception):
    """Base of the conformance package's exceptions."""


class CheckFailure(ConformanceError):
    """The target broke a requirement; ``evidence`` shows how (minimal case first).

    ``requirements``: the narrowest requirement ids the failure proves broken, given when it
    is built; when not given, those the typed evidence names (sorted), else None: the check's
    own (``conformance._execute``)."""

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
        if requirements is None:
            named = sorted({r for e in self.evidence for r in e.requirements})
            requirements = named or None
        self.requirements: tuple[str, ...] | None = (
            tuple(dict.fromkeys(requirements)) if requirements else None
        )


class NotSupported(ConformanceError):
    """The target does not have the capability (or game, or stake) a check needs."""


class ProgressSink(Protocol):
    def __call__(self, done: int, total: int | None, what: str) -> None: ...


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

    def __post_init__(self) -> None:
        from ._settings import coerce

        # a mapping (a test's, a plugin's own) is validated here, once, as it enters
        self.settings = coerce(self.settings, "check context settings")

    def supports(self, capability: str) -> bool:
        return capability in self.implementation.get("capabilities", [])

    def stakes(self, game: str) -> list[int]:
        """The stakes of ``game`` in scope: the target's, narrowed by ``settings.stakes``."""
        games = self.implementation.get("games", {})
        offered = list(games.get(game, {}).get("stakes_cents", []))
        wanted = self.settings.stakes_for(game)
        return [s for s in offered if wanted is None or s in wanted]

    def games(self, applicable: tuple[str, ...] = ("robots", "eldorado")) -> list[str]:
        """The games in scope: implemented by the target, kept by ``settings.games``."""
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
    refused play that takes no unit off sale): no other check may play while it runs."""


_REGISTRY: dict[str, Check] = {}


def check(
    id: str,
    *,
    covers: tuple[str, ...] | list[str],
    capability: str,
    games: tuple[str, ...] = ("robots", "eldorado"),
    cost: str = "fast",
    exclusive: bool = False,
) -> Callable[[CheckFunction], CheckFunction]:
    """Register a check function under ``id``, covering the given requirement ids.

    ``exclusive``: the check must run with no other check playing at the same time (it
    watches the units on sale, which every account shares); see ``Check.exclusive``."""

    def register(function: CheckFunction) -> CheckFunction:
        if id in _REGISTRY:
            raise ConformanceError(f"check id {id!r} registered twice")
        _REGISTRY[id] = Check(
            id=id,
            requirements=tuple(covers),
            capability=capability,
            games=games,
            function=function,
            doc=(function.__doc__ or "").strip(),
            cost=cost,
            exclusive=exclusive,
        )
        return function

    return register


def registered_checks() -> dict[str, Check]:
    """Every check, importing the check modules first so the registry is complete."""
    from . import checks  # noqa: F401  (import registers)

    return dict(_REGISTRY)
