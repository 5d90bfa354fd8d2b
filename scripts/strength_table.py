"""Measure the suite's strength and write it to ``docs/strength.md``.

Every faulty variant of ``tests/faulty/variants.py`` is certified in-process (the test
profile of ``tests/faulty/certify.py``; the variants only whole blocks show with every block
audited whole), every correct implementation, every correct implementation that takes a
freedom of the contract (``tests/faulty/freedom_variants.py``: a full run each, which must end
CERTIFIED or CERTIFIED WITH RESERVATIONS naming exactly the reservations expected), and each
misbehaving HTTP target. The page lists each fault, the requirement(s) that caught it and the
time it took; the mutation score (variants rejected for the right requirement / all variants)
is on top.

    python scripts/strength_table.py [--scope area|suite] [--workers N] [--skip-whole-blocks]
                                     [--skip-misbehaving] [--skip-freedoms] [--only NAME ...]
                                     [--out FILE]

``--only`` names faulty variants and freedoms (``FREEDOMS``) alike: a freedom named there gets
its full run, as in the whole table.

``--scope area`` (default) runs each variant over the requirements of its area and games, as
the fast tests do; ``--scope suite`` over the whole suite (slower; shows every requirement a
fault trips).
"""

from __future__ import annotations

import argparse
import datetime as dt
import multiprocessing
import platform
import re
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness._reports import REPORT_FILES  # noqa: E402
from tests.faulty.certify import (  # noqa: E402
    SEED,
    TEST_SETTINGS,
    Outcome,
    certify,
    variant_scope,
    whole_block_settings,
)
from tests.faulty.correct_variants import CORRECT  # noqa: E402
from tests.faulty.freedom_variants import FREEDOMS, reservations_of  # noqa: E402
from tests.faulty.misbehaving import MISBEHAVIOURS, TIMEOUT_S, certify_misbehaving  # noqa: E402
from tests.faulty.variants import VARIANTS, Variant  # noqa: E402

Job = tuple[str, str]  # (kind "faulty" | "correct", name)


def _run(job: tuple[str, str, str]) -> tuple[str, str, Outcome]:
    kind, name, scope = job
    if kind == "freedom":
        freedom = FREEDOMS[name]
        outcome = certify(
            freedom.factory(), target=f"freedom:{name}", settings=TEST_SETTINGS, profile="full"
        )
        return kind, name, outcome
    if kind == "correct":
        if name == "reference":
            from harness import open_target

            adapter = open_target("python:reference")
        else:
            adapter = CORRECT[name]()
        return kind, name, certify(adapter, target=f"correct:{name}")
    variant = VARIANTS[name]
    extra = dict(variant.settings or {})  # what the fault needs to show (deep units...)
    if variant.soak:  # a soak's player sessions, with the test profile's sizes
        extra.setdefault("player_span_s", SOAK_SPAN_S)  # unless the variant needs longer
    if scope == "suite":
        expected = variant.expected_requirements
        settings = whole_block_settings(expected) if variant.whole_blocks else None
        if extra:
            settings = {**(settings or {}), **extra}
        return kind, name, certify(variant.factory(), settings=settings)
    scoped = variant_scope(
        variant.area, variant.games, variant.whole_blocks, variant.expected_requirements
    )
    if extra:
        scoped["settings"] = {**(scoped["settings"] or {}), **extra}
    outcome = certify(variant.factory(), target=f"python:tests.faulty.variants:{name}", **scoped)
    return kind, name, outcome


SOAK_SPAN_S = 100
"""The player sessions' span for a variant only a soak shows (a cache entry of a minute)."""


def _cell(text: str) -> str:
    return text.replace("``", "`").replace("|", "\\|").replace("\n", " ")


def _code(ids: list[str]) -> str:
    return ", ".join(f"`{i}`" for i in ids) or "—"


def result_of(variant: Variant, outcome: Outcome) -> tuple[str, bool]:
    caught = variant.caught_by(outcome.failed)
    if caught:
        return "caught", True
    if outcome.failed:
        return "**wrong requirement**", False
    if outcome.errored:
        return "**error only**", False
    return "**missed**", False


def misbehaving_rows() -> list[str]:
    """One table row per misbehaving target: what the harness made of it, and how fast."""
    rows = []
    for name, bad in sorted(MISBEHAVIOURS.items()):
        with tempfile.TemporaryDirectory() as out:
            outcome, elapsed = certify_misbehaving(name, Path(out))
            written = all((Path(out) / f).is_file() for f in REPORT_FILES)
        first = (outcome.errored or outcome.failed or [""])[0]
        message = outcome.messages.get(first, outcome.note).splitlines()[0][:160]
        rows.append(
            f"| `{name}` | {_cell(bad.what)} | {outcome.verdict} (exit {outcome.exit_code}) "
            f"| {len(outcome.errored)} | {len(outcome.failed)} | {'yes' if written else '**no**'} "
            f"| {elapsed:.1f} | {_cell(message)} |"
        )
        print(f"misbehaving {name:32} {elapsed:6.1f} s  {outcome.verdict}", flush=True)
    return rows


def freedom_ok(name: str, outcome: Outcome) -> bool:
    """Certified (with or without reservations), exit 0, exactly the reservations expected."""
    expected = FREEDOMS[name].expected
    return (
        outcome.verdict == ("CERTIFIED WITH RESERVATIONS" if expected else "CERTIFIED")
        and outcome.exit_code == 0
        and reservations_of(outcome.reservations) == expected
    )


def freedom_rows(freedoms: dict[str, Outcome]) -> list[str]:
    """The "correct" section: each freedom's full run, its verdict and reservations."""
    if not freedoms:
        return []
    good = [n for n, o in freedoms.items() if freedom_ok(n, o)]

    def shown(pairs: frozenset[tuple[str, str]]) -> str:
        return ", ".join(f"`{r or 'scope'}` ({b})" for r, b in sorted(pairs)) or "—"

    lines = [
        "## Correct implementations that take a freedom",
        "",
        f"**{len(good)} / {len(freedoms)} certified as expected.** Each is the reference with "
        "one freedom the contract leaves (`tests/faulty/freedom_variants.py`), certified by a "
        "full run (the full profile with the test settings, unfiltered): it must end CERTIFIED, "
        "or CERTIFIED WITH RESERVATIONS naming exactly the reservations expected "
        "(requirement, and the row of docs/contract-decisions.md), exit 0.",
        "",
        "| implementation | freedom | verdict | reservations expected | reservations got "
        "| failed or errored | time (s) | result |",
        "|---|---|---|---|---|---|---:|---|",
    ]
    for name, outcome in sorted(freedoms.items()):
        freedom = FREEDOMS[name]
        lines.append(
            f"| `{name}` | {_cell(freedom.doc)} | {outcome.verdict} | {shown(freedom.expected)} "
            f"| {shown(reservations_of(outcome.reservations))} "
            f"| {_code(outcome.failed + outcome.errored)} | {outcome.duration_s:.1f} "
            f"| {'certified as expected' if freedom_ok(name, outcome) else '**wrong**'} |"
        )
    return [*lines, ""]


def render(
    faulty: dict[str, Outcome],
    correct: dict[str, Outcome],
    scope: str,
    wall_s: float,
    misbehaving: list[str],
    freedoms: dict[str, Outcome] | None = None,
) -> str:
    right = [n for n, o in faulty.items() if result_of(VARIANTS[n], o)[1]]
    rejected = [n for n, o in faulty.items() if o.verdict == "NOT CERTIFIED"]
    accepted = [n for n, o in correct.items() if not o.failed and not o.errored]
    score = 100.0 * len(right) / len(faulty) if faulty else 0.0
    lines = [
        "# Strength of the conformance suite",
        "",
        "<!-- generated by scripts/strength_table.py: do not edit by hand -->",
        "",
        f"**Mutation score: {len(right)} / {len(faulty)} = {score:.1f} %** of the faulty "
        "implementations are rejected for the requirement they break "
        f"({len(rejected)} / {len(faulty)} rejected at all; for "
        f"{sum(1 for n, o in faulty.items() if VARIANTS[n].caught_by(o.first_failed))} / "
        f"{len(faulty)} the first requirement failed, in check order, is the expected one). "
        f"**Correct implementations accepted: {len(accepted)} / {len(correct)}.**",
        "",
        f"Generated {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC on {platform.machine()} "
        f"with Python {platform.python_version()}, seed {SEED}, scope `{scope}`, "
        f"in {wall_s:.0f} s of wall time. Each variant is the reference with one realistic "
        "fault (`tests/faulty/variants.py`), certified in-process with the test profile "
        f"({', '.join(f'{k} {v}' for k, v in TEST_SETTINGS.items())}); the variants marked "
        "*whole* are only visible to an audit of whole blocks, and are certified with every "
        "block audited whole. The fast tests (`pytest tests/faulty`) assert the same.",
        "",
        "## Faulty implementations",
        "",
        "| variant | area | article | fault | must fail | first failed | caught by | also failed "
        "| time (s) | result |",
        "|---|---|---|---|---|---|---|---|---:|---|",
    ]
    for name in sorted(faulty, key=lambda n: (VARIANTS[n].area, n)):
        variant, outcome = VARIANTS[name], faulty[name]
        caught = variant.caught_by(outcome.failed)
        others = [r for r in outcome.failed if r not in caught]
        label, _ = result_of(variant, outcome)
        whole = " (*whole*)" if variant.whole_blocks else ""
        first = outcome.first_failed
        expected_first = bool(first) and bool(variant.caught_by(first))
        first_cell = _code(first) + (" (expected)" if expected_first else " (**not expected**)")
        lines.append(
            f"| `{name}`{whole} | {variant.area} | {variant.article} | {_cell(variant.fault)} "
            f"| {_code(sorted(variant.expected_requirements))} "
            f"| {first_cell if first else '—'} | {_code(caught)} "
            f"| {_code(others)} | {outcome.duration_s:.1f} | {label} |"
        )
    lines += [
        "",
        "## Correct implementations",
        "",
        "| implementation | verdict | failed | errored | time (s) |",
        "|---|---|---|---|---:|",
    ]
    for name, outcome in sorted(correct.items()):
        lines.append(
            f"| `{name}` | {outcome.verdict} | {_code(outcome.failed)} "
            f"| {_code(outcome.errored)} | {outcome.duration_s:.1f} |"
        )
    lines += [
        "",
        "`reference` is the built-in reference; `independent` evaluates with its own reading of "
        "the rules YAML and keeps the robots reveal protocol itself; `other_generator` serves "
        "blocks of another generator; `other_formats` has UUID4 account ids and tokens, hex play "
        "ids, extra fields in every answer and letters in reveal answers "
        "(`tests/faulty/correct_variants.py`). A quick-profile run "
        "never says CERTIFIED: *INCOMPLETE* with nothing failed or errored is the pass here; "
        "the slow tests certify them with the full profile.",
        "",
        *freedom_rows(freedoms or {}),
    ]
    if misbehaving:
        lines += [
            "## Misbehaving targets",
            "",
            "The reference over HTTP with one endpoint broken (`tests/faulty/misbehaving.py`), "
            f"certified with a {TIMEOUT_S:g} s request timeout over the requirements that "
            "endpoint serves: the run must end, mark them *error*, and write every report.",
            "",
            "| target | misbehaviour | verdict | errors | fails | reports written | time (s) "
            "| first message |",
            "|---|---|---|---:|---:|---|---:|---|",
            *misbehaving,
            "",
        ]
    return "\n".join(lines)


POWER_BEGIN = "<!-- power table: generated by scripts/power_table.py -->"
POWER_END = "<!-- end power table -->"


WORKERS = 5
"""Runs at once. Most of a run is asleep, not on a core: a player-session variant waits out a
person's pauses (``play_cold_account_burst_lost_update``: 119 s of wall, 6.7 s of CPU), so
more runs than cores overlap their sleeps; the whole-block variants are the CPU."""

_ROW_SPLIT = re.compile(r"(?<!\\)\|")


def previous_times(path: Path) -> dict[str, float]:
    """Each run's time in seconds on the page at ``path`` (the last table written), by the
    name in its row's first cell; empty where there is no page."""
    times: dict[str, float] = {}
    column: int | None = None
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    for line in text.splitlines():
        cells = [c.strip() for c in _ROW_SPLIT.split(line.strip())[1:-1]]
        if not cells:
            column = None
            continue
        if "time (s)" in cells:
            column = cells.index("time (s)")
            continue
        name = re.match(r"`([^`]+)`", cells[0])
        if column is None or name is None or len(cells) <= column:
            continue
        try:
            times[name.group(1)] = float(cells[column])
        except ValueError:
            continue
    return times


def longest_first(
    jobs: list[tuple[str, str, str]], times: dict[str, float]
) -> list[tuple[str, str, str]]:
    """``jobs`` with the longest last time first, so the pool ends together (a job not timed
    before, a new variant, goes first: its time is unknown)."""
    return sorted(jobs, key=lambda job: (job[1] in times, -times.get(job[1], 0.0)))


def keep_power_table(page: str, path: Path) -> str:
    """``page`` with the power table section of the page at ``path`` kept at its end:
    scripts/power_table.py writes that section, this script the rest."""
    old = path.read_text(encoding="utf-8") if path.is_file() else ""
    if POWER_BEGIN not in old or POWER_END not in old:
        return page
    section = old[old.index(POWER_BEGIN) : old.index(POWER_END) + len(POWER_END)]
    return page.rstrip("\n") + "\n\n" + section + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scope", choices=("area", "suite"), default="area")
    parser.add_argument("--workers", type=int, default=WORKERS)
    parser.add_argument("--skip-whole-blocks", action="store_true")
    parser.add_argument("--skip-misbehaving", action="store_true")
    parser.add_argument("--skip-freedoms", action="store_true")
    parser.add_argument("--only", nargs="*", default=None, metavar="NAME")
    parser.add_argument("--out", default=str(ROOT / "docs" / "strength.md"))
    args = parser.parse_args(argv)
    names = args.only or sorted(VARIANTS)
    correct_named = [n for n in names if n == "reference" or n in CORRECT]
    freedoms_named = [n for n in names if n in FREEDOMS and n not in VARIANTS]
    names = [n for n in names if n not in correct_named and n not in freedoms_named]
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        known = ", ".join(sorted({*VARIANTS, *FREEDOMS}))
        parser.error(f"unknown variant(s) {unknown}; known: {known}")
    if args.skip_whole_blocks:
        names = [n for n in names if not VARIANTS[n].whole_blocks]
    jobs = [("faulty", n, args.scope) for n in names]
    if args.only is None:
        jobs += [("correct", n, args.scope) for n in ("reference", *sorted(CORRECT))]
        if not args.skip_freedoms:
            jobs += [("freedom", n, args.scope) for n in sorted(FREEDOMS)]
    else:  # correct ones and freedoms named in --only
        jobs += [("correct", n, args.scope) for n in correct_named]
        jobs += [("freedom", n, args.scope) for n in freedoms_named]
    jobs = longest_first(jobs, previous_times(Path(args.out)))
    faulty: dict[str, Outcome] = {}
    correct: dict[str, Outcome] = {}
    freedoms: dict[str, Outcome] = {}
    start = time.monotonic()
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max(1, args.workers), mp_context=context) as pool:
        for future in as_completed([pool.submit(_run, job) for job in jobs]):
            kind, name, outcome = future.result()
            {"faulty": faulty, "correct": correct, "freedom": freedoms}[kind][name] = outcome
            shown = result_of(VARIANTS[name], outcome)[0] if kind == "faulty" else outcome.verdict
            print(f"{kind:7} {name:40} {outcome.duration_s:7.1f} s  {shown}", flush=True)
    misbehaving = [] if args.skip_misbehaving or args.only else misbehaving_rows()
    page = render(faulty, correct, args.scope, time.monotonic() - start, misbehaving, freedoms)
    Path(args.out).write_text(keep_power_table(page, Path(args.out)), encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
