"""``certify --wait S``: a target still starting is waited for; one that answers is not."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness._cli import main
from harness._errors import ProtocolViolation, TargetUnreachable
from harness._wait import wait_for_target
from tests.reference._live import free_port, start_serve


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


class _Starting:
    """Unreachable for its first ``down`` calls, then answers (or misbehaves)."""

    name = "http://127.0.0.1:1"

    def __init__(self, down: int, then: Exception | None = None) -> None:
        self.down, self.then, self.calls = down, then, 0

    def describe(self) -> dict[str, Any]:
        self.calls += 1
        if self.calls <= self.down:
            raise TargetUnreachable("connection refused")
        if self.then is not None:
            raise self.then
        return {}


def test_it_waits_until_the_target_answers() -> None:
    clock = _Clock()
    target = _Starting(down=4)
    assert wait_for_target(target, 10, clock=clock, sleep=clock.sleep)  # type: ignore[arg-type]
    assert target.calls == 5 and clock.now == pytest.approx(2.0)


def test_it_gives_up_after_the_deadline() -> None:
    clock = _Clock()
    target = _Starting(down=1000)
    assert not wait_for_target(target, 3, clock=clock, sleep=clock.sleep)  # type: ignore[arg-type]
    assert clock.now == pytest.approx(3.0)


def test_a_target_that_answers_wrongly_is_not_waited_for() -> None:
    clock = _Clock()
    target = _Starting(down=0, then=ProtocolViolation("garbage"))
    assert wait_for_target(target, 10, clock=clock, sleep=clock.sleep)  # type: ignore[arg-type]
    assert target.calls == 1 and clock.now == 0


def test_certify_waits_for_a_server_started_after_it(tmp_path: Path) -> None:
    """Nothing listens yet when certify starts; the server comes up a moment later."""
    import threading

    port = free_port()
    servers: list[Any] = []
    starter = threading.Timer(1.0, lambda: servers.append(start_serve(tmp_path / "db", port)))
    starter.start()
    try:
        code = main(
            [
                "certify",
                "--target",
                f"http://127.0.0.1:{port}",
                "--wait",
                "60",
                "--requirement",
                "robots.4.6.x2",
                "--profile",
                "quick",
                "--out",
                str(tmp_path / "out"),
            ]
        )
    finally:
        starter.join()
        for server in servers:
            server.terminate()
            server.wait(timeout=10)
    assert code == 0


def test_a_bad_wait_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["certify", "--wait", "-1"]) == 2
    assert "--wait: -1.0 is not a number of seconds" in capsys.readouterr().err
