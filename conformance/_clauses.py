"""The clause catalogue: ``clauses/*.yaml``, every normative statement the suite answers to.

Each statement of the contract (sections 1-6), of the two French rules documents (each article
and sub-article, in French, word for word) and of rules.md (both games, every interpretation) is
listed once as a clause: a stable ``id``, the ``article`` it belongs to (the label requirements
use: ``robots 4.6``, ``contract 4``, ``law 70 %``), its ``text``, and either the
``requirements`` that test it or the reason it is ``untestable`` from outside. So a reader can
go from any sentence of the rules to the checks behind it, and from a requirement back to the
rules' own words (``wording``), which every report shows beside the English title.

The French texts are checked against verbatim copies of the rules documents shipped beside the
data (``robots.fr.txt``, ``eldorado.fr.txt``): ``original_problems`` finds a word changed, a
sentence out of order or a sentence no clause holds.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path
from typing import Any

from reference import _yaml

from ._catalogue import Requirement, load_catalogue
from ._errors import ConformanceError
from .games import follow_kits, kit_names, kits


def games() -> tuple[str, ...]:
    """The games a clause may belong to: those with a kit (``conformance.games``)."""
    return kit_names()


def sources() -> tuple[str, ...]:
    """What a clause file may transcribe: the contract, each game's rules, rules.md."""
    return ("contract", *games(), "rules")


LANGUAGES = ("fr", "en")
_FILE_KEYS = {"source", "language", "document", "original", "articles", "clauses"}
_CLAUSE_KEYS = {"id", "article", "text", "requirements", "untestable", "note", "game"}
_ID = re.compile(r"^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$")
_FOLDER = "clauses"


class ClauseError(ConformanceError):
    """A clause file is malformed; the message names the file, the clause and the fault."""


@dataclass(frozen=True)
class Clause:
    id: str
    source: str  # contract | robots | eldorado | rules
    article: str  # as requirements name articles: "robots 4.6", "contract 4", "law 70 %"
    text: str
    language: str  # fr | en
    requirements: tuple[str, ...]  # empty when untestable
    untestable: str | None  # why nothing observable through the contract can test it
    game: str | None  # robots | eldorado; None: both games (the contract, rules.md's "both")
    note: str = ""  # how the requirements test it, where that is not plain

    @property
    def mapped(self) -> bool:
        return bool(self.requirements)


@dataclass(frozen=True)
class Article:
    article: str
    heading: str  # "Article 4"
    title: str  # "Description du jeu"


@dataclass(frozen=True)
class ClauseFile:
    name: str
    source: str
    language: str
    document: str
    original: str | None  # the verbatim copy of the document the texts are checked against
    articles: tuple[Article, ...]
    clauses: tuple[Clause, ...]


@dataclass(frozen=True)
class Wording:
    """The rules' own words for one requirement: the texts of its article's clauses."""

    article: str
    language: str
    document: str
    clauses: tuple[str, ...]
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "article": self.article,
            "language": self.language,
            "document": self.document,
            "clauses": list(self.clauses),
            "text": self.text,
        }


def _text(raw: Mapping[str, Any], key: str, where: str) -> str:
    value = raw.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ClauseError(f"{where}: {key!r} must be a non-empty string, got {value!r}")
    return value.strip()


def _clause(raw: Any, where: str, source: str, language: str) -> Clause:
    if not isinstance(raw, dict):
        raise ClauseError(f"{where}: expected a mapping, got {raw!r}")
    unknown = set(raw) - _CLAUSE_KEYS
    if unknown:
        raise ClauseError(f"{where}: unknown key(s) {sorted(unknown)}")
    cid = _text(raw, "id", where)
    where = f"{where} ({cid})"
    if not _ID.match(cid):
        raise ClauseError(f"{where}: id {cid!r} must be dot-separated words")
    if source != "rules" and not cid.startswith(f"{source}."):
        raise ClauseError(f"{where}: id {cid!r} must start with {source + '.'!r}")
    article, text = _text(raw, "article", where), _text(raw, "text", where)
    has_requirements, has_reason = "requirements" in raw, "untestable" in raw
    if not has_requirements and not has_reason:
        raise ClauseError(f"{where}: has neither 'requirements' nor an 'untestable' reason")
    if has_requirements and has_reason:
        raise ClauseError(f"{where}: has both 'requirements' and 'untestable'; give one")
    requirements: tuple[str, ...] = ()
    untestable = None
    if has_requirements:
        ids = raw["requirements"]
        if not isinstance(ids, list) or not ids or not all(isinstance(i, str) and i for i in ids):
            raise ClauseError(
                f"{where}: 'requirements' must be a non-empty list of requirement ids, got {ids!r}"
            )
        twice = sorted({i for i in ids if ids.count(i) > 1})
        if twice:
            raise ClauseError(f"{where}: requirement(s) listed twice: {twice}")
        requirements = tuple(ids)
    else:
        untestable = _text(raw, "untestable", where)
    known = games()
    game = raw.get("game", source if source in known else None)
    if game is not None and game not in known:
        raise ClauseError(f"{where}: 'game' must be one of {', '.join(known)}, got {game!r}")
    note = raw.get("note", "")
    if not isinstance(note, str):
        raise ClauseError(f"{where}: 'note' must be a string, got {note!r}")
    return Clause(cid, source, article, text, language, requirements, untestable, game, note)


def _article(raw: Any, where: str) -> Article:
    if not isinstance(raw, dict) or set(raw) != {"article", "heading", "title"}:
        raise ClauseError(f"{where}: expected {{article, heading, title}}, got {raw!r}")
    return Article(
        _text(raw, "article", where), _text(raw, "heading", where), _text(raw, "title", where)
    )


def parse_file(name: str, raw: bytes | str) -> ClauseFile:
    """One clause file, validated on its own (ids across files: ``check_catalogue``)."""
    where = f"clauses/{name}"
    try:
        data = _yaml.load(raw)
    except _yaml.YAMLError as exc:
        raise ClauseError(f"{where}: not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise ClauseError(f"{where}: expected a mapping at the top, got {type(data).__name__}")
    unknown = set(data) - _FILE_KEYS
    if unknown:
        raise ClauseError(f"{where}: unknown top-level key(s) {sorted(unknown)}")
    source, language = data.get("source"), data.get("language")
    if source not in sources():
        raise ClauseError(
            f"{where}: 'source' must be one of {', '.join(sources())}, got {source!r}"
        )
    if language not in LANGUAGES:
        raise ClauseError(
            f"{where}: 'language' must be one of {', '.join(LANGUAGES)}, got {language!r}"
        )
    document = _text(data, "document", where)
    original = data.get("original")
    if original is not None and (not isinstance(original, str) or not original.endswith(".txt")):
        raise ClauseError(f"{where}: 'original' must name a .txt file, got {original!r}")
    articles = data.get("articles", [])
    if not isinstance(articles, list):
        raise ClauseError(f"{where}: 'articles' must be a list, got {articles!r}")
    clauses = data.get("clauses")
    if not isinstance(clauses, list) or not clauses:
        raise ClauseError(f"{where}: expected a non-empty top-level 'clauses' list")
    parsed = tuple(
        _clause(c, f"{where}: clauses[{n}]", source, language) for n, c in enumerate(clauses)
    )
    seen: dict[str, int] = {}
    for n, clause in enumerate(parsed):
        if clause.id in seen:
            raise ClauseError(
                f"{where}: clause id {clause.id!r} appears twice (clauses[{seen[clause.id]}] "
                f"and clauses[{n}])"
            )
        seen[clause.id] = n
    return ClauseFile(
        name,
        source,
        language,
        document,
        original,
        tuple(_article(a, f"{where}: articles[{n}]") for n, a in enumerate(articles)),
        parsed,
    )


def check_catalogue(files: Sequence[ClauseFile], requirement_ids: Sequence[str]) -> None:
    """Clause ids unique across files; every requirement a clause names exists."""
    known = set(requirement_ids)
    owner: dict[str, str] = {}
    for file in files:
        for n, clause in enumerate(file.clauses):
            where = f"clauses/{file.name}: clauses[{n}] ({clause.id})"
            if clause.id in owner:
                used = f"clauses/{owner[clause.id]}"
                raise ClauseError(f"{where}: clause id {clause.id!r} is already used in {used}")
            owner[clause.id] = file.name
            missing = [r for r in clause.requirements if r not in known]
            if missing:
                raise ClauseError(
                    f"{where}: requirement(s) {missing} not in the catalogue "
                    "(conformance/requirements/*.yaml)"
                )


def _folder() -> Traversable:
    return resources.files("conformance").joinpath(_FOLDER)


def _entries() -> dict[str, Traversable]:
    """The shipped ``clauses/*.yaml`` and every game kit's ``clause_files``, by name."""
    found = {e.name: e for e in _folder().iterdir() if e.name.endswith(".yaml")}
    for kit in kits():
        for entry in kit.clause_files:
            known = found.get(entry.name)
            if known is not None and known.read_bytes() != entry.read_bytes():
                raise ClauseError(
                    f"game kit {kit.name!r}: clause file {entry.name!r} clashes with another "
                    "file of that name"
                )
            found[entry.name] = entry
    return found


def _raw_files() -> list[tuple[str, bytes]]:
    return sorted((name, entry.read_bytes()) for name, entry in _entries().items())


@cache
def load_clause_files() -> tuple[ClauseFile, ...]:
    """Every clause file, in name order, checked against the requirement catalogue."""
    files = tuple(parse_file(name, raw) for name, raw in _raw_files())
    check_catalogue(files, list(load_catalogue()))
    return files


def load_clauses() -> dict[str, Clause]:
    """Every clause, by id: files in name order, clauses in file order."""
    return {c.id: c for f in load_clause_files() for c in f.clauses}


def letters() -> dict[str, tuple[str, ...]]:
    """Each requirement's letter: the ids of the clauses (contract, rules) that map to it."""
    found: dict[str, list[str]] = {}
    for clause in load_clauses().values():
        for rid in clause.requirements:
            found.setdefault(rid, []).append(clause.id)
    return {rid: tuple(ids) for rid, ids in found.items()}


def basis(requirement: Requirement) -> dict[str, list[str]]:
    """What ``requirement`` rests on: the letter (clause ids) and the project's readings (row
    ids of docs/contract-decisions.md). Only the letter can fail a run."""
    return {
        "letter": list(letters().get(requirement.id, ())),
        "readings": list(requirement.readings),
    }


def original_text(name: str, beside: str | None = None) -> str:
    """A verbatim copy of a rules document shipped with the clauses (``robots.fr.txt``); for a
    game kit's clause file ``beside``, the copy in that file's folder."""
    entry = _entries().get(beside) if beside is not None else None
    if entry is not None and isinstance(entry, Path):
        return entry.with_name(name).read_text(encoding="utf-8")
    return _folder().joinpath(name).read_text(encoding="utf-8")


def clauses_sha256() -> str:
    digest = hashlib.sha256()
    for name, raw in _raw_files():
        digest.update(name.encode() + b"\0" + raw)
    return digest.hexdigest()


# -- the French texts against their originals ------------------------------------------------


def fold(text: str) -> str:
    """Text with table rules and all whitespace folded: a table cell is its words."""
    return " ".join(re.sub(r"\||-{3,}", " ", text).split())


def original_problems(file: ClauseFile, original: str) -> list[str]:
    """Where ``file``'s clause texts and ``original`` part: each text must be found in the
    original, after the previous one, and between two of them (and around them) there may be
    only article headings, titles and sub-article numbers."""
    where = f"clauses/{file.name}"
    document = fold(original)
    between = [re.escape(fold(a.heading)) for a in file.articles]
    between += [re.escape(fold(a.title)) for a in file.articles]
    filler = re.compile(r"\b\d+\.\d+\.(?=\s|$)|" + "|".join(sorted(between, key=len, reverse=True)))
    problems: list[str] = []
    position = 0
    for clause in file.clauses:
        text = fold(clause.text)
        found = document.find(text, position)
        if found < 0:
            earlier = document.find(text)
            fault = (
                "is out of order (found before the previous clause)"
                if earlier >= 0
                else "is not in the original, word for word"
            )
            problems.append(f"{where}: {clause.id}: text {fault}: {clause.text[:80]!r}")
            continue
        gap = filler.sub(" ", document[position:found]).strip()
        if gap:
            problems.append(f"{where}: before {clause.id}: original text in no clause: {gap!r}")
        position = found + len(text)
    rest = filler.sub(" ", document[position:]).strip()
    if rest:
        problems.append(f"{where}: at the end: original text in no clause: {rest!r}")
    return problems


# -- a requirement's own words -----------------------------------------------------------------


def _under(clause: Clause, article: str) -> bool:
    return clause.article == article or clause.article.startswith(article + ".")


def wording(requirement: Requirement, files: Sequence[ClauseFile] | None = None) -> Wording | None:
    """The words of the article ``requirement`` rests on, from the clause data.

    The clauses of its article (or of the article's sub-articles) that map to it, in document
    order; when none of a French article's clauses does, the whole article. In French, pieces of
    one sub-article follow each other as in the original, skipped ones marked ``[…]``, so the
    text can be cited as it stands; other pieces go one a line. None when no clause of that
    article exists.
    """
    for file in files if files is not None else load_clause_files():
        indexed = list(enumerate(file.clauses))
        chosen = [
            (n, c)
            for n, c in indexed
            if requirement.id in c.requirements and _under(c, requirement.article)
        ]
        if not chosen and file.language == "fr":
            chosen = [(n, c) for n, c in indexed if c.article == requirement.article]
        if not chosen:
            continue
        parts: list[str] = []
        seen: set[str] = set()
        previous: tuple[int, Clause] | None = None
        for n, clause in chosen:
            if clause.text not in seen:
                if previous is not None:
                    same = previous[1].article == clause.article and file.language == "fr"
                    adjacent = previous[0] + 1 == n
                    parts.append(" " if same and adjacent else (" […] " if same else "\n"))
                parts.append(clause.text)
                seen.add(clause.text)
            previous = (n, clause)
        return Wording(
            requirement.article,
            file.language,
            file.document,
            tuple(c.id for _, c in chosen),
            "".join(parts),
        )
    return None


@cache
def wordings() -> dict[str, Wording | None]:
    """``wording`` of every requirement of the catalogue, by id."""
    return {rid: wording(r) for rid, r in load_catalogue().items()}


def _forget() -> None:
    load_clause_files.cache_clear()
    wordings.cache_clear()


follow_kits(clear=_forget, load=load_clause_files)
"""A kit registered or unregistered reloads the clause files with its own (a kit whose clauses
name requirements nobody defines is refused at once)."""
