"""The faults of a target, as every layer names them (contract sections 4 and 5).

A check that meets a ``TargetError`` is reported as *error* (the target misbehaved), never as
*fail* (the target answered, and the answer is wrong) and never as a crash of the harness.
They live here, not in the harness, so that the adapters, the checks and the harness raise and
catch the same classes without importing one another (``harness._errors`` re-exports them).
"""

from __future__ import annotations


class ContractError(Exception):
    """Base of every exception of the contract's layers: the faults of a target here, and the
    harness's own errors (``harness.HarnessError`` derives from it), so one ``except`` catches
    a run that cannot go on, whichever side is at fault."""


class TargetError(ContractError):
    """The target could not be used as the contract says; ``kind`` names how."""

    kind = "target_error"


class TargetUnreachable(TargetError):
    """Nothing answers at the target's address (connection refused, DNS, adapter import)."""

    kind = "unreachable"


class TargetTimeout(TargetError):
    """The target did not answer, or stopped sending, within the configured timeout."""

    kind = "timeout"


class ProtocolViolation(TargetError):
    """The target answered outside the contract: bad status, bad JSON, wrong shape, cut stream.

    The message quotes the offending bytes (shortened) so a vendor can find them.
    """

    kind = "protocol_violation"


class ContractBreach(ProtocolViolation):
    """The target answered, in the contract's shape, but broke a named requirement doing so:
    a refusal sent with a success status, a success with the wrong 2xx status, a 4xx whose
    body is JSON but not the error document. Checks do not catch it: ``conformance._execute``
    turns it into a *fail* of ``requirement`` (not an *error*), with ``answer`` as evidence.

    Unreachable, timed out or unparseable answers stay plain ``TargetError`` (*error*).
    """

    kind = "contract_breach"

    def __init__(self, requirement: str, message: str, answer: dict[str, object]) -> None:
        super().__init__(message)
        self.requirement = requirement
        self.answer = answer  # {"operation", "status", "body", "expected"}: what was seen


class ErrorReply(TargetError):
    """A well-formed contract error document: ``{"error": {"code", "message"}}``.

    Checks that expect a refusal catch this and compare ``status`` and ``code``.
    """

    kind = "error_reply"

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
