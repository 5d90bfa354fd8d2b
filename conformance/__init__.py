"""The conformance suite: every article of both games, checked against any adapter."""

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
