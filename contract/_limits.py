"""The contract's fixed numbers and names (contract sections 4 and 5), in one place."""

from __future__ import annotations

import re
from typing import Final

CAPABILITIES: Final[tuple[str, ...]] = ("evaluate", "blocks", "play", "reveal")
"""What an implementation may offer, each a whole group of operations (section 4)."""

EVALUATE_BATCH_LIMIT: Final = 1000
"""Tickets in one ``POST /v1/evaluate`` (1 to 1000); adapters chunk longer batches to it."""

BLOCK_FORMAT: Final = "block/1"
"""The ``format`` of a block document's header line (section 3)."""

OPERATIONS: Final[tuple[str, ...]] = (
    "describe",
    "evaluate",
    "list_blocks",
    "read_block",
    "open_account",
    "balance",
    "play",
    "reveal",
    "auto",
    "history",
)
"""The contract's operations (section 5), as ``Adapter`` methods; ``close`` besides."""

ERROR_CODE: Final = re.compile(r"[a-z][a-z0-9_]*")
"""An error document's ``code``: snake_case (section 4)."""

ERROR_STATUSES: Final[dict[int, str]] = {
    400: "malformed request",
    401: "no or bad token",
    402: "insufficient funds",
    403: "someone else's resource",
    404: "unknown, or someone else's resource",
    409: "wrong state",
    413: "request too large (the project's choice: 4 MiB)",
    422: "invalid ticket, stake or game",
}
"""The 4xx statuses the contract names, and what each says (section 4)."""

ERROR_CODES: Final[dict[str, int]] = {
    "malformed_request": 400,
    "unauthorized": 401,
    "insufficient_funds": 402,
    "not_found": 404,
    "nothing_to_reveal": 409,
    "balance_limit": 409,
    "invalid_request": 422,
    "invalid_game": 422,
    "invalid_stake": 422,
    "invalid_ticket": 422,
    "invalid_rules_data": 422,
    "method_not_allowed": 405,
    "request_too_large": 413,
    "internal_error": 500,
    "unavailable": 503,
}
"""The codes the reference sends, with their status (``tests/contract/test_limits.py`` reads
the reference's source for every one). The contract fixes the statuses, not the
codes: a target may send codes of its own (any snake_case word) and the checks judge the
status; these are the names the reference, its CLI and the reports use for the same faults."""
