"""Drives any implementation of the two games, runs the conformance suite, writes the reports."""

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

# every name loads on first use: ``instantcert`` (``harness._cli``) begins a block file's
# audit before the adapter interface and the contract's schemas load (about 25 ms of start-up,
# ``_cli.entry_point``), and a command that needs neither connection (audit-block, compare,
# verify, evaluate) never pays for requests or the reference service
_LAZY = {
    **dict.fromkeys(
        ("CAPABILITIES", "EVALUATE_BATCH_LIMIT", "Adapter", "BlockStream", "Document"),
        "._adapter",
    ),
    **dict.fromkeys(
        (
            "ConfigError",
            "ContractBreach",
            "ErrorReply",
            "HarnessError",
            "ProtocolViolation",
            "TargetError",
            "TargetTimeout",
            "TargetUnreachable",
        ),
        "._errors",
    ),
    "DEFAULT_TARGET": "._targets",
    "open_target": "._targets",
    "HttpAdapter": "._http_adapter",
    "HttpBlockStream": "._http_adapter",
    "ReferenceAdapter": "._reference_adapter",
    "ReferenceBlockStream": "._reference_adapter",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module, __name__), name)


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
