"""``scipy.special``, loaded when a statistic first needs it, or ahead of time in a thread.

Most commands never compute a p-value (evaluate, compare, verify, a run filtered to rules
checks), and ``scipy.special`` costs about 0.12 s of CPU to import. The randomness statistics
(``conformance._laws``) use the stand-in below, which imports the real module on first use; a
block audit calls ``prefetch()`` once its last chunk is handed to the workers, so the import
runs while they judge the last lines (during the read, the import held the GIL against the
thread feeding them). ``scipy.stats`` (about 0.45 s more, with scipy.optimize, sparse,
spatial, linalg) is not used at all any more (issue 12).
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


special: Any = _Lazy("scipy.special")

_started = threading.Event()


def prefetch() -> None:
    """Import ``scipy.special`` in a background thread, once (a later use waits for it)."""
    if _started.is_set():
        return
    _started.set()

    def load() -> None:
        importlib.import_module("scipy.special")

    threading.Thread(target=load, name="instantcert-scipy", daemon=True).start()
