"""``instantcert evaluate`` as contract section 6 says, run as a real process."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from harness._cli import main

CONTRACT_ROBOTS = "OHPSCTQD|C D2+P S S C S D T S P H O C S T D C C"
CONTRACT_ELDORADO = "YYSYY/VBPSX/BBPPS|SSSSS/PVBYP/BYVPS"


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from harness._cli import entry_point; entry_point()", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_tickets_as_arguments_give_one_json_result_a_line() -> None:
    done = run("evaluate", "--game", "robots", CONTRACT_ROBOTS, CONTRACT_ROBOTS)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 2
    assert json.loads(lines[0]) == {
        "prize_cents": 100,
        "wins": [{"robot": 7, "symbol": "blue_diamond", "amount_cents": 100}],
    }


def test_tickets_on_stdin_and_the_stake() -> None:
    done = run(
        "evaluate", "--game", "eldorado", "--stake-cents", "200", stdin=CONTRACT_ELDORADO + "\n\n"
    )
    assert done.returncode == 0, done.stderr
    assert [json.loads(line)["prize_cents"] for line in done.stdout.splitlines()] == [1200000]


def test_eldorado_defaults_to_the_1_euro_stake() -> None:
    done = run("evaluate", "--game", "eldorado", CONTRACT_ELDORADO)
    assert json.loads(done.stdout)["prize_cents"] == 600000


def test_the_first_invalid_ticket_exits_2_naming_ticket_and_fault() -> None:
    bad = "OHPSCTQD|C D2+P S S C S D Z S P H O C S T D C C"
    done = run("evaluate", "--game", "robots", CONTRACT_ROBOTS, bad, CONTRACT_ROBOTS)
    assert done.returncode == 2
    assert len(done.stdout.splitlines()) == 1  # the valid ticket before it was still evaluated
    message = done.stderr.strip()
    assert "\n" not in message
    assert "ticket 1" in message and "button 7: 'Z' is not a robots symbol" in message


def test_an_invalid_line_on_stdin_is_named_by_its_line_number() -> None:
    done = run("evaluate", "--game", "eldorado", stdin=CONTRACT_ELDORADO + "\nYYSYY/VBPSS\n")
    assert done.returncode == 2
    assert "line 2" in done.stderr and "grid 0: expected 3 rows" in done.stderr


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["evaluate", "--game", "robots", "--stake-cents", "50", CONTRACT_ROBOTS], "--stake-cents"),
        (["evaluate", "--game", "keno", "x"], "invalid choice: 'keno'"),
        (["evaluate", "--game", "robots", "--stake-cents", "1e2", "x"], "invalid int value"),
        (["evaluate", CONTRACT_ROBOTS], "--game"),
    ],
)
def test_bad_arguments_exit_2(args: list[str], words: str) -> None:
    done = run(*args)
    assert done.returncode == 2
    assert words in done.stderr
    assert "Traceback" not in done.stderr


def test_main_returns_the_exit_code(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evaluate", "--game", "robots", CONTRACT_ROBOTS]) == 0
    assert json.loads(capsys.readouterr().out)["prize_cents"] == 100
