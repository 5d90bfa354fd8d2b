"""scipy, loaded when a statistic first needs it, or ahead of time in a background thread.

``scipy.stats`` costs about a second to import, and most commands never compute a p-value
(evaluate, compare, verify, a run filtered to rules checks). The randomness statistics use the
stand-ins below, which import the real module on first use; a block audit calls ``prefetch()``
when it starts, so the import runs while the block is read and is done when the tests run.
"""

from __future__ import annotations

import importlib
import threading
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


stats: Any = _Lazy("scipy.stats")
special: Any = _Lazy("scipy.special")
fft: Any = _Lazy("scipy.fft")

_started = threading.Event()


def prefetch() -> None:
    """Import scipy's statistics in a background thread, once (a later use waits for it)."""
    if _started.is_set():
        return
    _started.set()

    def load() -> None:
        for name in ("scipy.stats", "scipy.special", "scipy.fft"):
            importlib.import_module(name)

    threading.Thread(target=load, name="instantcert-scipy", daemon=True).start()
