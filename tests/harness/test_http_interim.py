"""HTTP as HTTP is: informational (1xx) answers before the final one are skipped (RFC 9110
15.2), a ``103 Early Hints`` as a ``100 Continue``; a target that sends nothing but them is
still cut off."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness import HttpAdapter, ProtocolViolation, TargetError
from harness._cli import main as cli_main
from harness._transport import MAX_INTERIM
from tests.faulty._base import reference_adapter
from tests.faulty.certify import SEED, TEST_SETTINGS
from tests.faulty.hostile_transport import DESCRIBE, RawTarget, read_request
from tests.faulty.http_bridge import bridge

#: handed to an xdist worker first (tests/conftest.py): five tests, whole runs over HTTP (25 s)
pytestmark = pytest.mark.early

EARLY_HINTS = b"HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n"
CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"
PROCESSING = b"HTTP/1.1 102 Processing\r\n\r\n"
FINAL = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (
    len(DESCRIBE),
    DESCRIBE,
)


def interim_then(*interim: bytes) -> RawTarget:
    def behaviour(conn: socket.socket, stop: threading.Event) -> None:
        while read_request(conn):
            conn.sendall(b"".join(interim) + FINAL)

    return RawTarget(behaviour)


@pytest.mark.parametrize(
    "interim",
    [(EARLY_HINTS,), (CONTINUE, EARLY_HINTS), (PROCESSING, EARLY_HINTS, EARLY_HINTS)],
    ids=["103", "100-103", "102-103-103"],
)
def test_informational_answers_are_skipped(interim: tuple[bytes, ...]) -> None:
    with interim_then(*interim) as url:
        adapter = HttpAdapter(url, timeout=2.0)
        assert adapter.describe() == json.loads(DESCRIBE)
        assert adapter.describe() == json.loads(DESCRIBE)  # the kept-alive connection too
        adapter.close()


def test_endless_informational_answers_are_a_fault() -> None:
    with interim_then(*[EARLY_HINTS] * (MAX_INTERIM + 1)) as url:
        adapter = HttpAdapter(url, timeout=2.0, retries=0)
        with pytest.raises(TargetError) as info:
            adapter.describe()
        adapter.close()
    assert isinstance(info.value, ProtocolViolation)
    assert "informational" in str(info.value)


def _read_all(conn: socket.socket) -> bytes:
    parts = []
    while piece := conn.recv(65536):
        parts.append(piece)
    return b"".join(parts)


class EarlyHintsProxy:
    """A raw-socket proxy in front of ``upstream``: every answer preceded by a 103 (and a 100
    for requests with a body), one connection per request."""

    def __init__(self, upstream: str) -> None:
        host, port = upstream.removeprefix("http://").split(":")
        self.address = (host, int(port))
        self.raw = RawTarget(self._forward)

    def _forward(self, conn: socket.socket, stop: threading.Event) -> None:
        data = b""
        while b"\r\n\r\n" not in data:
            piece = conn.recv(65536)
            if not piece:
                return
            data += piece
        head, _, body = data.partition(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        length = 0
        kept = [lines[0]]
        for line in lines[1:]:
            name = line.partition(b":")[0].strip().lower()
            if name == b"content-length":
                length = int(line.partition(b":")[2])
            if name not in (b"connection", b"accept-encoding"):
                kept.append(line)
        while len(body) < length:
            body += conn.recv(65536)
        with socket.create_connection(self.address) as upstream:
            upstream.sendall(b"\r\n".join([*kept, b"Connection: close", b"", b""]) + body)
            answer = _read_all(upstream)
        conn.sendall((CONTINUE if length else b"") + EARLY_HINTS + answer)
        conn.close()

    def __enter__(self) -> str:
        return self.raw.__enter__()

    def __exit__(self, *exc: object) -> None:
        self.raw.__exit__()


REQUIREMENTS = ("robots.4.6.x2", "robots.4.1.stake_debited", "robots.4.7.reveal_plus_one")


@pytest.fixture
def early_hints() -> Iterator[str]:
    with (
        bridge(reference_adapter(name="early-hints")) as upstream,
        EarlyHintsProxy(upstream) as url,
    ):
        yield url


def test_a_run_against_a_target_sending_early_hints(early_hints: str, tmp_path: Path) -> None:
    """Before: the smoke step saw a 103 for describe's answer, "the adapter is broken", exit 2."""
    config = tmp_path / "config.yaml"
    # few examples and plays, and the player sessions (they cover reveal_plus_one too) of one
    # player for a second: the tests' 60 examples, 16 players for 5 s and their old accounts'
    # 200 plays, one connection a request, prove nothing more about the early hints
    settings = {
        **TEST_SETTINGS,
        "hypothesis_max_examples": 10,
        "play_count": 5,
        "player_accounts": 1,
        "player_span_s": 1,
        "old_account_plays": 5,
    }
    config.write_text(json.dumps({"settings": settings}))
    out = tmp_path / "out"
    argv = ["certify", "--target", early_hints, "--profile", "quick", "--seed", str(SEED)]
    argv += ["--config", str(config), "--out", str(out), "--timeout", "20"]
    for rid in REQUIREMENTS:
        argv += ["--requirement", rid]
    assert cli_main(argv) == 0
    report = json.loads((out / "report.json").read_text())
    assert {r["id"]: r["outcome"] for r in report["requirements"] if r["id"] in REQUIREMENTS} == {
        rid: "pass" for rid in REQUIREMENTS
    }
