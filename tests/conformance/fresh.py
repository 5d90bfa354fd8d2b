"""A script run in a fresh interpreter: nothing imported before (hypothesis, a vendor module)
can hide what the script shows."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def without_module(name: str) -> str:
    """The start of a script in which importing ``name`` fails, as on a machine where
    ``setup.py`` could not build that extension."""
    return f"""
import sys

class NoExtension:  # as on a machine where setup.py could not build it
    def find_spec(self, name, path=None, target=None):
        if name == {name!r}:
            raise ImportError("not built")
        return None

sys.meta_path.insert(0, NoExtension())
"""


def fresh_python(script: str, *argv: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``python -c script argv...`` from the project's root, with only the project on the path;
    a non-zero exit raises."""
    return subprocess.run(
        [sys.executable, "-c", script, *argv],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        check=True,
    )
