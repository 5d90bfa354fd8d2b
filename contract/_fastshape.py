"""A schema's shape compiled to plain Python predicates: the seam's fast path.

The shape validators of ``contract._schemas`` hold a handful of keywords (``type``,
``required``, ``properties``, ``items``, ``additionalProperties``, ``$ref``); compiled to nested
closures they take about a microsecond a document, where a general JSON Schema validator takes
tens: evaluate answers come by the hundred thousand. The predicate only says yes or no; on a no
the general validator (the same schema) finds and words the fault, so both must agree, which
``tests/contract/test_schemas.py`` holds on generated documents. A keyword not listed here
stops the compilation: a schema cannot gain a rule the fast path would silently skip.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

Predicate = Callable[[object], bool]

ANNOTATIONS = frozenset({"$schema", "$id", "title", "description", "examples", "default"})
COMPILED = frozenset({"type", "required", "properties", "items", "additionalProperties", "$ref"})

_TYPES: dict[str, Predicate] = {
    "object": lambda v: type(v) is dict,
    "array": lambda v: type(v) is list,
    "string": lambda v: type(v) is str,
    "integer": lambda v: type(v) is int,  # not true, not 1.0: as the contract's validator
    "number": lambda v: type(v) in (int, float),
    "boolean": lambda v: type(v) is bool,
    "null": lambda v: v is None,
}


class _Reference:
    """A ``$ref``, compiled on first use (a reference may lead back to itself)."""

    def __init__(self, ref: str, resolve: Callable[[str], Mapping[str, Any]]) -> None:
        self.ref, self.resolve = ref, resolve
        self.test: Predicate | None = None

    def __call__(self, value: object) -> bool:
        if self.test is None:
            self.test = compile_shape(self.resolve(self.ref), self.resolve)
        return self.test(value)


class ShapeCompileError(ValueError):
    """A schema uses a keyword the fast path does not know."""


def compile_shape(
    node: Mapping[str, Any], resolve: Callable[[str], Mapping[str, Any]]
) -> Predicate:
    """``node`` (a shape-only schema) as one predicate; ``resolve`` turns a ``$ref`` into the
    schema it names."""
    unknown = set(node) - ANNOTATIONS - COMPILED
    if unknown:
        raise ShapeCompileError(f"the fast shape check has no rule for {sorted(unknown)}")
    tests: list[Predicate] = []
    if "$ref" in node:
        tests.append(_Reference(node["$ref"], resolve))
    if "type" in node:
        kinds = node["type"] if isinstance(node["type"], list) else [node["type"]]
        checks = [_TYPES[k] for k in kinds]
        tests.append(checks[0] if len(checks) == 1 else (lambda v: any(c(v) for c in checks)))
    required = frozenset(node.get("required", ()))
    properties = {k: compile_shape(v, resolve) for k, v in node.get("properties", {}).items()}
    extra = node.get("additionalProperties", True)
    extra_check = compile_shape(extra, resolve) if isinstance(extra, Mapping) else None
    if required or properties or extra is not True:

        def object_test(v: object) -> bool:
            if type(v) is not dict:
                return True  # not an object: "type" judges it
            if not v.keys() >= required:
                return False
            for key, value in v.items():
                test = properties.get(key)
                if test is not None:
                    if not test(value):
                        return False
                elif extra is False or (extra_check is not None and not extra_check(value)):
                    return False
            return True

        tests.append(object_test)
    if isinstance(node.get("items"), Mapping):
        item = compile_shape(node["items"], resolve)
        tests.append(lambda v: type(v) is not list or all(map(item, v)))
    # no generator per call where two tests or a list's items will do (each costs about as
    # much as a test: an evaluate answer's thousand results pass through here)
    if not tests:
        return lambda v: True
    if len(tests) == 1:
        return tests[0]
    if len(tests) == 2:
        first, second = tests
        return lambda v: first(v) and second(v)
    return lambda v: all(t(v) for t in tests)
