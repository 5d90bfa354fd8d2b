"""Write the timings the docs quote from ``benchmarks/figures.json``, the one source of them.

A page never states how long a command takes from someone's memory: it quotes a figure that
``benchmarks/commands.py --figures benchmarks/figures.json`` measured (a whole process timed
from outside, the median of its runs; the row's date, core count and load are kept beside it),
between markers that name the row:

    <!-- figure:certify-full -->78 s<!-- /figure -->

    python scripts/doc_figures.py            # rewrite every marked figure in place
    python scripts/doc_figures.py --check    # exit 1 if a page is out of date (the tests)

``tests/test_doc_figures.py`` fails when a page's figure differs from the file, names a row the
file does not have, or states a command's duration outside the markers.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FIGURES = ROOT / "benchmarks" / "figures.json"
MARK = re.compile(r"<!-- figure:(?P<name>[a-z0-9-]+) -->(?P<text>.*?)<!-- /figure -->")


def pages() -> list[Path]:
    """The pages whose figures are held to the file: the README and every page of docs/."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def load(path: Path = FIGURES) -> dict[str, dict[str, Any]]:
    """The rows of the figures file, by name."""
    rows: dict[str, dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))["rows"]
    return rows


def phrase(seconds: float) -> str:
    """How a page writes a duration: tenths of a second under 10 s, whole seconds under two
    minutes, else minutes to the half (a figure of a shared machine's hour has no more
    precision than that)."""
    if seconds < 10:
        return f"{seconds:.1f} s"
    if seconds < 120:
        return f"{round(seconds)} s"
    minutes = round(seconds / 30) / 2
    return f"{minutes:g} min"


def render(text: str, figures: dict[str, dict[str, Any]], where: str = "page") -> str:
    """``text`` with every marked figure written from ``figures``; KeyError naming the page
    and the row for a row the file does not have."""

    def write(match: re.Match[str]) -> str:
        name = match["name"]
        if name not in figures:
            raise KeyError(f"{where}: figure {name!r} is not a row of {FIGURES.name}")
        return f"<!-- figure:{name} -->{phrase(figures[name]['median_s'])}<!-- /figure -->"

    return MARK.sub(write, text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a page is out of date")
    args = parser.parse_args(argv)
    figures = load()
    stale = []
    for page in pages():
        text = page.read_text(encoding="utf-8")
        new = render(text, figures, page.name)
        if new != text:
            stale.append(str(page.relative_to(ROOT)))
            if not args.check:
                page.write_text(new, encoding="utf-8")
    if stale and args.check:
        print(f"out of date: {', '.join(stale)}; run python scripts/doc_figures.py")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
