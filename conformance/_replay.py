"""Replaying evidence: every counterexample can be run again, alone, against any target.

Each evidence input carries a ``"kind"``; each kind has one replayer that sends the same input
to a target and returns fresh evidence when the target still breaks the rule, or ``None`` when
it now agrees. ``instantcert replay`` and vendors fixing a fault use it. A typed kind
(``conformance._evidence``) owns its replayer, registered with ``register_kind(cls)``; the
others register a function with ``@replayer(kind)``. Kinds: ``evaluate`` (``_evidence``),
``play`` (checks/_scenarios), ``contract_breach`` (checks/refusals), ``metamorphic``
(checks/metamorphic), ``block`` and ``block_unit`` (checks/_block_evidence), and those of the
other check modules. This module imports no check: each registers its replayers as it loads.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Protocol

from ._errors import ConformanceError
from ._evidence import (
    Counterexample,
    EvaluationEvidence,
    ReplayError,
    evaluate_request,
)

Replayer = Callable[[Any, Mapping[str, Any]], Counterexample | None]

_REPLAYERS: dict[str, Replayer] = {}


def replayer(kind: str) -> Callable[[Replayer], Replayer]:
    """Register ``function(adapter, evidence_input)`` as the replayer of evidence ``kind``."""

    def register(function: Replayer) -> Replayer:
        if kind in _REPLAYERS:
            raise ConformanceError(f"replayer for evidence kind {kind!r} registered twice")
        _REPLAYERS[kind] = function
        return function

    return register


class EvidenceKind(Protocol):
    """A typed evidence class: its kind and its replayer."""

    KIND: ClassVar[str]

    @classmethod
    def replay(cls, adapter: Any, case: Mapping[str, Any]) -> Counterexample | None: ...


def register_kind(kind: type[EvidenceKind]) -> None:
    """Register a typed evidence class's own ``replay`` as the replayer of its ``KIND``."""
    replayer(kind.KIND)(kind.replay)


def replayers_so_far() -> dict[str, Replayer]:
    """The replayers registered so far, by kind: those of the modules loaded now
    (``conformance._suite.replayers`` loads every check module first)."""
    return dict(_REPLAYERS)


def evaluate_case(game: str, stake_cents: int, ticket: str) -> dict[str, Any]:
    """The evidence input of one evaluated ticket (``EvaluationEvidence.input``)."""
    return {"kind": "evaluate", "game": game, "stake_cents": stake_cents, "ticket": ticket}


register_kind(EvaluationEvidence)
replay_evaluate = EvaluationEvidence.replay

__all__ = [
    "EvidenceKind",
    "ReplayError",
    "Replayer",
    "evaluate_case",
    "evaluate_request",
    "register_kind",
    "replay_evaluate",
    "replayer",
    "replayers_so_far",
]
