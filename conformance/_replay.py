"""Replaying evidence: every counterexample can be run again, alone, against any target.

Each ``Evidence.input`` carries a ``"kind"``; each kind has one replayer, registered with
``@replayer(kind)``, that sends the same input to a target and returns fresh ``Evidence`` when
the target still breaks the rule, or ``None`` when it now agrees. ``instantcert replay`` and
vendors fixing a fault use it. Kinds: ``evaluate`` (here), ``metamorphic`` (checks/metamorphic),
``block`` / ``block_unit`` (checks/blocks), ``play`` (checks/play).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ._evaluation import check_shape, difference, expected_result
from ._registry import ConformanceError, Evidence

Replayer = Callable[[Any, Mapping[str, Any]], Evidence | None]

_REPLAYERS: dict[str, Replayer] = {}


class ReplayError(ConformanceError):
    """An evidence input that cannot be replayed: no kind, an unknown kind, or missing keys."""


def replayer(kind: str) -> Callable[[Replayer], Replayer]:
    """Register ``function(adapter, evidence_input)`` as the replayer of evidence ``kind``."""

    def register(function: Replayer) -> Replayer:
        if kind in _REPLAYERS:
            raise ConformanceError(f"replayer for evidence kind {kind!r} registered twice")
        _REPLAYERS[kind] = function
        return function

    return register


def replayers() -> dict[str, Replayer]:
    """Every replayer, by kind (the check modules are imported first: they register theirs)."""
    from . import checks  # noqa: F401  (import registers)

    return dict(_REPLAYERS)


def replay(adapter: Any, evidence_input: Mapping[str, Any]) -> Evidence | None:
    """Run ``evidence_input`` again on ``adapter``: Evidence if it still fails, else None."""
    if not isinstance(evidence_input, Mapping) or "kind" not in evidence_input:
        raise ReplayError(f"evidence input has no 'kind': {evidence_input!r}")
    kind = evidence_input["kind"]
    known = replayers()
    if kind not in known:
        raise ReplayError(
            f"no replayer for evidence kind {kind!r}; known: {', '.join(sorted(known))}"
        )
    return known[kind](adapter, evidence_input)


def _require(case: Mapping[str, Any], *keys: str) -> None:
    missing = [k for k in keys if k not in case]
    if missing:
        raise ReplayError(f"{case.get('kind')!r} evidence input lacks {missing}: {dict(case)!r}")


def evaluate_case(game: str, stake_cents: int, ticket: str) -> dict[str, Any]:
    """The evidence input of one evaluated ticket."""
    return {"kind": "evaluate", "game": game, "stake_cents": stake_cents, "ticket": ticket}


def evaluate_request(game: str, stake_cents: int, tickets: list[str]) -> dict[str, Any]:
    """The adapter call, as shown in evidence (the body of ``POST /v1/evaluate``)."""
    return {"operation": "evaluate", "game": game, "stake_cents": stake_cents, "tickets": tickets}


@replayer("evaluate")
def replay_evaluate(adapter: Any, case: Mapping[str, Any]) -> Evidence | None:
    """Evaluate the ticket alone and compare with the reference (prize and wins as a set)."""
    _require(case, "game", "stake_cents", "ticket")
    game, stake, ticket = case["game"], case["stake_cents"], case["ticket"]
    expected = expected_result(game, stake, ticket)
    got = check_shape(adapter.evaluate(game, stake, [ticket]), [ticket])[0]
    fault = difference(game, expected, got)
    if fault is None:
        return None
    return Evidence(
        input=dict(case),
        expected=expected,
        got=got,
        request=evaluate_request(game, stake, [ticket]),
        note=fault,
    )
