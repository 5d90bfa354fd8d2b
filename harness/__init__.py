"""Drives any implementation of the two games, runs the conformance suite, writes the reports."""

from ._adapter import CAPABILITIES, EVALUATE_BATCH_LIMIT, Adapter, BlockStream, Document
from ._errors import (
    ConfigError,
    ContractBreach,
    ErrorReply,
    HarnessError,
    ProtocolViolation,
    TargetError,
    TargetTimeout,
    TargetUnreachable,
)
from ._http_adapter import HttpAdapter, HttpBlockStream
from ._reference_adapter import ReferenceAdapter, ReferenceBlockStream
from ._targets import DEFAULT_TARGET, open_target

__version__ = "0.1.0"

__all__ = [
    "CAPABILITIES",
    "DEFAULT_TARGET",
    "EVALUATE_BATCH_LIMIT",
    "Adapter",
    "BlockStream",
    "ConfigError",
    "ContractBreach",
    "Document",
    "ErrorReply",
    "HarnessError",
    "HttpAdapter",
    "HttpBlockStream",
    "ProtocolViolation",
    "ReferenceAdapter",
    "ReferenceBlockStream",
    "TargetError",
    "TargetTimeout",
    "TargetUnreachable",
    "__version__",
    "open_target",
]
