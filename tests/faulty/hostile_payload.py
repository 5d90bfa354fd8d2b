"""A module a tampered case file names as its target: importing it leaves a marker file.

``instantcert replay`` must never import it unless ``--target`` names it
(tests/harness/test_hostile.py checks that the marker is not written).
"""

from __future__ import annotations

from typing import Any

from .hostile import MARKER

MARKER.write_text("imported\n")


def factory() -> Any:
    from harness._reference_adapter import ReferenceAdapter

    return ReferenceAdapter()
