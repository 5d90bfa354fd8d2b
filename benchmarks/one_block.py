"""One whole block audited end to end, beside the inflate floor and DuckDB (issue 32, item 5).

    PYTHONPATH=$PWD python benchmarks/one_block.py FILE [FILE ...] [--runs 5]

For each block file (``.jsonl.gz``), alternately ``--runs`` times, each a whole process timed
from outside:

- floor:  ``python -m isal.igzip -d -c FILE | wc -l`` (the inflate the audit itself uses);
- audit:  ``instantcert audit-block FILE --seed 1`` (every block check, every report);
- duckdb: DuckDB reading the same file to count its lots (``read_json`` of the three columns,
  ``GROUP BY prize_cents``), when ``duckdb`` is installed (``pip install duckdb``: for this
  benchmark only, not a dependency).

Prints the medians of the wall time and of the CPU time (``getrusage`` of the finished
children: every process and thread of the command), audit / floor (target: at most 1.5) and
audit / duckdb (target: at most 1), the audit's CPU over the cores (the least wall time it
could take on this machine, whatever the overlap), and the 1-minute load average before and
after: on a shared machine every wall figure moves with it, the CPU far less. On a machine other
users share, ``chrt -f 10`` (real-time priority, root or CAP_SYS_NICE) keeps their processes off
the cores while it runs: series that scattered by 0.1-0.2 s then agree within 0.02 s.

``--alone`` also times the audit without the harness (``ALONE``): one process that begins
the file's inflate first thing, imports what the audit needs (numpy, the reference, the audit,
the game kits), audits the block as ``audit-block``'s started audit does and runs its randomness
family, and nothing else (no runner, no other check, no report). It is the least wall time any
split of the command into processes could reach (issue 32, item 5: the harness in one process,
the audit in another), the harness's own part being free.

``--before DIR`` also times, alternately with the others, the audit run from another checkout
(``PYTHONPATH=DIR``, e.g. ``git worktree add DIR main``; its compiled extensions built or
copied in): before and after a change in one sitting.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent
DUCKDB = """
import sys, duckdb
duckdb.connect().execute(
    "SELECT prize_cents, count(*) FROM read_json(?, format='newline_delimited', "
    "columns={'index': 'BIGINT', 'prize_cents': 'BIGINT', 'ticket': 'VARCHAR'}) "
    "WHERE ticket IS NOT NULL GROUP BY prize_cents",
    [sys.argv[1]],
).fetchall()
"""


ALONE = """
import os, sys
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as the instantcert command sets it
from conformance._gzip_ahead import start_early, started_early
start_early(sys.argv[1])
from conformance import _stats
from conformance._audit import open_document, read_header
from conformance._profiles import profile_settings
from conformance._started_audit import request_for, start_file_audit
from conformance.games import kit_names
kit_names()
started = start_file_audit(sys.argv[1], 1, started_early(sys.argv[1]))
reader = open_document(sys.argv[1], fast=True)
request = request_for(read_header(reader)[0], 1)
reader.close()
settings = profile_settings("full")
audit = started.take(request)
alpha = float(settings.alpha)  # the check's share of it; the family's work is the same
_stats.winner_positions(audit.prizes, request.expect.lots, settings.randomness_segments, alpha)
os._exit(0)  # no interpreter teardown, as instantcert ends (harness._budget.exit_process)
"""


def children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def timed(command: list[str] | str, env: dict[str, str] | None = None) -> tuple[float, float]:
    """(wall, CPU) seconds of one run of ``command``, its whole process tree."""
    cpu = children_cpu()
    began = time.perf_counter()
    subprocess.run(
        command,
        shell=isinstance(command, str),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=True,
        env=env,
    )
    return time.perf_counter() - began, children_cpu() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="+", type=Path)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--before", type=Path, default=None, metavar="DIR")
    parser.add_argument("--alone", action="store_true", help="also time the audit alone (ALONE)")
    args = parser.parse_args()
    duckdb = importlib.util.find_spec("duckdb") is not None
    before_env = None
    if args.before is not None:
        before_env = {**os.environ, "PYTHONPATH": str(args.before.resolve())}
    print(f"load average before: {os.getloadavg()[0]:.2f}", flush=True)
    with tempfile.TemporaryDirectory() as out:
        for path in args.file:
            floor = f"{shlex.quote(sys.executable)} -m isal.igzip -d -c {shlex.quote(str(path))}"
            floor += " | wc -l"
            audit = [str(BIN / "instantcert"), "audit-block", str(path), "--seed", "1"]
            audit += ["--out", out]
            runs: dict[str, list[tuple[float, float]]] = {}
            for _ in range(args.runs):
                runs.setdefault("floor", []).append(timed(floor))
                runs.setdefault("audit", []).append(timed(audit))
                if before_env is not None:
                    runs.setdefault("before", []).append(timed(audit, before_env))
                if args.alone:
                    alone = [sys.executable, "-c", ALONE, str(path)]
                    runs.setdefault("alone", []).append(timed(alone))
                if duckdb:
                    duck = [sys.executable, "-c", DUCKDB, str(path)]
                    runs.setdefault("duckdb", []).append(timed(duck))
            wall = {k: statistics.median(w for w, _ in v) for k, v in runs.items()}
            cpu = {k: statistics.median(c for _, c in v) for k, v in runs.items()}
            line = f"{path.name}: floor {wall['floor']:.2f} s, audit {wall['audit']:.2f} s"
            line += f" = {wall['audit'] / wall['floor']:.2f} x floor (target <= 1.5)"
            if duckdb:
                line += f", duckdb {wall['duckdb']:.2f} s: audit / duckdb"
                line += f" = {wall['audit'] / wall['duckdb']:.2f} (target <= 1)"
            if args.alone:
                line += f"; the audit alone {wall['alone']:.2f} s"
                line += f" = {wall['alone'] / wall['floor']:.2f} x floor"
            if before_env is not None:
                line += f"; audit before {wall['before']:.2f} s"
            print(line)
            print("  CPU (median):", ", ".join(f"{k} {c:.2f} s" for k, c in cpu.items()))
            cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
            print(
                f"  bound: the audit's CPU over the {cores} cores, {cpu['audit'] / cores:.2f} s, "
                f"is the least wall time it can take here; the target, 1.5 x floor, is "
                f"{1.5 * wall['floor']:.2f} s"
            )
            print(
                "  runs (wall, CPU):",
                {k: [(round(w, 2), round(c, 2)) for w, c in v] for k, v in runs.items()},
            )
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
