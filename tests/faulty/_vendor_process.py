"""A vendor written from the contract alone, served by its own HTTP server as a separate
process (``tests/faulty/independent_http``, ``independent_http2``): started on a free port,
waited for until ``GET /v1/implementation`` answers, stopped with SIGTERM; and certified by a
quick run of the CLI, as a lab would type it (``passes_a_quick_run``)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def vendor_process(module: str, store: Path, *options: str, start_s: float = 60.0) -> Iterator[str]:
    """``python -m module --port PORT --db store *options``, its URL once it answers (within
    ``start_s``); stopped (SIGTERM to its process group) at the end."""
    port = free_port()
    server = subprocess.Popen(
        [
            *(sys.executable, "-m", module),
            *("--port", str(port), "--db", str(store), *options),
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + start_s
        while True:
            try:
                requests.get(f"{url}/v1/implementation", timeout=2).raise_for_status()
                break
            except requests.RequestException:
                assert server.poll() is None, server.stderr and server.stderr.read()
                assert time.monotonic() < deadline, f"{module} did not start in {start_s:g} s"
                time.sleep(0.2)
        yield url
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)


def passes_a_quick_run(url: str, tmp_path: Path, expected: set[tuple[str, str]]) -> None:
    """``instantcert certify --target url --profile quick`` exits 0, no requirement failed or
    errored, and the reservations are exactly ``expected`` ((requirement, basis) pairs)."""
    out = tmp_path / "report"
    run = subprocess.run(
        [
            str(Path(sys.executable).parent / "instantcert"),
            *("certify", "--target", url, "--profile", "quick", "--out", str(out)),
        ],
        capture_output=True,
        text=True,
        timeout=900,
    )
    report = json.loads((out / "report.json").read_text())
    bad = {
        r["id"]: r["message"][:300]
        for r in report["requirements"]
        if r["outcome"] in ("fail", "error")
    }
    assert run.returncode == 0 and not bad, (run.stdout[-2000:], bad)
    reserved = {
        (rid, reservation["basis"])
        for reservation in report["verdict"]["reservations"]
        for rid in reservation["requirements"]
    }
    assert reserved == expected, reserved
