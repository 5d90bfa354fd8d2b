"""Profile (function in a warm process): the block audit, measured against the floor of reading.

The audit here is a function call in this already-started process: no interpreter start, no
imports, no reports. ``benchmarks/commands.py`` times ``instantcert audit-block`` as a user runs
it, as a whole process; the README quotes that.

In one run, on the same 2,000,000-unit robots ``.jsonl.gz`` file:

1. the floor: ``gzip -dc FILE | wc -l``;
2. the full audit: ``conformance.audit_block_file(FILE)``, i.e. every block check, whole block
   (header, sequence, every line and ticket re-evaluated, lot table, payout, cap, randomness,
   slices), exactly what ``instantcert audit-block FILE`` runs;
3. unless ``--no-http``: the same block checks over HTTP (``HttpAdapter``), robots only, whole
   block, against ``benchmarks/stored_block_server.py FILE``: a minimal server that sends the
   same block's bytes, stored, as a vendor's implementation that stores its blocks would.
   This measures the harness's HTTP path; the target is HTTP audit <= 2 x file audit;
4. unless ``--no-http`` or ``--no-reference-http``: once, the same against the reference
   server (``instantcert serve``), reported apart: it computes every unit it sends (issue 4:
   no block stored) on its worker processes, so its generator, not the harness, sets that pace.

Floor, file audit and stored-block HTTP audit alternate ``--repeat`` times; medians are compared
with the targets: audit < 20 s, audit <= 3 x floor, HTTP audit <= 2 x file audit. The load
average is printed too: on a shared machine, wall figures move with it (CPU figures much less).

    python benchmarks/audit.py [--file F] [--workdir D] [--repeat 3] [--no-http]
                               [--no-reference-http]

Without ``--file`` the reference block ``robots-100-0001`` (seed 00 01 .. 1f) is written to
``--workdir`` once and reused.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

TARGET_SECONDS = 20.0
TARGET_FLOOR_RATIO = 3.0
TARGET_HTTP_RATIO = 2.0


def block_file(workdir: Path) -> Path:
    from reference._blockfile import write_block_file
    from reference._blocks import Block, default_block_id

    path = workdir / "robots-100-0001.jsonl.gz"
    if not path.exists():
        workdir.mkdir(parents=True, exist_ok=True)
        # not a seed of conformance/public_seeds.yaml: those blocks fail the audit on purpose
        seed = hashlib.sha256(b"instantcert benchmarks/audit.py").digest()
        block = Block("robots", 100, default_block_id("robots", 100, 1), seed)
        print(f"writing {path} (once) ...", flush=True)
        began = time.perf_counter()
        write_block_file(path, block)
        print(f"  written in {time.perf_counter() - began:.1f} s", flush=True)
    return path


def cpu_seconds() -> float:
    """CPU time of this process and of its finished children (workers, gzip, wc)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def floor(path: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of ``gzip -dc FILE | wc -l``."""
    cpu, began = cpu_seconds(), time.perf_counter()
    out = subprocess.run(
        f"gzip -dc '{path}' | wc -l", shell=True, check=True, capture_output=True, text=True
    )
    elapsed = time.perf_counter() - began
    assert int(out.stdout.split()[0]) == 2_000_001, out.stdout
    return elapsed, cpu_seconds() - cpu


def file_audit(path: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of ``audit_block_file(FILE)``: every block check."""
    from conformance import audit_block_file

    cpu, began = cpu_seconds(), time.perf_counter()
    result = audit_block_file(path)
    elapsed = time.perf_counter() - began
    if not result.passed:
        bad = {r: o for r, o in result.requirements.items() if o in ("fail", "error")}
        raise SystemExit(f"the reference block failed the audit: {bad}")
    return elapsed, cpu_seconds() - cpu


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Server:
    """A target server in a child process, stopped on exit: ``with Server(argv) as url``."""

    def __init__(self, argv: list[str], what: str) -> None:
        self.port = _free_port()
        self.argv = [a.replace("{port}", str(self.port)) for a in argv]
        self.what = what

    def __enter__(self) -> str:
        self.process = subprocess.Popen(
            self.argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        from harness._http_adapter import HttpAdapter

        url = f"http://127.0.0.1:{self.port}"
        adapter = HttpAdapter(url, timeout=120.0)
        try:
            for _ in range(300):
                try:
                    adapter.describe()
                    return url
                except Exception:
                    if self.process.poll() is not None:
                        break
                    time.sleep(0.2)
            raise SystemExit(f"{self.what} did not start: {' '.join(self.argv)}")
        finally:
            adapter.close()

    def __exit__(self, *exc: object) -> None:
        self.process.terminate()
        self.process.wait(10)


def reference_server(workdir: Path) -> Server:
    """``instantcert serve``: blocks computed on request by the reference generator."""
    argv = [sys.executable, "-c", "from harness._cli import entry_point; entry_point()"]
    db = workdir / "bench-reference.sqlite3"
    db.unlink(missing_ok=True)
    argv += ["serve", "--port", "{port}", "--db", str(db)]
    return Server(argv, "the reference server")


def stored_server(path: Path) -> Server:
    """``benchmarks/stored_block_server.py FILE``: the same block's bytes, stored."""
    script = Path(__file__).with_name("stored_block_server.py")
    return Server([sys.executable, str(script), str(path), "--port", "{port}"], "stored server")


def http_audit(url: str) -> tuple[float, float]:
    """(wall, CPU of this process and its workers) seconds of the block checks on the robots
    block at ``url``, whole: like for like with the file audit (one block, so no
    ``unrelated_blocks``, which a file cannot show either)."""
    from conformance import CheckContext, registered_checks
    from conformance._execute import execute
    from conformance._settings import Settings
    from harness._http_adapter import HttpAdapter

    adapter = HttpAdapter(url, timeout=120.0)
    try:
        implementation = adapter.describe()
        settings = Settings.parse(
            {
                "games": ["robots"],
                "block_mode": "whole",
                "block_sample_units": None,
                "blocks_per_stake": 1,
            },
            "benchmark settings",
        )
        cpu, began = cpu_seconds(), time.perf_counter()
        for check_id, check in sorted(registered_checks().items()):
            if check.capability != "blocks" or check_id == "blocks.unrelated_blocks":
                continue
            outcome = execute(check, CheckContext(adapter, implementation, settings, 0))
            if outcome.outcome in ("fail", "error"):
                raise SystemExit(f"{check_id} over HTTP: {outcome.outcome}: {outcome.message}")
        return time.perf_counter() - began, cpu_seconds() - cpu
    finally:
        adapter.close()


def http_read(url: str) -> tuple[float, int]:
    """(wall seconds, unit lines) of merely reading the robots block at ``url`` through
    ``HttpBlockStream.chunks()``: the floor of the HTTP audit against that server."""
    from harness._http_adapter import HttpAdapter

    adapter = HttpAdapter(url, timeout=120.0)
    try:
        (entry,) = adapter.list_blocks("robots", 100)[:1]
        began = time.perf_counter()
        stream = adapter.read_block(entry["block_id"])
        lines = sum(chunk.count(b"\n") for chunk in stream.chunks())
        return time.perf_counter() - began, lines
    finally:
        adapter.close()


def _verdict(ok: bool) -> str:
    return "yes" if ok else "NO"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", type=Path, help="a 2,000,000-unit robots .jsonl.gz block file")
    parser.add_argument(
        "--workdir", type=Path, default=Path(tempfile.gettempdir()) / "instantcert-bench"
    )
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-http", action="store_true", help="skip both HTTP measurements")
    parser.add_argument(
        "--no-reference-http",
        action="store_true",
        help="skip the HTTP measurement against the (generating) reference server",
    )
    args = parser.parse_args()
    path = args.file or block_file(args.workdir)
    print("profile (function in a warm process): the audit is a call in this process")
    print(f"file: {path} ({path.stat().st_size / 1e6:.1f} MB), cores: {os.cpu_count()}")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    floors, audits, floor_cpu, audit_cpu, https, http_cpu = [], [], [], [], [], []
    # imports (every check module, scipy) outside the timings: a fresh process pays ~1.3 s once
    for module in ("conformance.checks", "conformance._stats"):
        importlib.import_module(module)
    importlib.import_module("conformance.checks").load_every_check()

    with ExitStack() as stack:
        stored = None if args.no_http else stack.enter_context(stored_server(path))
        read_stored = None if stored is None else http_read(stored)
        for n in range(args.repeat):
            wall, cpu = floor(path)
            floors.append(wall)
            floor_cpu.append(cpu)
            wall, cpu = file_audit(path)
            audits.append(wall)
            audit_cpu.append(cpu)
            line = (
                f"  run {n + 1}: gzip -dc | wc -l {floors[-1]:.2f} s (CPU {floor_cpu[-1]:.2f} s), "
                f"file audit {audits[-1]:.2f} s (CPU {audit_cpu[-1]:.2f} s)"
            )
            if stored is not None:
                wall, cpu = http_audit(stored)
                https.append(wall)
                http_cpu.append(cpu)
                line += f", HTTP audit (stored block) {wall:.2f} s (CPU {cpu:.2f} s, harness only)"
            print(f"{line}, load {os.getloadavg()[0]:.2f}", flush=True)
    f, a = statistics.median(floors), statistics.median(audits)
    print(
        f"floor (gzip -dc FILE | wc -l), median: {f:.2f} s, "
        f"CPU {statistics.median(floor_cpu):.2f} s"
    )
    print(
        f"full file audit (every block check), median: {a:.2f} s, "
        f"CPU {statistics.median(audit_cpu):.2f} s on {os.cpu_count()} cores"
    )
    print(f"  under {TARGET_SECONDS:.0f} s: {_verdict(a < TARGET_SECONDS)}")
    print(
        f"  audit / floor = {a / f:.2f} (target <= {TARGET_FLOOR_RATIO:.0f}): "
        f"{_verdict(a / f <= TARGET_FLOOR_RATIO)}"
    )
    if args.no_http:
        return
    h = statistics.median(https)
    assert read_stored is not None
    print(
        f"HTTP audit, block stored by the server (benchmarks/stored_block_server.py: the same "
        f"bytes as application/x-ndjson), median: {h:.2f} s, harness CPU "
        f"{statistics.median(http_cpu):.2f} s; reading its stream alone: {read_stored[0]:.2f} s "
        f"({read_stored[1]} unit lines)"
    )
    print(
        f"  HTTP / file = {h / a:.2f} (target <= {TARGET_HTTP_RATIO:.0f}): "
        f"{_verdict(h / a <= TARGET_HTTP_RATIO)}"
    )
    if args.no_reference_http:
        return
    with reference_server(args.workdir) as url:
        r, r_cpu = http_audit(url)
        read, lines = http_read(url)
    print(
        f"HTTP audit from the reference server (instantcert serve), one run: {r:.2f} s, "
        f"harness CPU {r_cpu:.2f} s; HTTP / file = {r / a:.2f}"
    )
    print(
        f"  bounded by the reference generator, not the harness: it computes every unit it "
        f"sends (no block stored, issue 4); reading its stream alone takes {read:.2f} s "
        f"({lines / read / 1000:.0f}000 units/s)"
    )


if __name__ == "__main__":
    main()
