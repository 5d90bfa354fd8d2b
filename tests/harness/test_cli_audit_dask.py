"""``instantcert audit-block FILE… --scheduler ADDRESS``: the block audit on a Dask cluster
(issue 32). The fast tier uses a small ``LocalCluster`` (two workers, threads, in this process);
the slow tier starts ``dask scheduler`` and two ``dask worker`` processes, kills one mid-run,
and audits full-size blocks."""

from __future__ import annotations

import contextlib
import functools
import http.server
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("distributed")

from distributed import Client, LocalCluster

from conformance import _dask_audit
from conformance._execute import execute
from conformance._registry import CheckContext
from conformance._settings import Settings
from conformance._suite import registered_checks
from harness._cli import main

ROOT = Path(__file__).resolve().parents[2]


def _slice(path: Path, seed: str, block_id: str, count: int = 3000) -> Path:
    args = ["generate-block", "--game", "eldorado", "--stake-cents", "100", "--seed", seed]
    args += ["--block-id", block_id, "--start", "0", "--count", str(count), "-o", str(path)]
    assert main(args) == 0
    return path


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """Two slices of two blocks, and a third that repeats the first's layout one unit on (it
    fails ``unrelated_blocks``: the faulty emission whose case files are compared)."""
    folder = tmp_path_factory.mktemp("dask-blocks")
    a = _slice(folder / "a.jsonl.gz", "ab" * 32, "eldorado-100-0001")
    b = _slice(folder / "b.jsonl", "cd" * 32, "eldorado-100-0002")
    plain = _slice(folder / "a-plain.jsonl", "ab" * 32, "eldorado-100-0001")
    header, *units = plain.read_text().splitlines()
    head = {**json.loads(header), "block_id": "eldorado-100-0003"}
    moved = [json.loads(line) for line in units[1:] + units[:1]]
    lines = [json.dumps({**u, "index": i}, separators=(",", ":")) for i, u in enumerate(moved)]
    copy = folder / "c.jsonl"
    copy.write_text("\n".join([json.dumps(head), *lines]) + "\n")
    return a, b, copy


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0"
    ) as local:
        yield local


def _report(out: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((out / "report.json").read_text())
    return document


def _engine_free(report: dict[str, Any]) -> dict[str, Any]:
    """report.json without what names the engine, the run or its timing."""
    doc = json.loads(json.dumps(report))
    for key in ("run_id", "started_at", "finished_at"):
        doc.pop(key)
    for key in ("out", "engine"):
        doc["config"].pop(key, None)
    for check in doc["checks"]:
        check.pop("duration_s")
    for block in doc["blocks"]:
        block.pop("audited_by", None)
    return doc


def _audit(names: list[str], out: Path, *extra: str) -> int:
    return main(["audit-block", *names, "--seed", "5", "--out", str(out), *extra])


def _cases(out: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(out)): p.read_bytes()
        for p in sorted(out.rglob("*"))
        if p.is_file() and "case" in str(p.relative_to(out))
    }


def test_the_cluster_gives_the_local_verdicts_figures_and_case_files(
    files: tuple[Path, Path, Path], cluster: LocalCluster, tmp_path: Path
) -> None:
    names = [str(f) for f in files]
    local, remote = tmp_path / "local", tmp_path / "dask"
    assert _audit(names, local) == 1  # c is a for unrelated_blocks: a fail, both ways
    assert _audit(names, remote, "--scheduler", cluster.scheduler_address) == 1
    here, there = _report(local), _report(remote)
    assert _engine_free(there) == _engine_free(here)
    failed = {r["id"] for r in there["requirements"] if r["outcome"] == "fail"}
    assert failed == {"eldorado.randomness.unrelated_blocks"}
    assert _cases(remote) and _cases(remote) == _cases(local)
    # the engine, the scheduler and each block's worker are named; the local run names none
    assert there["config"]["engine"] == {"name": "dask", "scheduler": cluster.scheduler_address}
    assert "engine" not in here["config"]
    workers = set(cluster.scheduler_info["workers"])
    for block in there["blocks"]:
        by = block["audited_by"]
        assert (by["engine"], by["scheduler"]) == ("dask", cluster.scheduler_address)
        assert by["worker"] in workers
    assert all("audited_by" not in block for block in here["blocks"])


def test_without_scheduler_nothing_of_dask_is_imported(
    files: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    code = (
        "import sys\n"
        "from harness._cli import main\n"
        f"code = main(['audit-block', {str(files[1])!r}, '--out', {str(tmp_path / 'r')!r}])\n"
        "loaded = sorted({m.split('.')[0] for m in sys.modules} & {'dask', 'distributed', "
        "'fsspec', 'aiohttp'})\n"
        "print(code, loaded)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert done.stdout.strip().splitlines()[-1] == "0 []", done.stderr[-2000:]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


#: ``instantcert`` (its console script's entry point) with ``CONNECT_TIMEOUT_S`` at 1 s
_CONNECT_IN_1_S = (
    "from conformance import _dask_audit\n"
    "_dask_audit.CONNECT_TIMEOUT_S = 1.0\n"
    "from harness._cli import entry_point\n"
    "entry_point()\n"
)


def test_an_unreachable_scheduler_exits_2_with_one_line(
    files: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    address = f"tcp://127.0.0.1:{_free_port()}"
    # the command's own process (its stderr whole), given 1 s to connect rather than the 10 s
    # of CONNECT_TIMEOUT_S: a refused port is retried until then, and the test's time was that
    # wait; the subprocess's limit is a guard
    command = [sys.executable, "-c", _CONNECT_IN_1_S, "audit-block", str(files[0])]
    command += ["--out", str(tmp_path / "r"), "--scheduler", address]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert f"cannot reach the Dask scheduler at {address!r}" in lines[0]
    assert not (tmp_path / "r").exists()


def test_a_file_no_worker_can_open_exits_2_naming_the_worker(
    cluster: LocalCluster, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = str(tmp_path / "nowhere.jsonl.gz")
    assert _audit([missing], tmp_path / "r", "--scheduler", cluster.scheduler_address) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "nowhere.jsonl.gz" in err[0] and "cannot open block file" in err[0]
    assert any(f"on worker {w}" in err[0] for w in cluster.scheduler_info["workers"])


def _run_block_checks(adapter: Any) -> dict[str, Any]:
    """Every block check on ``adapter`` (as ``audit_block_file`` runs them)."""
    settings = Settings.parse(
        {"block_mode": "whole", "block_sample_units": None, "blocks_per_stake": None}, "test"
    )
    implementation = adapter.describe()
    return {
        check_id: execute(check, CheckContext(adapter, implementation, settings, 5))
        for check_id, check in registered_checks().items()
        if check.capability == "blocks"
    }


def test_a_file_gone_before_its_audit_is_that_blocks_error_naming_the_worker(
    files: tuple[Path, Path, Path], cluster: LocalCluster, tmp_path: Path
) -> None:
    a, b = tmp_path / "a.jsonl.gz", tmp_path / "b.jsonl"
    shutil.copy(files[0], a)
    shutil.copy(files[1], b)
    client = Client(cluster.scheduler_address, set_as_default=False)
    adapter = _dask_audit.open_cluster_targets([str(a), str(b)], client, 60.0)
    try:
        b.unlink()  # read for its header, gone when its block is audited
        outcomes = _run_block_checks(adapter)
    finally:
        adapter.close()
    unit_prize = outcomes["blocks.unit_prize"]
    assert unit_prize.outcome == "error"
    assert "target error (cluster): block eldorado-100-0002" in unit_prize.message
    assert "cannot open block file" in unit_prize.message
    assert any(f"on worker {w}" in unit_prize.message for w in cluster.scheduler_info["workers"])
    assert all(o.outcome in ("error", "not_supported") for o in outcomes.values())


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextlib.contextmanager
def _served(folder: Path) -> Iterator[str]:
    handler = functools.partial(_Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _nameless(report: dict[str, Any]) -> dict[str, Any]:
    """``_engine_free`` and without the files' names (paths here, URLs there)."""
    doc = _engine_free(report)
    doc.pop("target")
    for key in ("target", "file"):
        doc["config"].pop(key)
    return doc


def test_files_served_over_http_are_audited_through_fsspec(
    files: tuple[Path, Path, Path], cluster: LocalCluster, tmp_path: Path
) -> None:
    pytest.importorskip("aiohttp")
    folder = tmp_path / "served"
    folder.mkdir()
    names = []
    for f in files[:2]:
        shutil.copy(f, folder / f.name)
        names.append(folder / f.name)
    # a truncated .gz: the isal reader falls back to zlib, which re-reads the member from its
    # start (an HTTP body cannot seek: it is opened again), and the verdict is the local one
    data = files[0].read_bytes()
    (folder / "cut.jsonl.gz").write_bytes(data[: len(data) * 2 // 3])
    local, remote = tmp_path / "local", tmp_path / "dask"
    with _served(folder) as base:
        urls = [f"{base}/{p.name}" for p in names]
        assert _audit(urls, remote, "--scheduler", cluster.scheduler_address) == 0
        assert _audit([str(p) for p in names], local) == 0
        assert _nameless(_report(remote)) == _nameless(_report(local))
        cut_local, cut_remote = tmp_path / "cut-local", tmp_path / "cut-dask"
        cut_url = f"{base}/cut.jsonl.gz"
        assert _audit([cut_url], cut_remote, "--scheduler", cluster.scheduler_address) == 1
        assert _audit([str(folder / "cut.jsonl.gz")], cut_local) == 1
        gone = tmp_path / "gone"
        missing = [f"{base}/nope.jsonl.gz"]
        assert _audit(missing, gone, "--scheduler", cluster.scheduler_address) == 2
    cut_there = _report(cut_remote)
    assert _nameless(cut_there) == _nameless(_report(cut_local))
    sequence = {r["id"]: r["outcome"] for r in cut_there["requirements"]}
    assert sequence["eldorado.2.unit_sequence"] == "fail"
    assert "truncated" in json.dumps(cut_there["checks"])


# -- the slow tier: a scheduler and two workers as processes, full-size blocks ---------------


@pytest.fixture(scope="module")
def full_blocks(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Two whole robots blocks (2 000 000 units each)."""
    folder = tmp_path_factory.mktemp("dask-full")
    paths = []
    for n, seed in enumerate(("12" * 32, "34" * 32), start=1):
        path = folder / f"robots-{n}.jsonl.gz"
        args = ["generate-block", "--game", "robots", "--seed", seed]
        assert main([*args, "--block-id", f"robots-100-000{n}", "-o", str(path)]) == 0
        paths.append(path)
    return paths


@pytest.fixture(scope="module")
def full_local(full_blocks: list[Path], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The local audit's report.json of ``full_blocks``."""
    out = tmp_path_factory.mktemp("dask-full-local") / "report"
    assert _audit([str(p) for p in full_blocks], out) == 0
    return _report(out)


class _Processes:
    """``dask scheduler`` and two ``dask worker`` processes (no nanny: a killed worker stays
    dead), each named, stopped at the end."""

    def __init__(self, folder: Path) -> None:
        dask = str(Path(sys.executable).parent / "dask")
        self.file = folder / "scheduler.json"
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
        self.scheduler = subprocess.Popen(
            [
                dask,
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--no-dashboard",
                "--scheduler-file",
                str(self.file),
            ],
            **quiet,
        )
        self.workers: dict[str, subprocess.Popen[bytes]] = {}
        for name in ("w1", "w2"):
            self.workers[name] = subprocess.Popen(
                [
                    dask,
                    "worker",
                    "--scheduler-file",
                    str(self.file),
                    "--nthreads",
                    "1",
                    "--no-nanny",
                    "--no-dashboard",
                    "--name",
                    name,
                ],
                **quiet,
            )
        for _ in range(600):
            if self.file.exists() and self.file.read_text().strip():
                break
            time.sleep(0.1)
        self.address: str = json.loads(self.file.read_text())["address"]
        self.client = Client(self.address, set_as_default=False, timeout=30)
        self.client.wait_for_workers(2, timeout=60)

    def name_of(self, address: str) -> str:
        name: str = self.client.scheduler_info()["workers"][address]["name"]
        return name

    def close(self) -> None:
        self.client.close()
        for process in [*self.workers.values(), self.scheduler]:
            if process.poll() is None:
                process.terminate()
        for process in [*self.workers.values(), self.scheduler]:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()


@pytest.fixture
def processes(tmp_path: Path) -> Iterator[_Processes]:
    cluster = _Processes(tmp_path)
    try:
        yield cluster
    finally:
        cluster.close()


@pytest.mark.slow
def test_a_worker_killed_mid_block_has_its_block_audited_by_the_other(
    full_blocks: list[Path], full_local: dict[str, Any], processes: _Processes, tmp_path: Path
) -> None:
    names = [str(p) for p in full_blocks]
    remote = tmp_path / "dask"
    code: list[int] = []
    run = threading.Thread(
        target=lambda: code.append(_audit(names, remote, "--scheduler", processes.address))
    )
    run.start()
    killed: tuple[str, str] | None = None
    held = ""  # the block the killed worker was auditing
    deadline = time.monotonic() + 120
    while killed is None and run.is_alive() and time.monotonic() < deadline:
        for address, keys in processes.client.processing().items():
            blocks = [str(k).split("-", 4)[4] for k in keys if str(k).startswith("audit-block-")]
            if blocks:
                killed, held = (address, processes.name_of(address)), blocks[0]
                os.kill(processes.workers[killed[1]].pid, signal.SIGKILL)
                break
        time.sleep(0.02)
    run.join(timeout=600)
    assert killed is not None, "no worker was seen auditing a block"
    assert code == [0]
    assert processes.workers[killed[1]].wait(timeout=30) == -signal.SIGKILL
    there = _report(remote)
    assert _engine_free(there) == _engine_free(full_local)
    workers = {b["block_id"]: b["audited_by"]["worker"] for b in there["blocks"]}
    assert len(workers) == 2
    # the block it held was audited again, by the survivor
    assert held in workers and workers[held] != killed[0]


@pytest.mark.slow
def test_worker_processes_audit_like_the_local_path(
    full_blocks: list[Path], full_local: dict[str, Any], processes: _Processes, tmp_path: Path
) -> None:
    remote = tmp_path / "dask"
    assert _audit([str(p) for p in full_blocks], remote, "--scheduler", processes.address) == 0
    there = _report(remote)
    assert _engine_free(there) == _engine_free(full_local)
    seen = {processes.name_of(b["audited_by"]["worker"]) for b in there["blocks"]}
    assert seen <= {"w1", "w2"} and seen


class _Stuck:
    """A future the cluster never finishes; it records how long it was waited for."""

    def __init__(self, waits: list[float]) -> None:
        self.waits = waits

    def result(self, timeout: float) -> Any:
        self.waits.append(timeout)
        raise _dask_audit.distributed.TimeoutError()

    def release(self) -> None:
        pass


class _StuckClient:
    def __init__(self) -> None:
        self.waits: list[float] = []
        self.scheduler = None

    def submit(self, *args: Any, **kwargs: Any) -> _Stuck:
        return _Stuck(self.waits)

    def close(self, timeout: float) -> None:
        pass


def test_a_cluster_that_stops_answering_costs_one_budget_not_one_per_block() -> None:
    from conformance._audit import Expectation
    from conformance._audit_engine import BlockRequest

    client = _StuckClient()
    engine = _dask_audit.DaskEngine(client, {"b1": "one.jsonl", "b2": "two.jsonl"}, 7.0)
    requests = [
        BlockRequest(b, Expectation.from_rules("robots", 100, b), (), 20, 0.01)
        for b in ("b1", "b2")
    ]
    engine.submit(requests)
    for request in requests:
        with pytest.raises(_dask_audit.ClusterError, match=f"block {request.block_id}: not"):
            engine.audited(request)
    assert client.waits == [7.0, 0.0]
