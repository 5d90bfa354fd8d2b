"""The contract between instantcert and an implementation under test, as code.

Neutral ground every layer imports and that imports none of them: the adapter interface and
its documents, the capabilities, the contract's limits and error codes, the faults a target
can commit, and the JSON Schemas of every answer (``contract/schemas/``) with the one wrapper
that checks an adapter's answers against them (``Validated``).
"""

from ._adapter import RAW_BODY_BYTES, Adapter, BlockStream, HeldBack, RawAnswer, RawRequests
from ._documents import (
    AutoResult,
    Balance,
    BlockEntry,
    BlockHeader,
    BlockList,
    BlockUnit,
    Document,
    ErrorDocument,
    EvaluationResult,
    History,
    HistoryEntry,
    Implementation,
    NewAccount,
    Play,
    Reveal,
    Win,
)
from ._errors import (
    ContractBreach,
    ContractError,
    ErrorReply,
    ProtocolViolation,
    TargetError,
    TargetTimeout,
    TargetUnreachable,
)
from ._limits import (
    BLOCK_FORMAT,
    CAPABILITIES,
    ERROR_CODE,
    ERROR_CODES,
    ERROR_STATUSES,
    EVALUATE_BATCH_LIMIT,
    OPERATIONS,
)
from ._validated import Validated, ValidatedStream

__all__ = [
    "BLOCK_FORMAT",
    "CAPABILITIES",
    "ERROR_CODE",
    "ERROR_CODES",
    "ERROR_STATUSES",
    "EVALUATE_BATCH_LIMIT",
    "OPERATIONS",
    "RAW_BODY_BYTES",
    "Adapter",
    "AutoResult",
    "Balance",
    "BlockEntry",
    "BlockHeader",
    "BlockList",
    "BlockStream",
    "BlockUnit",
    "ContractBreach",
    "ContractError",
    "Document",
    "ErrorDocument",
    "ErrorReply",
    "EvaluationResult",
    "HeldBack",
    "History",
    "HistoryEntry",
    "Implementation",
    "NewAccount",
    "Play",
    "ProtocolViolation",
    "RawAnswer",
    "RawRequests",
    "Reveal",
    "TargetError",
    "TargetTimeout",
    "TargetUnreachable",
    "Validated",
    "ValidatedStream",
    "Win",
]
