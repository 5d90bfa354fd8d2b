"""The harness's exceptions, and the faults of a target (which live in ``contract``).

``HarnessError`` is the base of what the harness itself raises (a bad configuration, a bad
report to compare, a signing failure); the faults of a target (``TargetError`` and kinds) are
the contract's, re-exported here so ``harness._errors`` imports keep working. Both derive from
``contract.ContractError``: catch that for "the run cannot go on, whoever is at fault".
"""

from __future__ import annotations

from contract import (
    ContractBreach,
    ContractError,
    ErrorReply,
    ProtocolViolation,
    TargetError,
    TargetTimeout,
    TargetUnreachable,
)


class HarnessError(ContractError):
    """Base of every error the harness itself raises."""


class ConfigError(HarnessError):
    """Bad configuration, arguments or waivers: the run cannot start (exit 2)."""


__all__ = [
    "ConfigError",
    "ContractBreach",
    "ContractError",
    "ErrorReply",
    "HarnessError",
    "ProtocolViolation",
    "TargetError",
    "TargetTimeout",
    "TargetUnreachable",
]
