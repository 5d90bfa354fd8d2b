"""The rules YAML files: cross-checked against the documents' own totals, and validated on load."""

from __future__ import annotations

import pytest

import reference
import reference.eldorado
import reference.robots
from reference import RulesDataError


def test_robots_lot_table_matches_the_document_totals() -> None:
    rules = reference.robots.robots_rules()
    assert rules.block_units == 2_000_000
    assert rules.stakes_cents == (100,)
    table = rules.lot_table(100)
    assert table.winning_units == 601_382
    assert table.total_prize_cents == 1_400_000_00
    assert table.counts()[0] == 2_000_000 - 601_382


@pytest.mark.parametrize(
    ("stake", "total_cents"), [(50, 315_000_00), (100, 630_000_00), (200, 1_260_000_00)]
)
def test_eldorado_lot_tables_match_the_document_totals(stake: int, total_cents: int) -> None:
    rules = reference.eldorado.eldorado_rules()
    assert rules.block_units == 900_000
    table = rules.lot_table(stake)
    assert table.winning_units == 151_157
    assert table.total_prize_cents == total_cents


@pytest.mark.parametrize(
    ("game", "stake"), [("robots", 100), ("eldorado", 50), ("eldorado", 100), ("eldorado", 200)]
)
def test_every_payout_is_exactly_70_percent(game: str, stake: int) -> None:
    table = reference.load_rules(game).lot_table(stake)
    assert table.total_prize_cents * 100 == table.face_value_cents * 70


def test_robots_symbols_are_the_article_4_8_table() -> None:
    rules = reference.robots.robots_rules()
    assert [(s.letter, s.gauge_notches, s.amount_cents) for s in rules.symbols] == [
        ("D", 4, 100),
        ("Q", 1, 200),
        ("T", 3, 300),
        ("C", 6, 500),
        ("S", 7, 1000),
        ("P", 5, 10000),
        ("H", 3, 100000),
        ("O", 2, 1000000),
    ]
    assert rules.symbol("S").french == "étoile violette"
    assert (rules.robots, rules.buttons) == (8, 18)


def test_eldorado_paytable_scales_with_the_stake() -> None:
    rules = reference.eldorado.eldorado_rules()
    assert len(rules.combinations) == 10
    for combination in rules.combinations:
        amounts = combination.amount_cents
        assert amounts[100] == 2 * amounts[50] and amounts[200] == 2 * amounts[100]
    assert rules.extra_letter == "X"
    assert rules.symbol("X").paying is False


def test_the_rules_file_hash_is_recorded() -> None:
    import hashlib

    text = reference.rules_file_bytes("robots")
    assert reference.robots.robots_rules().sha256 == hashlib.sha256(text).hexdigest()


def _broken(old: str, new: str, game: str = "robots") -> str:
    text = reference.rules_file_bytes(game).decode()
    assert old in text, old
    with pytest.raises(RulesDataError) as info:
        reference.parse_rules(text.replace(old, new, 1).encode(), f"{game}.yaml", game)
    return str(info.value)


def test_a_missing_key_is_named_with_its_file_and_path() -> None:
    message = _broken('    article: "3"\n    lots:', "    lots:")
    assert message.startswith("robots.yaml: lot_tables[0]: missing key 'article'")


def test_a_wrong_type_is_named() -> None:
    message = _broken("units: 2000000", "units: two million")
    assert "robots.yaml: block.units: expected a positive integer, got 'two million'" in message


def test_a_lot_table_that_contradicts_its_declared_total_is_refused() -> None:
    message = _broken(
        "{prize_cents: 1000,    units: 33000}", "{prize_cents: 1000,    units: 33001}"
    )
    assert "lot_tables[0].declared_total" in message and "601383" in message


def test_a_lot_table_above_the_70_percent_cap_is_refused() -> None:
    text = reference.rules_file_bytes("robots").decode()
    text = text.replace("units: 33000}", "units: 33001}").replace("units: 601382", "units: 601383")
    text = text.replace("prize_cents: 140000000", "prize_cents: 140001000")
    with pytest.raises(RulesDataError, match="above the 70 % cap"):
        reference.parse_rules(text.encode(), "robots.yaml", "robots")


def test_a_duplicate_symbol_letter_is_refused() -> None:
    message = _broken("letter: Q,", "letter: D,")
    assert "letter 'D' appears twice" in message


def test_an_eldorado_paytable_missing_a_stake_is_refused() -> None:
    message = _broken(
        "{50: 500000, 100: 1000000, 200: 2000000}", "{50: 500000, 100: 1000000}", "eldorado"
    )
    assert "paytable.combinations[0].amount_cents: expected an amount for every stake" in message


def test_invalid_yaml_is_refused() -> None:
    with pytest.raises(RulesDataError, match=r"robots\.yaml: not valid YAML"):
        reference.parse_rules(b"game: [robots", "robots.yaml", "robots")
