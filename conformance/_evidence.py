"""Evidence of a failure: one frozen value type per kind, each owning what it writes, how it is
replayed and the requirement(s) it breaks.

Every piece of evidence shows the same five faces (``Counterexample``): ``input`` (what was
sent, with its ``"kind"``: the key of its replayer), ``expected`` (what the rules say), ``got``
(what the target said), ``request`` (the adapter call) and ``note``; ``to_dict()`` is what the
reports and case files write, the same five keys for every kind. A typed kind keeps its parts
as fields (a ticket and its stake, a block and a unit index, ...) and builds ``input`` from them,
so a check cannot misspell a key of a case file; its classmethod ``replay(adapter, input)``
runs a case file's input again. A kind whose replay runs the play scenarios does not know them:
``play`` is replayed by ``checks/_scenarios`` and ``contract_breach`` by ``checks/refusals``,
each registering its replayer from its own side (``@replayer(kind)``), so this module imports
no check. ``conformance._registry.Evidence`` is the untyped base
(``PlayEvidence`` builds on it; a check of one's own may use it with ``@replayer(kind)``).

Kinds here: ``EvaluationEvidence`` (``evaluate``) and ``PlayEvidence`` (``play``); the block
kinds are in ``checks/_block_evidence.py`` (``block_unit``, ``block``), ``MetamorphicEvidence``
in ``checks/metamorphic.py``, ``BreachEvidence`` (``contract_breach``) here, the batch kinds
on ``BatchEvidence`` (``evaluate_order``, ``evaluate_mixed`` in ``checks/evaluate_batch.py``,
``evaluate_batch`` in ``checks/invalid_tickets.py``), ``RefusalEvidence``
(``evaluate_refusal``), ``StakeEvidence`` (``evaluate_stake``) and ``StakesEvidence``
(``stakes``) beside their checks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, cast

from ._errors import ConformanceError
from ._registry import Evidence


class Counterexample(Protocol):
    """What every piece of evidence offers: ``CheckFailure.evidence`` holds these."""

    @property
    def input(self) -> Mapping[str, Any]: ...
    @property
    def expected(self) -> Any: ...
    @property
    def got(self) -> Any: ...
    @property
    def request(self) -> Mapping[str, Any] | None: ...
    @property
    def note(self) -> str: ...
    @property
    def requirements(self) -> tuple[str, ...]: ...
    def to_dict(self) -> dict[str, Any]: ...


class ReplayError(ConformanceError):
    """An evidence input that cannot be replayed: no kind, an unknown kind, or missing keys."""


def serialise(evidence: Counterexample) -> dict[str, Any]:
    """The five keys every report and case file writes for a piece of evidence, in order."""
    request = evidence.request
    return {
        "input": dict(evidence.input),
        "expected": evidence.expected,
        "got": evidence.got,
        "request": dict(request) if request is not None else None,
        "note": evidence.note,
    }


class Serialised:
    """The ``to_dict`` of every evidence kind: the five keys of ``serialise``, in order."""

    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        return serialise(cast(Counterexample, self))


def require(case: Mapping[str, Any], *keys: str) -> None:
    """ReplayError naming the keys of a case input that are missing."""
    missing = [k for k in keys if k not in case]
    if missing:
        raise ReplayError(f"{case.get('kind')!r} evidence input lacks {missing}: {dict(case)!r}")


def evaluate_request(game: str, stake_cents: int, tickets: list[str]) -> dict[str, Any]:
    """The adapter call, as shown in evidence (the body of ``POST /v1/evaluate``)."""
    return {"operation": "evaluate", "game": game, "stake_cents": stake_cents, "tickets": tickets}


@dataclass(frozen=True)
class EvaluationEvidence(Serialised):
    """One ticket at one stake that the target evaluates unlike the reference."""

    KIND: ClassVar[str] = "evaluate"

    game: str
    stake_cents: int
    ticket: str
    expected: Any  # the reference's result (or error object)
    got: Any  # the target's
    note: str = ""
    requirements: tuple[str, ...] = ()  # the narrowest ids the disagreement breaks

    @property
    def input(self) -> dict[str, Any]:
        return {
            "kind": self.KIND,
            "game": self.game,
            "stake_cents": self.stake_cents,
            "ticket": self.ticket,
        }

    @property
    def request(self) -> dict[str, Any]:
        return evaluate_request(self.game, self.stake_cents, [self.ticket])

    @classmethod
    def replay(cls, adapter: Any, case: Mapping[str, Any]) -> EvaluationEvidence | None:
        """Evaluate the ticket alone and compare with the reference (prize and wins as a set)."""
        from ._evaluation import check_shape, difference, expected_result

        require(case, "game", "stake_cents", "ticket")
        game, stake, ticket = case["game"], case["stake_cents"], case["ticket"]
        expected = expected_result(game, stake, ticket)
        got = check_shape(adapter.evaluate(game, stake, [ticket]), [ticket])[0]
        fault = difference(game, expected, got)
        if fault is None:
            return None
        return cls(game, stake, ticket, expected, got, fault)


@dataclass(frozen=True)
class BatchEvidence(Serialised):
    """A batch of tickets at one stake whose answers, taken together, break a rule (results
    at other tickets' places, an invalid ticket spoiling its neighbours, ...). Each kind is a
    subclass that sets ``KIND`` and ``replay``; ``requirements``: the rule it breaks."""

    KIND: ClassVar[str]

    game: str
    stake_cents: int
    tickets: tuple[str, ...]
    expected: Any
    got: Any
    note: str = ""
    requirements: tuple[str, ...] = ()

    @property
    def input(self) -> dict[str, Any]:
        return {
            "kind": self.KIND,
            "game": self.game,
            "stake_cents": self.stake_cents,
            "tickets": list(self.tickets),
        }

    @property
    def request(self) -> dict[str, Any]:
        return evaluate_request(self.game, self.stake_cents, list(self.tickets))


@dataclass(frozen=True)
class PlayEvidence(Evidence):
    """A play scenario that shows a fault. ``input`` is the scenario's case itself
    (``{"kind": "play", "scenario": name, ...its situation: game, stake, click choices...}``),
    so a replay hands it back to the same scenario; it holds ``"requirement"`` when the fault
    met on the way breaks another requirement than the check's (a balance read lagging, a
    unit sold twice), and that is the requirement this evidence names."""

    KIND: ClassVar[str] = "play"

    def __post_init__(self) -> None:
        if self.input.get("kind") != self.KIND or not isinstance(self.input.get("scenario"), str):
            raise ConformanceError(
                f"play evidence needs an input {{'kind': 'play', 'scenario': <name>, ...}}, "
                f"got {dict(self.input)!r}"
            )

    @classmethod
    def of(
        cls,
        case: Mapping[str, Any],
        expected: Any,
        got: Any,
        note: str,
        request: Mapping[str, Any] | None = None,
    ) -> PlayEvidence:
        """The evidence of ``case`` (the scenarios' argument order)."""
        return cls(input=dict(case), expected=expected, got=got, request=request, note=note)

    @property
    def scenario(self) -> str:
        return str(self.input["scenario"])

    @property
    def requirements(self) -> tuple[str, ...]:
        named = self.input.get("requirement")
        return (str(named),) if named else ()


@dataclass(frozen=True)
class BreachEvidence(Serialised):
    """A contract breach a check met (a refusal sent with a 2xx status, a 4xx whose body is
    not the error document, ...): the answer seen, and the requirement the breach names."""

    KIND: ClassVar[str] = "contract_breach"

    check: str  # the id of the check that met it
    requirement: str
    expected: Any
    got: Any  # the answer's status and body
    operation: Any  # the adapter operation that got the answer
    note: str = ""

    @classmethod
    def of(cls, check_id: str, breach: Any) -> BreachEvidence:
        """The evidence of ``breach`` (a ``contract.ContractBreach``) met by ``check_id``."""
        answer = dict(breach.answer)
        return cls(
            check=check_id,
            requirement=breach.requirement,
            expected=answer.pop("expected", None),
            got={k: answer[k] for k in ("status", "body") if k in answer},
            operation=answer.get("operation"),
            note=str(breach),
        )

    @property
    def input(self) -> dict[str, Any]:
        return {"kind": self.KIND, "check": self.check, "requirement": self.requirement}

    @property
    def request(self) -> dict[str, Any]:
        return {"operation": self.operation}

    @property
    def requirements(self) -> tuple[str, ...]:
        return (self.requirement,)
