"""Helpers for tests that need a live reference server: in a thread, or as ``instantcert serve``."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import requests

from tests.seeds import TEST_SEED

SEED = TEST_SEED  # a fixed master seed: every test run serves the same blocks

SERVE_MAIN = "from harness._cli import entry_point; entry_point()"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def start_serve(db: Path, port: int, seed: bytes = SEED) -> subprocess.Popen[bytes]:
    """``instantcert serve`` as a new process, as a user would start it; waits until it answers."""
    command = [sys.executable, "-c", SERVE_MAIN, "serve", "--port", str(port), "--db", str(db)]
    command += ["--seed", seed.hex(), "--log-level", "warning"]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(os.environ)
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            _, err = process.communicate()
            raise RuntimeError(f"instantcert serve exited {process.returncode}: {err.decode()}")
        try:
            requests.get(f"http://127.0.0.1:{port}/v1/implementation", timeout=1)
            return process
        except requests.ConnectionError:
            time.sleep(0.05)
    process.kill()
    raise RuntimeError("instantcert serve did not answer within 30 s")
