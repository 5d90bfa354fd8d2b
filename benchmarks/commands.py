"""Whole ``instantcert`` commands timed as a user runs them, each beside its floor (issue 12).

Every figure is a whole process (interpreter start, imports, reports, workers and all), timed
from outside; the floor is the plain shell pipeline that moves the same bytes, run in the same
session, alternating with the command, so both see the same machine load. Each row reports the
median of ``--runs`` runs (default 3; ``--quick``: 1), the floor's median, their ratio, the CPU
time of the command's processes (user + system, median; for the HTTP rows, ``+ server``: the
CPU of the ``instantcert serve`` process over the same runs, median, its block workers aside),
and the peak memory of its whole process tree, from one more run of the command (sampled every
20 ms from /proc: each process's proportional set size, so pages a forked worker shares with
its parent count once; ``_memory``). The timed runs are not sampled: only waited for.

    PYTHONPATH=$PWD python benchmarks/commands.py [NAME ...] [--runs N] [--quick]
                                                  [--workdir DIR] [--markdown FILE]

NAMEs (default: all but certify-full, which takes minutes and runs only when named):

  generate-robots    instantcert generate-block of a full robots block (.jsonl.gz)
  generate-eldorado  the same, eldorado at 1 EUR (900 000 units)
  audit-robots       instantcert audit-block of that robots file  vs  gzip -dc FILE | wc -l
  audit-eldorado     instantcert audit-block of the eldorado file vs  gzip -dc FILE | wc -l
  audit-robots-deleted-line
                     instantcert audit-block of the robots file less one unit line, vs the
                     audit of the clean file (issue 12: at most 1.5 x)
  serve              curl of a whole robots block from instantcert serve  vs  cat FILE | wc -l
  evaluate-robots    instantcert evaluate < 200 000 robots tickets  vs  cat FILE | wc -l
  evaluate-eldorado  the same with eldorado tickets
  certify-quick      instantcert certify --profile quick (built-in reference, in-process)
  certify-http       the same against instantcert serve over HTTP
  certify-http-20ms  the same behind benchmarks/delay_proxy.py (20 ms added per request)
  certify-full       instantcert certify (full profile, in-process): one timed run only
  test-tier          the README's test command's tier, `python -m pytest` from the clone's
                     root (every core, as pyproject's addopts say): one timed run, no memory
                     run (named only, like certify-full)

--figures FILE (benchmarks/figures.json) merges each row measured into that file, the one
source of the timings the docs quote (scripts/doc_figures.py writes them into the pages).

Block files are written once per work directory (by the generate rows, or before the first
row that needs them) from a fixed seed used nowhere else, so they are fresh to the project's
tests and repeatable. The table printed last (and written to ``--markdown``) shows the exact
command of each row, with ``W`` for the work directory. On a shared machine wall times move
with the load: the 1-minute load average is printed before and after.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import hashlib
import json
import os
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from _memory import tree_kib

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
ONE_RUN = ("certify-full", "test-tier")  # minutes each: one timed run
NO_MEMORY_RUN = ("test-tier",)  # its peak is not a figure anyone quotes: not run twice
SEED = hashlib.sha256(b"instantcert benchmarks/commands.py block seed").hexdigest()
MASTER_SEED = hashlib.sha256(b"instantcert benchmarks/commands.py master seed").hexdigest()
EVALUATE_TICKETS = 200_000
DELETED_LINE = 1_000_002  # the header is line 1, so this is unit 1 000 000
SAMPLE_SECONDS = 0.02


def instantcert() -> list[str]:
    """The ``instantcert`` console script of this interpreter, or the same entry point."""
    script = Path(sys.executable).with_name("instantcert")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from harness._cli import entry_point; entry_point()"]


def compile_project() -> None:
    """Bytecode of the project's packages, as ``pip install`` leaves it (quietly, once)."""
    import compileall
    import importlib.util

    for package in ("contract", "reference", "conformance", "harness"):
        spec = importlib.util.find_spec(package)
        if spec is not None and spec.submodule_search_locations:
            for folder in spec.submodule_search_locations:
                compileall.compile_dir(folder, quiet=2)


# -- measuring one process tree ---------------------------------------------------------------


@dataclass
class Run:
    seconds: float
    returncode: int
    cpu_seconds: float = 0.0  # user + system of the tree's processes, once they have exited
    server_cpu_seconds: float | None = None  # the background server's, over the run (HTTP rows)
    peak_kib: int | None = None  # the memory run's only (``sample=True``)


def process_cpu(pid: int) -> float | None:
    """User + system CPU seconds of a running process so far (Linux /proc), or None."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_shell(command: str, env: dict[str, str], log: Path, *, sample: bool = False) -> Run:
    """Run ``command`` under bash (pipefail), timing it; with ``sample``, its tree's memory is
    sampled every ``SAMPLE_SECONDS`` instead.

    A timed run only waits for the process: reading ``/proc/PID/smaps_rollup`` walks the page
    tables of every process of the tree, a CPU cost on the same 2 cores (about a tenth of an
    eldorado audit's time at 20 ms, measured), and a polling loop would see the end late. So
    memory has a run of its own (``measure``), whose time is not in the table."""
    with open(log, "ab") as out:
        out.write(f"$ {command}\n".encode())
        out.flush()
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        began = time.perf_counter()
        process = subprocess.Popen(
            ["bash", "-o", "pipefail", "-c", command], env=env, stdout=out, stderr=out
        )
        peak = None
        if sample:
            peak = 0
            while process.poll() is None:
                peak = max(peak, tree_kib(process.pid))
                time.sleep(SAMPLE_SECONDS)
        process.wait()
        seconds = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return Run(seconds, process.returncode, cpu, peak_kib=peak)


# -- servers the HTTP rows need -----------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_ready(url: str, process: subprocess.Popen[bytes], seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"{url}: the server exited with status {process.returncode}")
        try:
            with urllib.request.urlopen(url + "/v1/implementation", timeout=2):
                return
        except OSError:
            time.sleep(0.2)
    raise SystemExit(f"{url}: not answering after {seconds:.0f} s")


@contextlib.contextmanager
def background(
    command: list[str], url: str, env: dict[str, str], log: Path
) -> Iterator[subprocess.Popen[bytes]]:
    with open(log, "ab") as out:
        process = subprocess.Popen(command, env=env, stdout=out, stderr=out)
    try:
        wait_ready(url, process)
        yield process
    finally:
        process.terminate()
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


# -- the rows -----------------------------------------------------------------------------------


@dataclass
class Row:
    name: str
    what: str
    command: str
    floor: str | None = None
    target: str = ""
    runs: list[Run] = field(default_factory=list)
    floor_runs: list[Run] = field(default_factory=list)
    memory_run: Run | None = None

    def median(self, runs: list[Run]) -> float:
        return statistics.median(r.seconds for r in runs)


class Bench:
    """The work directory, the environment, and everything rows share (files, servers)."""

    def __init__(self, workdir: Path, runs: int) -> None:
        self.workdir = workdir
        self.runs = runs
        self.env = dict(os.environ)
        # pip compiles an installed package's bytecode; a checkout run with
        # PYTHONDONTWRITEBYTECODE would compile every module on every run instead, a cost no
        # user pays. So the commands may write bytecode, and it is written once before timing.
        self.env.pop("PYTHONDONTWRITEBYTECODE", None)
        compile_project()
        self.log = workdir / "commands.log"
        self.ic = " ".join(instantcert())
        self.stack = contextlib.ExitStack()
        self._serve_url: str | None = None
        self._proxy_url: str | None = None
        self.server_pid: int | None = None  # instantcert serve's, once started

    def show(self, command: str) -> str:
        """The command as the table prints it: ``instantcert`` and ``W`` for the work dir."""
        return command.replace(self.ic, "instantcert").replace(str(self.workdir), "W")

    def file(self, game: str) -> Path:
        return self.workdir / f"{game}-100-bench.jsonl.gz"

    def generate_command(self, game: str) -> str:
        path = self.file(game)
        return (
            f"{self.ic} generate-block --game {game} --seed {SEED} "
            f"--block-id {game}-100-bench -o {path}"
        )

    def ensure_file(self, game: str) -> Path:
        path = self.file(game)
        if not path.exists():
            print(f"  (writing {self.show(str(path))} once)", flush=True)
            result = run_shell(self.generate_command(game), self.env, self.log)
            if result.returncode:
                raise SystemExit(f"generate-block {game} failed: see {self.log}")
        return path

    def tickets(self, game: str) -> Path:
        path = self.workdir / f"{game}-tickets.txt"
        if not path.exists():
            with gzip.open(self.ensure_file(game), "rt") as source, open(path, "w") as out:
                next(source)
                for _, line in zip(range(EVALUATE_TICKETS), source, strict=False):
                    out.write(json.loads(line)["ticket"] + "\n")
        return path

    def serve_url(self) -> str:
        if self._serve_url is None:
            port = free_port()
            db = self.workdir / f"serve-{port}.sqlite3"
            command = [*instantcert(), "serve", "--port", str(port), "--db", str(db)]
            command += ["--seed", MASTER_SEED, "--log-level", "warning"]
            url = f"http://127.0.0.1:{port}"
            process = self.stack.enter_context(background(command, url, self.env, self.log))
            self._serve_url, self.server_pid = url, process.pid
        return self._serve_url

    def proxy_url(self) -> str:
        if self._proxy_url is None:
            upstream = self.serve_url()
            port = free_port()
            command = [sys.executable, str(HERE / "delay_proxy.py"), upstream]
            command += ["--port", str(port), "--delay-ms", "20"]
            url = f"http://127.0.0.1:{port}"
            self.stack.enter_context(background(command, url, self.env, self.log))
            self._proxy_url = url
        return self._proxy_url

    def served_copy(self) -> tuple[str, Path]:
        """The URL of a whole robots block on ``serve``, and a file of the same bytes."""
        url = self.serve_url() + "/v1/blocks/robots-100-0001"
        path = self.workdir / "served-robots-100-0001.jsonl"
        if not path.exists():
            print("  (saving the served block once, for the floor)", flush=True)
            run_shell(f"curl -sS --fail {url} -o {path}", self.env, self.log)
        return url, path

    def report_dir(self, name: str) -> Path:
        path = self.workdir / f"report-{name}"
        shutil.rmtree(path, ignore_errors=True)
        return path


def rows(bench: Bench) -> dict[str, Callable[[], Row]]:
    ic = bench.ic

    def generate(game: str) -> Callable[[], Row]:
        def make() -> Row:
            units = "2 000 000" if game == "robots" else "900 000"
            path = bench.file(game)
            return Row(
                f"generate-{game}",
                f"`generate-block` of a full {game} block ({units} units, .jsonl.gz)",
                bench.generate_command(game),
                f"gzip -dc {path} | gzip -4 > /dev/null",
                "≤ 15 s, < 500 MB" if game == "robots" else "",
            )

        return make

    def audit(game: str) -> Callable[[], Row]:
        def make() -> Row:
            path = bench.ensure_file(game)
            out = bench.report_dir(f"audit-{game}")
            return Row(
                f"audit-{game}",
                f"`audit-block` of a full {game} block (.jsonl.gz)",
                f"{ic} audit-block {path} --out {out} --seed 1",
                f"gzip -dc {path} | wc -l",
                "≤ 2 × floor",
            )

        return make

    def audit_deleted() -> Row:
        clean = bench.ensure_file("robots")
        broken = bench.workdir / "robots-100-bench-line-deleted.jsonl.gz"
        if not broken.exists():  # unit 1 000 000 missing: a sequence fault in mid-block
            run_shell(
                f"gzip -dc {clean} | sed '{DELETED_LINE}d' | gzip -4 > {broken}",
                bench.env,
                bench.log,
            )
        out = bench.report_dir("audit-robots-deleted-line")
        return Row(
            "audit-robots-deleted-line",
            "`audit-block` of that robots block with one unit line deleted, beside the clean"
            " block's audit as the floor",
            f"{ic} audit-block {broken} --out {out} --seed 1",
            f"{ic} audit-block {clean} --out {out}-clean --seed 1",
            "≤ 1.5 × floor",
        )

    def serve() -> Row:
        url, copy = bench.served_copy()
        return Row(
            "serve",
            "`serve` streaming a whole robots block",
            f"curl -sS --fail {url} | wc -l",
            f"cat {copy} | wc -l",
            "≤ 4 × floor",
        )

    def evaluate(game: str) -> Callable[[], Row]:
        def make() -> Row:
            tickets = bench.tickets(game)
            return Row(
                f"evaluate-{game}",
                f"`evaluate` of {EVALUATE_TICKETS:,} {game} tickets on stdin",
                f"{ic} evaluate --game {game} < {tickets} | wc -l",
                f"cat {tickets} | wc -l",
                "",
            )

        return make

    def certify(
        name: str, profile: str, target: Callable[[], str] | None, goal: str
    ) -> Callable[[], Row]:
        def make() -> Row:
            out = bench.report_dir(name)
            where = f" --target {target()}" if target is not None else ""
            profile_option = f" --profile {profile}" if profile != "full" else ""
            kind = "in-process" if target is None else "over HTTP"
            return Row(
                name,
                f"`certify` {profile} profile, built-in reference, {kind}"
                + (", 20 ms added per request" if name.endswith("20ms") else ""),
                f"{ic} certify{profile_option}{where} --out {out} --seed 1",
                None,
                goal,
            )

        return make

    return {
        "generate-robots": generate("robots"),
        "generate-eldorado": generate("eldorado"),
        "audit-robots": audit("robots"),
        "audit-eldorado": audit("eldorado"),
        "audit-robots-deleted-line": audit_deleted,
        "serve": serve,
        "evaluate-robots": evaluate("robots"),
        "evaluate-eldorado": evaluate("eldorado"),
        "certify-quick": certify("certify-quick", "quick", None, ""),
        "certify-http": certify("certify-http", "quick", bench.serve_url, "≤ 20 s"),
        "certify-http-20ms": certify(
            "certify-http-20ms", "quick", bench.proxy_url, "≤ 2 × certify-http"
        ),
        "certify-full": certify("certify-full", "full", None, "≤ 90 s"),
        "test-tier": lambda: Row(
            "test-tier",
            "the fast test tier (`pytest`, the README's test command)",
            f"cd {ROOT} && {sys.executable} -m pytest -q -p no:cacheprovider",
            None,
            "≤ 5 min on a quiet 2-core machine",
        ),
    }


DEFAULT = [
    "generate-robots",
    "generate-eldorado",
    "audit-robots",
    "audit-eldorado",
    "audit-robots-deleted-line",
    "serve",
    "evaluate-robots",
    "evaluate-eldorado",
    "certify-quick",
    "certify-http",
    "certify-http-20ms",
]


def measure(bench: Bench, row: Row) -> Row:
    runs = 1 if row.name in ONE_RUN else bench.runs
    for n in range(runs):
        if row.name.startswith("generate"):
            bench.file(row.name.split("-", 1)[1]).unlink(missing_ok=True)
        server = bench.server_pid if row.name.startswith(("certify-http", "serve")) else None
        server_before = None if server is None else process_cpu(server)
        result = run_shell(row.command, bench.env, bench.log)
        server_after = None if server is None else process_cpu(server)
        if server_before is not None and server_after is not None:
            result.server_cpu_seconds = server_after - server_before
        row.runs.append(result)
        floor = ""
        if row.floor is not None:
            row.floor_runs.append(run_shell(row.floor, bench.env, bench.log))
            floor = f", floor {row.floor_runs[-1].seconds:.2f} s"
        status = "" if result.returncode == 0 else f" (exit status {result.returncode})"
        if result.server_cpu_seconds is not None:
            status += f", server CPU {result.server_cpu_seconds:.1f} s"
        print(f"  {row.name} run {n + 1}/{runs}: {result.seconds:.2f} s{floor}{status}", flush=True)
    if row.name.startswith("generate"):
        bench.file(row.name.split("-", 1)[1]).unlink(missing_ok=True)
    if row.name in NO_MEMORY_RUN:
        return row
    row.memory_run = run_shell(row.command, bench.env, bench.log, sample=True)
    peak = (row.memory_run.peak_kib or 0) / 1024
    print(f"  {row.name} memory run: peak {peak:.0f} MB (its time is not counted)", flush=True)
    return row


def table(bench: Bench, done: list[Row]) -> str:
    lines = [
        "| what a user runs | median | floor (same run) | ratio | CPU (tree) | peak memory (tree) "
        "| target | command |",
        "|---|---:|---:|---:|---:|---:|---|---|",
    ]
    for row in done:
        median = row.median(row.runs)
        runs = f"{median:.2f} s" + (f" (n={len(row.runs)})" if len(row.runs) != 1 else " (n=1)")
        codes = {r.returncode for r in row.runs}
        if codes != {0}:
            runs += f", exit {sorted(codes)}"
        floor = ratio = "—"
        command = f"`{bench.show(row.command)}`"
        if row.floor_runs and row.floor is not None:
            floor_median = row.median(row.floor_runs)
            floor = f"{floor_median:.2f} s"
            ratio = f"{median / floor_median:.1f} ×" if floor_median > 0 else "—"
            command += f" vs `{bench.show(row.floor)}`"
        peak = ((row.memory_run.peak_kib or 0) if row.memory_run else 0) / 1024
        command = command.replace("|", "\\|")
        cpu = f"{statistics.median(r.cpu_seconds for r in row.runs):.1f} s"
        served = [r.server_cpu_seconds for r in row.runs if r.server_cpu_seconds is not None]
        if served:
            cpu += f" + server {statistics.median(served):.1f} s"
        cells = [row.what, runs, floor, ratio, cpu, f"{peak:.0f} MB", row.target, command]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def merge_figures(path: Path, bench: Bench, row: Row, load_at_start: float) -> None:
    """Row ``row`` into the figures file ``path`` (made if missing), its other rows kept."""
    doc = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {"rows": {}}
    served = [r.server_cpu_seconds for r in row.runs if r.server_cpu_seconds is not None]
    cpu = f"{statistics.median(r.cpu_seconds for r in row.runs):.1f} s"
    if served:
        cpu += f" + server {statistics.median(served):.1f} s"
    floor = round(row.median(row.floor_runs), 2) if row.floor_runs else None
    median = round(row.median(row.runs), 2)
    doc["rows"][row.name] = {
        "what": row.what,
        "median_s": median,
        "runs": len(row.runs),
        "floor_s": floor,
        "ratio": round(median / floor, 1) if floor else None,
        "cpu": cpu,
        "peak_mb": round(row.memory_run.peak_kib / 1024)
        if row.memory_run and row.memory_run.peak_kib
        else None,
        "command": bench.show(row.command)
        .replace(sys.executable, "python")
        .replace(str(ROOT), "."),
        "exit_codes": sorted({r.returncode for r in row.runs}),
        "measured": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "cores": os.cpu_count(),
        "load": f"1-minute load average {load_at_start:.2f} at the series' start, "
        f"{os.getloadavg()[0]:.2f} after this row",
    }
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("names", nargs="*", help="rows to run (default: all but certify-full)")
    parser.add_argument("--runs", type=int, default=3, help="runs per row (default 3)")
    parser.add_argument("--quick", action="store_true", help="one run per row")
    parser.add_argument("--workdir", type=Path, default=None, help="default: a temporary dir")
    parser.add_argument("--markdown", type=Path, default=None, help="also write the table here")
    parser.add_argument(
        "--figures",
        type=Path,
        default=None,
        help="merge each row into this figures file (benchmarks/figures.json)",
    )
    args = parser.parse_args()
    if args.runs < 1:
        parser.error(f"--runs {args.runs}: expected 1 or more")
    with contextlib.ExitStack() as scope:
        if args.workdir is None:
            workdir = Path(scope.enter_context(tempfile.TemporaryDirectory(prefix="ic-bench-")))
        else:
            workdir = args.workdir.resolve()
            workdir.mkdir(parents=True, exist_ok=True)
        bench = Bench(workdir, 1 if args.quick else args.runs)
        scope.enter_context(bench.stack)
        makers = rows(bench)
        names = args.names or DEFAULT
        unknown = [n for n in names if n not in makers]
        if unknown:
            parser.error(f"unknown row(s) {unknown!r}: expected some of {sorted(makers)}")
        load = os.getloadavg()[0]
        print(f"work directory {workdir}; 1-minute load average {load:.2f}", flush=True)
        done = []
        for name in names:
            print(f"{name} ...", flush=True)
            done.append(measure(bench, makers[name]()))
            print(table(bench, done[-1:]).splitlines()[-1], flush=True)
            if args.markdown is not None:  # after every row: an interrupted run keeps its rows
                args.markdown.write_text(table(bench, done) + "\n")
            if args.figures is not None:
                merge_figures(args.figures, bench, done[-1], load)
        print()
        print(table(bench, done))
        print()
        print(
            f"{time.strftime('%Y-%m-%d %H:%M %Z')}, {os.cpu_count()} cores, "
            f"1-minute load average {load:.2f} at start, {os.getloadavg()[0]:.2f} at end; "
            f"W = the work directory; log of every command: {bench.show(str(bench.log))}"
        )


if __name__ == "__main__":
    main()
