"""Profile (function in a warm process): tickets per second of the reference evaluator, on one core.

Validation included; CPU time of this process, best of 3 passes. ``instantcert evaluate`` as a
whole process is timed by ``benchmarks/commands.py``.

Targets (issue 2): a robots ticket in about 5 µs or less, an eldorado ticket in about 3 µs or
less. The tickets are distinct and drawn from a fixed seed, so no cache can help and the run is
repeatable:  python benchmarks/evaluate.py [--tickets N]
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

import reference

ROBOT_LETTERS = "DQTCSPHO"
ELDORADO_LETTERS = "YSVBPX"


def robots_tickets(n: int, rng: random.Random) -> list[str]:
    tickets: list[str] = []
    for _ in range(n):
        robots = "".join(rng.sample(ROBOT_LETTERS, 8))
        buttons = []
        for _ in range(18):
            reveals = [rng.choice(ROBOT_LETTERS) + ("2" if rng.random() < 0.1 else "")]
            while rng.random() < 0.1:
                reveals.append(rng.choice(ROBOT_LETTERS))
            buttons.append("+".join(reveals))
        tickets.append(robots + "|" + " ".join(buttons))
    return tickets


def eldorado_tickets(n: int, rng: random.Random) -> list[str]:
    tickets: list[str] = []
    paying = ELDORADO_LETTERS[:-1]
    while len(tickets) < n:
        grids: list[str] = []
        granted = 1
        while len(grids) < granted:
            cells = [rng.choice(paying) if rng.random() > 0.03 else "X" for _ in range(15)]
            granted += cells.count("X")
            grids.append("/".join("".join(cells[i : i + 5]) for i in (0, 5, 10)))
        tickets.append("|".join(grids))
    return tickets


def rate(name: str, evaluate: Callable[[str], object], tickets: list[str]) -> None:
    for ticket in tickets[:1000]:  # warm up
        evaluate(ticket)
    best = float("inf")
    for _ in range(3):
        start = time.process_time()  # CPU time: what a shared machine's load does not inflate
        for ticket in tickets:
            evaluate(ticket)
        best = min(best, time.process_time() - start)
    per = best / len(tickets) * 1e6
    print(
        f"profile (function in a warm process): {name:<32} {len(tickets) / best:>12,.0f} "
        f"tickets/s  {per:6.2f} µs/ticket"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tickets", type=int, default=200_000)
    args = parser.parse_args()
    rng = random.Random(2026)
    robots = robots_tickets(args.tickets, rng)
    eldorado = eldorado_tickets(args.tickets, rng)
    rate("robots prize_cents", lambda t: reference.prize_cents("robots", 100, t), robots)
    rate("robots evaluate (full result)", lambda t: reference.evaluate("robots", 100, t), robots)
    rate("eldorado prize_cents", lambda t: reference.prize_cents("eldorado", 100, t), eldorado)
    rate(
        "eldorado evaluate (full result)",
        lambda t: reference.evaluate("eldorado", 100, t),
        eldorado,
    )


if __name__ == "__main__":
    main()
