"""Typed evidence: each kind writes what the untyped Evidence wrote, names its requirement and
replays itself; a failure is built complete."""

from __future__ import annotations

import json
import random

import pytest

from conformance import CheckFailure, ConformanceError, Evidence, ReplayError, replay, replayers
from conformance._evidence import (
    BreachEvidence,
    EvaluationEvidence,
    PlayEvidence,
    evaluate_request,
)
from conformance._replay import evaluate_case
from conformance.checks._batch_order import OrderEvidence
from conformance.checks._block_evidence import BlockEvidence, BlockLineEvidence
from conformance.checks._scenarios import replay_play
from conformance.checks.evaluate_batch import MixedBatchEvidence, RefusalEvidence
from conformance.checks.invalid_tickets import NeighbourEvidence, StakeEvidence, stake_case
from conformance.checks.metamorphic import MetamorphicEvidence, metamorphic_case
from conformance.checks.refusals import replay_breach
from conformance.checks.stakes import StakesEvidence
from contract import ContractBreach
from harness._reference_adapter import ReferenceAdapter
from reference import generate_ticket

READ = {"operation": "read_block", "block_id": "b1", "start": 0, "count": 10}


def _bytes(evidence: object) -> str:
    return json.dumps(evidence.to_dict())  # type: ignore[attr-defined]  # order kept


def test_evaluation_evidence_writes_what_the_untyped_evidence_wrote() -> None:
    typed = EvaluationEvidence("robots", 100, "T", {"prize_cents": 0}, {"prize_cents": 5}, "n")
    untyped = Evidence(
        evaluate_case("robots", 100, "T"),
        {"prize_cents": 0},
        {"prize_cents": 5},
        evaluate_request("robots", 100, ["T"]),
        "n",
    )
    assert _bytes(typed) == _bytes(untyped)


def test_block_evidence_inputs_keep_their_key_order() -> None:
    line = BlockLineEvidence("b1", "robots", 100, "unit_prize", 7, "e", "g", READ, "n")
    assert list(line.input) == ["kind", "block_id", "game", "stake_cents", "aspect", "index"]
    listing = BlockEvidence(None, "robots", 100, "listing", None, None, "e", "g", READ)
    assert list(listing.input) == [
        *("kind", "game", "stake_cents", "block_id", "aspect", "start", "count"),
    ]
    pair = BlockEvidence(
        "b1", "robots", 100, "unrelated", 0, 10, "e", {}, READ, other_block_id="b2"
    )
    assert list(pair.input)[:3] == ["kind", "block_id", "other_block_id"]
    pooled = BlockEvidence(
        "b1", "robots", 100, "top_tiers", 0, 10, "e", {}, READ, blocks=({"block_id": "b1"},)
    )
    assert pooled.input["blocks"] == [{"block_id": "b1"}] and list(pooled.input)[-1] == "blocks"
    assert pooled.to_dict()["request"] == READ and pooled.to_dict()["note"] == ""


def test_each_typed_kind_is_replayed_by_its_own_class() -> None:
    known = replayers()
    assert known["evaluate"] == EvaluationEvidence.replay
    assert known["block_unit"] == BlockLineEvidence.replay
    assert known["block"] == BlockEvidence.replay


def test_a_failure_is_built_complete_and_not_changed_after() -> None:
    breaks = EvaluationEvidence("robots", 100, "T", {}, {}, requirements=("robots.b",))
    failure = CheckFailure("m", [breaks], requirements=["x", "x", "y"])
    assert failure.requirements == ("x", "y") and failure.evidence == [breaks]
    with pytest.raises(AttributeError):
        failure.requirements = ("z",)  # type: ignore[misc]
    assert CheckFailure("m", [breaks]).requirements is None  # the check's own, as before
    assert CheckFailure("m").requirements is None and CheckFailure("m").evidence == []
    assert breaks.requirements == ("robots.b",) and Evidence({}, 1, 2).requirements == ()


def test_play_evidence_is_its_case_and_names_the_requirement_the_case_names() -> None:
    case = {"kind": "play", "scenario": "money", "game": "robots", "stake_cents": 100}
    found = PlayEvidence.of(case, 1, 2, "n", {"operation": "play"})
    assert found.to_dict() == Evidence(case, 1, 2, {"operation": "play"}, "n").to_dict()
    assert found.scenario == "money" and found.requirements == ()
    named = PlayEvidence.of({**case, "requirement": "play.money.balance_read"}, 1, 2, "n")
    assert named.requirements == ("play.money.balance_read",)
    assert replayers()["play"] == replay_play  # the scenarios replay their own evidence
    with pytest.raises(ConformanceError, match="play evidence needs an input"):
        PlayEvidence.of({"kind": "evaluate"}, 1, 2, "n")
    with pytest.raises(ReplayError, match="play evidence names scenario 'nope'"):
        replay(ReferenceAdapter(), {**case, "scenario": "nope"})


def test_a_case_input_missing_a_key_is_named() -> None:
    adapter = ReferenceAdapter()
    with pytest.raises(ReplayError, match=r"'evaluate' evidence input lacks \['ticket'\]"):
        replay(adapter, {"kind": "evaluate", "game": "robots", "stake_cents": 100})
    with pytest.raises(ReplayError, match=r"lacks \['index'\]"):
        replay(adapter, {"kind": "block_unit", "block_id": "x", "game": "robots", "stake_cents": 1})
    adapter.close()


def test_evaluation_evidence_replays_to_none_on_the_reference() -> None:
    adapter = ReferenceAdapter()
    valid = generate_ticket("robots", 100, 0, random.Random(1))  # the reference agrees
    assert replay(adapter, evaluate_case("robots", 100, valid)) is None
    adapter.close()


def test_metamorphic_evidence_writes_what_the_untyped_evidence_wrote() -> None:
    found = MetamorphicEvidence("robots.4.4.button_order", "robots", 100, "A", 7, "B", {1: 2}, {})
    untyped = Evidence(
        metamorphic_case("robots.4.4.button_order", "robots", 100, "A", 7),
        {1: 2},
        {},
        evaluate_request("robots", 100, ["A", "B"]),
        "robots.4.4.button_order: the target's answer for 'B' does not match its answer for 'A'",
    )
    assert _bytes(found) == _bytes(untyped)
    assert found.requirements == ("robots.4.4.button_order",)
    assert replayers()["metamorphic"] == MetamorphicEvidence.replay


def test_breach_evidence_writes_what_the_untyped_evidence_wrote() -> None:
    answer = {
        "operation": "play",
        "status": 200,
        "body": {"error": {}},
        "expected": {"status": 402},
    }
    breach = ContractBreach("protocol.refusals.status", "a refusal sent with 200", answer)
    found = BreachEvidence.of("play.money_exact", breach)
    untyped = Evidence(
        {
            "kind": "contract_breach",
            "check": "play.money_exact",
            "requirement": "protocol.refusals.status",
        },
        {"status": 402},
        {"status": 200, "body": {"error": {}}},
        {"operation": "play"},
        str(breach),
    )
    assert _bytes(found) == _bytes(untyped)
    assert found.requirements == ("protocol.refusals.status",)
    assert replayers()["contract_breach"] == replay_breach  # beside the refusals


def test_batch_evidence_writes_what_the_untyped_evidence_wrote() -> None:
    for kind, cls in (
        ("evaluate_order", OrderEvidence),
        ("evaluate_mixed", MixedBatchEvidence),
        ("evaluate_batch", NeighbourEvidence),
    ):
        found = cls("robots", 100, ("A", "B"), "e", [1], "n", ("r",))
        untyped = Evidence(
            {"kind": kind, "game": "robots", "stake_cents": 100, "tickets": ["A", "B"]},
            "e",
            [1],
            evaluate_request("robots", 100, ["A", "B"]),
            "n",
        )
        assert _bytes(found) == _bytes(untyped) and found.requirements == ("r",)
        assert replayers()[kind] == cls.replay


def test_stake_and_refusal_evidence_write_what_the_untyped_evidence_wrote() -> None:
    stake = StakeEvidence("robots", 75, "T", {"prize_cents": 0}, "n")
    untyped = Evidence(
        stake_case("robots", 75, "T"),
        {"error": {"code": "invalid_stake"}},
        {"prize_cents": 0},
        evaluate_request("robots", 75, ["T"]),
        "n",
    )
    assert _bytes(stake) == _bytes(untyped)
    assert stake.requirements == ("robots.contract.invalid_stake",)
    case = {
        "kind": "evaluate_refusal",
        "what": "1001 tickets",
        "sent_game": "robots",
        "sent_stake_cents": 100,
        "ticket": "T",
        "count": 1001,
        "once": True,
    }
    refusal = RefusalEvidence.of(case, {"results": []}, "n")
    untyped = Evidence(
        case,
        {"status": [400, 422], "error": {"code": "<snake_case>", "message": "<str>"}},
        {"results": []},
        {"operation": "evaluate", "what": "1001 tickets"},
        "n",
    )
    assert _bytes(refusal) == _bytes(untyped)
    stakes = StakesEvidence("robots", {"stakes_cents": [100]}, {}, {"operation": "describe"}, "n")
    untyped = Evidence(
        {"kind": "stakes", "game": "robots"},
        {"stakes_cents": [100]},
        {},
        {"operation": "describe"},
        "n",
    )
    assert _bytes(stakes) == _bytes(untyped) and stakes.requirements == ("robots.2.stakes",)
    for kind, cls in (
        ("evaluate_stake", StakeEvidence),
        ("evaluate_refusal", RefusalEvidence),
        ("stakes", StakesEvidence),
    ):
        assert replayers()[kind] == cls.replay
