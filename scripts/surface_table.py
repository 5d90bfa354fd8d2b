"""What a run of the reference tries of the contract's surface (docs/coverage.md).

The reference is certified in-process through ``tests.faulty.surface.Recording`` and each
element of ``surface(...)`` is listed with how often the run tried it, families (every (game,
stake) pair, every button) grouped as "tried / all", as docs/coverage.md's table columns.

    python scripts/surface_table.py [--run quick|full-test] [--seed N] [--json FILE]

``quick``: the quick profile as shipped (the default ``instantcert certify``); ``full-test``:
the full profile with the tests' settings (``tests/faulty/certify.py``'s ``TEST_SETTINGS``, the
run of ``test_round13_surface.py``'s slow test).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from conformance._profiles import check_settings, load_profile  # noqa: E402
from harness import open_target  # noqa: E402
from harness._runner import Runner, RunPlan  # noqa: E402
from tests.faulty.certify import SEED, TEST_SETTINGS, certify  # noqa: E402
from tests.faulty.surface import Recording, surface  # noqa: E402


def grouped(elements: list[str], tried: dict[str, int], games: list[str]) -> list[tuple[str, str]]:
    """Each element family (a (game, stake) pair as ``{pair}``, a button as ``{b}``) and its
    cell: a count for one element, "tried / all" for a family."""
    pair = re.compile(r"\b(" + "|".join(map(re.escape, games)) + r") \d+\b")
    families: dict[str, list[str]] = {}
    for element in elements:
        key = re.sub(r"button \d+\b", "button {b}", pair.sub("{pair}", element))
        families.setdefault(key, []).append(element)
    rows = []
    for key, members in families.items():
        counts = [tried.get(m, 0) for m in members]
        if len(members) == 1:
            rows.append((key, str(counts[0]) if counts[0] else "**never**"))
            continue
        hit = sum(1 for c in counts if c)
        cell = f"{hit}/{len(members)}"
        rows.append((key, cell if hit == len(members) else f"**{cell}**"))
    return rows


def quick_run(adapter: Any, seed: int) -> str:
    """The quick profile as shipped (no test overrides), as ``instantcert certify`` runs it:
    the run's verdict."""
    settings = check_settings(load_profile("quick"), "quick")
    plan = RunPlan(
        target="python:reference",
        profile="quick",
        settings=settings,
        seed=seed,
        config={"target": "python:reference", "effective_settings": settings},
        filtered=False,
        requirements=None,
        out_dir=None,
    )
    try:
        return Runner(plan, []).run(adapter).verdict
    finally:
        adapter.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", choices=("quick", "full-test"), default="quick")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--json", type=Path, help="write every element's count here")
    args = parser.parse_args()
    inner = open_target("python:reference")
    recording = Recording(inner)
    described = inner.describe()
    start = time.perf_counter()
    if args.run == "quick":
        verdict = quick_run(recording, args.seed)
    else:
        verdict = certify(recording, settings=TEST_SETTINGS, profile="full", seed=args.seed).verdict
    elapsed = time.perf_counter() - start
    elements = surface(described)
    calls = sum(recording.calls.values())
    print(f"{args.run}, seed {args.seed}: {verdict} in {elapsed:.1f} s, {calls} calls")
    print("| element | tried |\n|---|---|")
    games = sorted(described["games"])
    for key, cell in grouped(elements, dict(recording.tried), games):
        print(f"| {key} | {cell} |")
    if args.json is not None:
        args.json.write_text(json.dumps(dict(recording.tried), indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
