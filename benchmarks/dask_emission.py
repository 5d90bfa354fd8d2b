"""An emission of block files audited locally and on a two-worker Dask cluster (issue 32).

    PYTHONPATH=$PWD python benchmarks/dask_emission.py [--workdir DIR] [--blocks 20]
                                                       [--runs 3] [--workers 2]
                                                       [--scheduler ADDRESS]

Writes ``--blocks`` whole robots blocks (2 000 000 units each, fixed seeds used nowhere else)
into ``--workdir`` once, starts ``dask scheduler`` and ``--workers`` ``dask worker`` processes
on this machine (one thread each, no nanny), then times, alternately, ``--runs`` times:

- local:   ``instantcert audit-block FILE… --seed 1``
- cluster: ``instantcert audit-block FILE… --seed 1 --scheduler ADDRESS``

each a whole process timed from outside (interpreter start, every block, every cross-block
pair, every report). The cluster is started once, before the runs, and its workers import
the audit's modules then: its start-up is a long-lived cluster's, not an emission's. Prints
each run, the medians, their ratio (the target: the cluster at most 1.5 x the local time on
the same machine, the engine's overhead), the
processes' CPU where it can be read, the load average before and after, and checks that the
two report.json files agree (verdicts, figures) but for what names the engine.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import distributed

BIN = Path(sys.executable).parent


def instantcert() -> list[str]:
    script = BIN / "instantcert"
    return [str(script)] if script.exists() else [sys.executable, "-m", "harness._cli"]


def write_blocks(workdir: Path, blocks: int) -> list[Path]:
    """``blocks`` whole robots blocks, written once (seeds fixed, used nowhere else)."""
    workdir.mkdir(parents=True, exist_ok=True)
    paths = []
    for n in range(1, blocks + 1):
        path = workdir / f"robots-100-{n:04d}.jsonl.gz"
        if not path.exists():
            seed = f"{0xDA5C0000 + n:064x}"
            command = [*instantcert(), "generate-block", "--game", "robots", "--seed", seed]
            command += ["--block-id", f"robots-100-{n:04d}", "-o", str(path)]
            subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        paths.append(path)
    return paths


class Cluster:
    """A scheduler and ``workers`` worker processes on this machine."""

    def __init__(self, workdir: Path, workers: int, address: str | None = None) -> None:
        self.processes: list[subprocess.Popen[bytes]] = []
        if address is not None:  # a cluster running elsewhere
            self.address: str = address
            return
        self.file = workdir / "scheduler.json"
        self.file.unlink(missing_ok=True)
        quiet: dict[str, Any] = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
        dask = str(BIN / "dask")
        scheduler = [dask, "scheduler", "--host", "127.0.0.1", "--port", "0"]
        scheduler += ["--no-dashboard", "--scheduler-file", str(self.file)]
        self.processes.append(subprocess.Popen(scheduler, **quiet))
        for n in range(workers):
            worker = [dask, "worker", "--scheduler-file", str(self.file), "--nthreads", "1"]
            worker += ["--no-nanny", "--no-dashboard", "--name", f"w{n + 1}"]
            self.processes.append(subprocess.Popen(worker, **quiet))
        for _ in range(600):
            if self.file.exists() and self.file.read_text().strip():
                break
            time.sleep(0.1)
        self.address = json.loads(self.file.read_text())["address"]
        connect: Any = distributed.Client
        with connect(self.address, timeout=30) as client:
            client.wait_for_workers(workers, timeout=120)
            # long-lived workers have the audit's modules loaded: so do these, before the runs
            client.run(importlib.import_module, "conformance._dask_audit")
            client.run(importlib.import_module, "conformance.checks.blocks")

    def cpu_seconds(self) -> float:
        """User + system CPU of the scheduler and workers so far (from /proc)."""
        total = 0.0
        tick = os.sysconf("SC_CLK_TCK")
        for process in self.processes:
            try:
                fields = Path(f"/proc/{process.pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += (int(fields[11]) + int(fields[12])) / tick
        return total

    def close(self) -> None:
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()


def timed(command: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the process and its children) of one whole run."""
    before = os.times()
    began = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - began
    after = os.times()
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command[:3])}… exited {done.returncode}: {done.stderr!r}")
    cpu = (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )
    return wall, cpu


def engine_free(path: Path) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(path.read_text())
    for key in ("run_id", "started_at", "finished_at"):
        doc.pop(key)
    for key in ("out", "engine"):
        doc["config"].pop(key, None)
    for check in doc["checks"]:
        check.pop("duration_s")
    for block in doc["blocks"]:
        block.pop("audited_by", None)
    return doc


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", default="/tmp/dask-emission", type=Path)
    parser.add_argument("--blocks", type=int, default=20)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--scheduler",
        default=None,
        help="a running cluster's scheduler instead of one started here (its workers must "
        "read --workdir's files at the same paths); its processes' CPU is then not counted",
    )
    args = parser.parse_args()
    paths = write_blocks(args.workdir, args.blocks)
    print(f"load average before: {os.getloadavg()[0]:.2f}", flush=True)
    cluster = Cluster(args.workdir, args.workers, args.scheduler)
    files = [str(p) for p in paths]
    local_out, cluster_out = args.workdir / "report-local", args.workdir / "report-cluster"
    local_cmd = [*instantcert(), "audit-block", *files, "--seed", "1", "--out", str(local_out)]
    cluster_cmd = [*instantcert(), "audit-block", *files, "--seed", "1"]
    cluster_cmd += ["--out", str(cluster_out), "--scheduler", cluster.address]
    local: list[tuple[float, float]] = []
    remote: list[tuple[float, float]] = []
    try:
        for run in range(args.runs):
            local.append(timed(local_cmd))
            spent = cluster.cpu_seconds()
            wall, cpu = timed(cluster_cmd)
            remote.append((wall, cpu + cluster.cpu_seconds() - spent))
            print(
                f"run {run + 1}: local {local[-1][0]:.2f} s (CPU {local[-1][1]:.2f} s), "
                f"cluster {remote[-1][0]:.2f} s (CPU {remote[-1][1]:.2f} s, client + "
                f"scheduler + workers), load {os.getloadavg()[0]:.2f}",
                flush=True,
            )
    finally:
        cluster.close()
    same = engine_free(local_out / "report.json") == engine_free(cluster_out / "report.json")
    here = statistics.median(w for w, _ in local)
    there = statistics.median(w for w, _ in remote)
    print(
        f"{args.blocks} blocks, {args.workers} workers, medians of {args.runs}: local "
        f"{here:.2f} s (CPU {statistics.median(c for _, c in local):.2f} s), cluster "
        f"{there:.2f} s (CPU {statistics.median(c for _, c in remote):.2f} s): "
        f"cluster / local = {there / here:.2f} (target <= 1.5: {there <= 1.5 * here})"
    )
    print(f"reports agree but for the engine: {'yes' if same else 'NO'}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
