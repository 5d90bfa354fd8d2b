"""The stakes check (robots 2, eldorado 2): a target must declare and evaluate exactly the
rules' stakes, since every other check runs only at the stakes a target declares."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from conformance import CheckContext, CheckOutcome, execute, registered_checks, replay
from harness._reference_adapter import ReferenceAdapter
from tests.faulty.variants import VARIANTS


class Declaring(ReferenceAdapter):
    """The reference, declaring other stakes for one game than it sells."""

    def __init__(self, game: str, stakes: list[int]) -> None:
        super().__init__()
        self.game, self.stakes = game, stakes

    def describe(self) -> dict[str, Any]:
        document = super().describe()
        document["games"][self.game]["stakes_cents"] = list(self.stakes)
        return document


def run(adapter: Any, game: str) -> CheckOutcome:
    ctx = CheckContext(adapter=adapter, implementation=adapter.describe(), settings={}, seed=1)
    return execute(registered_checks()[f"stakes.{game}"], ctx)


@pytest.fixture(scope="module")
def reference() -> Iterator[ReferenceAdapter]:
    adapter = ReferenceAdapter()
    yield adapter
    adapter.close()


@pytest.mark.parametrize("game", ["robots", "eldorado"])
def test_the_reference_passes(reference: ReferenceAdapter, game: str) -> None:
    outcome = run(reference, game)
    assert outcome.outcome == "pass", outcome.message


@pytest.mark.parametrize(
    ("game", "stakes", "note"),
    [
        ("eldorado", [100], "not sold: [50, 200]"),
        ("eldorado", [50, 100, 200, 500], "not in the rules: [500]"),
        ("eldorado", [50, 100, 100], "declares [50, 100, 100]"),
        ("robots", [100, 200], "not in the rules: [200]"),
        ("robots", [], "not sold: [100]"),
    ],
)
def test_other_declared_stakes_fail_the_games_requirement(
    game: str, stakes: list[int], note: str
) -> None:
    adapter = Declaring(game, stakes)
    try:
        outcome = run(adapter, game)
        assert outcome.outcome == "fail"
        assert outcome.requirements == (f"{game}.2.stakes",)
        evidence = outcome.evidence[0]
        assert note in evidence["note"] and evidence["input"] == {"kind": "stakes", "game": game}
        assert replay(adapter, evidence["input"]) is not None
    finally:
        adapter.close()


def test_a_declared_stake_refused_fails_with_the_refusal() -> None:
    adapter = VARIANTS["eldorado_one_euro_only"].factory()
    try:
        implementation = adapter.describe()
        implementation["games"]["eldorado"]["stakes_cents"] = [50, 100, 200]  # declared, refused
        ctx = CheckContext(adapter=adapter, implementation=implementation, settings={}, seed=1)
        outcome = execute(registered_checks()["stakes.eldorado"], ctx)
        assert outcome.outcome == "fail"
        got = outcome.evidence[0]["got"]
        assert got["status"] == 422 and outcome.evidence[0]["expected"]["evaluated_at"] == 50
    finally:
        adapter.close()


def test_the_faulty_variant_fails_and_replays_and_the_reference_replays_clean(
    reference: ReferenceAdapter,
) -> None:
    adapter = VARIANTS["eldorado_one_euro_only"].factory()
    try:
        outcome = run(adapter, "eldorado")
        assert outcome.outcome == "fail" and outcome.requirements == ("eldorado.2.stakes",)
        assert replay(adapter, outcome.evidence[0]["input"]) is not None
        assert replay(reference, outcome.evidence[0]["input"]) is None
    finally:
        adapter.close()


def test_a_game_the_target_does_not_offer_is_not_supported() -> None:
    adapter = ReferenceAdapter()
    try:
        implementation = adapter.describe()
        del implementation["games"]["robots"]
        ctx = CheckContext(adapter=adapter, implementation=implementation, settings={}, seed=1)
        assert execute(registered_checks()["stakes.robots"], ctx).outcome == "not_supported"
    finally:
        adapter.close()
