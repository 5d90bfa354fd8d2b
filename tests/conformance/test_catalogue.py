"""The catalogue covers the rules: every article and sub-article of rules.md for both games,
the 70 % cap, the randomness of winner positions and every interpretation has a requirement;
every requirement has a registered check; every check covers only known ids."""

from __future__ import annotations

import pytest

from conformance import load_catalogue, registered_checks

# every article of rules.md, as the catalogue's ``article`` field names it
ARTICLES: tuple[str, ...] = (
    "robots 2",
    "robots 3",
    *(f"robots 4.{n}" for n in range(1, 12)),
    "eldorado 2",
    "eldorado 3.1",
    "eldorado 3.2",
    "eldorado 3.3",
    *(f"eldorado 4.{n}" for n in range(1, 8)),
)
INTERPRETATIONS: tuple[str, ...] = (
    *(f"R-I{n}" for n in range(1, 6)),
    *(f"E-I{n}" for n in range(1, 7)),
)
GAMES = ("robots", "eldorado")


@pytest.mark.parametrize("article", ARTICLES)
def test_every_article_has_a_requirement(article: str) -> None:
    assert any(r.article == article for r in load_catalogue().values()), article


@pytest.mark.parametrize("game", GAMES)
def test_payout_cap_and_randomness_have_requirements(game: str) -> None:
    catalogue = load_catalogue()
    cap = [r for r in catalogue.values() if r.id.startswith(f"{game}.") and "70" in r.article]
    assert cap or any(r.id == f"{game}.3.payout_cap" for r in catalogue.values())
    assert any(r.id.startswith(f"{game}.") and "random" in r.id for r in catalogue.values())


@pytest.mark.parametrize("interpretation", INTERPRETATIONS)
def test_every_interpretation_has_a_requirement(interpretation: str) -> None:
    assert any(interpretation in r.interpretations for r in load_catalogue().values())


@pytest.mark.parametrize("game", GAMES)
def test_invalid_tickets_and_evaluation_have_requirements(game: str) -> None:
    ids = set(load_catalogue())
    assert {f"{game}.4.evaluation", f"{game}.contract.invalid_per_ticket"} <= ids


def test_every_requirement_has_a_check() -> None:
    covered = {r for c in registered_checks().values() for r in c.requirements}
    missing = sorted(set(load_catalogue()) - covered)
    assert not missing, missing


def test_every_check_covers_only_known_requirements_of_its_capability() -> None:
    catalogue = load_catalogue()
    for check in registered_checks().values():
        assert check.requirements, check.id
        unknown = [r for r in check.requirements if r not in catalogue]
        assert not unknown, (check.id, unknown)


def test_rules_checks_need_only_evaluate() -> None:
    catalogue = load_catalogue()
    for check in registered_checks().values():
        if check.id.split(".")[0] in (
            "robots_rules",
            "eldorado_rules",
            "invalid_tickets",
            "metamorphic",
        ):
            assert check.capability == "evaluate"
            assert all(catalogue[r].capability == "evaluate" for r in check.requirements)
