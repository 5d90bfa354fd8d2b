"""Fuzzing the loaders of outside input: case files, configs, waivers (issue 11).

Whatever the bytes or the structure, ``load_case``, ``load_config_file`` (with the effective
settings built from it) and ``parse_waivers`` either return or raise ``ConfigError`` (which the
CLI prints as one line, exit 2): no other exception may escape. Inputs are random bytes, random
JSON/YAML structures, and valid documents with one part replaced by a random value.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance import load_catalogue
from harness._cases import load_case
from harness._config import build_config, load_config_file
from harness._errors import ConfigError
from harness._waivers import parse_waivers
from tests.faulty.hostile import HOSTILE, valid_case

SETTINGS = settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=30)
    | st.sampled_from([HOSTILE, "robots", "eldorado", "quick", "full", "2026-02-30", "", "play"])
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=12,
)


def mutated(document: Any) -> st.SearchStrategy[Any]:
    """``document`` with the value at one random path replaced by a random value."""

    @st.composite
    def build(draw: st.DrawFn) -> Any:
        doc = copy.deepcopy(document)
        node = doc
        while True:
            keys = list(node) if isinstance(node, dict) else list(range(len(node)))
            if not keys:
                return doc
            key = draw(st.sampled_from(keys))
            child = node[key]
            if isinstance(child, dict | list) and child and draw(st.booleans()):
                node = child
                continue
            if draw(st.integers(0, 4)) == 0 and isinstance(node, dict):
                del node[key]
            else:
                node[key] = draw(VALUES)
            return doc

    return build()


def _only_config_errors(function: Any, *args: Any) -> None:
    try:
        function(*args)
    except ConfigError as exc:
        assert str(exc).strip()  # it names the fault


# -- case files ----------------------------------------------------------------------------------


def _case(path: Path, data: bytes) -> None:
    path.write_bytes(data)
    load_case(path)


@SETTINGS
@given(data=st.binary(max_size=400))
def test_random_bytes_as_a_case_file(tmp_path: Path, data: bytes) -> None:
    _only_config_errors(_case, tmp_path / "case.json", data)


@SETTINGS
@given(doc=mutated(valid_case()) | VALUES)
def test_tampered_case_documents(tmp_path: Path, doc: Any) -> None:
    text = json.dumps(doc, allow_nan=True)  # NaN and Infinity included, as an attacker would
    _only_config_errors(_case, tmp_path / "case.json", text.encode("utf-8", "surrogatepass"))


# -- configs ------------------------------------------------------------------------------------

VALID_CONFIG: dict[str, Any] = {
    "profile": "quick",
    "seed": 1,
    "games": ["robots"],
    "stakes": {"robots": [100]},
    "requirements": ["robots.4.6.x2"],
    "timeout_s": 5,
    "out": "out",
    "settings": {"alpha": 0.01, "hypothesis_max_examples": 10},
    "waivers": [{"requirement": "robots.4.6.x2", "reason": "r", "expires": "2027-01-01"}],
}


def _config(path: Path, data: bytes) -> None:
    path.write_bytes(data)
    load_config_file(path)
    config = build_config(path, {})
    config.effective_settings()
    if isinstance(config.waivers, list):
        parse_waivers(config.waivers, "config: waivers", load_catalogue())


@SETTINGS
@given(data=st.binary(max_size=400))
def test_random_bytes_as_a_config(tmp_path: Path, data: bytes) -> None:
    _only_config_errors(_config, tmp_path / "config.yaml", data)


@SETTINGS
@given(text=st.text(alphabet=st.sampled_from(list("[]{}:-,&*!|>'\"#\n\t %@`ab1.")), max_size=80))
def test_random_yaml_punctuation_as_a_config(tmp_path: Path, text: str) -> None:
    _only_config_errors(_config, tmp_path / "config.yaml", text.encode())


@SETTINGS
@given(doc=mutated(VALID_CONFIG) | VALUES)
def test_tampered_configs(tmp_path: Path, doc: Any) -> None:
    text = yaml.safe_dump(doc, allow_unicode=True)
    _only_config_errors(_config, tmp_path / "config.yaml", text.encode("utf-8", "surrogatepass"))


# -- waivers ------------------------------------------------------------------------------------

VALID_WAIVERS = {"waivers": VALID_CONFIG["waivers"] * 1}


@SETTINGS
@given(doc=mutated(VALID_WAIVERS) | VALUES)
def test_tampered_waivers(doc: Any) -> None:
    _only_config_errors(parse_waivers, doc, "waivers file 'w.yaml'", load_catalogue())
