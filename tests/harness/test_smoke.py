"""The smoke step's real cases: a broken adapter is told apart from a wrong implementation
before any requirement is judged (``harness._smoke``)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import pytest

import reference
from harness._events import SmokeFinished
from harness._reference_adapter import ReferenceAdapter
from harness._smoke import known_ticket, smoke_cases

from . import _support as support
from .test_runner import run


@pytest.mark.parametrize("game", list(reference.GAMES))
def test_the_known_ticket_wins_what_the_reference_says(game: str) -> None:
    for stake in reference.load_rules(game).stakes_cents:
        ticket, prize = known_ticket(game, stake)
        assert prize > 0 and reference.evaluate(game, stake, ticket)["prize_cents"] == prize
        assert known_ticket(game, stake) == (ticket, prize)  # seeded: the same every run


def test_one_ticket_per_declared_game_and_the_block_list() -> None:
    described = {"games": {"robots": {"stakes_cents": [100]}, "eldorado": {"stakes_cents": [7]}},
                 "capabilities": ["evaluate", "blocks"]}  # fmt: skip
    operations = [c.operation for c in smoke_cases(described, ["robots", "eldorado"])]
    ticket, _ = known_ticket("robots", 100)
    # eldorado at a stake the reference does not sell has no known ticket: not sent
    assert operations == [f"evaluate('robots', 100, [{ticket!r}])", "list_blocks('robots', 100)"]
    assert smoke_cases({**described, "capabilities": ["play"]}, ["robots"]) == []


class MalformedEvaluate(ReferenceAdapter):
    """Every evaluation answered outside the contract: the adapter is broken."""

    calls = 0

    def evaluate(self, game: str, stake_cents: int, tickets: Sequence[str]) -> Any:
        MalformedEvaluate.calls += 1
        return [{"prize": 100} for _ in tickets]


def test_a_broken_evaluate_is_the_adapter_s_error_with_the_smoke_s_evidence() -> None:
    MalformedEvaluate.calls = 0
    result, events = run(MalformedEvaluate())
    outcomes = {r.id: r for r in result.requirements}
    assert MalformedEvaluate.calls == 1  # the smoke's one case; no check called it again
    for rid in ("robots.4.6.x2", "robots.4.8.gauge", "eldorado.4.4.rows"):
        assert outcomes[rid].outcome == "error", rid
        message = outcomes[rid].message
        assert "the adapter is broken (smoke step, before any check): evaluate('robots'" in message
        assert "results[0] breaks evaluation-result.schema.json at $: has no 'prize_cents'" in (
            message
        )
    assert outcomes["robots.3.lot_table"].outcome == "pass"  # blocks still judged
    smoke = next(e for e in events if isinstance(e, SmokeFinished))
    assert smoke.ok and "evaluate('robots', 100" in smoke.message and "broken" in smoke.message


def test_a_wrong_implementation_passes_the_smoke_and_fails_its_requirement() -> None:
    result, events = run(support.BrokenX2Adapter())
    outcomes = {r.id: r.outcome for r in result.requirements}
    assert outcomes["robots.4.6.x2"] == "fail"
    smoke = next(e for e in events if isinstance(e, SmokeFinished))
    assert "broken" not in smoke.message and "answered" in smoke.message


class CrashingBlocks(ReferenceAdapter):
    def list_blocks(self, game: str, stake_cents: int) -> Any:
        raise KeyError("blocks")


class HangingEvaluate(ReferenceAdapter):
    release = threading.Event()

    def evaluate(self, game: str, stake_cents: int, tickets: Sequence[str]) -> Any:
        self.release.wait(30)
        return super().evaluate(game, stake_cents, tickets)


def test_a_crashing_adapter_is_broken_and_a_hanging_one_is_left_to_the_budgets() -> None:
    result, _ = run(CrashingBlocks())
    lots = next(r for r in result.requirements if r.id == "robots.3.lot_table")
    assert lots.outcome == "error" and "it raised KeyError: 'blocks'" in lots.message
    try:
        result, events = run(HangingEvaluate(), settings={"check_budget_s": 1})
    finally:
        HangingEvaluate.release.set()  # no thread left hanging for the next test
    x2 = next(r for r in result.requirements if r.id == "robots.4.6.x2")
    assert x2.outcome == "error" and "cut at its budget of 1 s" in x2.message
    assert "smoke step" not in x2.message
    smoke = next(e for e in events if isinstance(e, SmokeFinished))
    assert "no answer within 1 s, left to the checks" in smoke.message
    assert "broken" not in smoke.message


def test_a_refusal_is_an_answer_not_a_broken_adapter() -> None:
    class Refusing(ReferenceAdapter):
        def evaluate(self, game: str, stake_cents: int, tickets: Sequence[str]) -> Any:
            from contract import ErrorReply

            raise ErrorReply(422, "invalid_ticket", "no")

    result, events = run(Refusing())
    smoke = next(e for e in events if isinstance(e, SmokeFinished))
    assert "broken" not in smoke.message
    assert not any("smoke step" in r.message for r in result.requirements)
