"""One source for the timings the docs quote (issue 30): ``benchmarks/figures.json``, written by
``benchmarks/commands.py --figures``, quoted between ``<!-- figure:ROW -->`` markers that
``scripts/doc_figures.py`` writes. A page whose figure differs from the file, that names a row
the file lacks, or that states how long a command takes outside the markers fails here."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "doc_figures", ROOT / "scripts" / "doc_figures.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def figures() -> ModuleType:
    return _script()


def test_every_quoted_figure_is_the_figures_files(figures: Any) -> None:
    rows = figures.load()
    for page in figures.pages():
        text = page.read_text(encoding="utf-8")
        assert figures.render(text, rows, page.name) == text, (
            f"{page.name} quotes a figure that is not benchmarks/figures.json's: "
            "run python scripts/doc_figures.py"
        )


def test_the_pages_quote_the_runs_a_user_asks_about(figures: Any) -> None:
    """The README's full and quick certify and the test tier, certify.md's runs: quoted."""
    quoted = {
        (page.name, m["name"])
        for page in figures.pages()
        for m in figures.MARK.finditer(page.read_text(encoding="utf-8"))
    }
    for where in [
        ("README.md", "certify-full"),
        ("README.md", "certify-http"),
        ("certify.md", "certify-full"),
        ("certify.md", "certify-quick"),
    ]:
        assert where in quoted, where
    assert ("README.md", "test-tier") in quoted


def test_a_stale_figure_is_caught(figures: Any) -> None:
    rows = figures.load()
    text = "a full run took <!-- figure:certify-full -->5 min<!-- /figure --> on 2 cores"
    assert figures.render(text, rows) != text
    with pytest.raises(KeyError, match="'certify-fulll' is not a row"):
        figures.render("<!-- figure:certify-fulll -->78 s<!-- /figure -->", rows)


@pytest.mark.parametrize(
    ("seconds", "written"), [(0.54, "0.5 s"), (8.76, "8.8 s"), (77.99, "78 s"), (148, "2.5 min")]
)
def test_how_a_duration_is_written(figures: Any, seconds: float, written: str) -> None:
    assert figures.phrase(seconds) == written


#: a duration stated of a whole run: "about 5 minutes", "45-80 s", "a minute or so" (not a
#: profile's CPU time: "0.8 s of CPU", which the profiles measure)
CLAIM = re.compile(
    r"(?:about|takes?|took|in)\s+\d[\d.,]*(?:\s*[-–]\s*\d[\d.,]*)?\s*"
    r"(?:s|seconds?|min|minutes?)\b(?! of CPU)"
    r"|a minute or so|several minutes|\d+\s+minutes",
    re.I,
)
#: what the claim is about: a certify run, a profile's run, the test tier
RUN = re.compile(r"certify|quick|full (?:run|profile)|`full`|test tier|the tier|run of the", re.I)
#: a record of a past measurement (its date or hour is given): history, not a claim of today
DATED = re.compile(r"\b\d\d:\d\d\b|UTC|20\d\d|measured|before|after|sitting|series|was\b", re.I)


def unmarked_claims(text: str) -> list[str]:
    """The lines of ``text`` that state how long a run takes outside the figure markers (table
    rows and dated records of past measurements aside)."""
    text = _script().MARK.sub("FIGURE", text)
    found = []
    for paragraph in re.split(r"\n\s*\n", text):
        if paragraph.lstrip().startswith("|") or DATED.search(paragraph):
            continue
        line = " ".join(paragraph.split())
        if CLAIM.search(line) and RUN.search(line):
            found.append(line[:200])
    return found


def test_no_page_states_a_runs_duration_outside_the_markers(figures: Any) -> None:
    for page in figures.pages():
        assert unmarked_claims(page.read_text(encoding="utf-8")) == [], page.name


@pytest.mark.parametrize(
    "claim",
    [
        "certify the built-in reference with the `full` profile: every article, every block "
        "audited whole; about 45-80 s on a 2-core machine, by its load",
        "A full run of the reference takes about 5 minutes on 2 cores.",
        "The first `certify` runs the `quick` profile (about 15 seconds; it never certifies).",
        "quick (a minute or so: sampled blocks) or full",
    ],
)
def test_the_stale_claims_of_issue_30_are_caught(claim: str) -> None:
    assert unmarked_claims(claim) != []
