"""The JSON Schemas of the contract's answers (``contract/schemas/``), loaded and compiled once.

Each answer of the contract has one schema file; the OpenAPI document
(``reference/openapi/openapi.json``) carries the same schemas as its components
(``openapi_component``), and a test holds the two equal, so the documentation and the check at
the seam cannot drift.

Two validators per schema: ``full`` (every keyword, what the documentation promises) and
``shape`` (only what makes a value a document of the contract: JSON types, required fields,
nesting). The seam (``contract.Validated``) holds every answer to its shape: an answer that is
not a document of the contract is a protocol violation, the target's *error*. Values (a
negative balance, an unknown symbol, a stake the game does not sell) are for the requirement
checks to judge, each as a *fail* of the requirement it breaks, with evidence; only
``describe`` is held to its full schema, since what it says decides what is checked at all.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterator, Mapping
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from ._fastshape import Predicate, compile_shape

if TYPE_CHECKING:
    import jsonschema
    import referencing
    from jsonschema.protocols import Validator

BASE = "https://instantcert.invalid/schemas/"

SCHEMAS: dict[str, str] = {
    "implementation": "Implementation",
    "evaluate-response": "EvaluateResponse",
    "evaluation-result": "EvaluationResult",
    "error": "Error",
    "block-list": "BlockList",
    "block-header": "BlockHeader",
    "block-unit": "BlockUnit",
    "account": "NewAccount",
    "balance": "Balance",
    "play": "Play",
    "reveal": "Reveal",
    "auto": "AutoResult",
    "history": "History",
}
"""Every schema file (``<name>.schema.json``) and its component in the OpenAPI document."""

VALUE_KEYWORDS = frozenset(
    {
        "enum",
        "const",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "pattern",
        "minLength",
        "maxLength",
        "minItems",
        "maxItems",
        "uniqueItems",
        "format",
        "oneOf",  # the games' own win shapes: a win's fields are the game's to judge
        "anyOf",
    }
)
"""Keywords about values, not shape: the ``shape`` validators leave them out."""


def _integer(checker: object, instance: object) -> bool:
    """An integer is a JSON integer: not ``true``, not ``1.0`` (Python's JSON reads both)."""
    return type(instance) is int


@cache
def _validator_class() -> Any:
    """Draft 2020-12 with the contract's integers; jsonschema loads on first use (a fault to
    word, a schema held whole), not at start-up: ``instantcert evaluate`` never needs it."""
    import jsonschema

    types = jsonschema.Draft202012Validator.TYPE_CHECKER.redefine("integer", _integer)
    return jsonschema.validators.extend(  # type: ignore[no-untyped-call]
        jsonschema.Draft202012Validator, type_checker=types
    )


@cache
def schema(name: str) -> dict[str, Any]:
    """The schema file ``contract/schemas/<name>.schema.json``, parsed."""
    if name not in SCHEMAS:
        raise KeyError(f"no contract schema {name!r} (known: {', '.join(SCHEMAS)})")
    text = resources.files("contract").joinpath("schemas", f"{name}.schema.json").read_text()
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def _shape_only(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _shape_only(v) for k, v in node.items() if k not in VALUE_KEYWORDS}
    if isinstance(node, list):
        return [_shape_only(v) for v in node]
    return node


@cache
def _registry(shape: bool) -> referencing.Registry[Any]:
    import referencing
    from referencing.jsonschema import DRAFT202012

    resources_ = [
        (BASE + f"{name}.schema.json", _shape_only(schema(name)) if shape else schema(name))
        for name in SCHEMAS
    ]
    return referencing.Registry().with_resources(
        (uri, DRAFT202012.create_resource(body)) for uri, body in resources_
    )


@cache
def validator(name: str, *, shape: bool = True) -> Validator:
    """The compiled validator of schema ``name``: its shape only, or (``shape=False``) all."""
    body = _shape_only(schema(name)) if shape else schema(name)
    compiled: Validator = _validator_class()(body, registry=_registry(shape))
    return compiled


@cache
def fast_shape(name: str) -> Predicate:
    """Schema ``name``'s shape as a compiled predicate (``contract._fastshape``): True when the
    shape validator would find no fault, in a microsecond or so."""

    def resolve(ref: str) -> Mapping[str, Any]:
        file, _, pointer = ref.partition("#")
        node: Any = _shape_only(schema(file.removesuffix(".schema.json")))
        for part in filter(None, pointer.split("/")):
            node = node[part]
        resolved: Mapping[str, Any] = node
        return resolved

    return compile_shape(_shape_only(schema(name)), resolve)


def json_path(path: Iterator[str | int] | Any) -> str:
    """``$.games.robots.stakes_cents[0]``: where in a document a fault is."""
    out = "$"
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


_GAME_NAMES: Callable[[], Collection[str]] | None = None


def name_games(names: Callable[[], Collection[str]]) -> None:
    """Who names the contract's games (the reference's game registry, ``reference.games``):
    an ``implementation`` document's entries of those games are held to its schema; the entry
    of a game the contract does not name (a vendor's own: a free demo at 0 cents, a draw game
    with no ``stakes_cents``) is ignored, as the game is (docs/contract-decisions.md,
    ``capabilities-unknown``). Until named, every entry is held."""
    global _GAME_NAMES
    _GAME_NAMES = names


def _contract_part(name: str, value: object) -> object:
    """``value`` with what the contract does not name left out, where its schema says so."""
    if name != "implementation" or _GAME_NAMES is None or type(value) is not dict:
        return value
    games = value.get("games")
    if type(games) is not dict:
        return value
    named = set(_GAME_NAMES())
    return {**value, "games": {g: entry for g, entry in games.items() if g in named}}


def first_fault(name: str, value: object, *, shape: bool = True) -> tuple[str, object, str] | None:
    """``(json path, offending value, what is wrong)`` of ``value`` against schema ``name``,
    the deepest fault first; None when it conforms."""
    value = _contract_part(name, value)
    if shape and fast_shape(name)(value):
        return None
    errors = sorted(
        validator(name, shape=shape).iter_errors(value),  # type: ignore[arg-type]
        key=lambda e: (-len(e.absolute_path), list(map(str, e.absolute_path))),
    )
    if not errors:
        return None
    error = errors[0]
    return json_path(error.absolute_path), error.instance, _reason(error)


def _reason(error: jsonschema.ValidationError) -> str:
    """What is wrong, without jsonschema's echo of the whole value."""
    keyword, wanted = error.validator, error.validator_value
    if keyword == "required" and isinstance(wanted, list) and isinstance(error.instance, dict):
        missing = [k for k in wanted if k not in error.instance]
        return f"has no {', '.join(map(repr, missing))}"
    if keyword == "type":
        return f"must be of JSON type {wanted}"
    if keyword == "enum":
        return f"must be one of {wanted}"
    if keyword == "additionalProperties":
        return "has fields the contract does not allow"
    return f"breaks {keyword!r} {wanted!r}"


def openapi_component(name: str) -> dict[str, Any]:
    """Schema ``name`` as the OpenAPI document's component: the same schema, its ``$schema``
    and ``$id`` dropped and its references pointed at the other components."""
    files = {f"{n}.schema.json": f"#/components/schemas/{c}" for n, c in SCHEMAS.items()}

    def point(node: Any) -> Any:
        if isinstance(node, dict):
            out: dict[str, Any] = {}
            for key, value in node.items():
                if key == "$ref" and isinstance(value, str):
                    file, _, pointer = value.partition("#")
                    out[key] = files[file] + pointer if file in files else value
                elif key not in ("$schema", "$id"):
                    out[key] = point(value)
            return out
        if isinstance(node, list):
            return [point(v) for v in node]
        return node

    component: dict[str, Any] = point(schema(name))
    return component


def components() -> Mapping[str, dict[str, Any]]:
    """Every answer schema as the OpenAPI document's components, by component name."""
    return {component: openapi_component(name) for name, component in SCHEMAS.items()}
