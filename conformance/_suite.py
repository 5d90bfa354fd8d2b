"""The whole suite: every check module loaded, then the complete registries.

The check modules register their checks (``@check``) and their evidence's replayers
(``@replayer``, ``register_kind``) as they load; ``conformance.checks.load_every_check`` loads
them all. The
registries themselves (``_registry``, ``_replay``) sit below the checks and never import them:
this module, above every check, is the one that loads them before it answers.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ._evidence import Counterexample, ReplayError
from ._registry import Check, checks_so_far
from ._replay import Replayer, replayers_so_far
from .checks import load_checks, load_every_check


def registered_checks(capabilities: Iterable[str] | None = None) -> dict[str, Check]:
    """Every check, the check modules loaded first so the registry is complete; given
    ``capabilities``, at least every check covering a requirement of one of them (only their
    modules loaded: ``checks.MODULES_OF_CAPABILITY``), and any loaded before."""
    load_checks(capabilities)
    return checks_so_far()


def replayers() -> dict[str, Replayer]:
    """Every replayer, by kind (the check modules are loaded first: they register theirs)."""
    load_every_check()
    return replayers_so_far()


def replay(adapter: Any, evidence_input: Mapping[str, Any]) -> Counterexample | None:
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


__all__ = ["registered_checks", "replay", "replayers"]
