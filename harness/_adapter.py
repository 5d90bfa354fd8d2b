"""The adapter interface, as the harness has always exported it: it lives in ``contract``.

Kept so that ``harness._adapter`` imports keep working; new code imports ``contract``.
"""

from __future__ import annotations

from contract import CAPABILITIES, EVALUATE_BATCH_LIMIT, OPERATIONS, Adapter, BlockStream, Document

__all__ = [
    "CAPABILITIES",
    "EVALUATE_BATCH_LIMIT",
    "OPERATIONS",
    "Adapter",
    "BlockStream",
    "Document",
]
