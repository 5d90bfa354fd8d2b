"""Exit 2 when the run could not start: nothing at the URL speaks the contract (the smoke step
failed), or the URL is impossible; in bounded time, no traceback, the reports written."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from harness._cli import main
from tests.faulty.hostile_transport import (
    RawTarget,
    endless_http10,
    never_read,
    read_request,
    slow_headers,
)


def answering(status: int, content_type: str, body: bytes) -> Callable[..., None]:
    """Every request answered with ``status``, ``content_type`` and ``body``."""

    def behaviour(conn: socket.socket, stop: threading.Event) -> None:
        while read_request(conn):
            conn.sendall(
                b"HTTP/1.1 %d X\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n%s"
                % (status, content_type.encode(), len(body), body)
            )

    return behaviour


NOT_THE_CONTRACT: dict[str, Callable[..., None]] = {
    "404_html": answering(404, "text/html", b"<html><h1>Not Found</h1></html>"),
    "html_page": answering(200, "text/html", b"<html>welcome to nginx</html>"),
    "garbage": answering(200, "application/json", b"\x00\xff garbage {"),
    "wrong_shape": answering(200, "application/json", b'{"name": "x", "version": 1}'),
    "bad_games": answering(
        200,
        "application/json",
        b'{"name": "x", "version": "1", "games": ["robots"], "capabilities": []}',
    ),
    "slow_headers": slow_headers(1.0),
    "never_read": never_read,
    "endless_http10": endless_http10,
}


def certify(url: str, out: Path) -> int:
    """The exit code of a quick certify of ``url`` with ``--timeout 1``; it returns at all
    because the deadlines cut the target (a hang is the hang guard's: pyproject.toml)."""
    return main(
        ["certify", "--target", url, "--profile", "quick", "--timeout", "1", "--out", str(out)]
    )


@pytest.mark.parametrize("name", sorted(NOT_THE_CONTRACT))
def test_nothing_speaks_the_contract_exits_2(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with RawTarget(NOT_THE_CONTRACT[name]) as url:
        code = certify(url, tmp_path)
    assert code == 2
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err + captured.out
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["verdict"]["exit_code"] == 2 and not report["smoke"]["ok"]
    assert report["verdict"]["note"].startswith("the run could not start")


def test_connection_refused_exits_2(tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))  # bound, never listening: connections are refused
        code = certify(f"http://127.0.0.1:{sock.getsockname()[1]}", tmp_path)
    assert code == 2
    assert json.loads((tmp_path / "report.json").read_text())["verdict"]["exit_code"] == 2


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:99999", "http://:80", "ftp://x", "http://127.0.0.1:0", "http:/x"]
)
def test_an_impossible_url_exits_2_with_one_line(
    url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = certify(url, tmp_path)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and repr(url) in err[0], err
