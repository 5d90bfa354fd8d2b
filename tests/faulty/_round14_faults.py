"""Faults a fourteenth red team wrote (5 December 2026) after reading what the suite never
does: it reads the blocks before any play and alone (the block checks run first, by
themselves), and ties each unit sold to a read of its block made *after* the sale; it writes
its token as ``Authorization: Bearer <token>``, the scheme spelled that one way, in every
request, the probes that must be refused included; and it judges the tokens of accounts
opened empty, one after another, never those of accounts opened with money. Each class is the
reference with one behaviour changed, its docstring the bug as a vendor would write it
(``variants.py`` registers them with what must catch them); the controls are correct.
"""

from __future__ import annotations

import contextvars
import json
import secrets
import time
from collections.abc import Generator
from typing import Any

from reference._blocks import Block, Unit
from reference._service import Document, GameService, _hash_token, _now, require_int

from ._base import reference_adapter
from ._protocol_faults import BridgedHttp
from ._ways_in_faults import (
    _TRUSTED,
    GUARDED,
    Receive,
    Scope,
    Send,
    TrustingService,
    _header,
)
from .http_bridge import Serving, create_app

# == units sold from another draw than the block shown ==========================================


class _SalesDraw(GameService):
    """The blocks as the export service shows them, and the units the sales engine sells: a
    block of its own per block id (``_sales_block``), and the units already sold shown as
    sold (from the sales ledger, the plays table)."""

    def _sales_block(self, block: Block) -> Block:
        """The block the sales engine sells ``block``'s units from (here: the same)."""
        return block

    def _take_next_unit(self, db: Any, name: str, stake: int) -> tuple[Block, Unit]:
        block, unit = super()._take_next_unit(db, name, stake)
        return block, self._sales_block(block).unit(unit.index)

    def _sold(self, block: Block) -> int:
        """How many units of ``block`` are sold (its first ones: block order)."""
        with self._connection() as db:
            row = db.execute(
                "SELECT block_number, next_index FROM sales WHERE game = ? AND stake_cents = ?",
                (block.game, block.stake_cents),
            ).fetchone()
        if row is None:
            return 0
        on_sale = self._block(block.game, block.stake_cents, int(row["block_number"]))
        if on_sale.block_id == block.block_id:
            return int(row["next_index"])
        number = self._parse_block_id(block.block_id)
        return block.units if number and number[2] < int(row["block_number"]) else 0

    def block_document(
        self, block_id: object, start: object = None, count: object = None
    ) -> Generator[bytes, None, None]:
        block, first, size = self.block_slice(block_id, start, count)
        sold = min(self._sold(block), first + size)
        inner = super().block_document(block_id, start, count)
        if sold <= first or self._sales_block(block) is block:
            return inner
        return self._ledger_first(inner, block, first, sold)

    def _ledger_first(
        self, inner: Generator[bytes, None, None], block: Block, first: int, sold: int
    ) -> Generator[bytes, None, None]:
        """The slice with its units ``first .. sold - 1`` as the ledger sold them."""
        sales = self._sales_block(block)
        yield next(inner)  # the header line
        for piece in inner:
            lines = piece.split(b"\n")[:-1]
            out = []
            for line in lines:
                index = int(json.loads(line)["index"])
                out.append((sales.unit(index).to_json_line() if index < sold else line) + b"\n")
            yield b"".join(out)


class SalesFromTheBlockShown(_SalesDraw):
    """Correct (a control): the sales engine sells each block's units as the export shows
    them, and the export shows the units sold from the sales ledger."""


class SalesFromAnotherDraw(_SalesDraw):
    """Contract 4 ("a (game, stake) sells unit 0, 1, 2, ... of its current block") and the
    rules (each unit predetermined, "fixed when the block is made"): the block export service
    and the sales engine each generate a block from its id, and the key ceremony gave them
    different keys (the export's from the certification HSM slot, the sales engine's from the
    production one): the units sold are a block of the same lot table in another order, with
    other tickets. The export shows the units already sold from the sales ledger (what was
    really sold), and the rest from its own draw: every block read, whole or in slices, has
    the exact lot table and a random layout, and every unit a player bought shows in the block
    as sold, AUTO and the history agree. Only a read of a block made *before* its units were
    sold differs from what was then sold."""

    def _sales_block(self, block: Block) -> Block:
        return Block(
            block.game,
            block.stake_cents,
            block.block_id,
            self.block_seed(block.block_id + "/production"),
        )


# == the Bearer scheme spelled otherwise ==========================================================

_LEGACY: contextvars.ContextVar[bool] = contextvars.ContextVar("legacy_key", default=False)


def _strict_bearer(sent: str | None) -> bool:
    """The gateway's fast path: ``Bearer`` and one space, exactly as the apps write it."""
    return sent is None or (sent.startswith("Bearer ") and not sent[7:].startswith(" "))


class LegacyKeyService(TrustingService):
    """The reference behind the vendor's gateway: a request the gateway handed to the
    partners' legacy API-key module (``_LEGACY``) is served as the account of its path once
    the key (the token) opens an account, any account."""

    def authorize_account(self, account_id: object, token: object) -> str:
        if _LEGACY.get():
            self.authenticate(token)  # the key opens an account (else 401)
            mark = _TRUSTED.set(True)
            try:
                return super().authorize_account(account_id, token)
            finally:
                _TRUSTED.reset(mark)
        return super().authorize_account(account_id, token)

    def _own_play(self, db: Any, play_id: object, owner: str) -> Any:
        if _LEGACY.get():
            mark = _TRUSTED.set(True)
            try:
                return super()._own_play(db, play_id, owner)
            finally:
                _TRUSTED.reset(mark)
        return super()._own_play(db, play_id, owner)


class SchemeGateway:
    """The vendor's gateway: ``Authorization: Bearer <token>`` as the apps write it goes to
    the auth module (the reference's checks); any other spelling of the Bearer scheme (RFC
    7235 reads the scheme whatever its case, RFC 9110 allows more than one space) goes to the
    legacy module when ``legacy`` (the fault), else is read as Bearer (a control)."""

    def __init__(self, app: Any, legacy: bool) -> None:
        self.app = app
        self.legacy = legacy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        sent = _header(scope, b"authorization")
        parts = (sent or "").split(None, 1)
        other = (
            not _strict_bearer(sent)
            and len(parts) == 2
            and parts[0].lower() == "bearer"
            and GUARDED.fullmatch(scope["path"]) is not None
        )
        if not other:
            await self.app(scope, receive, send)
            return
        token = parts[1].strip()
        headers = [(k, v) for k, v in scope.get("headers", []) if k.lower() != b"authorization"]
        scope = {**scope, "headers": [*headers, (b"authorization", f"Bearer {token}".encode())]}
        mark = _LEGACY.set(self.legacy)
        try:
            await self.app(scope, receive, send)
        finally:
            _LEGACY.reset(mark)


def scheme_variant(legacy: bool, kind: str = "faulty") -> Any:
    """A variant factory maker: the reference over HTTP behind ``SchemeGateway``."""

    def make(name: str) -> Any:
        def factory() -> BridgedHttp:
            inner = reference_adapter(LegacyKeyService, name=f"{kind}:{name}")
            return BridgedHttp(
                Serving(SchemeGateway(create_app(inner), legacy), on_close=inner.close)
            )

        return factory

    return make


class BearerSpelledOtherwiseLegacyKey:
    """Contract 4 ("a token gives access to its own account and plays only"): the gateway's
    auth fast path matches ``Authorization: Bearer <token>`` as the apps write it; a header
    spelling the scheme otherwise (``bearer``, ``BEARER``, two spaces after it: what RFC 7235
    and RFC 9110 allow, and what partners' scripts and some HTTP libraries send) goes to the
    partners' legacy API-key module, which checks that the key opens an account and then
    serves the account or play of the path, whoever's it is: any account's token, spelled
    ``bearer``, opens every account. Every request spelled ``Bearer`` is right."""


class BearerSpelledOtherwiseRead:
    """Correct (a control): the Bearer scheme read whatever its case and spacing (RFC 7235),
    the token checked as for ``Bearer``."""


# == tokens of accounts opened with money ========================================================

#: the cashier's open-and-fund path: an account opened with at least this much
FUNDED_FROM_CENTS = 1


class _Cashier(GameService):
    """Accounts opened with money go through the cashier's service, which issues the token."""

    def _cashier_token(self) -> str:
        return secrets.token_urlsafe(32)

    def open_account(self, balance_cents: object) -> Document:
        balance = require_int(balance_cents, "balance_cents", low=0, high=2**53)
        if balance < FUNDED_FROM_CENTS:
            return super().open_account(balance_cents)
        account_id = "acct_" + secrets.token_hex(12)
        token = self._cashier_token()
        with self._transaction() as db:
            db.execute(
                "INSERT INTO accounts VALUES (?, ?, ?, ?)",
                (account_id, _hash_token(token), balance, _now()),
            )
        return {"account_id": account_id, "token": token, "balance_cents": balance}


class FundedAccountsRandomTokens(_Cashier):
    """Correct (a control): the cashier's service hands out tokens of 256 random bits."""


class FundedAccountsClockTokens(_Cashier):
    """Contract 4 ("the token is the account's secret"): an account opened empty (the sign-up
    form) gets its token from the auth service, 256 random bits; an account opened with money
    (the cashier's open-and-fund path, a first deposit) gets it from the cashier's service,
    which writes the clock in microseconds, in hex, and 20 random bits: one player who knows
    when another opened an account (to the second) tries 2^40 tokens, and the accounts opened
    in one second share all but a few characters. Accounts opened empty are right."""

    def _cashier_token(self) -> str:
        return f"{time.time_ns() // 1000:x}{secrets.randbits(20):05x}"


__all__ = [
    "BearerSpelledOtherwiseLegacyKey",
    "BearerSpelledOtherwiseRead",
    "FundedAccountsClockTokens",
    "FundedAccountsRandomTokens",
    "LegacyKeyService",
    "SalesFromAnotherDraw",
    "SalesFromTheBlockShown",
    "SchemeGateway",
    "scheme_variant",
]
