"""Look at a report.html in a real browser: headless Chromium, at 1400 px and at 800 px wide.

For each width, a copy of the page with a small script added is loaded; the script opens every
folded section, then writes into the page's title the document's width against the window's and
every element that reaches past the right edge of the window, and ``--dump-dom`` reads it back.
A page that scrolls sideways, or an element wider than the window, is an overflow. With
``--shots DIR`` a full-height screenshot at each width is written too (``<report dir>-1400.png``,
``<report dir>-800.png``) for a person to look at.

    python scripts/html_report_screens.py REPORT_DIR_OR_HTML... [--shots DIR] [--widths 1400,800]

Exit 0 when no page overflows at any width, 1 when one does, 2 when Chromium cannot be found.
The slow tier runs ``measure`` on the reports of a passing, a failing and an audit run
(tests/harness/test_html_in_browser.py).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

WIDTHS = (1400, 800)
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
MARK = "instantcert-measure:"

# Runs after layout, every <details> opened: the document's scroll width against the window's
# width, and up to ten of the deepest elements whose right edge passes the window's (what to fix).
_PROBE = """<script>
window.addEventListener("load", function () {
  document.querySelectorAll("details").forEach(function (d) { d.open = true; });
  var root = document.documentElement, limit = root.clientWidth, wide = [];
  document.querySelectorAll("body *").forEach(function (el) {
    if (el.getBoundingClientRect().right > limit + 1) { wide.push(el); }
  });
  var deepest = wide.filter(function (el) {
    return !wide.some(function (other) { return other !== el && el.contains(other); });
  }).slice(0, 10).map(function (el) {
    var name = el.tagName.toLowerCase(), cls = el.getAttribute("class");
    return name + (cls ? "." + cls.split(" ").join(".") : "") + " to "
      + Math.round(el.getBoundingClientRect().right) + " px: "
      + (el.textContent || "").trim().slice(0, 60);
  });
  document.title = "MARK" + JSON.stringify({scroll_width: root.scrollWidth, client_width: limit,
    height: root.scrollHeight, wide: deepest});
});
</script>""".replace("MARK", MARK)


@dataclass(frozen=True)
class Measure:
    width: int
    scroll_width: int
    client_width: int
    height: int
    wide: tuple[str, ...]

    @property
    def overflows(self) -> bool:
        return self.scroll_width > self.client_width or bool(self.wide)


class NoBrowser(RuntimeError):
    """No Chromium (or Chrome) on PATH."""


def browser() -> str:
    """The path of a Chromium-like browser on PATH; NoBrowser when there is none."""
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    raise NoBrowser(f"no browser on PATH (looked for {', '.join(BROWSERS)})")


def _run(args: list[str]) -> str:
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"]
    done = subprocess.run(
        [browser(), *flags, *args], capture_output=True, text=True, timeout=120, check=False
    )
    return done.stdout


def _report(path: Path) -> Path:
    return path / "report.html" if path.is_dir() else path


def measure(html: Path, width: int) -> Measure:
    """The page laid out in a window ``width`` px wide: its widths and what passes the edge."""
    page = _report(html).read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory() as tmp:
        probe = Path(tmp) / "probe.html"
        probe.write_text(page.replace("</body>", _PROBE + "</body>", 1), encoding="utf-8")
        window = f"--window-size={width},900"
        dom = _run([window, "--virtual-time-budget=5000", "--dump-dom", probe.as_uri()])
    found = re.search(re.escape(MARK) + r"(\{.*?\})</title>", dom, re.S)
    if found is None:
        raise RuntimeError(f"{html}: the measuring script did not run at {width} px")
    text = found.group(1).replace("&quot;", '"').replace("&amp;", "&")
    data = json.loads(text)
    return Measure(
        width, data["scroll_width"], data["client_width"], data["height"], tuple(data["wide"])
    )


def screenshot(html: Path, width: int, out: Path, height: int) -> Path:
    """A screenshot of the whole page (``height`` px, at most 16 000) at ``width`` px."""
    _run(
        [
            f"--window-size={width},{min(max(height, 600), 16000)}",
            f"--screenshot={out}",
            _report(html).resolve().as_uri(),
        ]
    )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("reports", nargs="+", type=Path, help="report directories or .html files")
    parser.add_argument("--shots", type=Path, help="write full-page screenshots here")
    parser.add_argument("--widths", default=",".join(map(str, WIDTHS)))
    args = parser.parse_args(argv)
    try:
        widths = [int(w) for w in args.widths.split(",")]
    except ValueError:
        parser.error(f"--widths {args.widths!r}: expected widths in px, e.g. 1400,800")
    try:
        browser()
    except NoBrowser as exc:
        print(exc, file=sys.stderr)
        return 2
    bad = 0
    for n, report in enumerate(args.reports):
        if not _report(report).is_file():
            parser.error(f"{report}: no report.html there")
        for width in widths:
            m = measure(report, width)
            state = "OVERFLOWS" if m.overflows else "fits"
            print(f"{_report(report)} at {width} px: {state} (document {m.scroll_width} px)")
            for element in m.wide:
                print(f"  wider than the window: {element}")
            bad += m.overflows
            if args.shots:
                args.shots.mkdir(parents=True, exist_ok=True)
                name = f"{_report(report).parent.name or n}-{width}.png"
                print(f"  screenshot: {screenshot(report, width, args.shots / name, m.height)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
