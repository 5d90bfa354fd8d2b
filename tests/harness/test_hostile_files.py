"""Files a lab does not trust, round two (issue 29 item 2): a FIFO, a device or a directory
is refused, in one line, wherever a path is read (never waited on: a FIFO with no writer
would hang the command for ever); a file of the wrong kind is quoted by a short escaped
excerpt at most; a case file's ``file:`` (or URL) target is used only when ``--target``
names it.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from harness._cli import main
from reference._files import EXCERPT_BYTES, excerpt, open_regular
from tests.faulty import hostile

SECRET = "hunter2-SECRET-TOKEN"
PREFIX = "x" * (EXCERPT_BYTES + 8)  # what an excerpt may show, before the secret


class Rescuer:
    """Opens the FIFO's write end whenever a reader blocks on it (polling, never blocking
    itself), so a command that waits on the FIFO ends, and the test fails instead of hanging."""

    def __init__(self, fifo: Path) -> None:
        self.fifo, self.rescued, self.done = fifo, False, threading.Event()
        self.thread = threading.Thread(target=self._watch, daemon=True)
        self.thread.start()

    def _watch(self) -> None:
        while not self.done.wait(0.5):
            try:
                fd = os.open(self.fifo, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:  # ENXIO: nobody reads
                continue
            self.rescued = True
            os.close(fd)

    def stop(self) -> bool:
        self.done.set()
        self.thread.join()
        return self.rescued


@pytest.fixture
def fifo(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "pipe.yaml"
    os.mkfifo(path)
    yield path


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(argv)
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err + captured.out
    return code, captured.err + captured.out


def one_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    assert len(lines) == 1, text[:2000]
    return lines[0]


def _keys(tmp_path: Path) -> Path:
    prefix = tmp_path / "k"
    assert main(["keygen", "--out", str(prefix)]) == 0
    return prefix


def _report(tmp_path: Path) -> Path:
    folder = tmp_path / "report"
    folder.mkdir()
    return folder


# every command line that reads a path, with the path replaced by {path}
READERS: dict[str, Callable[[Path, Path], list[str]]] = {
    "config": lambda p, t: ["certify", "--config", str(p), "--out", str(t / "o")],
    "waivers": lambda p, t: ["certify", "--waivers", str(p), "--out", str(t / "o")],
    "case": lambda p, t: ["replay", str(p)],
    "block file": lambda p, t: ["audit-block", str(p), "--out", str(t / "o")],
    "file target": lambda p, t: [
        "replay",
        str(t / "case.json"),
        "--target",
        f"file:{p}",
    ],
    "sign key": lambda p, t: ["certify", "--sign-key", str(p), "--out", str(t / "o")],
    "public key": lambda p, t: ["verify", str(_report(t)), "--key", str(p)],
    "compared report": lambda p, t: ["compare", str(p), str(p)],
}


@pytest.mark.parametrize("reader", sorted(READERS))
def test_a_fifo_is_refused_not_waited_on(
    reader: str, fifo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "case.json").write_text(json.dumps(hostile.valid_case()))
    rescuer = Rescuer(fifo)
    try:
        code, text = run(READERS[reader](fifo, tmp_path), capsys)
    finally:
        waited = rescuer.stop()
    assert not waited, f"{reader}: the command opened the FIFO and waited for a writer"
    assert code == 2, text
    assert "FIFO" in one_line(text), text


@pytest.mark.parametrize("reader", sorted(READERS))
def test_a_device_is_refused(
    reader: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "case.json").write_text(json.dumps(hostile.valid_case()))
    code, text = run(READERS[reader](Path("/dev/zero"), tmp_path), capsys)
    assert code == 2, text
    line = one_line(text)
    assert "character device" in line or "not a regular file" in line, line


def test_a_report_folder_whose_report_is_a_fifo(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "r"
    folder.mkdir()
    os.mkfifo(folder / "report.json")
    rescuer = Rescuer(folder / "report.json")
    try:
        code, text = run(["compare", str(folder), str(folder)], capsys)
    finally:
        assert not rescuer.stop()
    assert code == 2 and "FIFO" in one_line(text)


@pytest.mark.parametrize(
    ("reader", "argv"),
    [
        ("config", lambda p, t: ["certify", "--config", str(p), "--out", str(t / "o")]),
        ("waivers", lambda p, t: ["certify", "--waivers", str(p), "--out", str(t / "o")]),
        ("case", lambda p, t: ["replay", str(p)]),
        ("block file", lambda p, t: ["audit-block", str(p), "--out", str(t / "o")]),
        ("file target", lambda p, t: ["replay", str(t / "case.json"), "--target", f"file:{p}"]),
        ("sign key", lambda p, t: ["certify", "--sign-key", str(p), "--out", str(t / "o")]),
        ("compared report", lambda p, t: ["compare", str(p), str(p)]),
    ],
)
@pytest.mark.parametrize("content", ["text", "json"])
def test_a_file_of_the_wrong_kind_is_quoted_by_an_excerpt_at_most(
    reader: str,
    argv: Callable[[Path, Path], list[str]],
    content: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A secrets file named where a config, waivers, case, block file, key or report is
    expected: the error shows no more of it than a short excerpt (the secret comes later)."""
    (tmp_path / "case.json").write_text(json.dumps(hostile.valid_case()))
    secrets = tmp_path / "secrets.txt"
    body = f"{PREFIX}{SECRET}"
    secrets.write_text(json.dumps(body) if content == "json" else f"{body}\nTOKEN={SECRET}\n")
    code, text = run(argv(secrets, tmp_path), capsys)
    assert code == 2, text
    assert SECRET not in text, text
    assert "TOKEN" not in text, text


@pytest.mark.parametrize(
    "target", ["file:/proc/self/environ", "file:{secrets}", "http://169.254.169.254"]
)
def test_a_case_target_other_than_the_reference_needs_the_command_line(
    target: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    secrets = tmp_path / "secrets.txt"
    secrets.write_text(f"TOKEN={SECRET}\n")
    case = tmp_path / "case.json"
    case.write_text(json.dumps({**hostile.valid_case(), "target": target.format(secrets=secrets)}))
    code, text = run(["replay", str(case)], capsys)
    assert code == 2
    line = one_line(text)
    assert "--target" in line and SECRET not in line and "PATH=" not in line


def test_excerpt_is_short_and_escaped() -> None:
    assert excerpt(b"\x1b[31m" + b"a" * 100) == repr(b"\x1b[31m" + b"a" * 19) + "…"
    assert excerpt("\u202eabc") == repr("\u202eabc")
    assert len(excerpt({"k": "v" * 1000}, 60)) == 61


def test_open_regular_opens_a_file_and_names_a_directory(tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(b"data")
    with open_regular(tmp_path / "f") as handle:
        assert handle.read() == b"data"
    with pytest.raises(OSError, match="a directory"):
        open_regular(tmp_path)


@pytest.mark.parametrize(
    ("argv", "bound"),
    [
        (["certify", "--config", "{config}"], "from 1 to 256"),
        (["certify", "--check-concurrency", "100000000"], "from 1 to 64"),
        (["replay", "{case}", "--timeout", "1e12"], "(0, 86400]"),
        (["replay", "{case}", "--timeout", "nan"], "(0, 86400]"),
        (
            ["generate-block", "--game", "robots", "-o", "{out}.jsonl", "--workers", "100000000"],
            "from 1 to 64",
        ),
    ],
)
def test_a_setting_past_its_bound_is_refused_naming_the_bound(
    argv: list[str], bound: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 29 item 6: a thread count of 100 000 000 in a config file was accepted."""
    config = tmp_path / "c.yaml"
    config.write_text("settings:\n  concurrency_threads: 100000000\n")
    case = tmp_path / "case.json"
    case.write_text(json.dumps(hostile.valid_case()))
    paths = {"config": config, "case": case, "out": tmp_path / "b"}
    code, text = run([a.format(**paths) for a in argv], capsys)
    assert code == 2, text
    assert bound in one_line(text), text


def test_a_case_file_setting_past_its_bound_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    case = tmp_path / "case.json"
    case.write_text(
        json.dumps({**hostile.valid_case(), "settings": {"concurrency_threads": 100_000_000}})
    )
    code, text = run(["replay", str(case)], capsys)
    assert code == 2 and "from 1 to 256" in one_line(text), text
