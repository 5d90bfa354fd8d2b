"""Hypothesis draws that depend on the recorded seed alone.

Hypothesis (6.13x and later) mixes into about one draw in twenty a constant scraped from the
source of the "local" modules loaded at that moment (anything outside the standard library and
site-packages). The tickets a seed draws would then change with which project and vendor
modules happen to be imported, with whether instantcert runs from a checkout or an install, and
in the middle of a concurrent certify when another check imports a module; a shrink pass could
even miss the case its search pass found. A certification run must be replayable from its seed,
so the local pool is pinned empty here, once, before any check draws; hypothesis's own global
constants (edge values such as 0, -1, 2**63) still come up.
"""

from __future__ import annotations

from typing import Any

from hypothesis.internal.conjecture import providers as _providers


def pin_local_constants() -> bool:
    """Make hypothesis see no local-module constants from now on; True when pinned, False when
    this hypothesis has no such pool (an older or newer engine: nothing to pin)."""
    make = getattr(_providers, "Constants", None)
    current = getattr(_providers, "_local_constants", None)
    if make is None or current is None or not hasattr(_providers, "_get_local_constants"):
        return False
    empty: Any = make()  # every pool an empty set
    _providers._local_constants = empty
    _providers._get_local_constants = lambda: empty
    cache = getattr(_providers, "CONSTANTS_CACHE", None)
    if cache is not None:  # pools already computed with the local constants are dropped
        _providers.CONSTANTS_CACHE = type(cache)(cache.max_size)
    return True


PINNED = pin_local_constants()
