"""The answer schemas: valid schemas, the OpenAPI document carries the same, the reference
follows them, and the fast shape check agrees with the general validator."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contract._fastshape import ShapeCompileError, compile_shape
from contract._schemas import SCHEMAS, fast_shape, first_fault, schema, validator
from harness._reference_adapter import ReferenceAdapter

ROOT = Path(__file__).resolve().parents[2]


def _spec() -> dict[str, Any]:
    text = resources.files("reference").joinpath("openapi", "openapi.json").read_text()
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def test_every_schema_file_is_listed_and_valid() -> None:
    files = sorted(p.name for p in (ROOT / "contract" / "schemas").glob("*.json"))
    assert files == sorted(f"{name}.schema.json" for name in SCHEMAS)
    for name in SCHEMAS:
        jsonschema.Draft202012Validator.check_schema(schema(name))
        assert schema(name)["$id"].endswith(f"/{name}.schema.json")


def test_the_openapi_answers_are_the_schema_files() -> None:
    """Every 2xx JSON answer of the HTTP contract is one of the schema files, as a component
    written from it (``scripts/openapi_schemas.py``): docs and the seam cannot drift."""
    from scripts.openapi_schemas import DOCUMENT, written

    assert DOCUMENT.read_text(encoding="utf-8") == written(), "run scripts/openapi_schemas.py"
    spec = _spec()
    answered = set()
    for path in spec["paths"].values():
        for operation in path.values():
            for status, answer in operation.get("responses", {}).items():
                body = answer.get("content", {}).get("application/json", {}).get("schema", {})
                if "$ref" in body:
                    answered.add(body["$ref"].rsplit("/", 1)[1])
                    assert status.startswith("2") or body["$ref"].endswith("/Error"), status
    components = set(SCHEMAS.values())
    assert answered <= components, answered - components
    assert "Error" in answered and "AutoResult" in answered


def test_the_reference_answers_follow_the_schemas_whole() -> None:
    adapter = ReferenceAdapter()
    try:
        full = {"shape": False}
        assert first_fault("implementation", adapter.describe(), **full) is None
        results = adapter.evaluate(
            "robots", 100, ["OHPSCTQD|C D2+P S S C S D T S P H O C S T D C C", "x"]
        )
        assert first_fault("evaluate-response", {"results": results}, **full) is None
        eldorado = adapter.evaluate("eldorado", 100, ["YYSYY/VBPSX/BBPPS|SSSSS/PVBYP/BYVPS"])
        assert first_fault("evaluate-response", {"results": eldorado}, **full) is None
        blocks = adapter.list_blocks("robots", 100)
        assert first_fault("block-list", {"blocks": blocks}, **full) is None
        with adapter.read_block(blocks[0]["block_id"], 0, 2) as stream:
            assert first_fault("block-header", stream.header, **full) is None
            for line in stream.lines():
                assert first_fault("block-unit", json.loads(line), **full) is None
        account = adapter.open_account(1000)
        assert first_fault("account", account, **full) is None
        token = account["token"]
        play = adapter.play(account["account_id"], token, "robots", 100)
        assert first_fault("play", play, **full) is None
        assert first_fault("reveal", adapter.reveal(play["play_id"], token, 0), **full) is None
        assert first_fault("auto", adapter.auto(play["play_id"], token), **full) is None
        history = adapter.history(account["account_id"], token)
        assert first_fault("history", history, **full) is None
        assert first_fault("balance", adapter.balance(account["account_id"], token), **full) is None
    finally:
        adapter.close()


@pytest.mark.parametrize(
    ("name", "document", "fault"),
    [
        ("play", {"play_id": "p", "game": "robots", "stake_cents": 100, "block_id": "b"},
         ("$", "has no 'index', 'balance_cents'")),
        ("play", {"play_id": "p", "game": "robots", "stake_cents": True, "block_id": "b",
                  "index": 0, "balance_cents": 0},
         ("$.stake_cents", "must be of JSON type integer")),
        ("history", {"plays": [3]}, ("$.plays[0]", "must be of JSON type object")),
        ("block-header", {"format": "block/1", "game": "robots", "stake_cents": 100,
                          "block_id": "b", "units": 1.0, "start": 0, "count": 1},
         ("$.units", "must be of JSON type integer")),
        ("auto", {"play_id": "p", "ticket": "t", "prize_cents": 0, "wins": {}},
         ("$.wins", "must be of JSON type array")),
    ],
)  # fmt: skip
def test_a_fault_is_named_by_its_path(name: str, document: object, fault: tuple[str, str]) -> None:
    found = first_fault(name, document)
    assert found is not None and (found[0], found[2]) == fault


def test_values_are_the_checks_and_shape_is_the_seams() -> None:
    """A negative balance is a document of the contract with a wrong value: the shape passes
    it (a check fails it, naming its requirement); the full schema does not."""
    balance = {"account_id": "a", "balance_cents": -5}
    assert first_fault("balance", balance) is None
    assert first_fault("balance", balance, shape=False) == (
        "$.balance_cents",
        -5,
        "breaks 'minimum' 0",
    )


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.floats(allow_nan=False)
    | st.text(max_size=3),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["error", "code", "message", "wins", "x"]), inner, max_size=3
        )
    ),
    max_leaves=12,
)


def _near(name: str) -> st.SearchStrategy[object]:
    """Documents close to schema ``name``'s shape: its fields, each maybe of a wrong type."""
    properties = schema(name).get("properties", {})
    return st.fixed_dictionaries(
        {},
        optional={key: JSON | st.builds(dict) | st.builds(list) for key in properties},
    )


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_the_fast_shape_check_agrees_with_the_validator(data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(sorted(SCHEMAS)))
    document = data.draw(JSON | _near(name))
    assert fast_shape(name)(document) == validator(name).is_valid(document)


def test_the_fast_shape_check_refuses_a_keyword_it_does_not_know() -> None:
    with pytest.raises(ShapeCompileError, match="minimum"):
        compile_shape({"type": "integer", "minimum": 0}, lambda ref: {})
