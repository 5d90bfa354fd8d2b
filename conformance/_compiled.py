"""The compiled module ``_fastaudit`` (``_fastaudit.c``), or None where it was not built.

``setup.py`` builds it as an optional extension: without a C compiler the install goes on, and
the block audit judges every chunk through its numpy fast path instead, the same verdicts,
slower. ``tests/conformance/test_fastaudit.py`` fails where it is None.
"""

from __future__ import annotations

from typing import Any

fastaudit: Any
try:
    import conformance._fastaudit as fastaudit  # the module, not the package
except ImportError:  # pragma: no cover - a build without a C compiler
    fastaudit = None


def compiled(name: str) -> Any:
    """``fastaudit``'s function ``name``, or None where the module was not built or was built
    before the function was written (an editable install not built again after a pull): the
    caller then takes its numpy path."""
    return getattr(fastaudit, name, None)
