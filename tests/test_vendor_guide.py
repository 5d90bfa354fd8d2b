"""docs/vendor-guide.md is held to the sources it quotes (issue 30): the rules data, the
requirement catalogue, the contract's capabilities and the suite's own balances. A page a
vendor builds from must not drift from what the harness checks."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import reference
from conformance._catalogue import load_catalogue
from conformance.checks._scenarios.money import ODD_BALANCES
from contract._limits import CAPABILITIES

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "vendor-guide.md"


def text() -> str:
    return GUIDE.read_text(encoding="utf-8")


def grouped(n: int) -> str:
    """2000000 -> '2 000 000', as the page writes numbers."""
    return f"{n:,}".replace(",", " ")


def euros(cents: int) -> str:
    whole, rest = divmod(cents, 100)
    return f"{grouped(whole)} €" if not rest else f"{whole},{rest // 10} €"


def lot_rows() -> list[str]:
    """The page's lot-table summary rows, computed from the rules data."""
    rows = []
    for game in reference.GAMES:
        rules = reference.load_rules(game)
        for stake, table in sorted(rules.lot_tables.items()):
            winning = sum(lot.units for lot in table.lots)
            pays = sum(lot.units * lot.prize_cents for lot in table.lots)
            cap = table.block_units * stake * rules.payout_cap_percent // 100
            rows.append(
                f"| {game}, {euros(stake)} | {grouped(table.block_units)} | {grouped(winning)} "
                f"| {euros(pays)} | {euros(cap)} |"
            )
    return rows


@pytest.mark.parametrize("row", lot_rows())
def test_the_lot_table_summary_is_the_rules_data(row: str) -> None:
    assert row in text(), f"docs/vendor-guide.md lacks or misquotes: {row}"


def test_a_changed_lot_table_would_be_caught() -> None:
    assert "| robots, 1 € | 2 000 000 | 601 382 | 1 400 000 € | 1 400 000 € |" in lot_rows()
    assert "| robots, 1 € | 2 000 000 | 601 383 | 1 400 000 € | 1 400 000 € |" not in text()


def test_the_stakes_and_block_sizes_are_the_rules() -> None:
    page = text()
    for game in reference.GAMES:
        rules = reference.load_rules(game)
        assert f"{game}" in page and f"**{grouped(rules.block_units)}**" in page
        stakes = ", ".join(str(s) for s in rules.stakes_cents)
        assert f"`[{stakes}]`" in page, (game, stakes)
    assert "**70 %**" in page and all(
        reference.load_rules(g).payout_cap_percent == 70 for g in reference.GAMES
    )


def test_the_capabilities_are_the_contracts() -> None:
    page = text()
    declared = re.search(r'"capabilities": \[([^\]]*)\]', page)
    assert declared is not None
    assert [c.strip().strip('"') for c in declared[1].split(",")] == list(CAPABILITIES)
    for capability in CAPABILITIES:
        assert f"| `{capability}` |" in page


def test_every_requirement_named_exists_and_every_one_is_required() -> None:
    catalogue = load_catalogue()
    assert all(r.required for r in catalogue.values()), "the page says all are required"
    named = set(
        re.findall(r"`((?:blocks|robots|eldorado|play|security|evaluate)\.[\w.]+)`", text())
    )
    assert named, "the page names requirements"
    for rid in named:
        if "<game>" in rid or "/" in rid:
            continue
        assert rid in catalogue, f"docs/vendor-guide.md names {rid}, not in the catalogue"
    templated = re.findall(r"`<game>\.([\w.]+)`", text())
    for rest in templated:
        assert {f"{g}.{rest}" for g in reference.GAMES} <= set(catalogue), rest


def test_the_largest_balance_quoted_is_the_suites_and_below_2_53() -> None:
    largest = max(ODD_BALANCES)
    assert largest < 2**53
    assert grouped(largest) in text()


def test_the_guide_is_linked_from_the_readme_and_the_http_page() -> None:
    assert "docs/vendor-guide.md" in (ROOT / "README.md").read_text(encoding="utf-8")
    assert "vendor-guide.md" in (ROOT / "docs" / "http-api.md").read_text(encoding="utf-8")
