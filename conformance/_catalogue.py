"""The requirement catalogue: ``requirements/*.yaml``, one entry per requirement.

Each entry has a stable ``id`` (``robots.4.6.x2``), the ``article`` it comes from (``robots 4.6``,
``eldorado 3.2``, ``R-I3``, ``law 70 %``, ``contract 4``), a one-line ``title``, the ``capability``
it needs (``evaluate``, ``blocks``, ``play``, ``reveal``), whether certification ``required`` it,
and optionally the rules.md ``interpretations`` the requirement rests on and the ``readings``
of the project its checks apply.

What a requirement rests on (its ``basis``): the letter, the clauses of the contract and the
rules that map to it in the clause catalogue (``conformance/_clauses.py``), and the readings,
row ids of docs/contract-decisions.md for the points the letter leaves open. Only the letter
fails a run: a reading not met is a reservation (``conformance.Reservation``), and a
requirement no clause maps to cannot fail at all (``harness._runner``).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from contract import CAPABILITIES
from reference import _yaml

from ._errors import ConformanceError
from .games import follow_kits, kits


class CatalogueError(ConformanceError):
    """A requirement file is malformed; the message names file, entry and key."""


@dataclass(frozen=True)
class Requirement:
    id: str
    article: str
    title: str
    capability: str
    required: bool
    interpretations: tuple[str, ...] = ()
    readings: tuple[str, ...] = ()  # row ids of docs/contract-decisions.md its checks apply


def _entry(raw: Any, where: str) -> Requirement:
    if not isinstance(raw, dict):
        raise CatalogueError(f"{where}: expected a mapping, got {raw!r}")
    keys = {"id", "article", "title", "capability", "required", "interpretations", "readings"}
    unknown = set(raw) - keys
    if unknown:
        raise CatalogueError(f"{where}: unknown key(s) {sorted(unknown)}")
    for key in ("id", "article", "title", "capability"):
        if not isinstance(raw.get(key), str) or not raw[key]:
            raise CatalogueError(
                f"{where}: {key!r} must be a non-empty string, got {raw.get(key)!r}"
            )
    if raw["capability"] not in CAPABILITIES:
        raise CatalogueError(
            f"{where}: capability {raw['capability']!r} is not one of {', '.join(CAPABILITIES)}"
        )
    if not isinstance(raw.get("required"), bool):
        raise CatalogueError(
            f"{where}: 'required' must be true or false, got {raw.get('required')!r}"
        )
    interpretations = raw.get("interpretations", [])
    if not isinstance(interpretations, list) or not all(
        isinstance(i, str) for i in interpretations
    ):
        raise CatalogueError(f"{where}: 'interpretations' must be a list of strings")
    readings = raw.get("readings", [])
    if not isinstance(readings, list) or not all(isinstance(r, str) and r for r in readings):
        raise CatalogueError(f"{where}: 'readings' must be a list of row ids (strings)")
    return Requirement(
        raw["id"],
        raw["article"],
        raw["title"],
        raw["capability"],
        raw["required"],
        tuple(interpretations),
        tuple(readings),
    )


def _files() -> list[tuple[str, bytes]]:
    """The shipped ``requirements/*.yaml`` and every game kit's ``requirement_files``, in
    name order (a kit's file that is a shipped one is read once)."""
    folder = resources.files("conformance").joinpath("requirements")
    found = {
        entry.name: entry.read_bytes() for entry in folder.iterdir() if entry.name.endswith(".yaml")
    }
    for kit in kits():
        for entry in kit.requirement_files:
            data = entry.read_bytes()
            if found.get(entry.name, data) != data:
                raise CatalogueError(
                    f"game kit {kit.name!r}: requirement file {entry.name!r} clashes with "
                    "another file of that name"
                )
            found[entry.name] = data
    return sorted(found.items())


@cache
def load_catalogue() -> dict[str, Requirement]:
    """Every requirement, by id, in file order."""
    catalogue: dict[str, Requirement] = {}
    for name, text in _files():
        data = _yaml.load(text)
        if not isinstance(data, dict) or not isinstance(data.get("requirements"), list):
            raise CatalogueError(f"requirements/{name}: expected a top-level 'requirements' list")
        for n, raw in enumerate(data["requirements"]):
            requirement = _entry(raw, f"requirements/{name}: requirements[{n}]")
            if requirement.id in catalogue:
                raise CatalogueError(f"requirements/{name}: id {requirement.id!r} appears twice")
            catalogue[requirement.id] = requirement
    return catalogue


def catalogue_sha256() -> str:
    digest = hashlib.sha256()
    for name, text in _files():
        digest.update(name.encode() + b"\0" + text)
    return digest.hexdigest()


follow_kits(clear=load_catalogue.cache_clear, load=load_catalogue)
"""A kit registered or unregistered reloads the catalogue with its files (and a kit whose
files are malformed is refused at once)."""
