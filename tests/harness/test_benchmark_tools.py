"""The tools of ``benchmarks/commands.py``: the delaying proxy and the process-tree measurements.

Their figures end up in the README, so the tools themselves must be right: the proxy adds its
delay to every request and passes bodies (streamed ones too) through unchanged; a row's time
and peak memory are those of the whole process tree.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
STREAMED = b"".join(b'{"index":%d}\n' % i for i in range(20_000))


def load(name: str) -> ModuleType:
    if str(BENCHMARKS) not in sys.path:  # as when run as a script: its folder is on the path
        sys.path.insert(0, str(BENCHMARKS))
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


class Upstream(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        if self.path == "/stream":  # chunked, as a block stream is
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for at in range(0, len(STREAMED), 7000):
                piece = STREAMED[at : at + 7000]
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            self.wfile.write(b"0\r\n\r\n")
            return
        body = b'{"name":"upstream"}'
        self.send_response(200 if self.path == "/v1/implementation" else 404)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(201)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body[::-1])


@pytest.fixture
def upstream() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Upstream)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_the_proxy_adds_its_delay_and_passes_bodies_unchanged(upstream: str) -> None:
    commands = load("commands")
    port = commands.free_port()
    command = [sys.executable, str(BENCHMARKS / "delay_proxy.py"), upstream]
    proxy = subprocess.Popen([*command, "--port", str(port), "--delay-ms", "60"])
    try:
        url = f"http://127.0.0.1:{port}"
        commands.wait_ready(url, proxy)
        began = time.perf_counter()
        with urllib.request.urlopen(url + "/stream", timeout=10) as response:
            assert response.read() == STREAMED
        assert time.perf_counter() - began >= 0.06
        posted = urllib.request.Request(url + "/v1/accounts", data=b"abc", method="POST")
        with urllib.request.urlopen(posted, timeout=10) as response:
            assert (response.status, response.read()) == (201, b"cba")
        with pytest.raises(urllib.error.HTTPError) as caught:
            urllib.request.urlopen(url + "/missing", timeout=10)
        assert caught.value.code == 404
    finally:
        proxy.terminate()
        proxy.wait(10)


def test_a_row_measures_the_whole_tree(tmp_path: Path) -> None:
    """Time and memory of a pipeline whose second process holds 150 MB: both are seen (memory
    in a sampled run only; a timed run is only waited for, and ends when the process does)."""
    commands = load("commands")
    script = (
        "b = bytearray(150 << 20); b[::4096] = bytes(len(b[::4096])); import time; time.sleep(0.5)"
    )
    hold = f"{sys.executable} -c '{script}'"
    run = commands.run_shell(f"echo hi | {hold}", {}, tmp_path / "log", sample=True)
    assert run.returncode == 0
    assert run.seconds >= 0.5
    assert run.peak_kib is not None and run.peak_kib >= 150 * 1024
    small = commands.run_shell("true", {}, tmp_path / "log", sample=True)
    assert small.peak_kib is not None and small.peak_kib < 50 * 1024
    timed = commands.run_shell(
        f"{sys.executable} -c 'import time; time.sleep(0.3)'", {}, tmp_path / "log"
    )
    # a timed run is only waited for: never sampled; it lasts at least its sleep (a lower bound
    # a busy machine cannot break; an upper bound would be a duration a busy machine can)
    assert timed.peak_kib is None and timed.seconds >= 0.3
    failed = commands.run_shell("false | cat", {}, tmp_path / "log")
    assert failed.returncode != 0  # pipefail: a failing stage fails the row
    assert "$ echo hi" in (tmp_path / "log").read_text()


def test_pages_a_forked_child_shares_count_once(tmp_path: Path) -> None:
    """A parent holding 200 MB and a forked child sharing all of it: about 200 MB, not 400 MB
    as the resident set sizes would add up to."""
    commands = load("commands")
    script = (
        "import os, time; b = bytearray(200 << 20); b[::4096] = bytes(len(b[::4096])); "
        "pid = os.fork(); time.sleep(1.0); os._exit(0) if pid == 0 else os.waitpid(pid, 0)"
    )
    run = commands.run_shell(f"{sys.executable} -c '{script}'", {}, tmp_path / "log", sample=True)
    assert run.returncode == 0
    assert run.peak_kib is not None and 190 * 1024 <= run.peak_kib <= 300 * 1024, run.peak_kib


def test_the_table_shows_each_command_its_floor_and_the_ratio(tmp_path: Path) -> None:
    commands = load("commands")
    bench = commands.Bench(tmp_path, 3)
    row = commands.Row(
        "audit-robots",
        "`audit-block` of a block",
        f"{bench.ic} audit-block {tmp_path}/b.jsonl.gz",
        f"gzip -dc {tmp_path}/b.jsonl.gz | wc -l",
        "≤ 2 × floor",
    )
    row.runs = [commands.Run(s, 0) for s in (4.0, 3.0, 9.0)]
    row.floor_runs = [commands.Run(s, 0) for s in (1.0, 2.0, 2.0)]
    row.memory_run = commands.Run(5.0, 0, peak_kib=100 << 10)
    table = commands.table(bench, [row])
    line = table.splitlines()[-1]
    assert "| 4.00 s (n=3) | 2.00 s | 2.0 × | 0.0 s | 100 MB | ≤ 2 × floor |" in line
    assert "`instantcert audit-block W/b.jsonl.gz` vs `gzip -dc W/b.jsonl.gz \\| wc -l`" in line
    row.runs[1].server_cpu_seconds, row.runs[2].server_cpu_seconds = 7.5, 8.5
    assert "| 0.0 s + server 8.0 s | 100 MB |" in commands.table(bench, [row])
