"""A seed draws the same examples whatever modules are loaded (conformance/_hypothesis.py)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conformance import _hypothesis

SCRIPT = textwrap.dedent(
    """
    import sys
    from hypothesis import Phase, given, seed, settings, strategies as st
    if sys.argv[1] == "pinned":
        import conformance._hypothesis

    def draws():
        seen = []

        @seed(20261201)
        @settings(max_examples=600, database=None, phases=[Phase.generate], deadline=None)
        @given(st.integers(0, 10**6))
        def collect(n):
            seen.append(n)

        collect()
        return seen

    before = draws()
    sys.path.insert(0, sys.argv[2])
    import vendor_constants  # a local module full of integer constants, loaded mid-run
    print("same" if draws() == before else "different")
    """
)


def run(mode: str, tmp_path: Path) -> str:
    constants = ", ".join(str(100_003 + 7919 * i) for i in range(400))
    (tmp_path / "vendor_constants.py").write_text(f"TABLE = [{constants}]\n", encoding="utf-8")
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, mode, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=root,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
        check=True,
    )
    return done.stdout.strip()


def test_a_seed_draws_the_same_examples_after_a_module_loads(tmp_path: Path) -> None:
    assert run("pinned", tmp_path) == "same"


def test_without_the_pin_a_loaded_module_changes_the_draws(tmp_path: Path) -> None:
    # what the pin is for: this hypothesis draws constants from loaded local modules
    if not _hypothesis.PINNED:
        pytest.skip("this hypothesis has no local-constant pool to pin")
    assert run("unpinned", tmp_path) == "different"
