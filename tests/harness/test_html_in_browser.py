"""report.html in a real browser (issue 30): headless Chromium lays out the report of a passing
run, of a failing run and of a clean block audit at 1400 and at 800 px, every folded section
open, and nothing may reach past the window's right edge (scripts/html_report_screens.py).
Slow tier; skipped where no Chromium is installed."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from harness._cli import main

ROOT = Path(__file__).resolve().parents[2]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "html_report_screens", ROOT / "scripts" / "html_report_screens.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["html_report_screens"] = module
    spec.loader.exec_module(module)
    return module


screens = _script()

try:
    screens.browser()
    NO_BROWSER = ""
except screens.NoBrowser as exc:
    NO_BROWSER = str(exc)

pytestmark = [pytest.mark.slow, pytest.mark.skipif(bool(NO_BROWSER), reason=NO_BROWSER)]

BROKEN = "python:examples.python_adapter.adapter:make_broken_adapter"


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("browser")
    certify = ["certify", "--profile", "quick", "--seed", "1", "--out"]
    assert main([*certify, str(folder / "pass")]) == 0
    assert main([*certify, str(folder / "fail"), "--target", BROKEN]) == 1
    blocks = []
    for n, seed in enumerate(("ab" * 32, "cd" * 32), start=1):
        path = folder / f"eldorado-{n}.jsonl.gz"
        block = ["generate-block", "--game", "eldorado", "--stake-cents", "100", "--seed", seed]
        assert main([*block, "--block-id", f"eldorado-100-000{n}", "-o", str(path)]) == 0
        blocks.append(str(path))
    assert main(["audit-block", *blocks, "--out", str(folder / "audit"), "--seed", "1"]) == 0
    return {name: folder / name for name in ("pass", "fail", "audit")}


@pytest.mark.parametrize("width", screens.WIDTHS)
@pytest.mark.parametrize("name", ["pass", "fail", "audit"])
def test_the_report_fits_the_window(reports: dict[str, Path], name: str, width: int) -> None:
    measure = screens.measure(reports[name], width)
    assert measure.client_width == width
    assert not measure.overflows, (measure.scroll_width, measure.wide)


def test_a_clean_block_audit_reads_as_passed(reports: dict[str, Path]) -> None:
    page = (reports["audit"] / "report.html").read_text(encoding="utf-8")
    assert '<div class="big">BLOCK AUDIT PASSED</div>' in page


def test_the_script_writes_a_screenshot_of_the_whole_page(
    reports: dict[str, Path], tmp_path: Path
) -> None:
    assert screens.main([str(reports["fail"]), "--shots", str(tmp_path)]) == 0
    shots = sorted(p.name for p in tmp_path.iterdir())
    assert shots == ["fail-1400.png", "fail-800.png"]
    assert all((tmp_path / s).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for s in shots)
