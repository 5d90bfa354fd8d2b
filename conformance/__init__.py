"""The conformance suite: every article of both games, checked against any adapter."""

from ._catalogue import CatalogueError, Requirement, catalogue_sha256, load_catalogue
from ._registry import (
    OUTCOMES,
    Check,
    CheckContext,
    CheckFailure,
    ConformanceError,
    Evidence,
    NotSupported,
    check,
    registered_checks,
)

__all__ = [
    "OUTCOMES",
    "CatalogueError",
    "Check",
    "CheckContext",
    "CheckFailure",
    "ConformanceError",
    "Evidence",
    "NotSupported",
    "Requirement",
    "catalogue_sha256",
    "check",
    "load_catalogue",
    "registered_checks",
]
