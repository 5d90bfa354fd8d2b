"""The soak profile (issue 27): ``instantcert certify --profile soak --duration MINUTES`` keeps
accounts and half revealed tickets alive over the duration and judges them again at the end,
so a target whose state expires after a while (a cache entry's time to live) is rejected for
the requirement it breaks, and for no other; ``--duration`` is the soak's alone.

Fast tier: a soak of seconds against a reveal state that lives 2 seconds, and the reference; a
soak of 90 seconds that plays through to a top-tier unit (1 000 EUR) and rejects a fee taken on
it; slow tier: the registered variant (a minute's time to live) against a soak of 100 seconds.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness._cli import main as cli_main

from ._base import service_variant
from ._player_faults import RevealStateExpires
from .certify import SEED, TEST_SETTINGS
from .variants import VARIANTS

#: handed to an xdist worker first (tests/conftest.py): few tests, soaks of seconds at a
#: player's pace (35 s)
pytestmark = pytest.mark.early

REQUIREMENT = "robots.4.3.reveal_symbols"


class RevealStateExpiresSoon(RevealStateExpires):
    """The same cache, its entries living 2 seconds: a soak of seconds shows it."""

    TTL_S = 2.0


expiring = service_variant("faulty:reveal_state_expires_soon", RevealStateExpiresSoon)

#: the soak's checks with the test profile's sizes: the player sessions are what is measured
SOAK_SETTINGS: dict[str, Any] = {
    **TEST_SETTINGS,
    "check_budget_s": 300,
    "run_budget_s": 600,
    "player_accounts": 4,
    "old_account_plays": 20,
}


def soak(
    target: str,
    minutes: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    requirements: tuple[str, ...] = (REQUIREMENT,),
    settings: dict[str, Any] | None = None,
) -> tuple[int, dict[str, Any], str]:
    """``instantcert certify --profile soak --duration minutes`` on ``target``, robots only, for
    ``requirements`` (robots 4.3): the exit code, report.json and the console."""
    config = tmp_path / "config.yaml"
    config.write_text(json.dumps({"settings": {**SOAK_SETTINGS, **(settings or {})}}))  # YAML
    out = tmp_path / "out"
    argv = ["certify", "--target", target, "--profile", "soak", "--duration", minutes]
    argv += ["--seed", str(SEED), "--config", str(config), "--out", str(out)]
    argv += ["--game", "robots"]
    for requirement in requirements:
        argv += ["--requirement", requirement]
    code = cli_main(argv)
    console = capsys.readouterr().out
    return code, json.loads((out / "report.json").read_text()), console


def failed(report: dict[str, Any]) -> list[str]:
    return sorted(r["id"] for r in report["requirements"] if r["outcome"] == "fail")


def sessions(report: dict[str, Any]) -> dict[str, Any]:
    """The player sessions check's entry in report.json."""
    return next(c for c in report["checks"] if c["check_id"] == "play.player_sessions")


def test_a_soak_of_seconds_rejects_a_reveal_state_that_expires(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report, console = soak("python:tests.faulty.test_soak:expiring", "0.1", tmp_path, capsys)
    assert code == 1
    assert failed(report) == [REQUIREMENT]
    assert sessions(report)["outcome"] == "fail"
    assert "left half revealed" in sessions(report)["message"]
    assert report["config"]["effective_settings"]["player_span_s"] == 6
    assert "the soak ran" in console


def test_a_soak_of_seconds_passes_the_reference(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report, console = soak("python:reference", "0.1", tmp_path, capsys)
    assert code == 0, failed(report)
    assert sessions(report)["outcome"] == "pass"
    assert sessions(report)["details"]["span_s"] == 6
    assert sessions(report)["details"]["ran_s"] >= 6  # the sessions lasted the duration
    assert "the soak ran" in console
    # 6 seconds reach no top-tier unit: said so, never passed as judged
    (note,) = sessions(report)["details"]["top_tiers"]
    assert note.startswith("robots at 100 cents: not judged"), note


TOP_TIER = "robots.4.10.prize_credited"


@pytest.mark.slow  # a 90-second soak: wall-clock time
def test_a_soak_buys_a_top_tier_unit_and_rejects_a_fee_on_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The reference's first robots block has its first top-tier unit (1 000 EUR) at unit
    37 040: a soak of 90 seconds plays through to it, and a target that credits it one euro
    short is rejected for robots 4.10, by the player sessions, and for nothing else."""
    variant = VARIANTS["play_top_tier_fee"]
    target = f"python:tests.faulty.variants:{variant.name}"
    # deep_stream (100 000 units in a soak) would buy that unit too: the sessions' alone here
    code, report, _ = soak(target, "1.5", tmp_path, capsys, (TOP_TIER,), {"deep_units": None})
    assert code == 1
    assert failed(report) == [TOP_TIER] and variant.caught_by(failed(report))
    assert sessions(report)["outcome"] == "fail"
    assert "the top-tier unit played through to" in sessions(report)["message"]


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--profile", "quick", "--duration", "5"], "--duration is for --profile soak"),
        (["--profile", "soak", "--duration", "0"], "not a number of minutes"),
        (["--profile", "soak", "--duration", "-3"], "not a number of minutes"),
        (["--profile", "soak", "--duration", "nan"], "not a number of minutes"),
        (["--profile", "soak", "--duration", "99999999"], "not a number of minutes"),
    ],
)
def test_duration_is_the_soaks_and_a_number_of_minutes(
    argv: list[str], says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = cli_main(["certify", *argv, "--out", str(tmp_path / "out")])
    assert code == 2
    assert says in capsys.readouterr().err


@pytest.mark.slow
def test_a_soak_rejects_the_registered_reveal_state_that_expires(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    variant = VARIANTS["play_reveal_state_expires"]
    code, report, _ = soak(f"python:tests.faulty.variants:{variant.name}", "1.7", tmp_path, capsys)
    assert code == 1
    assert variant.caught_by(failed(report)) and failed(report) == [REQUIREMENT]
