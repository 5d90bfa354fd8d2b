"""One whole block audited end to end, beside the inflate floor and DuckDB (issue 32, item 5).

    PYTHONPATH=$PWD python benchmarks/one_block.py FILE [FILE ...] [--runs 5]

For each block file (``.jsonl.gz``), alternately ``--runs`` times, each a whole process timed
from outside:

- floor:  ``python -m isal.igzip -d -c FILE | wc -l`` (the inflate the audit itself uses);
- audit:  ``instantcert audit-block FILE --seed 1`` (every block check, every report);
- duckdb: DuckDB reading the same file to count its lots (``read_json`` of the three columns,
  ``GROUP BY prize_cents``), when ``duckdb`` is installed (``pip install duckdb``: for this
  benchmark only, not a dependency).

Prints the medians, audit / floor (target: at most 1.5) and audit / duckdb (target: at most 1),
and the 1-minute load average before and after: on a shared machine every figure moves with it.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
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


def wall(command: list[str] | str) -> float:
    began = time.perf_counter()
    subprocess.run(
        command,
        shell=isinstance(command, str),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=True,
    )
    return time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="+", type=Path)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    duckdb = importlib.util.find_spec("duckdb") is not None
    print(f"load average before: {os.getloadavg()[0]:.2f}", flush=True)
    with tempfile.TemporaryDirectory() as out:
        for path in args.file:
            floor = f"{shlex.quote(sys.executable)} -m isal.igzip -d -c {shlex.quote(str(path))}"
            floor += " | wc -l"
            audit = [str(BIN / "instantcert"), "audit-block", str(path), "--seed", "1"]
            audit += ["--out", out]
            times: dict[str, list[float]] = {"floor": [], "audit": [], "duckdb": []}
            for _ in range(args.runs):
                times["floor"].append(wall(floor))
                times["audit"].append(wall(audit))
                if duckdb:
                    times["duckdb"].append(wall([sys.executable, "-c", DUCKDB, str(path)]))
            med = {k: statistics.median(v) for k, v in times.items() if v}
            line = f"{path.name}: floor {med['floor']:.2f} s, audit {med['audit']:.2f} s"
            line += f" = {med['audit'] / med['floor']:.2f} x floor (target <= 1.5)"
            if duckdb:
                line += f", duckdb {med['duckdb']:.2f} s: audit / duckdb"
                line += f" = {med['audit'] / med['duckdb']:.2f} (target <= 1)"
            print(line, "| runs:", {k: [round(x, 2) for x in v] for k, v in times.items()})
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
