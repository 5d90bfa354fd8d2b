"""The game kits (``conformance.games``): one per game, registered by name; the generic checks,
the audit kernels and the reports ask the kit, and an unknown game is an error everywhere."""

from __future__ import annotations

import ast
import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

import conformance.games as games
import reference
from conformance import _evaluation, _kernels, check_settings, registered_checks
from conformance import strategies as S
from conformance.games import UnknownGame, kit, kit_names, kits
from conformance.games._eldorado_kernel import eldorado_prizes
from conformance.games._robots_kernel import robots_prizes
from harness._reports._render import render_unit
from harness._reports.html import css

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ("robots", "eldorado")


def test_the_shipped_games_have_a_kit_each_in_order() -> None:
    assert kit_names() == SHIPPED
    assert [k.name for k in kits()] == list(SHIPPED)
    assert kits(["eldorado"]) == [kit("eldorado")]
    for found in kits():
        assert set(found.invalid_kinds) == {k for k, _ in found.invalid_examples}
        assert found.examples[0] != found.examples[1]
        assert found.kernel is not None and found.prepare is not None


@pytest.mark.parametrize("name", ["keno", "Robots", "eldorado ", "", None, 7])
def test_an_unknown_game_is_an_error_naming_it_and_the_known_games(name: object) -> None:
    with pytest.raises(UnknownGame) as caught:
        kit(name)
    message = str(caught.value)
    assert repr(name) in message and "robots, eldorado" in message


@pytest.mark.parametrize(
    "use",
    [
        lambda: S.valid_tickets("keno"),
        lambda: S.invalid_tickets("keno"),
        lambda: S.invalid_tickets_of("keno", "separator"),
        lambda: _evaluation.difference("keno", {"prize_cents": 0, "wins": []}, {"wins": [{}]}),
        lambda: kits(["robots", "keno"]),
    ],
)
def test_game_dependent_helpers_never_fall_through_to_another_game(use: object) -> None:
    """Before the kits, ``valid_tickets("keno")`` drew eldorado tickets."""
    with pytest.raises(UnknownGame, match="'keno'"):
        use()  # type: ignore[operator]


def test_an_unknown_kind_of_invalid_ticket_is_named() -> None:
    with pytest.raises(games.ConformanceError, match=r"'nonsense'.*separator"):
        kit("robots").invalid_tickets_of("nonsense")


@pytest.mark.parametrize(
    ("raw", "fault"),
    [
        ({"games": ["keno"]}, r"list of \('robots', 'eldorado'\), .*: unknown game 'keno'"),
        ({"games": ["robots", "Eldorado"]}, "unknown game 'Eldorado'"),
        ({"stakes": {"keno": [100]}}, r"games \('robots', 'eldorado'\) .*: unknown game 'keno'"),
    ],
)
def test_settings_naming_an_unknown_game_are_refused(raw: dict[str, object], fault: str) -> None:
    with pytest.raises(games.ConformanceError, match=fault):
        check_settings(raw, "here")


def test_the_kernels_are_views_of_the_kits() -> None:
    assert dict(_kernels.KERNELS) == {"robots": robots_prizes, "eldorado": eldorado_prizes}
    assert list(_kernels.PREPARE) == list(SHIPPED)
    assert "keno" not in _kernels.KERNELS and len(_kernels.PREPARE) == 2


@pytest.mark.parametrize("name", SHIPPED)
def test_every_sweep_of_a_kit_is_valid_tickets_only(name: str) -> None:
    found = kit(name)
    assert found.sweeps
    stake = reference.load_rules(name).stakes_cents[0]
    for sweep, tickets in found.sweeps.items():
        listed = tickets()
        assert len(listed) > 100, sweep
        for ticket in listed[:: max(1, len(listed) // 500)]:
            reference.prize_cents(name, stake, ticket)  # TicketError if not valid


def test_a_kit_without_a_reference_engine_is_refused_and_changes_nothing() -> None:
    before = registered_checks()
    ghost = dataclasses.replace(kit("robots"), name="ghost")
    with pytest.raises(games.ConformanceError, match=r"'ghost'.*reference engine first"):
        games.register_kit(ghost)
    assert kit_names() == SHIPPED and registered_checks() == before
    with pytest.raises(games.ConformanceError, match="registered already"):
        games.register_kit(kit("robots"))


def test_per_game_checks_and_requirements_come_from_the_kits() -> None:
    checks = registered_checks()
    for name in SHIPPED:
        found = kit(name)
        assert checks[f"stakes.{name}"].requirements == (f"{name}.2.stakes",)
        assert checks[f"play.{name}_stake_debited"].requirements == (
            f"{found.history_article}.stake_debited",
        )
        assert checks[f"play.{name}_prize_credited"].requirements == (
            f"{found.prize_article}.prize_credited",
        )
        assert f"{found.history_article}.last_unit" in checks["play.history_listing"].requirements
        invalid = checks[f"invalid_tickets.{name}"]
        assert set(invalid.requirements) >= set(found.invalid_kinds.values())
    assert checks["invalid_tickets.stakes"].games == SHIPPED
    assert checks["blocks.lot_table"].requirements == (
        "robots.3.lot_table",
        "eldorado.3.1.lot_table",
        "eldorado.3.2.lot_table",
        "eldorado.3.3.lot_table",
    )


def test_the_report_draws_a_ticket_with_its_kits_board(monkeypatch: pytest.MonkeyPatch) -> None:
    """The HTML report holds no drawing of its own: swap the kit's board and the report
    shows the swapped one (escaped through the report's escaper)."""
    ticket = kit("eldorado").examples[0]
    assert 'class="eldorado-unit"' in render_unit("eldorado", ticket)

    def board(ticket: str, expected: object, got: object, stake: object, escape: object) -> str:
        return f"<i>drawn by the kit: {escape(ticket)}</i>"  # type: ignore[operator]

    swapped = dataclasses.replace(kit("eldorado"), board=board, board_css=".swapped{}")
    monkeypatch.setitem(games._KITS, "eldorado", swapped)
    html = render_unit("eldorado", ticket + "<")
    assert html.startswith("<i>drawn by the kit: ") and "&lt;" in html
    assert ".swapped{}" in css() and ".eldorado-unit{" not in css()
    monkeypatch.setitem(games._KITS, "eldorado", dataclasses.replace(swapped, board=None))
    assert render_unit("eldorado", ticket).startswith('<div class="notation">')


def test_the_report_refuses_to_draw_an_unknown_game() -> None:
    html = render_unit("keno", "YYSYY/VBPSX/BBPPS")
    assert "unknown game &#x27;keno&#x27;" in html and "eldorado-unit" not in html


def _game_words(path: Path) -> list[str]:
    """String constants (docstrings aside) and identifiers of ``path`` naming a shipped game."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            words = node.value.lower() if id(node) not in docstrings else ""
        elif isinstance(node, ast.Name):
            words = node.id.lower()
        elif isinstance(node, ast.Attribute):
            words = node.attr.lower()
        else:
            continue
        found += [
            f"{path.relative_to(ROOT)}:{node.lineno}: {words[:60]!r}" for g in SHIPPED if g in words
        ]
    return found


def test_the_harness_and_its_reports_name_no_game() -> None:
    """Every game-dependent decision of the harness (scope, configs, report drawings, article
    order) goes through the kits; only the CLI's help texts name the shipped games."""
    sources = [p for p in (ROOT / "harness").rglob("*.py") if "_cli" not in p.parts]
    assert len(sources) > 20
    assert [w for p in sources for w in _game_words(p)] == []


def test_the_generic_checks_name_no_game() -> None:
    """Only the kits and each game's own checks and strategies name a game."""
    folder = ROOT / "conformance" / "checks"
    generic = [
        p
        for p in folder.glob("*.py")
        if not any(g in p.name for g in SHIPPED)  # a game's own
    ]
    assert {p.name for p in generic} >= {"play_reveal.py", "reveal_answer.py"}
    scenarios = list((folder / "_scenarios").glob("*.py"))
    assert {p.name for p in scenarios} >= {"money.py", "sales.py", "refusals.py", "reveal.py"}
    generic += scenarios
    generic += [ROOT / "conformance" / n for n in ("_evaluation.py", "_profiles.py", "_kernels.py")]
    generic += [ROOT / "conformance" / n for n in ("_registry.py", "_catalogue.py", "_clauses.py")]
    assert [w for p in generic for w in _game_words(p)] == []


def test_a_case_file_naming_an_unknown_game_is_refused_naming_it(tmp_path: Path) -> None:
    from conformance import load_profile
    from harness._cases import load_case, write_cases
    from harness._errors import ConfigError

    ticket = kit("robots").examples[0]
    evidence = {
        "input": {"kind": "evaluate", "game": "robots", "stake_cents": 100, "ticket": ticket},
        "expected": {},
        "got": {},
        "request": None,
        "note": "",
    }
    (path,) = write_cases(
        tmp_path,
        check_id="robots_rules.differential_edges",
        requirements=["robots.4.evaluation"],
        message="m",
        evidence=[evidence],
        target="python:reference",
        seed=1,
        profile="quick",
        settings=load_profile("quick"),
    )
    assert load_case(tmp_path / path).evidence["input"]["game"] == "robots"
    text = (tmp_path / path).read_text(encoding="utf-8")
    (tmp_path / "keno.json").write_text(text.replace('"robots"', '"keno"'), encoding="utf-8")
    with pytest.raises(ConfigError, match=r"game: 'keno' is not one of \['robots', 'eldorado'\]"):
        load_case(tmp_path / "keno.json")


def test_a_check_module_imported_first_registers_its_checks_once() -> None:
    """A fresh process that imports one check module before any kit is loaded (a spawned
    worker unpickling a test's function does): ``each_kit`` loads the built-in kits before it
    keeps the factory, so the kits' registering does not call it a second time."""
    code = (
        "import conformance.checks.invalid_tickets\n"
        "from conformance._registry import checks_so_far\n"
        "print(sorted(c for c in checks_so_far() if c.startswith('invalid_tickets.')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "invalid_tickets.robots" in done.stdout


def test_the_kits_load_without_their_probe_classifiers() -> None:
    """A kit names its probe classifier (``checks/_<game>_classify.py``) lazily: a block audit
    loads the kits and never diagnoses a disagreement, so it never pays for those modules and
    what they import (issue 32: start-up paid only for what the run needs). The first
    diagnosis imports it, and the kit's general requirement is the classifier's own."""
    code = (
        "import sys\n"
        "from conformance.games import kit, kits\n"
        "kits()\n"
        "print(sorted(m for m in sys.modules if m.endswith('_classify')))\n"
        "names = [type(kit(g).diagnosis()).__name__ for g in ('robots', 'eldorado')]\n"
        "print(*names)\n"
        "print(sorted(m for m in sys.modules if m.endswith('_classify')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    before, diagnoses, after = done.stdout.splitlines()
    assert before == "[]"
    assert diagnoses == "RobotsDiagnosis EldoradoDiagnosis"
    assert "conformance.checks._robots_classify" in after
    from conformance.checks._eldorado_classify import ELDORADO_GENERAL
    from conformance.checks._robots_classify import ROBOTS_GENERAL

    assert kit("robots").general_requirement == ROBOTS_GENERAL
    assert kit("eldorado").general_requirement == ELDORADO_GENERAL
