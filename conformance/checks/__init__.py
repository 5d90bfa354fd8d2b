"""Check modules, one per area; ``load_every_check`` registers every check in them (the whole
suite, ``conformance._suite``, calls it before it answers).

Importing the package alone loads none of them: a game kit's helpers here
(``checks._robots_classify``, ...) load without every check module, so ``audit-block`` begins
its audit before they load (they then load while the block is judged, off the GIL).
"""

import importlib
import pkgutil


def load_every_check() -> None:
    """Import every check module of the package (each registers its checks as it loads)."""
    for info in pkgutil.iter_modules(__path__):
        if not info.name.startswith("_"):
            importlib.import_module(f"{__name__}.{info.name}")
