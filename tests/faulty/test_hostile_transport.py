"""Hostile transports, certified end to end with ``--timeout 1``: each run ends, with the
right verdict and exit code, every report written (report.json parses), and each cut call's
error naming the deadline that cut it (no test asserts a duration: a run that hung would be
stopped by the suite's hang guard, ``timeout`` in pyproject.toml, and fail).

A run that cannot start (slow headers, a server that never reads, an endless HTTP/1.0 answer
to describe) is in ``tests/harness/test_exit_codes.py``; here the run starts, and the target
hangs on one endpoint, or on all of them, or answers everything 1.5 s late: the deadline cuts
each call, the circuit breaker stops the waiting after two timeouts per endpoint.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from conformance import load_catalogue
from harness import open_target
from harness._reports import REPORT_FILES

from .certify import Outcome, certify
from .hostile_transport import ENDPOINTS, hang, serve_broken, serve_slow
from .http_bridge import Serving

#: handed to an xdist worker first (tests/conftest.py): few tests, targets that hang until a
#: deadline (30 s)
pytestmark = pytest.mark.early

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response

TIMEOUT_S = 1.0

#: the requirements a run covers when one endpoint hangs: they need that endpoint
SCOPES: dict[str, list[str]] = {
    "POST /v1/evaluate": ["robots.4.6.x2", "robots.4.2.invalid_board"],
    "GET /v1/blocks": ["blocks.contract3.header", "robots.3.unit_prize"],
    "GET /v1/blocks/{block_id}": ["blocks.contract3.header", "robots.3.unit_prize"],
    "POST /v1/accounts": ["play.money.exact", "robots.4.1.stake_debited"],
    "GET /v1/accounts/{account_id}": ["robots.4.1.stake_debited"],
    "POST /v1/accounts/{account_id}/plays": ["robots.4.1.stake_debited"],
    "GET /v1/accounts/{account_id}/history": ["robots.4.1.history_unrevealed"],
    "POST /v1/plays/{play_id}/reveal": ["robots.4.7.reveal_plus_one"],
    "POST /v1/plays/{play_id}/auto": ["robots.4.10.prize_credited", "robots.4.4.auto_any_moment"],
}


def certify_over(
    serving: Serving, out: Path, requirements: list[str] | None, games: list[str] | None
) -> Outcome:
    with serving as url:
        outcome = certify(
            open_target(url, timeout=TIMEOUT_S),
            target=url,
            games=games,
            requirements=requirements,
            out=out,
            settings={"scenario_workers": 1},
        )
    return outcome


def assert_reports(out: Path, outcome: Outcome) -> None:
    for name in REPORT_FILES:
        assert (out / name).is_file(), f"{name} not written"
    report = json.loads((out / "report.json").read_text())
    assert report["verdict"]["overall"] == outcome.verdict
    assert report["verdict"]["exit_code"] == outcome.exit_code


@pytest.mark.parametrize("endpoint", [f"{m} {p}" for m, p in ENDPOINTS])
def test_a_hang_on_any_endpoint_ends_in_bounded_time(endpoint: str, tmp_path: Path) -> None:
    method, path = endpoint.split(" ")
    serving = serve_broken({(method, path): hang}, name=f"hang {endpoint}")
    outcome = certify_over(serving, tmp_path, SCOPES.get(endpoint), ["robots"])
    assert_reports(tmp_path, outcome)
    assert outcome.verdict == "INCOMPLETE" and not outcome.failed, outcome.note
    if endpoint == "GET /v1/implementation":
        assert outcome.exit_code == 2 and "could not start" in outcome.note
        return
    assert outcome.exit_code == 1 and outcome.errored, outcome.note
    for rid in outcome.errored:
        assert "timeout" in outcome.messages[rid], outcome.messages[rid][:300]


def evaluate_scope() -> list[str]:
    """Every requirement a check judges through ``evaluate``, and one of the plays'."""
    ids = [rid for rid, r in load_catalogue().items() if r.capability == "evaluate"]
    return [*ids, "robots.4.1.stake_debited"]


@pytest.mark.parametrize(
    "whole",
    [
        # fast tier: every check that evaluates, and a play check beside them (the block and
        # play checks never call evaluate: the whole run's other 30 s prove nothing more here)
        False,
        # slow tier: the whole quick run, its block audit and plays too
        pytest.param(True, marks=pytest.mark.slow),
    ],
    ids=["evaluating", "whole"],
)
def test_every_evaluate_hanging_ends_a_quick_run_in_bounded_time(
    whole: bool, tmp_path: Path
) -> None:
    serving = serve_broken({("POST", "/v1/evaluate"): hang}, name="hang evaluate")
    outcome = certify_over(serving, tmp_path, None if whole else evaluate_scope(), None)
    assert_reports(tmp_path, outcome)
    assert (outcome.verdict, outcome.exit_code) == ("INCOMPLETE", 1)
    assert not outcome.failed
    messages = [outcome.messages[r] for r in outcome.errored]
    assert any("no complete answer within 1 s" in m for m in messages)
    # the breaker: after two timeouts, later evaluate calls fail at once, citing the first
    assert any("not waited on again" in m for m in messages)
    for rid in ("robots.4.6.x2", "eldorado.4.1.rows", "robots.contract.invalid_stake"):
        assert outcome.outcomes[rid] == "error", (rid, outcome.messages[rid][:300])
    assert outcome.outcomes["robots.4.1.stake_debited"] == "pass", outcome.messages[
        "robots.4.1.stake_debited"
    ][:600]  # plays do not evaluate


def test_every_answer_late_ends_a_quick_run_in_bounded_time(tmp_path: Path) -> None:
    outcome = certify_over(serve_slow(1.5), tmp_path, None, None)
    assert_reports(tmp_path, outcome)
    assert (outcome.verdict, outcome.exit_code) == ("INCOMPLETE", 1)
    assert not outcome.failed and outcome.errored
    assert all(o in ("error", "not_run", "not_supported") for o in outcome.outcomes.values())


def test_a_check_exploring_plays_stops_at_the_first_timeout(tmp_path: Path) -> None:
    """Hypothesis would shrink a timeout, replaying whole play scenarios (account, play,
    clicks) into the dead endpoint; the first timeout ends the exploration instead."""
    asked: list[str] = []

    async def counted_hang(request: Request) -> Response:
        asked.append(request.url.path)
        return await hang(request)

    serving = serve_broken({("POST", "/v1/plays/{play_id}/auto"): counted_hang}, name="hang auto")
    outcome = certify_over(serving, tmp_path, ["robots.4.4.auto_any_moment"], ["robots"])
    assert outcome.outcomes["robots.4.4.auto_any_moment"] == "error"
    report = json.loads((tmp_path / "report.json").read_text())
    (check,) = [c for c in report["checks"] if c["check_id"] == "play.robots_auto_any_moment"]
    assert "no complete answer within 1 s" in check["message"]
    # no replay into the dead endpoint: one AUTO at most from each check that covers the
    # requirement (the exploring one, and the overlap rounds': play.concurrent_one_account,
    # play.player_sessions), where a shrink would replay scenario after scenario into it
    ran = [c for c in report["checks"] if c.get("outcome") != "not_run"]
    covering = [c for c in ran if "robots.4.4.auto_any_moment" in json.dumps(c)]
    assert len(asked) <= len(covering), (asked, [c["check_id"] for c in covering])
