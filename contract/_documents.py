"""The contract's JSON documents as Python types (contract sections 2 to 4).

Each is what one operation answers once it has passed the seam's schema check
(``contract.Validated``): the JSON Schema in ``contract/schemas/`` says the same thing, field
for field, and is what is enforced at run time. These types are for readers and for mypy.
"""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict

Document = dict[str, Any]
"""Any JSON object of the contract, as parsed (an answer before its schema check)."""


class GameOffer(TypedDict):
    stakes_cents: list[int]


class Implementation(TypedDict):
    """``GET /v1/implementation`` (``describe``)."""

    name: str
    version: str
    games: dict[str, GameOffer]
    capabilities: list[str]


class ErrorBody(TypedDict):
    code: str  # snake_case
    message: str  # for a person


class ErrorDocument(TypedDict):
    """Every refusal: ``{"error": {"code", "message"}}`` with a 4xx status (section 4)."""

    error: ErrorBody


class Win(TypedDict, total=False):
    """One win of an evaluation result; which fields besides ``amount_cents`` depends on the
    game (robots: ``robot``, ``symbol``; eldorado: ``grid``, ``row``, ``symbol``, ``count``)."""

    amount_cents: int
    robot: int
    grid: int
    row: int
    symbol: str
    count: int


class EvaluationResult(TypedDict):
    """Contract section 2: ``prize_cents`` is the sum of ``wins[].amount_cents``."""

    prize_cents: int
    wins: list[Win]


class BlockEntry(TypedDict):
    """One block of ``GET /v1/blocks``."""

    block_id: str
    game: str
    stake_cents: int
    units: int


class BlockList(TypedDict):
    blocks: list[BlockEntry]


class Generator(TypedDict, total=False):
    name: str
    version: str


class BlockHeader(TypedDict):
    """Line 1 of a block document (section 3); unknown fields are kept, never rejected."""

    format: str  # "block/1"
    game: str
    stake_cents: int
    block_id: str
    units: int  # the whole block's size
    start: int  # first unit of this document
    count: int  # unit lines in this document
    generator: NotRequired[Generator]


class BlockUnit(TypedDict):
    """Every other line of a block document (section 3)."""

    index: int
    prize_cents: int
    ticket: str


class NewAccount(TypedDict):
    """``POST /v1/accounts`` (201)."""

    account_id: str
    token: str
    balance_cents: int


class Balance(TypedDict):
    """``GET /v1/accounts/{account_id}``."""

    account_id: str
    balance_cents: int


class Play(TypedDict):
    """``POST /v1/accounts/{account_id}/plays`` (201): bought, ticket not shown yet."""

    play_id: str
    game: str
    stake_cents: int
    block_id: str
    index: int
    balance_cents: int


class Reveal(TypedDict):
    """``POST /v1/plays/{play_id}/reveal``: the next reveal under one button (robots)."""

    button: int
    symbol: str
    x2: bool
    plus_one: bool


class AutoResult(TypedDict):
    """``POST /v1/plays/{play_id}/auto``: the whole ticket, revealed."""

    play_id: str
    ticket: str
    prize_cents: int
    wins: list[Win]


class HistoryEntry(TypedDict):
    """One play of ``GET /v1/accounts/{account_id}/history``, newest first."""

    play_id: str
    game: str
    stake_cents: int
    block_id: str
    index: int
    ticket: str
    prize_cents: int
    created_at: str


class History(TypedDict):
    plays: list[HistoryEntry]
