"""``scipy.special``, loaded when a statistic first needs it.

The randomness laws' special functions are computed without scipy (``conformance._special``);
scipy's ``smirnov`` remains, on the few exact Kolmogorov-Smirnov paths of
``conformance._laws_scipy`` that need it, and its import (about 0.2 s of CPU, with the
array-API layer walking numpy's namespace) is paid by the run that reaches one of them only.
``scipy.stats`` (about 0.45 s more, with scipy.optimize, sparse, spatial, linalg) is not used at
all (issue 12).
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any


class _Lazy:
    """Attribute access on the module named ``name``, imported on first use."""

    def __init__(self, name: str) -> None:
        self._name = name

    def module(self) -> ModuleType:
        return importlib.import_module(self._name)

    def __getattr__(self, attribute: str) -> Any:
        return getattr(self.module(), attribute)


special: Any = _Lazy("scipy.special")
