"""Modules imported on first use: hypothesis and the suite's strategies cost about 0.1 s to
import, and the commands that run no property-based check (``audit-block``, a run filtered to
block checks) never need them. A check module names ``st`` or ``S`` as usual; the import
happens the first time one of their attributes is read, typically inside a check.

``strategies_module()`` (hypothesis's ``st``) and ``suite_strategies()`` (the suite's ``S``) are
the two the check modules and kits use; either one loads ``conformance._hypothesis`` first,
which pins hypothesis's draws to the seed alone.

Concurrent first imports of hypothesis are not safe by themselves: hypothesis's modules import
one another in a cycle, and two threads importing two of them at once can each find the other's
half-initialised (``ImportError: cannot import name 'example' from partially initialized module
'hypothesis.core'``), which ended the checks of a certify in *error*. So every first use goes
through ``load_hypothesis()``, one thread at a time: the lazy modules here, and ``execute``
before any check that is not a block check (a check may import hypothesis directly).
"""

from __future__ import annotations

import importlib
import threading
from types import ModuleType
from typing import Any

_IMPORTING = threading.RLock()  # re-entered if a module it imports reads a lazy module


class LazyModule:
    """Stands for the module ``name``: any attribute read imports it (once) and reads its."""

    def __init__(self, name: str, *, before: str | None = None) -> None:
        self._name = name
        self._before = before
        self._module: ModuleType | None = None

    def _load(self) -> ModuleType:
        if self._module is None:
            with _IMPORTING:
                if self._before is not None:  # e.g. hypothesis pinned before any strategy
                    importlib.import_module(self._before)
                self._module = importlib.import_module(self._name)
        return self._module

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("__") and attribute.endswith("__"):
            raise AttributeError(attribute)  # copy, pickle, inspect: no import for a probe
        return getattr(self._load(), attribute)

    def __repr__(self) -> str:
        state = "imported" if self._module is not None else "not imported yet"
        return f"<lazy module {self._name!r}, {state}>"


HYPOTHESIS = "hypothesis.strategies"
STRATEGIES = "conformance.strategies"
PIN = "conformance._hypothesis"


_PINNED: ModuleType | None = None  # conformance._hypothesis, once its import has completed


def load_hypothesis() -> ModuleType:
    """Import hypothesis, pinned (``conformance._hypothesis``), unless done: one thread at a
    time, so no thread sees another's half-imported hypothesis. Done means the import has
    completed: the module is in ``sys.modules`` from the moment another thread starts it."""
    global _PINNED
    if _PINNED is None:
        with _IMPORTING:
            if _PINNED is None:
                _PINNED = importlib.import_module(PIN)
    return _PINNED


def prepare_hypothesis_thread() -> None:
    """``load_hypothesis``, then the calling thread's generator for hypothesis's seeds
    (``conformance._hypothesis.register_thread_random``: without a garbage collection)."""
    load_hypothesis().register_thread_random()


def strategies_module() -> LazyModule:
    """``hypothesis.strategies``, imported on first use (after ``conformance._hypothesis``)."""
    return LazyModule(HYPOTHESIS, before=PIN)


def suite_strategies(name: str = STRATEGIES) -> LazyModule:
    """``conformance.strategies`` (or a game's own strategies module, ``name``), imported on
    first use (it imports hypothesis)."""
    return LazyModule(name, before=PIN)
