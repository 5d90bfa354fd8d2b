"""The compiled module ``_fastlines`` (``_fastlines.c``), or None where it was not built.

``setup.py`` builds it as an optional extension: without a C compiler the install goes on, and
every caller takes its numpy path instead, the same results, slower. Callers test
``fastlines is not None``; ``tests/reference/test_fastlines.py`` fails where it is None.
"""

from __future__ import annotations

from typing import Any

fastlines: Any
try:
    import reference._fastlines as fastlines  # the module, not the package
except ImportError:  # pragma: no cover - a build without a C compiler
    fastlines = None
