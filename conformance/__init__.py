"""The conformance suite: every article of both games, checked against any adapter.

Its names load on first use (PEP 562): importing one of its modules, the block audit's
``conformance._audit`` say, does not load the whole suite first (``instantcert audit-block``
starts reading the file while the rest of the harness loads: docs/block-audit.md).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._catalogue import CatalogueError, Requirement, catalogue_sha256, load_catalogue
    from ._errors import ConformanceError
    from ._execute import CheckOutcome, execute
    from ._file_audit import BlockFileAudit, audit_block_file
    from ._profiles import ProfileError, check_settings, load_profile, profile_names
    from ._registry import (
        EVERY_STREAM,
        OUTCOMES,
        Check,
        CheckContext,
        CheckFailure,
        Evidence,
        NotSupported,
        Reservation,
        check,
    )
    from ._replay import ReplayError, replayer
    from ._settings import Settings
    from ._suite import registered_checks, replay, replayers

_HOMES = {
    "._catalogue": ("CatalogueError", "Requirement", "catalogue_sha256", "load_catalogue"),
    "._errors": ("ConformanceError",),
    "._execute": ("CheckOutcome", "execute"),
    "._file_audit": ("BlockFileAudit", "audit_block_file"),
    "._profiles": ("ProfileError", "check_settings", "load_profile", "profile_names"),
    "._registry": (
        "EVERY_STREAM",
        "OUTCOMES",
        "Check",
        "CheckContext",
        "CheckFailure",
        "Evidence",
        "NotSupported",
        "Reservation",
        "check",
    ),
    "._replay": ("ReplayError", "replayer"),
    "._settings": ("Settings",),
    "._suite": ("registered_checks", "replay", "replayers"),
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}


def __getattr__(name: str) -> Any:
    module = _HOME_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOME_OF})


__all__ = [
    "EVERY_STREAM",
    "OUTCOMES",
    "BlockFileAudit",
    "CatalogueError",
    "Check",
    "CheckContext",
    "CheckFailure",
    "CheckOutcome",
    "ConformanceError",
    "Evidence",
    "NotSupported",
    "ProfileError",
    "ReplayError",
    "Requirement",
    "Reservation",
    "Settings",
    "audit_block_file",
    "catalogue_sha256",
    "check",
    "check_settings",
    "execute",
    "load_catalogue",
    "load_profile",
    "profile_names",
    "registered_checks",
    "replay",
    "replayer",
    "replayers",
]
