"""Reports written all at once (issue 29 item 4, issue 30 item 2): a full disk, a file where
the folder should be, Ctrl-C and SIGTERM leave ``--out`` holding the previous run's complete
reports (or nothing), never a cut or empty file, and exit with their documented code.
"""

from __future__ import annotations

import errno
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from harness._cli import main
from harness._reference_adapter import ReferenceAdapter
from harness._reports import REPORT_FILES
from harness._reports._folder import STAGING_PREFIX
from harness._reports.manifest import verify
from reference import _strict_json as strict_json

TINY = """\
profile: quick
seed: 5
settings:
  hypothesis_max_examples: 10
  block_sample_units: 2000
  play_count: 3
  concurrency_threads: 2
  concurrent_plays_per_thread: 2
"""
BROKEN = "python:tests.harness._support:broken_x2"
SLOW = "python:tests.harness.test_report_writes:slow"
ROOT = Path(__file__).parents[2]


class SlowAdapter(ReferenceAdapter):
    """The reference, a quarter of a second per evaluation: a run long enough to stop."""

    def evaluate(self, game: str, stake_cents: int, tickets: Sequence[str]) -> list[dict[str, Any]]:
        time.sleep(0.25)
        return super().evaluate(game, stake_cents, tickets)


def slow() -> SlowAdapter:
    return SlowAdapter(name=SLOW)


def certify(config: Path, out: Path, target: str = BROKEN) -> list[str]:
    return [
        "certify",
        "--config",
        str(config),
        "--out",
        str(out),
        "--requirement",
        "robots.4.6.x2",
        "--target",
        target,
    ]


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.yaml"
    path.write_text(TINY, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def earlier_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A complete report folder of an earlier run (with case files), made once."""
    folder = tmp_path_factory.mktemp("earlier")
    (folder / "tiny.yaml").write_text(TINY, encoding="utf-8")
    out = folder / "out"
    assert main(certify(folder / "tiny.yaml", out)) == 1
    assert verify(out) == [] and (out / "cases").is_dir()
    return out


@pytest.fixture
def previous(earlier_run: Path, tmp_path: Path) -> Path:
    """A report folder holding a complete earlier run (a copy of ``earlier_run``)."""
    return Path(shutil.copytree(earlier_run, tmp_path / "out"))


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()
    }


def assert_untouched(out: Path, before: dict[str, bytes]) -> None:
    assert snapshot(out) == before
    assert not [p for p in out.iterdir() if p.name.startswith(STAGING_PREFIX)]
    assert verify(out) == []


def one_line(err: str) -> str:
    """The last line of stderr (the progress lines of the run come before it)."""
    lines = [line for line in err.splitlines() if line.strip()]
    assert "Traceback" not in err
    return lines[-1]


def test_a_second_run_replaces_the_first_whole(
    previous: Path, tiny: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_id = strict_json.loads((previous / "report.json").read_bytes())["run_id"]
    assert main(certify(tiny, previous, "python:reference")) == 0
    assert "reports: " + str(previous) in capsys.readouterr().out  # the folder's final name
    doc = strict_json.loads((previous / "report.json").read_bytes())
    assert doc["run_id"] != run_id
    assert not (previous / "cases").exists()  # the earlier run's case files went with it
    assert verify(previous) == []
    assert sorted(p.name for p in previous.iterdir()) == sorted(REPORT_FILES)


@pytest.fixture
def disk_full_after(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every file written into a staging folder gets half its text, then ENOSPC (what a
    full disk does to a write), once ``written`` reports went through whole."""
    real = Path.write_text
    written: list[str] = []

    def write_text(self: Path, data: str, *args: Any, **kwargs: Any) -> int:
        if STAGING_PREFIX not in str(self) or len(written) < 2:
            written.append(self.name)
            return real(self, data, *args, **kwargs)
        real(self, data[: len(data) // 2], *args, **kwargs)
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(Path, "write_text", write_text)
    yield written


def test_a_full_disk_exits_2_and_leaves_the_previous_reports(
    previous: Path, tiny: Path, disk_full_after: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    before = snapshot(previous)
    assert main(certify(tiny, previous, "python:reference")) == 2
    err = one_line(capsys.readouterr().err)
    assert err.startswith("instantcert certify: could not write the reports: No space left")
    assert_untouched(previous, before)


def test_a_full_disk_in_an_empty_folder_leaves_it_empty(
    tiny: Path, tmp_path: Path, disk_full_after: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "fresh"
    assert main(certify(tiny, out)) == 2
    assert "could not write the reports" in one_line(capsys.readouterr().err)
    assert list(out.iterdir()) == []


@pytest.mark.parametrize("where", ["a file", "under a file"])
def test_a_file_where_the_folder_should_be_is_one_line(
    where: str, tiny: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("mine\n")
    out = blocker if where == "a file" else blocker / "out"
    assert main(certify(tiny, out)) == 2
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "could not write the reports: --out" in lines[0], err
    assert blocker.read_text() == "mine\n"


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A real 160 KiB file system (tmpfs), where mounting is permitted (root, not in a
    container without CAP_SYS_ADMIN); skipped elsewhere, where the simulation above stands."""
    mount = shutil.which("mount")
    point = tmp_path / "small"
    point.mkdir()
    if mount is None or os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    done = subprocess.run(
        [mount, "-t", "tmpfs", "-o", "size=160k", "tmpfs", str(point)], capture_output=True
    )
    if done.returncode != 0:
        pytest.skip(f"mount not permitted: {done.stderr.decode(errors='replace').strip()}")
    try:
        yield point
    finally:
        subprocess.run(["umount", str(point)], check=False)


def test_a_real_full_disk(small_disk: Path, tiny: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = small_disk / "out"
    assert main(certify(tiny, out)) == 2
    assert "could not write the reports: No space left" in one_line(capsys.readouterr().err)
    assert list(out.iterdir()) == []


def start(tiny: Path, out: Path) -> subprocess.Popen[str]:
    """``instantcert certify`` of a slow target in its own process, once its run has begun
    (its staging folder exists and its first check started)."""
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from harness._cli import entry_point; entry_point()",
            *certify(tiny, out, SLOW),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    ends = time.monotonic() + 120
    while not any(p.name.startswith(STAGING_PREFIX) for p in out.iterdir()):
        assert process.poll() is None and time.monotonic() < ends
        time.sleep(0.05)
    time.sleep(1.0)  # the smoke step and the first check under way
    return process


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_stopped_run_leaves_the_previous_reports(
    signum: int, code: int, previous: Path, tiny: Path
) -> None:
    before = snapshot(previous)
    process = start(tiny, previous)
    process.send_signal(signum)
    _, err = process.communicate(timeout=60)
    assert process.returncode == code, err
    line = one_line(err)
    assert ("terminated (SIGTERM)" if code == 143 else "interrupted") in line
    assert "were not changed" in line
    assert_untouched(previous, before)
