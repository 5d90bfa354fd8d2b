"""Check modules, one per area; ``load_every_check`` registers every check in them (the whole
suite, ``conformance._suite``, calls it before it answers).

Importing the package alone loads none of them: a game kit's helpers here
(``checks._robots_classify``, ...) load without every check module, so ``audit-block`` begins
its audit before they load (they then load while the block is judged, off the GIL).
"""

import importlib
import pkgutil
from collections.abc import Iterable, Mapping

MODULES_OF_CAPABILITY: Mapping[str, tuple[str, ...]] = {
    "blocks": ("blocks", "block_randomness", "block_slice_bounds"),
}
"""The check modules that hold every check covering a requirement of a capability: a run
restricted to it (``audit-block``: blocks) loads those alone, not the play, reveal and
evaluate checks and the games' probe classifiers they bring (23 modules, about 20 ms of CPU
of a block audit). ``tests/conformance/test_check_modules.py`` holds it to the whole
registry: a check of the capability written elsewhere fails there."""


def load_every_check() -> None:
    """Import every check module of the package (each registers its checks as it loads)."""
    for info in pkgutil.iter_modules(__path__):
        if not info.name.startswith("_"):
            importlib.import_module(f"{__name__}.{info.name}")


def load_checks(capabilities: Iterable[str] | None = None) -> None:
    """Import the check modules a run of ``capabilities`` needs (``MODULES_OF_CAPABILITY``);
    every one when None, or when one of them is not in that table."""
    wanted = None if capabilities is None else tuple(capabilities)
    if wanted is None or any(c not in MODULES_OF_CAPABILITY for c in wanted):
        load_every_check()
        return
    for capability in wanted:
        for name in MODULES_OF_CAPABILITY[capability]:
            importlib.import_module(f"{__name__}.{name}")
