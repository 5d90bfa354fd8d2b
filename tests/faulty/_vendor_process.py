"""A vendor written from the contract alone, served by its own HTTP server as a separate
process (``tests/faulty/independent_http``, ``independent_http2``): started on a free port,
waited for until ``GET /v1/implementation`` answers, stopped with SIGTERM."""

from __future__ import annotations

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
