"""What each requirement rests on: the letter (clauses) or a reading (a row of
docs/contract-decisions.md), and that only the letter fails a run (issue 28).

The clause catalogue maps clauses to requirements; the requirements name the decision rows
their checks apply (``readings``); every reservation a check can raise names a row
(``basis=``). These tests hold the three to one another and to the page.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from conformance import load_catalogue
from conformance._clauses import basis, letters
from harness._runner import NO_LETTER, scope_reservation

ROOT = Path(__file__).resolve().parents[2]
DECISIONS = ROOT / "docs" / "contract-decisions.md"
ROW = re.compile(r"^\| `([a-z0-9-]+)` \|(.*)\|\s*$", re.M)


def rows() -> dict[str, str]:
    """Each row id of docs/contract-decisions.md and its basis cell (the last one)."""
    found: dict[str, str] = {}
    for rid, rest in ROW.findall(DECISIONS.read_text(encoding="utf-8")):
        assert rid not in found, f"row id {rid!r} twice"
        found[rid] = rest.rsplit("|", 1)[-1].strip()
    return found


def test_every_row_has_an_id_and_a_basis() -> None:
    text = DECISIONS.read_text(encoding="utf-8")
    table_rows = [line for line in text.splitlines() if line.startswith("| ") and "---" not in line]
    body = [line for line in table_rows if not line.startswith("| id |")]
    assert body and all(ROW.match(line) for line in body), [
        line[:80] for line in body if not ROW.match(line)
    ]
    assert all(cell for cell in rows().values())


def test_every_requirement_rests_on_the_letter_or_names_its_reading() -> None:
    found = rows()
    for rid, requirement in load_catalogue().items():
        rests = basis(requirement)
        assert rests["letter"] or rests["readings"], f"{rid} rests on nothing"
        unknown = [r for r in rests["readings"] if r not in found]
        assert not unknown, f"{rid}: readings {unknown} are no row of contract-decisions.md"


def test_every_requirement_has_a_clause_so_can_fail() -> None:
    """A requirement no clause maps to could never fail (the runner reserves its failures):
    none is shipped like that; the third game's are checked by tests/test_third_game.py."""
    mapped = letters()
    assert [rid for rid in load_catalogue() if not mapped.get(rid)] == []


def _reservation_bases() -> set[str]:
    """Every ``basis="..."`` a ``Reservation(...)`` of the conformance package names."""
    found: set[str] = set()
    for path in (ROOT / "conformance").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Reservation":
                for keyword in node.keywords:
                    if keyword.arg == "basis" and isinstance(keyword.value, ast.Constant):
                        found.add(str(keyword.value.value))
    return found


def test_every_reservation_a_check_raises_names_a_row() -> None:
    bases = _reservation_bases()
    assert {"blocks-listed", "created-at", "token-bits"} <= bases
    assert not bases - set(rows()), bases - set(rows())


def test_every_reading_a_requirement_names_is_raised_somewhere_or_is_a_decision() -> None:
    """A requirement's reading is a row whose basis says it gives a reservation, or a letter
    row the requirement's checks apply (``history-default-page``)."""
    found = rows()
    for requirement in load_catalogue().values():
        for reading in requirement.readings:
            assert reading in found, (requirement.id, reading)


@pytest.mark.parametrize("basis_id", [NO_LETTER, "capability-skipped"])
def test_the_runners_own_reservations_name_a_row(basis_id: str) -> None:
    assert basis_id in rows()
    made = scope_reservation(
        {
            "covers": "certified for evaluate",
            "left_out": [{"what": "capability play", "requirements": 3}],
        }
    )
    assert made["basis"] in rows() and "capability play (3 requirements)" in made["message"]


def test_the_third_games_requirements_rest_on_the_letter_too() -> None:
    """A registered game brings its requirements and clauses (tests/third_game): each of its
    requirements has a clause, and its readings are rows of the page."""
    from tests.third_game import kit as coins_kit

    with coins_kit.registered():
        catalogue = load_catalogue()
        coins = [r for rid, r in catalogue.items() if rid.startswith("coins.")]
        assert coins
        mapped = letters()
        assert [r.id for r in coins if not mapped.get(r.id)] == []
        found = rows()
        assert all(reading in found for r in coins for reading in r.readings)
        assert any(r.readings for r in coins)  # coins.randomness.unrelated_blocks
