"""CPU time of the hypothesis-driven checks, each run alone in this (warm) process (issue 12).

A function-level timing, not a whole command: each named check runs through
``conformance.execute`` against the built-in reference (in-process, behind the seam's schema
check as ``certify`` holds it) at ``--examples`` examples, and its CPU seconds (this process,
``time.process_time``) and wall seconds are printed. CPU seconds barely move with the machine's
load; the checks are GIL-bound, so in ``certify`` their CPU seconds add up on one core. With
``--draw``, each suite strategy is also drawn alone (``--examples`` examples through hypothesis
with the settings of ``_differential.hunt``, nothing evaluated), beside the floor: the same
number of examples of a single integer. Every example is drawn in this process
(``draw_workers: 0``), so the CPU seconds are the whole check's; in ``certify`` the first pass of
a search is drawn on worker processes (``conformance._drawing``).

    PYTHONPATH=$PWD python benchmarks/hypothesis_checks.py [CHECK ...] [--examples N] [--draw]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import time
from collections.abc import Callable

from hypothesis import strategies as st

from conformance import CheckContext, execute, registered_checks
from conformance._drawing import draw_here
from conformance._profiles import check_settings
from conformance._settings import coerce
from conformance.games import _eldorado_strategies as ES
from conformance.games import _robots_strategies as RS
from contract import Validated
from harness._reference_adapter import ReferenceAdapter

CHECKS = (
    "metamorphic.eldorado_cell_order",
    "metamorphic.eldorado_row_order",
    "eldorado_rules.differential_edges",
    "invalid_tickets.eldorado",
    "metamorphic.robots_robot_order",
    "metamorphic.robots_button_order",
    "robots_rules.differential_edges",
    "robots_rules.several_gauges",
    "invalid_tickets.robots",
)

DRAWS: dict[str, Callable[[], st.SearchStrategy[object]]] = {
    "floor: one integer": lambda: st.integers(0, 10**6),
    "robots_tickets": lambda: RS.robots_tickets(),
    "eldorado_tickets": lambda: ES.eldorado_tickets(),
    "robots_invalid_tickets": lambda: RS.robots_invalid_tickets(),
    "eldorado_invalid_tickets": lambda: ES.eldorado_invalid_tickets(),
}


def time_check(check_id: str, examples: int) -> tuple[str, float, float]:
    """(outcome, CPU s, wall s) of one check alone against the reference."""
    adapter = Validated(ReferenceAdapter())
    try:
        ctx = CheckContext(
            adapter=adapter,
            implementation=adapter.describe(),
            settings=coerce(
                check_settings(
                    {"hypothesis_max_examples": examples, "draw_workers": 0}, "benchmark"
                ),
                "benchmark",
            ),
            seed=1,
        )
        cpu, wall = time.process_time(), time.perf_counter()
        outcome = execute(registered_checks()[check_id], ctx)
        return outcome.outcome, time.process_time() - cpu, time.perf_counter() - wall
    finally:
        adapter.close()


def time_draw(strategy: st.SearchStrategy[object], examples: int) -> tuple[float, str]:
    """(CPU s, digest of the values drawn) for ``examples`` examples at seed 1."""
    cpu = time.process_time()
    drawn = draw_here(strategy, 1, examples)
    return time.process_time() - cpu, hashlib.sha256(repr(drawn).encode()).hexdigest()[:12]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checks", nargs="*", default=list(CHECKS), metavar="CHECK")
    parser.add_argument("--examples", type=int, default=5000)
    parser.add_argument("--draw", action="store_true", help="also time each strategy alone")
    args = parser.parse_args()
    print(f"{os.cpu_count()} cores, 1-minute load average {os.getloadavg()[0]:.2f}")
    head = f"check ({args.examples} examples, alone, reference in-process)"
    print(f"| {head} | outcome | CPU s | wall s |")
    print("|---|---|---:|---:|")
    total = 0.0
    for check_id in args.checks:
        outcome, cpu, wall = time_check(check_id, args.examples)
        total += cpu
        print(f"| `{check_id}` | {outcome} | {cpu:.2f} | {wall:.2f} |", flush=True)
    print(f"| all of them | | {total:.2f} | |")
    if args.draw:
        print(f"\n| strategy ({args.examples} examples, drawn only) | CPU s | digest at seed 1 |")
        print("|---|---:|---|")
        for name, make in DRAWS.items():
            cpu, digest = time_draw(make(), args.examples)
            print(f"| {name} | {cpu:.2f} | {digest} |", flush=True)
    print(f"1-minute load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
