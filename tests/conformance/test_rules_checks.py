"""The rules checks pass the reference and fail each deliberately broken evaluator on the
requirement it breaks, with a minimal counterexample that replays."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from conformance import CheckContext, CheckOutcome, execute, registered_checks, replay
from conformance._profiles import check_settings
from harness._reference_adapter import ReferenceAdapter

from .faults import FAULTS, FaultyAdapter

AREAS = ("robots_rules", "eldorado_rules", "invalid_tickets", "metamorphic")
SETTINGS = check_settings({"hypothesis_max_examples": 30, "exhaustive": False}, "test settings")

# a fault may also break an oracle-free property the rules imply (that is no misattribution)
ALSO_BROKEN: dict[str, set[str]] = {
    "table_positions": {"robots.4.2.robot_order"},
    "last_button_ignored": {"robots.4.4.button_order"},
    "last_cell_ignored": {"eldorado.4.4.cell_order"},
    "adjacent_only": {"eldorado.4.4.cell_order"},
    "eldorado_highest_only": {"eldorado.4.1.row_order"},  # which of two equal wins is kept
}


def rules_checks(game: str) -> dict[str, Any]:
    return {
        cid: c
        for cid, c in registered_checks().items()
        if cid.split(".")[0] in AREAS and game in c.games
    }


def run(adapter: Any, game: str, seed: int = 3) -> dict[str, CheckOutcome]:
    implementation = adapter.describe()
    outcomes = {}
    for cid, c in rules_checks(game).items():
        ctx = CheckContext(
            adapter=adapter, implementation=implementation, settings=SETTINGS, seed=seed
        )
        outcomes[cid] = execute(c, ctx)
    return outcomes


@pytest.fixture(scope="module")
def reference_adapter() -> Iterator[ReferenceAdapter]:
    adapter = ReferenceAdapter()
    yield adapter
    adapter.close()


@pytest.mark.parametrize("game", ["robots", "eldorado"])
def test_the_reference_passes_every_rules_check(
    reference_adapter: ReferenceAdapter, game: str
) -> None:
    outcomes = run(reference_adapter, game)
    assert outcomes
    bad = {
        cid: (o.outcome, o.message, o.traceback)
        for cid, o in outcomes.items()
        if o.outcome != "pass"
    }
    assert not bad, bad


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_each_fault_fails_on_the_requirement_it_breaks(
    fault: str, reference_adapter: ReferenceAdapter
) -> None:
    game, requirement, _ = FAULTS[fault]
    adapter = FaultyAdapter(fault)
    outcomes = run(adapter, game)
    errors = {cid: o.traceback for cid, o in outcomes.items() if o.outcome == "error"}
    assert not errors, errors
    failed = {cid: o for cid, o in outcomes.items() if o.outcome == "fail"}
    broken = {r for o in failed.values() for r in o.requirements}
    assert requirement in broken, (fault, {cid: o.requirements for cid, o in failed.items()})
    allowed = {requirement, *ALSO_BROKEN.get(fault, set())}
    assert broken <= allowed, (fault, sorted(broken - allowed))
    for cid, outcome in failed.items():
        assert outcome.evidence, cid
        first = outcome.evidence[0]["input"]
        assert replay(adapter, first) is not None, (cid, first)  # the evidence still fails
        assert replay(reference_adapter, first) is None, (cid, first)  # the reference agrees


MINIMAL: dict[str, Callable[[str], bool]] = {
    # fault -> what a minimal counterexample from the hypothesis search looks like
    "x2_once": lambda t: t.count("2") == 1 and "+" not in t,
    "plus_ignored": lambda t: t.count("+") == 1 and "2" not in t,
    "five_plus_four": lambda t: "|" not in t and sum(r == r[0] * 5 for r in t.split("/")) == 1,
    "main_grid_only": lambda t: t.count("|") == 1,
}


@pytest.mark.parametrize("fault", sorted(MINIMAL))
def test_hypothesis_shrinks_to_a_minimal_ticket(fault: str) -> None:
    game, _, _ = FAULTS[fault]
    adapter = FaultyAdapter(fault)
    check = registered_checks()[f"{game}_rules.differential_edges"]
    ctx = CheckContext(
        adapter=adapter, implementation=adapter.describe(), settings=SETTINGS, seed=5
    )
    outcome = execute(check, ctx)
    assert outcome.outcome == "fail"
    ticket = outcome.evidence[0]["input"]["ticket"]
    assert "minimal ticket" in outcome.evidence[0]["note"]
    assert MINIMAL[fault](ticket), ticket


def test_a_target_refusing_a_whole_batch_fails_per_ticket() -> None:
    class BatchRefuser(FaultyAdapter):
        def evaluate(self, game: str, stake_cents: int, tickets: Any) -> list[dict[str, Any]]:
            results = super().evaluate(game, stake_cents, tickets)
            if any("error" in r for r in results):
                from harness._errors import ErrorReply

                raise ErrorReply(422, "invalid_ticket", "one ticket is invalid")
            return results

    adapter = BatchRefuser("x2_once")  # its robots fault aside, eldorado is the reference's
    outcomes = run(adapter, "eldorado")
    failed = {r for o in outcomes.values() if o.outcome == "fail" for r in o.requirements}
    # the per-ticket check looks at both games; the rules checks see eldorado right
    assert failed == {"eldorado.contract.invalid_per_ticket", "robots.contract.invalid_per_ticket"}
