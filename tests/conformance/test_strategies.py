"""The suite's strategies are themselves tested: what they call valid is valid per the
reference, they reach the edges they claim to aim at, and every invalid ticket is refused."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

import reference
import reference.robots
from conformance import strategies as S
from conformance.checks.eldorado_rules import all_row_tickets, extra_stage_tickets
from conformance.checks.robots_rules import gauge_fill_tickets
from conformance.games import _eldorado_strategies as ES
from conformance.games import _robots_strategies as RS
from conformance.games import kit

FAST = settings(
    max_examples=300, database=None, deadline=None, suppress_health_check=list(HealthCheck)
)
ENGINE = reference.robots.RobotsEngine(reference.robots.robots_rules())


def _robots_edges(ticket: str) -> set[str]:
    """The edges a robots ticket touches."""
    gauges = ENGINE.gauges(ticket)
    robots, body = ticket.split("|")
    buttons = body.split(" ")
    edges = set()
    for letter, count in gauges.items():
        level = count - RS.NOTCHES[letter]
        if -1 <= level <= 2:
            edges.add(f"{letter}:{('short', 'full', 'past1', 'past2')[level + 1]}")
        if f"{letter}2" in body and count >= RS.NOTCHES[letter] > count - 2:
            edges.add("x2_fills")  # the X2 is what makes the gauge full or past
    if sum(1 for letter, count in gauges.items() if count >= RS.NOTCHES[letter]) >= 2:
        edges.add("several_full")
    if any(b.count("+") >= 2 for b in buttons):
        edges.add("plus_chain")
    if re.search(r"\+[A-Z]2", body):
        edges.add("x2_after_plus")
    if robots != RS.ROBOT_LETTERS:
        edges.add("robot_order")
    if all(count < RS.NOTCHES[letter] for letter, count in gauges.items()):
        edges.add("losing")
    return edges


def test_robots_tickets_are_valid_and_reach_every_edge() -> None:
    reached: Counter[str] = Counter()

    @seed(1)
    @FAST
    @given(RS.robots_tickets())
    def draw(ticket: str) -> None:
        reference.evaluate("robots", 100, ticket)  # raises TicketError if invalid
        reached.update(_robots_edges(ticket))

    draw()
    wanted = {f"{s}:{level}" for s in RS.ROBOT_LETTERS for level in ("full", "past1", "past2")}
    wanted |= {f"{s}:short" for s in RS.ROBOT_LETTERS if RS.NOTCHES[s] > 1}
    wanted |= {"x2_fills", "several_full", "plus_chain", "x2_after_plus", "robot_order"}
    assert wanted <= set(reached), sorted(wanted - set(reached))


def test_robots_min_full_gives_that_many_full_gauges() -> None:
    @seed(2)
    @FAST
    @given(
        st.integers(1, 8).flatmap(lambda k: st.tuples(st.just(k), RS.robots_tickets(min_full=k)))
    )
    def draw(case: tuple[int, str]) -> None:
        k, ticket = case
        full = [s for s, n in ENGINE.gauges(ticket).items() if n >= RS.NOTCHES[s]]
        assert len(full) >= k, (ticket, full)

    draw()


def test_robots_without_plus_one_have_18_reveals() -> None:
    @seed(3)
    @FAST
    @given(RS.robots_tickets(plus_one=False))
    def draw(ticket: str) -> None:
        reference.evaluate("robots", 100, ticket)
        assert "+" not in ticket

    draw()


def test_robots_isolated_tickets_isolate_one_gauge() -> None:
    tickets = gauge_fill_tickets()
    assert len(tickets) > 500
    for ticket in tickets:
        gauges = ENGINE.gauges(ticket)
        body = ticket.split("|")[1]
        marked = {r[0] for b in body.split(" ") for r in b.split("+") if len(r) == 2}
        chained = {r[0] for b in body.split(" ") for r in b.split("+")[1:]}
        # X2 and +1 belong to the symbol under test only (the filler before a +1 aside)
        assert len(marked) <= 1 and len(chained) <= 1, ticket
        others_full = [
            s for s, n in gauges.items() if n >= RS.NOTCHES[s] and s not in marked | chained
        ]
        assert len(others_full) <= 1, ticket


@pytest.mark.parametrize("letter", list(RS.ROBOT_LETTERS))
def test_gauge_fills_cover_every_mix_up_to_two_past_full(letter: str) -> None:
    n = RS.NOTCHES[letter]
    seen = set()
    for ticket in gauge_fill_tickets():
        body = ticket.split("|")[1]
        reveals = [r for b in body.split(" ") for r in b.split("+")]
        doubles = reveals.count(letter + "2")
        plain = reveals.count(letter)
        seen.add((plain, doubles))
    wanted = {(p, x) for x in range(n // 2 + 2) for p in range(n + 3 - 2 * x) if p + 2 * x <= n + 2}
    wanted.discard((0, 0)) if letter == "S" else None  # an empty 7-notch gauge cannot be isolated
    assert wanted <= seen, sorted(wanted - seen)


def test_eldorado_tickets_are_valid_and_reach_every_edge() -> None:
    reached: Counter[str] = Counter()

    @seed(4)
    @FAST
    @given(ES.eldorado_tickets(), S.stakes("eldorado"))
    def draw(ticket: str, stake: int) -> None:
        reference.evaluate("eldorado", stake, ticket)
        grids = [g.split("/") for g in ticket.split("|")]
        for g, rows in enumerate(grids):
            for row in rows:
                reached[ES.row_kind(row)] += 1
                if g and ES.EXTRA in row:
                    reached["extra_in_extra"] += 1
                if ES.row_kind(row) in ("four_adjacent", "four_apart", "five") and g:
                    reached["win_in_extra_grid"] += 1
        reached[f"stake:{stake}"] += 1
        reached[f"grids:{min(len(grids), 3)}"] += 1

    draw()
    wanted = set(ES.ROW_KINDS) | {"extra_in_extra", "win_in_extra_grid", "grids:1", "grids:3"}
    wanted |= {f"stake:{s}" for s in reference.load_rules("eldorado").stakes_cents}
    assert wanted <= set(reached), sorted(wanted - set(reached))


def test_row_kinds() -> None:
    assert ES.row_kind("YSYYY") == "four_apart"
    assert ES.row_kind("SYYYY") == "four_adjacent"
    assert ES.row_kind("YYYYX") == "four_extra"
    assert ES.row_kind("XXXXY") == "extras"
    assert ES.row_kind("PPPPP") == "five"
    assert ES.row_kind("YYYSS") == "three"
    assert ES.row_kind("YSVBP") == "mixed"


def test_every_row_ticket_isolates_its_row() -> None:
    tickets = all_row_tickets()
    assert len(tickets) == 6**5
    for n, ticket in enumerate(tickets):
        result = reference.evaluate("eldorado", 100, ticket)
        assert all((w["grid"], w["row"]) == (0, n % 3) for w in result["wins"]), ticket
    for ticket in extra_stage_tickets():
        reference.evaluate("eldorado", 50, ticket)


@pytest.mark.parametrize("game", ["robots", "eldorado"])
def test_every_invalid_kind_has_examples_and_all_are_refused(game: str) -> None:
    found = kit(game)
    assert {k for k, _ in found.invalid_examples} == set(found.invalid_kinds)
    for kind, ticket in found.invalid_examples:
        with pytest.raises(reference.TicketError):
            reference.evaluate(game, 100, ticket)
            pytest.fail(f"{kind} example {ticket!r} is valid")

    @seed(5)
    @FAST
    @given(S.invalid_tickets(game))
    def draw(case: tuple[str, str]) -> None:
        kind, ticket = case
        assert kind in found.invalid_kinds
        with pytest.raises(reference.TicketError):
            reference.evaluate(game, 100, ticket)

    draw()


def test_click_orders_click_every_reveal_once() -> None:
    counts = [1] * 17 + [3]

    @seed(6)
    @FAST
    @given(RS.robots_partial_click_orders(counts))
    def draw(case: tuple[list[int], int]) -> None:
        clicks, auto_after = case
        assert Counter(clicks) == Counter({b: c for b, c in enumerate(counts)})
        assert 0 <= auto_after <= sum(counts)

    draw()
