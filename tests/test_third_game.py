"""Proof of the game registry (issue 13): Coins, a game that exists only in the test tree
(``tests/third_game``: rules, engine, kit), is certified end to end like robots and eldorado.

With its reference engine and its conformance kit registered, ``instantcert certify`` runs the
quick profile on Coins in-process and over HTTP against the reference server serving it: every
Coins requirement passes, every report is written and names the game, the HTML report draws its
units with the kit's board. A fault planted in the service (a silver purse paid 1 € too much) is
caught for the requirement it breaks, ``coins.4.purse_pays``: NOT CERTIFIED. Coins has buttons
(a purse each, issue 31): the reveal checks, written for robots, play it through the same code
and pass, and a service that reveals the coins in purse order whichever purse is clicked is
caught for ``coins.6.reveal_order``. Nothing of it stays registered after the module.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import reference
from conformance import load_catalogue, registered_checks
from conformance._clauses import load_clauses
from conformance.games import kit_names
from harness._cli import main
from harness._reports.manifest import REPORT_FILES
from reference._server import ServerThread
from reference._service import GameService
from tests.third_game import kit as coins_kit
from tests.third_game.targets import OVERPAID_CENTS, MisPayingService
from tests.third_game.targets import SEED as SERVICE_SEED

#: handed to an xdist worker first: few tests, long ones (Coins certified four times, 40 s)
pytestmark = pytest.mark.early

SEED = "13"
FAULTY = "python:tests.third_game.targets:mispaying"
BUTTON_BLIND = "python:tests.third_game.targets:button_blind"
REVEAL_CHECKS = {  # the reveal checks registered for Coins' kit, and what each covers
    "play.coins_reveal_order": ("coins.6.reveal_coins", "coins.6.reveal_order"),
    "play.coins_plus_one": ("coins.6.reveal_plus_one",),
    "play.coins_auto_any_moment": ("coins.6.auto_any_moment",),
    "play.coins_reveal_answer": ("play.reveal.answer",),
}
REVEAL_REQUIREMENTS = {r for covered in REVEAL_CHECKS.values() for r in covered}
CHECKS_BEFORE = set(registered_checks())


@pytest.fixture(scope="module", autouse=True)
def coins() -> Iterator[None]:
    with coins_kit.registered():
        yield
    assert "coins" not in kit_names() and "coins" not in reference.GAMES
    assert set(registered_checks()) == CHECKS_BEFORE
    assert not any(r.startswith("coins.") for r in load_catalogue())


#: the run over HTTP at smaller sizes (fewer examples, plays and players, for a second): what
#: it holds is that Coins' requirements pass through the reference server too; the quick
#: profile's own sizes are the in-process run's. At the quick profile's sizes, its plays and
#: player sessions over HTTP were 13 CPU-s, the in-process run's 3
OVER_HTTP_SETTINGS = {
    "hypothesis_max_examples": 20,
    "play_count": 5,
    "concurrency_threads": 2,
    "concurrent_plays_per_thread": 3,
    "player_accounts": 2,
    "player_span_s": 1,
    "old_account_plays": 5,
}


def certify(
    out: Path, target: str, *requirements: str, settings: dict[str, Any] | None = None
) -> tuple[int, dict[str, Any]]:
    """``instantcert certify`` on Coins, quick profile (of ``requirements`` only, if given;
    with ``settings`` over the profile's, if given); (exit code, report.json)."""
    flags = ["--profile", "quick", "--game", "coins", "--seed", SEED, "--out", str(out)]
    flags += [f for rid in requirements for f in ("--requirement", rid)]
    if settings is not None:
        out.mkdir(parents=True, exist_ok=True)
        config = out.parent / f"{out.name}-config.yaml"
        config.write_text(json.dumps({"settings": settings}), encoding="utf-8")  # JSON is YAML
        flags += ["--config", str(config)]
    code = main(["certify", "--target", target, *flags])
    return code, json.loads((out / "report.json").read_text(encoding="utf-8"))


def coins_verdicts(report: dict[str, Any]) -> dict[str, str]:
    return {r["id"]: r["outcome"] for r in report["requirements"] if r["id"].startswith("coins.")}


def test_the_kit_brings_the_game_its_checks_requirements_and_clauses() -> None:
    checks = registered_checks()
    mine = {cid for cid, c in checks.items() if "coins" in c.games}
    assert {
        "coins_rules.every_ticket",
        "stakes.coins",
        "invalid_tickets.coins",
        "play.coins_stake_debited",
        "play.coins_prize_credited",
        "play.coins_history_unrevealed",
        "blocks.lot_table",
        "invalid_tickets.per_ticket",
    } <= mine
    assert {cid: checks[cid].requirements for cid in REVEAL_CHECKS} == REVEAL_CHECKS
    assert "coins.6.reveal_order" in checks["play.player_sessions"].requirements
    assert "coins.3.lot_table" in checks["blocks.lot_table"].requirements
    assert "coins.5.last_unit" in checks["play.history_listing"].requirements
    covered = {r for c in checks.values() for r in c.requirements}
    ids = {r for r in load_catalogue() if r.startswith("coins.")}
    assert len(ids) == 28 and ids <= covered  # every Coins requirement has a check
    assert {c.game for c in load_clauses().values() if c.id.startswith("coins.")} == {"coins"}


def test_the_kit_s_sweep_is_every_ticket_once_each_valid() -> None:
    tickets = coins_kit.make_kit().sweeps["every_ticket"]()
    assert len(tickets) == len(set(tickets)) == 3**6
    assert (
        sum(reference.prize_cents("coins", 100, t) > 0 for t in tickets) == 27**2 - 24**2
    )  # a purse wins in 3 of 27


def assert_reports_name_the_game(out: Path) -> str:
    for name in REPORT_FILES:
        if name in ("attestation.json", "report.sig"):
            continue
        assert (out / name).is_file(), name
    for name in ("report.json", "report.md", "report.html", "junit.xml"):
        assert "coins" in (out / name).read_text(encoding="utf-8"), name
    return (out / "report.html").read_text(encoding="utf-8")


def test_coins_is_certified_in_process(tmp_path: Path) -> None:
    code, report = certify(tmp_path, "python:reference")
    verdicts = coins_verdicts(report)
    assert code == 0, report["verdict"]
    assert verdicts and set(verdicts.values()) == {"pass"}, verdicts
    assert not [r for r in report["requirements"] if r["outcome"] in ("fail", "error")]
    assert set(report["implementation"]["games"]) >= {"coins"}
    html = assert_reports_name_the_game(tmp_path)
    assert ".coins-unit{" in html  # the kit's board CSS is in the page
    # the reveal checks, written for robots, played Coins' purses through the same code
    ran = {c["check_id"]: c["outcome"] for c in report["checks"]}
    assert {cid: ran.get(cid) for cid in REVEAL_CHECKS} == dict.fromkeys(REVEAL_CHECKS, "pass")
    outcomes = {r["id"]: r["outcome"] for r in report["requirements"]}
    assert {outcomes[r] for r in REVEAL_REQUIREMENTS if r.startswith("coins.")} == {"pass"}
    # play.reveal.answer is every game's: robots' check of it is outside a run of Coins alone
    assert ran["play.robots_reveal_answer"] == outcomes["play.reveal.answer"] == "not_run"


def test_coins_is_certified_over_http(tmp_path: Path) -> None:
    service = GameService(tmp_path / "served.sqlite3", SERVICE_SEED, durable=False)
    try:
        with ServerThread(service) as server:
            code, report = certify(tmp_path / "out", server.url, settings=OVER_HTTP_SETTINGS)
    finally:
        service.close()
    verdicts = coins_verdicts(report)
    assert code == 0, report["verdict"]
    assert verdicts and set(verdicts.values()) == {"pass"}, verdicts
    assert report["target"] == server.url
    assert report["config"]["effective_settings"]["player_accounts"] == 2
    assert_reports_name_the_game(tmp_path / "out")


def test_a_fault_planted_in_coins_is_caught_for_its_requirement(tmp_path: Path) -> None:
    code, report = certify(tmp_path, FAULTY)
    failed = [r["id"] for r in report["requirements"] if r["outcome"] == "fail"]
    assert code == 1 and report["verdict"]["overall"] == "NOT CERTIFIED"
    assert failed == ["coins.4.purse_pays"]
    html = assert_reports_name_the_game(tmp_path)
    assert '<div class="coins-unit">' in html  # the counterexample drawn by the kit's board
    evidence = next(
        e
        for c in report["checks"]
        if c["check_id"] == "coins_rules.every_ticket"
        for e in c["evidence"]
    )
    assert evidence["got"]["prize_cents"] == evidence["expected"]["prize_cents"] + OVERPAID_CENTS
    # the case file written for it replays: still failing there, passing on the reference
    (case,) = next(c for c in report["checks"] if c["check_id"] == "coins_rules.every_ticket")[
        "case_files"
    ][:1]
    assert main(["replay", str(tmp_path / case), "--target", FAULTY]) == 1
    assert main(["replay", str(tmp_path / case), "--target", "python:reference"]) == 0


def test_the_planted_fault_is_caught_over_http_too(tmp_path: Path) -> None:
    """Coins' requirements judged through evaluate, where the fault is: that it fails no
    other requirement of the whole run is test_a_fault_planted_in_coins_is_caught_for_its_
    requirement's (in-process), and that Coins' plays and blocks pass over HTTP is
    test_coins_is_certified_over_http's."""
    evaluating = [
        rid
        for rid, r in load_catalogue().items()
        if rid.startswith("coins.") and r.capability == "evaluate"
    ]
    assert "coins.4.purse_pays" in evaluating and len(evaluating) > 5
    service = MisPayingService(tmp_path / "served.sqlite3", SERVICE_SEED, durable=False)
    try:
        with ServerThread(service) as server:
            code, report = certify(tmp_path / "out", server.url, *evaluating)
    finally:
        service.close()
    assert code == 1 and report["verdict"]["overall"] == "NOT CERTIFIED"
    assert [r["id"] for r in report["requirements"] if r["outcome"] == "fail"] == [
        "coins.4.purse_pays"
    ]


def test_a_reveal_fault_planted_in_coins_is_caught_by_the_reveal_checks(tmp_path: Path) -> None:
    """A service that shows the play's next coin in purse order whichever purse is clicked:
    right purse by purse, wrong in any other order. The reveal checks catch it for the order
    requirement Coins' kit names, and its case file replays: failing there, passing on the
    reference."""
    code, report = certify(tmp_path, BUTTON_BLIND)
    failed = {r["id"] for r in report["requirements"] if r["outcome"] == "fail"}
    assert code == 1 and report["verdict"]["overall"] == "NOT CERTIFIED"
    assert "coins.6.reveal_order" in failed and failed <= REVEAL_REQUIREMENTS, failed
    (check,) = [c for c in report["checks"] if c["check_id"] == "play.coins_reveal_order"]
    assert check["outcome"] == "fail" and check["evidence"][0]["input"]["game"] == "coins"
    case = tmp_path / check["case_files"][0]
    assert main(["replay", str(case), "--target", BUTTON_BLIND]) == 1
    assert main(["replay", str(case), "--target", "python:reference"]) == 0


def test_a_coins_block_file_is_audited_and_a_wrong_prize_in_it_caught(tmp_path: Path) -> None:
    """``audit-block`` on a Coins block file: no kernel, the reference evaluator judges each
    line; one unit's prize raised is caught for ``coins.3.unit_prize``."""
    block = reference.Block("coins", 100, "coins-100-0001", SERVICE_SEED)
    good = tmp_path / "coins.jsonl"
    reference.write_block_file(good, block)
    assert main(["audit-block", str(good), "--out", str(tmp_path / "good"), "--seed", SEED]) == 0
    report = json.loads((tmp_path / "good" / "report.json").read_text(encoding="utf-8"))
    assert coins_verdicts(report)["coins.3.unit_prize"] == "pass"
    lines = good.read_bytes().splitlines(keepends=True)
    unit = json.loads(lines[1])
    unit["prize_cents"] += OVERPAID_CENTS
    lines[1] = json.dumps(unit, separators=(",", ":")).encode() + b"\n"
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b"".join(lines))
    assert main(["audit-block", str(bad), "--out", str(tmp_path / "bad"), "--seed", SEED]) == 1
    report = json.loads((tmp_path / "bad" / "report.json").read_text(encoding="utf-8"))
    failed = [r["id"] for r in report["requirements"] if r["outcome"] == "fail"]
    assert "coins.3.unit_prize" in failed and all(r.startswith("coins.") for r in failed)


@pytest.mark.parametrize(
    ("file", "text", "fault"),
    [
        ("requirement_files", "requirements: [{id: coins.x}]\n", "'article' must be a non-empty"),
        (
            "clause_files",
            "source: coins\nlanguage: en\ndocument: d\nclauses:\n"
            "  - {id: coins.x, article: coins 4, text: t, requirements: [coins.nobody]}\n",
            r"\['coins.nobody'\] not in the catalogue",
        ),
    ],
)
def test_a_kit_with_broken_data_is_refused_and_leaves_nothing(
    tmp_path: Path, file: str, text: str, fault: str
) -> None:
    from dataclasses import replace

    from conformance import games
    from conformance.games import kit

    broken = tmp_path / "coins_extra.yaml"
    broken.write_text(text, encoding="utf-8")
    original = kit("coins")
    games.unregister_kit("coins")
    before = set(registered_checks())
    try:
        bad = replace(coins_kit.make_kit(), **{file: (*getattr(original, file), broken)})
        with pytest.raises(games.ConformanceError, match=fault):
            games.register_kit(bad)
        assert "coins" not in kit_names() and set(registered_checks()) == before
        assert not any(r.startswith("coins.") for r in load_catalogue())
    finally:
        games.register_kit(coins_kit.make_kit())


def test_a_kit_names_reveal_requirements_exactly_when_its_engine_has_buttons() -> None:
    """The reveal checks play the buttons the engine describes, under the requirements the kit
    names: a kit of a game with buttons without them, or one naming them for a game without
    buttons, is refused naming the fault."""
    from dataclasses import replace

    from conformance import games
    from conformance.games import _needs_reveals_iff_buttons, kit

    games.unregister_kit("coins")
    before = set(registered_checks())
    try:
        with pytest.raises(games.ConformanceError, match="its engine has 2 buttons"):
            games.register_kit(replace(coins_kit.make_kit(), reveals=None))
        assert "coins" not in kit_names() and set(registered_checks()) == before
    finally:
        games.register_kit(coins_kit.make_kit())
    buttonless = replace(kit("eldorado"), reveals=coins_kit.REVEALS)
    with pytest.raises(games.ConformanceError, match="its engine has no buttons"):
        _needs_reveals_iff_buttons(buttonless)
