"""The clause catalogue: every statement of the contract and the rules once, each mapped to
requirements that exist or marked untestable with a reason, the French texts word for word as
in the rules documents, every requirement reached, and docs/clauses.md generated from it."""

from __future__ import annotations

import hashlib
import importlib.util
from dataclasses import replace
from pathlib import Path
from types import ModuleType

import pytest

from conformance import load_catalogue
from conformance._clauses import (
    ClauseError,
    ClauseFile,
    check_catalogue,
    load_clause_files,
    load_clauses,
    original_problems,
    original_text,
    parse_file,
    wording,
    wordings,
)

ROOT = Path(__file__).parents[2]
# SHA-256 of the rules documents (seeds 000_7758bbeed19cbc42.txt and 003_518bddf91980b0ff.txt)
ORIGINALS = {
    "robots.fr.txt": "7fb770a3296207aa8a9362057304394e15d20a3872a5db754129028296f762e7",
    "eldorado.fr.txt": "8b96904a9be3d519a0a368bd768061f276a1a6ddbf58b5b6a0d8de9f5567ab9f",
}
ARTICLES = (
    "robots 1",
    "robots 2",
    "robots 3",
    *(f"robots 4.{n}" for n in range(1, 12)),
    "eldorado 1",
    "eldorado 2",
    "eldorado 3.1",
    "eldorado 3.2",
    "eldorado 3.3",
    *(f"eldorado 4.{n}" for n in range(1, 8)),
    *(f"contract {n}" for n in range(1, 7)),
    *(f"R-I{n}" for n in range(1, 6)),
    *(f"E-I{n}" for n in range(1, 7)),
    "law 70 %",
    "lab practice",
)
GOOD = """\
source: robots
language: fr
document: a test file
clauses:
  - id: robots.4.6
    article: robots 4.6
    text: une phrase
    requirements: [robots.4.6.x2]
  - id: robots.1.dates
    article: robots 1
    text: une date
    untestable: not observable
"""


def _file(text: str = GOOD, name: str = "test.yaml") -> ClauseFile:
    return parse_file(name, text.encode())


def _by_name(name: str) -> ClauseFile:
    return next(f for f in load_clause_files() if f.name == name)


# -- the loader refuses what a test of the catalogue must catch --------------------------------


def test_a_valid_file_parses() -> None:
    file = _file()
    assert [c.id for c in file.clauses] == ["robots.4.6", "robots.1.dates"]
    assert file.clauses[0].requirements == ("robots.4.6.x2",)
    assert file.clauses[1].untestable == "not observable" and not file.clauses[1].mapped
    assert file.clauses[0].game == "robots" and file.clauses[0].language == "fr"


def test_a_clause_with_neither_requirements_nor_reason_fails() -> None:
    text = GOOD.replace("    untestable: not observable\n", "")
    with pytest.raises(ClauseError, match=r"clauses/test.yaml: clauses\[1\] \(robots.1.dates\)"):
        _file(text)
    with pytest.raises(ClauseError, match="neither 'requirements' nor an 'untestable' reason"):
        _file(text)


@pytest.mark.parametrize(
    ("old", "new", "fault"),
    [
        ("requirements: [robots.4.6.x2]", "requirements: []", "non-empty list"),
        ("requirements: [robots.4.6.x2]", "requirements: [robots.4.6.x2, robots.4.6.x2]", "twice"),
        ("untestable: not observable", "untestable: ''", "'untestable' must be a non-empty"),
        ("text: une phrase", "text: '  '", "'text' must be a non-empty string"),
        (
            "    untestable: not observable\n",
            "    untestable: x\n    requirements: [a.b]\n",
            "both",
        ),
        ("id: robots.4.6\n", "id: eldorado.4.6\n", "must start with 'robots.'"),
        ("language: fr", "language: de", "'language' must be one of"),
        ("source: robots", "source: wiki", "'source' must be one of"),
        (
            "    text: une date\n",
            "    text: une date\n    colour: red\n",
            r"unknown key\(s\) \['colour'\]",
        ),
        ("id: robots.1.dates", "id: robots.4.6", "appears twice"),
    ],
)
def test_malformed_files_are_refused_naming_the_fault(old: str, new: str, fault: str) -> None:
    assert old in GOOD
    with pytest.raises(ClauseError, match=fault):
        _file(GOOD.replace(old, new))


def test_a_mapped_requirement_must_exist() -> None:
    file = _file(GOOD.replace("[robots.4.6.x2]", "[robots.4.6.x3]"))
    with pytest.raises(
        ClauseError, match=r"robots.4.6\).*\['robots.4.6.x3'\] not in the catalogue"
    ):
        check_catalogue([file], list(load_catalogue()))
    check_catalogue([_file()], list(load_catalogue()))  # the same file with a real id passes


def test_a_clause_id_used_in_two_files_is_refused() -> None:
    with pytest.raises(ClauseError, match=r"already used in clauses/a\.yaml"):
        check_catalogue([_file(name="a.yaml"), _file(name="b.yaml")], list(load_catalogue()))


# -- the project's catalogue -----------------------------------------------------------------


def test_the_catalogue_loads_and_every_clause_has_requirements_or_a_reason() -> None:
    clauses = load_clauses()
    assert len(clauses) == sum(len(f.clauses) for f in load_clause_files()) > 150
    for clause in clauses.values():
        assert clause.text.strip(), clause.id
        assert bool(clause.requirements) != (clause.untestable is not None), clause.id
        assert clause.untestable is None or len(clause.untestable) > 20, clause.id


def test_every_mapped_requirement_exists() -> None:
    catalogue = load_catalogue()
    unknown = {
        c.id: [r for r in c.requirements if r not in catalogue]
        for c in load_clauses().values()
        if any(r not in catalogue for r in c.requirements)
    }
    assert not unknown, unknown


def test_clause_ids_are_unique_across_files() -> None:
    ids = [c.id for f in load_clause_files() for c in f.clauses]
    assert len(ids) == len(set(ids)), sorted({i for i in ids if ids.count(i) > 1})


def test_every_required_requirement_is_reached_by_a_clause() -> None:
    reached = {r for c in load_clauses().values() for r in c.requirements}
    unreached = sorted(
        r.id for r in load_catalogue().values() if r.required and r.id not in reached
    )
    assert not unreached, f"required requirements no clause maps to: {unreached}"


@pytest.mark.parametrize("article", ARTICLES)
def test_every_article_and_interpretation_has_a_clause(article: str) -> None:
    assert any(
        c.article == article or c.article.startswith(article + ".") for c in load_clauses().values()
    ), article


def test_a_requirement_resting_on_an_interpretation_is_mapped_from_it() -> None:
    """The catalogue's ``interpretations`` field and the clause mapping agree."""
    clauses = load_clauses().values()
    missing = [
        (r.id, i)
        for r in load_catalogue().values()
        for i in r.interpretations
        if not any(
            (c.id == i or c.id.startswith(i + ".")) and r.id in c.requirements for c in clauses
        )
    ]
    assert not missing, missing


def test_interpretation_clauses_belong_to_their_game() -> None:
    for clause in load_clauses().values():
        if clause.id.startswith("R-I"):
            assert clause.game == "robots", clause.id
        elif clause.id.startswith("E-I"):
            assert clause.game == "eldorado", clause.id


# -- the French texts --------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(ORIGINALS))
def test_the_shipped_originals_are_the_rules_documents(name: str) -> None:
    digest = hashlib.sha256(original_text(name).encode("utf-8")).hexdigest()
    assert digest == ORIGINALS[name]


@pytest.mark.parametrize("name", ["robots.yaml", "eldorado.yaml"])
def test_french_texts_are_the_originals_word_for_word_and_complete(name: str) -> None:
    file = _by_name(name)
    assert file.language == "fr" and file.original is not None
    assert original_problems(file, original_text(file.original)) == []


@pytest.mark.parametrize("name", ["robots.yaml", "eldorado.yaml"])
def test_the_loader_exposes_the_french_texts_of_the_data(name: str) -> None:
    import yaml

    raw = yaml.safe_load((ROOT / "conformance" / "clauses" / name).read_text(encoding="utf-8"))
    exposed = load_clauses()
    for entry in raw["clauses"]:
        clause = exposed[entry["id"]]
        assert clause.text == entry["text"].strip() and clause.text, entry["id"]
        assert clause.language == "fr" and clause.source == name.removesuffix(".yaml")


def test_the_original_check_catches_a_changed_word_a_gap_and_a_swap() -> None:
    file = _by_name("robots.yaml")
    original = original_text("robots.fr.txt")
    clauses = list(file.clauses)
    n = next(i for i, c in enumerate(clauses) if c.id == "robots.4.6")
    changed = replace(clauses[n], text=clauses[n].text.replace("deux", "trois"))
    problems = original_problems(
        replace(file, clauses=(*clauses[:n], changed, *clauses[n + 1 :])), original
    )
    assert any("robots.4.6: text is not in the original" in p for p in problems)
    problems = original_problems(replace(file, clauses=(*clauses[:n], *clauses[n + 1 :])), original)
    assert any("before robots.4.7: original text in no clause" in p and "X2" in p for p in problems)
    swapped = (*clauses[:n], clauses[n + 1], clauses[n], *clauses[n + 2 :])
    problems = original_problems(replace(file, clauses=swapped), original)
    assert any("robots.4.6: text is out of order" in p for p in problems)
    problems = original_problems(replace(file, clauses=tuple(clauses[:-1])), original)
    assert any("at the end" in p and "perdante" in p for p in problems)


# -- the rules' own words of each requirement (issue 14, item 8) ------------------------------


def test_every_requirement_has_its_articles_words() -> None:
    for rid, found in wordings().items():
        requirement = load_catalogue()[rid]
        assert found is not None and found.text.strip(), rid
        assert found.article == requirement.article
        french = requirement.article.split(" ")[0] in ("robots", "eldorado")
        assert found.language == ("fr" if french else "en"), rid
        clauses = load_clauses()
        assert all(clauses[c].article.startswith(requirement.article) for c in found.clauses)


def test_words_are_the_clause_texts_the_requirement_rests_on() -> None:
    catalogue, clauses = load_catalogue(), load_clauses()
    assert wording(catalogue["robots.4.6.x2"]).text == clauses["robots.4.6"].text  # type: ignore[union-attr]
    debit = wording(catalogue["robots.4.1.stake_debited"])
    assert debit is not None and debit.clauses == ("robots.4.1.stake", "robots.4.1.debit")
    assert debit.text == (
        "Le joueur valide sa mise de 1 euro […] La mise est débitée sur les disponibilités de "
        "son compte FDJ®."
    )
    lots = wording(catalogue["eldorado.3.unit_prize"])  # three identical sentences, quoted once
    assert lots is not None and lots.text == clauses["eldorado.3.1.lot_global"].text
    cap = wording(catalogue["robots.3.payout_cap"])
    assert cap is not None and cap.language == "en" and "Arrêté du 9 mars 2006" in cap.text


# -- docs/clauses.md -------------------------------------------------------------------------


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "clauses_doc", ROOT / "scripts" / "clauses_doc.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_docs_clauses_md_is_generated_from_the_data() -> None:
    page = (ROOT / "docs" / "clauses.md").read_text(encoding="utf-8")
    assert page == _script().render(), "docs/clauses.md is stale: python scripts/clauses_doc.py"


def test_docs_clauses_md_lists_every_clause() -> None:
    page = (ROOT / "docs" / "clauses.md").read_text(encoding="utf-8")
    for clause in load_clauses().values():
        assert f"**`{clause.id}`** ({clause.article})" in page, clause.id


def test_the_script_check_flag_sees_a_stale_page(tmp_path: Path) -> None:
    script = _script()
    page = tmp_path / "clauses.md"
    page.write_text("old\n", encoding="utf-8")
    assert script.main(["--out", str(page), "--check"]) == 1
    assert script.main(["--out", str(page)]) == 0
    assert script.main(["--out", str(page), "--check"]) == 0
