"""The figures the docs quote come from the sources: profiles, CLI defaults, blocks read.

``scripts/profile_tables.py`` writes the profile tables from ``conformance/profiles.yaml``, the
CLI defaults and the reference's listing; these tests fail when a page is out of date, or when
prose quotes a timeout, a block count, a default profile or a pytest flag that is not so.
"""

from __future__ import annotations

import importlib.util
import inspect
import re
import sys
import tomllib
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from harness import pytest_plugin as plugin
from harness._cli import build_parser
from harness._config import DEFAULT_PROFILE, RunConfig
from harness._http_adapter import HttpAdapter
from harness._timeout import DEFAULT_TIMEOUT_S

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "profile_tables", ROOT / "scripts" / "profile_tables.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def tables() -> ModuleType:
    return _script()


def _text(page: Path) -> str:
    return page.read_text(encoding="utf-8")


def test_the_profile_tables_are_up_to_date(tables: Any) -> None:
    for name, table in tables.tables().items():
        page = tables.PAGES[name]
        assert tables.render(_text(page), name, table) == _text(page), (
            f"{page.name} is out of date: run python scripts/profile_tables.py"
        )


def test_a_stale_table_is_caught(tables: Any) -> None:
    page = tables.PAGES["certify"]
    stale = _text(page).replace("9,400,000 units in 8 blocks", "4,700,000 units in 4 blocks")
    assert stale != _text(page)
    assert tables.render(stale, "certify", tables.tables()["certify"]) != stale


def test_the_quick_and_full_readings(tables: Any) -> None:
    """What each profile reads from the reference: quick two 20,000-unit slices a stake (as a
    quick certify reports in report.json ``blocks``), full every listed block whole."""
    listed = tables.listed_blocks()
    assert {len(sizes) for sizes in listed.values()} == {2}
    assert tables.reading("quick", listed) == tables.Reading(8, 8 * 20000)
    assert tables.reading("full", listed) == tables.Reading(8, 2 * 2_000_000 + 6 * 900_000)


def test_block_and_unit_counts_quoted_in_prose_match(tables: Any) -> None:
    """Every "N blocks, M units" in the README and docs is what the full profile reads."""
    full = tables.reading("full", tables.listed_blocks())
    quoted = [
        (page.name, int(blocks), int(units.replace(",", "")))
        for page in PAGES
        for blocks, units in re.findall(r"(\d+) blocks, ([\d,]+) units", _text(page))
    ]
    assert quoted, "the README quotes what a full run reads"
    for name, blocks, units in quoted:
        assert (blocks, units) == (full.blocks, full.units), name
    assert not [p.name for p in PAGES if re.search(r"\d million", _text(p))], "write the figure"


def test_one_default_timeout_everywhere() -> None:
    assert RunConfig().timeout_s == DEFAULT_TIMEOUT_S
    assert inspect.signature(HttpAdapter).parameters["timeout"].default == DEFAULT_TIMEOUT_S
    parser = build_parser()
    replay = parser.parse_args(["replay", "case.json"])
    assert replay.timeout == DEFAULT_TIMEOUT_S
    quoted = []
    for page in PAGES:
        text = _text(page)
        quoted += re.findall(r"(\d+) s by default", text)
        quoted += re.findall(r"--timeout S`?[^.]*?default(?:s to)? (\d+) s", text)
        quoted += re.findall(r"timeout_s: (\d+)", text)
    assert len(quoted) >= 3
    assert {float(q) for q in quoted} == {DEFAULT_TIMEOUT_S}


class _Recorder:
    """Stands for pytest's parser: records the options the plugin adds."""

    def __init__(self) -> None:
        self.options: dict[str, dict[str, Any]] = {}

    def getgroup(self, *args: object) -> _Recorder:
        return self

    def addoption(self, name: str, **kwargs: Any) -> None:
        self.options[name] = kwargs


def test_default_profiles_of_pytest_and_certify_as_documented() -> None:
    recorder = _Recorder()
    plugin.pytest_addoption(recorder)  # type: ignore[arg-type]
    pytest_default = recorder.options["--profile"]["default"]
    assert (pytest_default, DEFAULT_PROFILE) == ("quick", "full")
    conformance = _text(ROOT / "docs" / "conformance.md")
    assert re.search(rf"\| `--profile` \| `{pytest_default}` \(default\)", conformance)
    assert f"`{DEFAULT_PROFILE}` (default)" in _text(ROOT / "docs" / "certify.md")


def test_no_page_asks_for_the_plugin_with_p() -> None:
    """The plugin is a pytest11 entry point: ``-p harness.pytest_plugin`` is never needed."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    declared = project["project"]["entry-points"]["pytest11"]
    assert declared == {"instantcert-conformance": "harness.pytest_plugin"}
    assert callable(plugin.pytest_addoption)
    for page in PAGES:
        for module in ("conformance.plugin", "harness.pytest_plugin"):
            assert f"-p {module}" not in _text(page), page.name


def test_the_certify_synopsis_lists_every_flag() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    certify = sub.choices["certify"]  # type: ignore[index]
    synopsis = _text(ROOT / "docs" / "certify.md").split("```")[1]
    flags = [a.option_strings[0] for a in certify._actions if a.option_strings and a.dest != "help"]
    assert "--wait" in flags
    missing = [f for f in flags if f not in synopsis and f != "--verbose"]
    assert not missing, f"docs/certify.md's synopsis lacks {missing}"


def _code(text: str) -> list[str]:
    """Every fenced block line and inline code span of a page."""
    fenced = re.findall(r"^```[^\n]*\n(.*?)^```", text, flags=re.S | re.M)
    outside = re.sub(r"^```[^\n]*\n.*?^```", "", text, flags=re.S | re.M)
    return [line for block in fenced for line in block.splitlines()] + re.findall(
        r"`([^`\n]+)`", outside
    )


def test_every_flag_the_docs_give_a_subcommand_exists() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    options = {
        name: {s for action in command._actions for s in action.option_strings}
        for name, command in sub.choices.items()  # type: ignore[union-attr]
    }
    used = 0
    for page in PAGES:
        for code in _code(_text(page)):
            for name, rest in re.findall(r"instantcert ([a-z][a-z-]*)([^|#]*)", code):
                if name not in options:
                    continue
                for flag in re.findall(r"(?<![\w-])(--[a-z][\w-]*)", rest):
                    used += 1
                    assert flag in options[name], f"{page.name}: instantcert {name} has no {flag}"
    assert used > 30
