"""Check and run budgets: a check that does not end is cut (error naming the budget), the run
goes on, ends in bounded time and reports; a cut check can no longer reach the target."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from conformance import Check, CheckContext
from conformance._profiles import load_profile
from harness._budget import CancelToken, GuardedAdapter, Stalls
from harness._cli import main
from harness._events import CheckFinished, Event, Progress, RunFinished
from harness._reference_adapter import ReferenceAdapter
from harness._runner import Runner, RunPlan, RunResult

from . import _support as support

ROBOTS = ("robots",)


class HangingEvaluate(ReferenceAdapter):
    """A vendor Python adapter whose evaluate never returns."""

    def __init__(self) -> None:
        super().__init__(name="python:hanging")
        self.calls = 0
        self.release = threading.Event()

    def evaluate(self, game: str, stake_cents: int, tickets: Sequence[str]) -> list[dict[str, Any]]:
        self.calls += 1
        self.release.wait(60)
        return super().evaluate(game, stake_cents, tickets)


class SlowEvaluate(ReferenceAdapter):
    def __init__(self, delay_s: float) -> None:
        super().__init__(name="python:slow")
        self.delay_s = delay_s
        self.calls = 0

    def evaluate(self, game: str, stake_cents: int, tickets: Sequence[str]) -> list[dict[str, Any]]:
        self.calls += 1
        time.sleep(self.delay_s)
        return super().evaluate(game, stake_cents, tickets)


class Recorder:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def handle(self, event: Event) -> None:
        self.events.append(event)

    def close(self) -> None:
        pass


def evaluating(ctx: CheckContext) -> None:
    """Evaluates the X2 ticket, then more, until done or stopped."""
    for _ in range(3):
        ctx.adapter.evaluate("robots", 100, [support.X2_TICKET])


def make_checks(count: int, function: Any = evaluating) -> dict[str, Check]:
    return {
        f"robots_rules.c{n}": Check(
            f"robots_rules.c{n}", ("robots.4.6.x2",), "evaluate", ROBOTS, function, ""
        )
        for n in range(count)
    }


def run(
    adapter: Any, checks: dict[str, Check], **budgets: float
) -> tuple[RunResult, list[Event], float]:
    recorder = Recorder()
    # one check at a time unless a test says otherwise: the sequence of cuts is what is tested
    settings = {**load_profile("quick"), "check_concurrency": 1, **budgets}
    runner = Runner(
        RunPlan(target=adapter.name, profile="quick", settings=settings, seed=1, config={}),
        [recorder],
        checks=checks,
        catalogue=support.CATALOGUE,
    )
    began = time.monotonic()
    try:
        return runner.run(adapter), recorder.events, time.monotonic() - began
    finally:
        if hasattr(adapter, "release"):
            adapter.release.set()
        adapter.close()


def finished(events: list[Event]) -> dict[str, CheckFinished]:
    return {e.check_id: e for e in events if isinstance(e, CheckFinished)}


def test_a_hanging_python_adapter_is_cut_at_the_check_budget() -> None:
    adapter = HangingEvaluate()
    result, events, _ = run(adapter, make_checks(4), check_budget_s=0.5)
    done = finished(events)
    assert (result.verdict, result.exit_code) == ("INCOMPLETE", 1)
    first, second, third, fourth = (done[f"robots_rules.c{n}"] for n in range(4))
    for cut in (first, second):
        assert cut.outcome == "error"
        assert "cut at its budget of 0.5 s (check_budget_s)" in cut.message
        assert "still waiting on evaluate()" in cut.message
    # two checks hung in evaluate: the later ones are not waited on, and say why
    for quick in (third, fourth):
        assert quick.outcome == "error"
        assert "evaluate(): not called: it hung in 2 checks" in quick.message
    assert adapter.calls == 3  # the smoke step's known ticket, then the two hung checks
    assert isinstance(events[-1], RunFinished)


def test_the_run_budget_leaves_errors_not_a_hang() -> None:
    adapter = SlowEvaluate(0.3)  # each check takes about 0.9 s
    result, events, _ = run(adapter, make_checks(6), run_budget_s=1.5)
    done = finished(events)
    outcomes = [done[f"robots_rules.c{n}"] for n in range(6)]
    assert outcomes[0].outcome == "pass"
    assert "cut when the run budget of 1.5 s (run_budget_s) was spent" in outcomes[1].message
    for late in outcomes[2:]:
        assert late.outcome == "error"
        assert "the run budget of 1.5 s (run_budget_s) was spent before" in late.message
    assert result.exit_code == 1


def test_the_run_budget_holds_with_checks_side_by_side() -> None:
    adapter = SlowEvaluate(0.3)  # each check takes about 0.9 s; four run at once
    result, events, _ = run(adapter, make_checks(6), run_budget_s=1.5, check_concurrency=4)
    done = finished(events)
    assert sorted(done) == [f"robots_rules.c{n}" for n in range(6)]  # every check reported
    for check_id, event in done.items():
        assert event.outcome == "pass" or "run budget of 1.5 s" in event.message, check_id
    assert any(e.outcome == "error" for e in done.values())
    assert result.exit_code == 1


def test_a_cut_check_reaches_nothing_and_reports_nothing() -> None:
    adapter = SlowEvaluate(0.05)
    calls_at_cut: list[int] = []

    def stubborn(ctx: CheckContext) -> None:
        """Swallows every error and goes on: the cut must still stop it."""
        for n in range(10_000):
            with contextlib.suppress(Exception):
                ctx.adapter.evaluate("robots", 100, [support.X2_TICKET])
            ctx.progress(n, None, "tickets")

    _, events, _ = run(adapter, make_checks(1, stubborn), check_budget_s=0.5)
    calls_at_cut.append(adapter.calls)
    time.sleep(0.3)
    assert adapter.calls <= calls_at_cut[0] + 1  # at most the call in flight
    after = events[[type(e) for e in events].index(CheckFinished) :]
    assert not any(isinstance(e, Progress) for e in after)
    assert not any(t.name.startswith("check ") for t in threading.enumerate())


def test_the_guard_refuses_calls_once_cancelled() -> None:
    adapter = ReferenceAdapter()
    token = CancelToken()
    guard = GuardedAdapter(adapter, token, Stalls())
    assert guard.evaluate("robots", 100, [support.X2_TICKET])[0]["prize_cents"] == 100
    stream = guard.read_block(guard.list_blocks("robots", 100)[0]["block_id"], 0, 3000)
    lines = stream.lines()
    next(lines)
    token.cancel("cut")
    with pytest.raises(BaseException, match="cut"):
        list(lines)
    with pytest.raises(BaseException, match="cut"):
        guard.evaluate("robots", 100, [support.X2_TICKET])
    stream.close()
    adapter.close()


def test_a_describe_that_hangs_cannot_start_the_run() -> None:
    class HangingDescribe(ReferenceAdapter):
        release = threading.Event()

        def describe(self) -> dict[str, Any]:
            self.release.wait(60)
            return super().describe()

    result, _, _ = run(HangingDescribe(), make_checks(1), check_budget_s=0.5)
    assert (result.verdict, result.exit_code) == ("INCOMPLETE", 2)
    assert "describe() did not return within the check budget of 0.5 s" in result.note


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--check-budget", "0"], "--check-budget must be a number of seconds"),
        (["--run-budget", "-5"], "--run-budget must be a number of seconds"),
    ],
)
def test_bad_budget_flags_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["certify", "--profile", "quick", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0], err


def test_budgets_from_the_config_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("profile: quick\nrun_budget_s: nope\n")
    assert main(["certify", "--config", str(config)]) == 2
    assert "run_budget_s must be a number of seconds" in capsys.readouterr().err
    config.write_text("profile: quick\nsettings:\n  check_budget_s: 0\n")
    assert main(["certify", "--config", str(config)]) == 2
    assert "check_budget_s must be a number of seconds" in capsys.readouterr().err


def hanging_adapter() -> HangingEvaluate:
    """``python:tests.harness.test_budgets:hanging_adapter``: a vendor adapter that hangs."""
    return HangingEvaluate()


def test_certify_a_hanging_vendor_adapter_ends_with_its_reports(tmp_path: Path) -> None:
    code = main(
        [
            "certify",
            "--target",
            "python:tests.harness.test_budgets:hanging_adapter",
            "--profile",
            "quick",
            "--game",
            "robots",
            "--requirement",
            "robots.4.6.x2",
            "--check-budget",
            "1",
            "--out",
            str(tmp_path),
        ]
    )
    assert code == 1
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["config"]["effective_settings"]["check_budget_s"] == 1
    x2 = next(r for r in report["requirements"] if r["id"] == "robots.4.6.x2")
    assert x2["outcome"] == "error" and "check_budget_s" in x2["message"], x2["message"]
    messages = [c["message"] for c in report["checks"]]
    assert all(c["outcome"] == "error" for c in report["checks"]), messages
    # each check is cut (preparing its tickets, or waiting on evaluate), or, once evaluate
    # hung in two cut checks, refused at once
    assert all("check_budget_s" in m or "not waited on again" in m for m in messages), messages
    assert any("still waiting on evaluate()" in m for m in messages), messages


def test_a_vendor_module_that_hangs_on_import_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "hangs_on_import_x.py").write_text(
        "import threading\nthreading.Event().wait(60)\ndef factory(): pass\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    code = main(
        [
            "certify",
            "--target",
            "python:hangs_on_import_x:factory",
            "--check-budget",
            "1",
            "--out",
            str(tmp_path / "out"),
        ]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert len(err) == 1 and "not loaded within the check budget of 1 s" in err[0], err


class HangingDescribeAdapter(ReferenceAdapter):
    def describe(self) -> dict[str, Any]:
        threading.Event().wait(60)
        return super().describe()


def hanging_describe() -> HangingDescribeAdapter:
    """``python:tests.harness.test_budgets:hanging_describe``."""
    return HangingDescribeAdapter(name="python:hanging_describe")


def test_wait_and_smoke_are_bounded_when_describe_never_returns(tmp_path: Path) -> None:
    code = main(
        [
            "certify",
            "--target",
            "python:tests.harness.test_budgets:hanging_describe",
            "--profile",
            "quick",
            "--wait",
            "1",
            "--check-budget",
            "1",
            "--out",
            str(tmp_path),
        ]
    )
    assert code == 2
    report = json.loads((tmp_path / "report.json").read_text())
    assert "describe() did not return within the check budget of 1 s" in report["smoke"]["message"]


class HangingReveal(ReferenceAdapter):
    def reveal(self, play_id: str, token: str | None, button: int) -> dict[str, Any]:
        threading.Event().wait(3600)
        return super().reveal(play_id, token, button)


def hanging_reveal() -> HangingReveal:
    """``python:tests.harness.test_budgets:hanging_reveal``: its reveal never returns."""
    return HangingReveal(name="python:hanging_reveal")


def test_the_process_exits_though_a_cut_check_left_pool_threads_hanging(tmp_path: Path) -> None:
    """The reveal checks play their examples on a thread pool; Python joins pool threads at
    exit, so without ``exit_process`` the finished run's process would never end."""
    root = Path(__file__).resolve().parents[2]
    command = [sys.executable, "-c", "from harness._cli import entry_point; entry_point()"]
    target = ["--target", "python:tests.harness.test_budgets:hanging_reveal"]
    flags = ["--profile", "quick", "--game", "robots", "--check-budget", "2"]
    flags += ["--out", str(tmp_path)]
    process = subprocess.run(
        [*command, "certify", *target, *flags, "--requirement", "robots.4.7.reveal_plus_one"],
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert process.returncode == 1, process.stderr[-2000:]  # it ended (reveal hangs 3600 s)
    report = json.loads((tmp_path / "report.json").read_text())
    assert "check_budget_s" in report["checks"][0]["message"]


def test_the_process_ends_with_its_code_its_output_and_its_exit_handlers() -> None:
    """``exit_process`` skips the interpreter's teardown, not what a normal exit does first:
    the ``atexit`` handlers run, buffered output (a pipe) reaches the reader, the code is kept;
    a closed pipe is no error."""
    root = Path(__file__).resolve().parents[2]
    probe = (
        "import atexit, sys\n"
        "from harness._budget import exit_process\n"
        "atexit.register(lambda: print('handler ran'))\n"
        "sys.stdout.write('buffered, ')\n"
        "exit_process(3)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (3, "buffered, handler ran\n", "")
    quiet = "import sys; from harness._budget import exit_process; print('x' * 99); exit_process(0)"
    buffered = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    closed = subprocess.run(
        f'{sys.executable} -c "{quiet}" | head -c 0',
        shell=True,
        cwd=root,
        env={**buffered, "PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert closed.stderr == ""


def test_budgets_hold_for_checks_run_side_by_side() -> None:
    adapter = HangingEvaluate()
    result, events, _ = run(adapter, make_checks(6), check_budget_s=0.5, check_concurrency=4)
    done = finished(events)
    assert len(done) == 6 and all(e.outcome == "error" for e in done.values())
    assert all(
        "check_budget_s" in e.message or "not waited on again" in e.message for e in done.values()
    )
    assert result.exit_code == 1


class HangingStream:
    """A block stream whose lines stop coming after three, for ever."""

    def __init__(self) -> None:
        self.header = {"format": "block/1", "game": "robots", "stake_cents": 100,
                       "block_id": "b", "units": 3, "start": 0, "count": 3}  # fmt: skip

    def lines(self) -> Any:
        yield from (b"{}", b"{}", b"{}")
        threading.Event().wait(60)

    def close(self) -> None:
        pass


class HangingBlocks(ReferenceAdapter):
    def read_block(self, block_id: str, start: int | None = None, count: int | None = None) -> Any:
        return HangingStream()


def test_a_block_stream_that_hangs_is_not_read_again_after_two_cuts() -> None:
    def reading(ctx: CheckContext) -> None:
        for _ in ctx.adapter.read_block("b").lines():
            pass

    lots = ("robots.3.lot_table",)
    checks = {
        f"blocks.c{n}": Check(f"blocks.c{n}", lots, "blocks", ROBOTS, reading, "") for n in range(4)
    }
    result, events, _ = run(HangingBlocks(), checks, check_budget_s=0.5)
    done = finished(events)
    for n in (0, 1):
        assert "still waiting on read_block()" in done[f"blocks.c{n}"].message
    for n in (2, 3):
        assert "read_block(): not called: it hung in 2 checks" in done[f"blocks.c{n}"].message
    assert result.exit_code == 1
