"""Tickets for a given prize: valid, exactly the prize, and every kind of scenario occurs.

For every amount of every lot table, and for 0, thousands of tickets are drawn from a fixed
seed; each is evaluated by the reference evaluator, and the scenarios the issue lists (every
decomposition, X2 and +1 in all their forms, near misses, Extra stages nested, EXTRA on
winning rows, every robot at every place) must all be among them.
"""

from __future__ import annotations

import hashlib
import itertools
import random
from collections import Counter
from typing import Any

import numpy as np
import pytest

import reference
import reference.eldorado
import reference.robots
from reference import GameError, PrizeError, _scenarios, generate_ticket, prize_decompositions
from reference._eldorado_make import ELDORADO_MAX_GRIDS, ELDORADO_MAX_WINS

DRAWS = 2000
ROBOTS = reference.robots.robots_rules()
ELDORADO = reference.eldorado.eldorado_rules()
LETTER_OF = {s.name: s.letter for s in ROBOTS.symbols} | {
    s.name: s.letter for s in ELDORADO.symbols
}
SIZE = {s.letter: s.gauge_notches for s in ROBOTS.symbols}


def amounts(game: str, stake: int) -> list[int]:
    return [0] + [lot.prize_cents for lot in reference.load_rules(game).lot_table(stake).lots]


def draw(game: str, stake: int, prize: int, n: int = DRAWS) -> list[tuple[str, dict[str, Any]]]:
    rng = random.Random(f"{game}-{stake}-{prize}")
    out = []
    for _ in range(n):
        ticket = generate_ticket(game, stake, prize, rng)
        result = reference.evaluate(game, stake, ticket)
        assert result["prize_cents"] == prize, (ticket, result)
        assert reference.prize_cents(game, stake, ticket) == prize
        out.append((ticket, result))
    return out


def robots_wins(result: dict[str, Any]) -> tuple[str, ...]:
    return tuple(sorted(LETTER_OF[w["symbol"]] for w in result["wins"]))


def eldorado_wins(result: dict[str, Any]) -> tuple[tuple[str, int], ...]:
    return tuple(sorted((LETTER_OF[w["symbol"]], w["count"]) for w in result["wins"]))


# -- decompositions ---------------------------------------------------------------------------


def test_robots_decompositions_are_every_set_of_gauges() -> None:
    amount = {s.letter: s.amount_cents for s in ROBOTS.symbols}
    brute: dict[int, set[tuple[str, ...]]] = {}
    for size in range(9):
        for subset in itertools.combinations(sorted(amount), size):
            brute.setdefault(sum(amount[x] for x in subset), set()).add(subset)
    for prize, expected in brute.items():
        found = prize_decompositions("robots", 100, prize)
        assert {tuple(sorted(g.symbol for g in d)) for d in found} == expected
    assert {
        tuple(sorted(g.symbol for g in d)) for d in prize_decompositions("robots", 100, 1000)
    } == {
        ("S",),
        ("C", "Q", "T"),
    }
    assert prize_decompositions("robots", 100, 150) == ()
    assert prize_decompositions("robots", 100, 0) == ((),)


def test_eldorado_decompositions_add_up_and_are_complete() -> None:
    for stake in ELDORADO.stakes_cents:
        rows = sorted({c.amount_cents[stake] for c in ELDORADO.combinations})
        for prize in amounts("eldorado", stake)[1:]:
            found = prize_decompositions("eldorado", stake, prize)
            assert len(set(found)) == len(found)
            for dec in found:
                assert sum(g.amount_cents for g in dec) == prize
                assert 1 <= len(dec) <= ELDORADO_MAX_WINS
                for g in dec:
                    combo = next(
                        c
                        for c in ELDORADO.combinations
                        if (c.symbol, c.count) == (g.symbol, g.count)
                    )
                    assert combo.amount_cents[stake] == g.amount_cents
            # independent count: multisets of at most MAX_WINS row amounts adding up to prize
            ways = {0: Counter({0: 1})}  # amount -> {parts: ways}
            for row in rows:
                nxt: dict[int, Counter[int]] = {}
                for total, parts in ways.items():
                    for k in range(ELDORADO_MAX_WINS + 1):
                        t = total + k * row
                        if t > prize:
                            break
                        for p, n in parts.items():
                            if p + k <= ELDORADO_MAX_WINS:
                                nxt.setdefault(t, Counter())[p + k] += n
                ways = nxt
            assert len(found) == sum(ways.get(prize, Counter()).values())
    # the examples: 15 € at 1 € as 4 vases, 5 + 5 + 5 €, 10 + 3 + 2 €
    examples = {
        tuple((g.symbol, g.count) for g in d) for d in prize_decompositions("eldorado", 100, 1500)
    }
    assert (("V", 4),) in examples
    assert (("B", 4), ("B", 4), ("B", 4)) in examples
    assert (("B", 5), ("P", 5), ("P", 4)) in examples


# -- robots tickets ---------------------------------------------------------------------------


def robots_kinds(ticket: str) -> set[str]:
    robots, body = ticket.split("|")
    assert sorted(robots) == sorted("DQTCSPHO")
    buttons = body.split(" ")
    assert len(buttons) == 18
    kinds = set()
    reveals = [r for b in buttons for r in b.split("+")]
    notches: Counter[str] = Counter()
    for r in reveals:
        notches[r[0]] += 2 if r.endswith("2") else 1
    if any(r.endswith("2") for r in reveals):
        kinds.add("x2")
    if any("+" in b for b in buttons):
        kinds.add("+1")
    if any(b.count("+") >= 2 for b in buttons):
        kinds.add("+1 after +1")
    for letter, n in notches.items():
        if n > SIZE[letter] and letter + "2" in reveals and n - 2 < SIZE[letter]:
            kinds.add("x2 past full")
        if n == SIZE[letter] - 1:
            kinds.add("one notch short")
    return kinds


@pytest.mark.parametrize("prize", amounts("robots", 100))
def test_robots_tickets_of_every_amount(prize: int) -> None:
    drawn = draw("robots", 100, prize)
    expected = {
        tuple(sorted(g.symbol for g in d)) for d in prize_decompositions("robots", 100, prize)
    }
    seen = Counter(robots_wins(result) for _, result in drawn)
    assert set(seen) == expected  # every way of reaching the amount, and nothing else
    kinds: Counter[str] = Counter()
    for ticket, _ in drawn:
        kinds.update(robots_kinds(ticket))
    wanted = {"x2", "+1", "+1 after +1"}
    wanted |= {"one notch short"} if prize == 0 else {"x2 past full"}
    assert wanted <= set(kinds), kinds
    if prize == 0:
        assert all("Q" not in ticket.split("|")[1] for ticket, _ in drawn)  # 1 notch: any Q pays
    assert len({ticket for ticket, _ in drawn}) == len(drawn)


def test_every_robot_order_and_place() -> None:
    rng = random.Random(8)
    places: Counter[tuple[int, str]] = Counter()
    orders = set()
    n = 20000
    for _ in range(n):
        robots = generate_ticket("robots", 100, 0, rng).split("|")[0]
        orders.add(robots)
        places.update(enumerate(robots))
    assert len(places) == 64
    expected = n / 8
    assert all(abs(c - expected) < 0.1 * expected for c in places.values()), places
    assert len(orders) > 15000  # 20 000 draws over 40 320 orders: about 15 500 distinct
    # the draw picks uniformly among a table that holds every one of the 8! orders
    table = reference._robots.engine().maker.orders
    assert len(set(table)) == len(table) == 40320
    assert all(sorted(order[:8]) == sorted("DQTCSPHO") for order in table)


# -- eldorado tickets -------------------------------------------------------------------------


def eldorado_kinds(ticket: str, stake: int) -> set[str]:
    grids = ticket.split("|")
    assert len(grids) <= ELDORADO_MAX_GRIDS
    kinds = set()
    if len(grids) > 1:
        kinds.add("extra stage")
    if any("X" in g for g in grids[1:]):
        kinds.add("extra inside extra")
    for g, grid in enumerate(grids):
        for row in grid.split("/"):
            win = reference._eldorado.row_combination(row, ELDORADO)
            if win is None:
                if max(row.count(s) for s in "YSVBP") == 3:
                    kinds.add("row of three")
            else:
                if "X" in row:
                    kinds.add("extra on winning row")
                if g > 0:
                    kinds.add("win in extra grid")
                if win[1] == 4 and win[0] * 4 not in row:
                    kinds.add("four apart")
    return kinds


ELDORADO_CASES = [(s, p) for s in ELDORADO.stakes_cents for p in amounts("eldorado", s)]


@pytest.mark.parametrize(("stake", "prize"), ELDORADO_CASES)
def test_eldorado_tickets_of_every_amount(stake: int, prize: int) -> None:
    drawn = draw("eldorado", stake, prize)
    decompositions = {
        tuple(sorted((g.symbol, g.count) for g in d))
        for d in prize_decompositions("eldorado", stake, prize)
    }
    seen = Counter(eldorado_wins(result) for _, result in drawn)
    assert set(seen) <= decompositions
    # every way occurs: all of them where there are few, every one of 3 rows or fewer always
    few = {d for d in decompositions if len(d) <= 3}
    assert few <= set(seen), few - set(seen)
    if len(decompositions) <= 12:
        assert set(seen) == decompositions
    else:
        assert len(seen) >= 0.9 * len(decompositions)
    kinds: Counter[str] = Counter()
    for ticket, _ in drawn:
        kinds.update(eldorado_kinds(ticket, stake))
    wanted = {"extra stage", "extra inside extra"}
    wanted |= {"row of three"} if prize == 0 else {"win in extra grid"}
    if any(count == 4 for d in decompositions for _, count in d):  # a spare cell to use
        wanted |= {"four apart", "extra on winning row"}
    assert wanted <= set(kinds), kinds


# -- the block generator: scenario pools and prize-keeping transformations ------------------
#
# Blocks show pool scenarios transformed per unit (``reference._scenarios``). The same checks
# as above run on what blocks show, from full-size pools: every ticket is re-evaluated, every
# decomposition and every kind of scenario occurs, and the kinds come at about the slow
# generator's own frequencies (the transformations keep its distribution).

BLOCK_DRAWS = 4000


def block_tickets(game: str, stake: int, prize: int, n: int = BLOCK_DRAWS) -> list[str]:
    key = hashlib.sha256(f"{game}{stake}{prize}".encode()).digest()
    pools = reference.game_engine(game).scenario_pools(stake, key, {})
    words = _scenarios.unit_words(prize + 17, 1000, n)
    prizes = np.full(n, prize, dtype=np.int64)
    tickets = [t.decode("ascii") for t in pools.tickets(words, prizes)]
    for ticket in tickets:
        assert reference.prize_cents(game, stake, ticket) == prize, ticket
    return tickets


def share(kinds: list[set[str]], kind: str) -> float:
    return sum(kind in k for k in kinds) / len(kinds)


@pytest.mark.parametrize("prize", amounts("robots", 100))
def test_block_robots_units_of_every_amount(prize: int) -> None:
    tickets = block_tickets("robots", 100, prize)
    results = [reference.evaluate("robots", 100, t) for t in tickets]
    expected = {
        tuple(sorted(g.symbol for g in d)) for d in prize_decompositions("robots", 100, prize)
    }
    assert {robots_wins(r) for r in results} == expected
    kinds = [robots_kinds(t) for t in tickets]
    wanted = {"x2", "+1", "+1 after +1"} | ({"one notch short"} if prize == 0 else {"x2 past full"})
    assert wanted <= set().union(*kinds)
    slow = [robots_kinds(t) for t, _ in draw("robots", 100, prize, 2000)]
    for kind in wanted:
        assert abs(share(kinds, kind) - share(slow, kind)) < 0.05, kind
    if prize == 0:
        assert all("Q" not in t.split("|")[1] for t in tickets)
    assert len(set(tickets)) == len(tickets)  # 4 096 scenarios, 18! x 8! ways to show each


@pytest.mark.parametrize(("stake", "prize"), ELDORADO_CASES)
def test_block_eldorado_units_of_every_amount(stake: int, prize: int) -> None:
    tickets = block_tickets("eldorado", stake, prize)
    seen = {eldorado_wins(reference.evaluate("eldorado", stake, t)) for t in tickets}
    decompositions = {
        tuple(sorted((g.symbol, g.count) for g in d))
        for d in prize_decompositions("eldorado", stake, prize)
    }
    assert seen <= decompositions
    assert {d for d in decompositions if len(d) <= 3} <= seen
    if len(decompositions) <= 12:
        assert seen == decompositions
    kinds = [eldorado_kinds(t, stake) for t in tickets]
    wanted = {"extra stage", "extra inside extra"}
    wanted |= {"row of three"} if prize == 0 else {"win in extra grid"}
    if any(count == 4 for d in decompositions for _, count in d):
        wanted |= {"four apart", "extra on winning row"}
    assert wanted <= set().union(*kinds)
    slow = [eldorado_kinds(t, stake) for t, _ in draw("eldorado", stake, prize, 2000)]
    for kind in wanted:
        assert abs(share(kinds, kind) - share(slow, kind)) < 0.05, kind
    # the transformations move rows and cells: shown tickets are not the pool's own
    assert len(set(tickets)) > 0.95 * len(tickets)


def test_a_transformation_that_broke_a_prize_would_be_caught() -> None:
    """The checks above can fail: a relabelling of symbols (not a prize-keeping
    transformation) shows tickets whose evaluation differs from the prize they were made for."""
    tickets = block_tickets("robots", 100, 500)  # one 5 EUR gauge (C) or T + Q
    relabelled = [
        t.split("|")[0] + "|" + t.split("|")[1].translate(str.maketrans("CS", "SC"))
        for t in tickets
    ]
    assert any(reference.prize_cents("robots", 100, t) != 500 for t in relabelled)


# -- arguments --------------------------------------------------------------------------------


def test_same_rng_state_same_ticket() -> None:
    for game, stake in (("robots", 100), ("eldorado", 50)):
        a = [generate_ticket(game, stake, 500 if game == "robots" else 250, random.Random(3))]
        b = [generate_ticket(game, stake, 500 if game == "robots" else 250, random.Random(3))]
        assert a == b


def test_amounts_outside_the_lot_tables() -> None:
    rng = random.Random(1)
    for game, stake, prize in (
        ("robots", 100, 1100),
        ("robots", 100, 1111100),
        ("eldorado", 100, 700),
    ):
        for _ in range(200):
            ticket = generate_ticket(game, stake, prize, rng)
            assert reference.prize_cents(game, stake, ticket) == prize


@pytest.mark.parametrize(
    ("args", "error", "shown"),
    [
        (("chess", 100, 0), reference.UnknownGameError, "'chess'"),
        (("robots", 50, 0), reference.StakeError, "50"),
        (("robots", 100, -100), PrizeError, "-100"),
        (("robots", 100, 1.0), PrizeError, "float"),
        (("robots", 100, True), PrizeError, "bool"),
        (("robots", 100, 150), PrizeError, "150"),
        (("eldorado", 100, 100), PrizeError, "100"),
        (("eldorado", 100, 250), PrizeError, "250"),
    ],
)
def test_bad_arguments_are_named(
    args: tuple[str, int, Any], error: type[Exception], shown: str
) -> None:
    game, stake, prize = args
    with pytest.raises(error, match=shown):
        generate_ticket(game, stake, prize, random.Random(0))


def test_rng_must_be_a_random() -> None:
    with pytest.raises(GameError, match=r"random\.Random"):
        generate_ticket("robots", 100, 0, 42)  # type: ignore[arg-type]
