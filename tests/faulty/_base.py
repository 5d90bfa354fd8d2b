"""Building blocks of the variants: an adapter that forwards to the reference, an adapter over
the independent evaluator, an evaluate-only target over one evaluator, and the reference
adapter over a ``GameService`` subclass.

Each variant changes exactly one behaviour, so everything else must stay the reference's:
these shapes let a variant replace one method and keep the rest untouched.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import reference
from harness._errors import ErrorReply
from harness._reference_adapter import ReferenceAdapter, ReferenceBlockStream
from reference._service import GameService, not_found

from ._evaluator import (
    EldoradoEvaluator,
    Evaluator,
    InvalidTicket,
    RobotsEvaluator,
    evaluate_batch,
)

Document = dict[str, Any]


def stored_balance(db: sqlite3.Connection, account_id: object) -> int:
    """The balance a ``GameService``'s database holds for ``account_id``, read without any
    token check (the faults that bypass the service's own accounting read it this way)."""
    row = db.execute(
        "SELECT balance_cents FROM accounts WHERE account_id = ?", (account_id,)
    ).fetchone()
    if row is None:
        raise not_found(f"no account {account_id!r}")
    return int(row["balance_cents"])


class Delegating:
    """An Adapter forwarding every operation to ``inner``; subclasses replace one."""

    def __init__(self, inner: Any, name: str) -> None:
        self.inner = inner
        self.name = name

    def describe(self) -> Document:
        result: Document = self.inner.describe()
        return result

    def evaluate(self, game: str, stake_cents: int, tickets: Sequence[str]) -> list[Document]:
        results: list[Document] = self.inner.evaluate(game, stake_cents, tickets)
        return results

    def list_blocks(self, game: str, stake_cents: int) -> list[Document]:
        blocks: list[Document] = self.inner.list_blocks(game, stake_cents)
        return blocks

    def read_block(self, block_id: str, start: int | None = None, count: int | None = None) -> Any:
        return self.inner.read_block(block_id, start, count)

    def open_account(self, balance_cents: int) -> Document:
        result: Document = self.inner.open_account(balance_cents)
        return result

    def balance(self, account_id: str, token: str | None) -> Document:
        result: Document = self.inner.balance(account_id, token)
        return result

    def play(self, account_id: str, token: str | None, game: str, stake_cents: int) -> Document:
        result: Document = self.inner.play(account_id, token, game, stake_cents)
        return result

    def reveal(self, play_id: str, token: str | None, button: int) -> Document:
        result: Document = self.inner.reveal(play_id, token, button)
        return result

    def auto(self, play_id: str, token: str | None) -> Document:
        result: Document = self.inner.auto(play_id, token)
        return result

    def history(self, account_id: str, token: str | None, limit: int | None = None) -> Document:
        result: Document = self.inner.history(account_id, token, limit)
        return result

    def close(self) -> None:
        self.inner.close()


class EvaluatorAdapter(Delegating):
    """The reference for blocks and play, ``evaluators`` for ``evaluate``."""

    def __init__(self, inner: Any, name: str, evaluators: Sequence[Evaluator]) -> None:
        super().__init__(inner, name)
        self.evaluators: dict[str, Evaluator] = {e.game: e for e in evaluators}

    def evaluate(self, game: str, stake_cents: int, tickets: Sequence[str]) -> list[Document]:
        results = evaluate_batch(self.evaluators, game, stake_cents, tickets)
        if isinstance(results, dict):
            error = results["error"]
            raise ErrorReply(int(results["status"]), error["code"], error["message"])
        return results


class EvaluateOnlyAdapter:
    """An evaluate-only target: the reference, except for ``evaluator``'s game, which that
    evaluator (one of the faulty kit's, usually) evaluates. Every other operation is refused
    with 404: the rules checks need nothing else."""

    def __init__(self, name: str, evaluator: Evaluator) -> None:
        self.name = name
        self.game = evaluator.game
        self.evaluator = evaluator

    def describe(self) -> Document:
        return {
            "name": self.name,
            "version": "0",
            "games": {
                "robots": {"stakes_cents": [100]},
                "eldorado": {"stakes_cents": [50, 100, 200]},
            },
            "capabilities": ["evaluate"],
        }

    def evaluate(self, game: str, stake_cents: int, tickets: Sequence[str]) -> list[Document]:
        try:
            reference.check_stake(game, stake_cents)
        except reference.GameError as exc:
            raise ErrorReply(422, exc.code, str(exc)) from None
        results: list[Document] = []
        for ticket in tickets:
            try:
                if game == self.game:
                    results.append(self.evaluator.evaluate(stake_cents, ticket))
                else:
                    results.append(reference.evaluate(game, stake_cents, ticket))
            except reference.TicketError as exc:
                results.append({"error": {"code": exc.code, "message": str(exc)}})
            except InvalidTicket as exc:
                results.append({"error": {"code": "invalid_ticket", "message": str(exc)}})
        return results

    def _lacks(self, *_: Any, **__: Any) -> Any:
        raise ErrorReply(404, "not_found", "this target has only the evaluate capability")

    list_blocks = read_block = open_account = balance = _lacks
    play = reveal = auto = history = _lacks

    def close(self) -> None:
        pass


def reference_adapter(service_class: type[GameService] = GameService, name: str = "") -> Any:
    """A ``ReferenceAdapter`` (fresh temporary database) whose service is ``service_class``;
    its master seed is derived from ``name``, so a variant serves the same blocks every run."""
    seed = hashlib.sha256(f"tests.faulty:{name}".encode()).digest()
    adapter = ReferenceAdapter(name=name or "python:reference", seed=seed)
    if service_class is not GameService:
        path = Path(adapter.service.db_path)
        adapter.service.close()
        adapter.service = service_class(path)
    return adapter


def evaluator_variant(
    name: str,
    robots: type[RobotsEvaluator] = RobotsEvaluator,
    eldorado: type[EldoradoEvaluator] = EldoradoEvaluator,
) -> Callable[[], EvaluatorAdapter]:
    """A factory: the reference, but ``evaluate`` by these evaluator classes."""

    def factory() -> EvaluatorAdapter:
        return EvaluatorAdapter(reference_adapter(name=name), name, [robots(), eldorado()])

    return factory


def service_variant(name: str, service_class: type[GameService]) -> Callable[[], Any]:
    """A factory: the reference adapter over ``service_class``."""

    def factory() -> Any:
        return reference_adapter(service_class, name)

    return factory


__all__ = [
    "Delegating",
    "EvaluateOnlyAdapter",
    "EvaluatorAdapter",
    "ReferenceBlockStream",
    "evaluator_variant",
    "reference_adapter",
    "service_variant",
    "stored_balance",
]
