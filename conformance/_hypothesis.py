"""Hypothesis draws that depend on the recorded seed alone.

Hypothesis (6.13x and later) mixes into about one draw in twenty a constant scraped from the
source of the "local" modules loaded at that moment (anything outside the standard library and
site-packages). The tickets a seed draws would then change with which project and vendor
modules happen to be imported, with whether instantcert runs from a checkout or an install, and
in the middle of a concurrent certify when another check imports a module; a shrink pass could
even miss the case its search pass found. A certification run must be replayable from its seed,
so the local pool is pinned empty here, once, before any check draws; hypothesis's own global
constants (edge values such as 0, -1, 2**63) still come up.

Hypothesis also saves, seeds and restores numpy's global generator around every example (twice
over: the example and its strategy's draw) once numpy is imported, as the suite always has it:
numpy's ``get_state``/``seed`` cost about 100 us a time, a tenth of drawing a whole robots
ticket, and 5 to 10 % of the CPU of a full certify. Nothing the suite draws or checks reads
numpy's global generator (the reference and the randomness tests use generators of their own,
seeded from the run's seed), so the processes instantcert owns (the ``certify`` command, the
workers that draw examples: ``conformance._drawing``) leave it out of that management
(``unmanage_numpy_random``); a vendor's own test process that imports the suite keeps
hypothesis's behaviour, as its own tests may read numpy's global generator.
"""

from __future__ import annotations

import random
from typing import Any

import hypothesis  # the package whole, before any of its modules by name
import numpy  # noqa: F401  (so hypothesis's numpy wrapper exists to be left out)
from hypothesis.internal import entropy as _entropy
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


def unmanage_numpy_random() -> bool:
    """Leave numpy's global generator out of the generators hypothesis seeds and restores
    around each example; True when left out, False when this hypothesis manages it otherwise
    (nothing changed)."""
    seeder = getattr(_entropy, "get_seeder_and_restorer", None)
    managed = getattr(_entropy, "RANDOMS_TO_MANAGE", None)
    if seeder is None or managed is None:
        return False
    seeder(0)  # registers the numpy wrapper (once: it is kept in a global, never made again)
    wrapper = getattr(_entropy, "NP_RANDOM", None)
    keys = [key for key, value in list(managed.items()) if value is wrapper]
    if wrapper is None or not keys:
        return False
    for key in keys:
        del managed[key]
    return True


def register_thread_random() -> bool:
    """Give the calling thread the generator hypothesis draws each test's seed from, registered
    for hypothesis to seed and restore as its own first test in the thread would register it,
    minus ``register_random``'s guard: a full garbage collection and a ``gc.get_referrers``
    scan, there to warn about a generator nobody holds (this one the thread-local holds), 30 to
    80 ms a thread in a certify, with every thread stopped (11 threads: 0.3 to 0.85 s of a quick
    certify, measured). True when registered or already there; False when this hypothesis keeps
    its generators otherwise (nothing changed: its own first test registers one)."""
    local = getattr(getattr(hypothesis, "core", None), "threadlocal", None)
    managed = getattr(_entropy, "RANDOMS_TO_MANAGE", None)
    keys = getattr(_entropy, "_RKEY", None)
    if local is None or managed is None or keys is None:
        return False
    try:
        current = local._hypothesis_global_random
    except AttributeError:
        return False
    if current is None:
        generator = random.Random()
        local._hypothesis_global_random = generator
        managed[next(keys)] = generator
    return True


PINNED = pin_local_constants()
