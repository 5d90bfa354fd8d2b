"""A minimal Python adapter: instantcert drives the vendor's ``ToyEngine`` through it, in-process.

    .venv/bin/instantcert certify --target python:examples.python_adapter.adapter:make_adapter

The adapter translates, nothing more: the contract's documents (contract sections 2 and 5) in
and out, the engine's own calls and errors in between. It offers the ``evaluate`` capability
only, so the block and play requirements are *not supported* (the run says INCOMPLETE, never a
false pass); add ``list_blocks``/``read_block`` and the play operations to offer more
(docs/adapters.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NoReturn

from harness import ErrorReply

from .toy_engine import Rejected, ToyEngine

Document = dict[str, Any]


class ToyAdapter:
    def __init__(self, engine: ToyEngine) -> None:
        self.engine = engine
        self.name = "python:examples.python_adapter.adapter:make_adapter"

    def describe(self) -> Document:
        games = {game: {"stakes_cents": s} for game, s in self.engine.price_list().items()}
        return {
            "name": self.engine.name,
            "version": self.engine.version,
            "games": games,
            "capabilities": ["evaluate"],
        }

    def evaluate(self, game: str, stake_cents: int, tickets: Sequence[str]) -> list[Document]:
        sold = self.engine.price_list()
        if game not in sold:
            raise ErrorReply(422, "invalid_game", f"unknown game {game!r}")
        if stake_cents not in sold[game]:  # a whole batch at a wrong stake is refused
            raise ErrorReply(422, "invalid_stake", f"{game} is not sold at {stake_cents!r} cents")
        results: list[Document] = []
        for ticket in tickets:  # one invalid ticket gets an error object in its place
            try:
                prize, wins = self.engine.score(game, stake_cents, ticket)
            except Rejected as exc:
                results.append({"error": {"code": exc.reason, "message": exc.detail}})
            else:
                results.append({"prize_cents": prize, "wins": wins})
        return results

    def _unsupported(self, *args: object, **kwargs: object) -> NoReturn:
        raise ErrorReply(404, "not_supported", "this engine has no blocks and no plays")

    list_blocks = read_block = open_account = balance = _unsupported
    play = reveal = auto = history = _unsupported

    def close(self) -> None:
        """Nothing to release: the engine lives in this process."""


def make_adapter() -> ToyAdapter:
    """The factory ``--target python:examples.python_adapter.adapter:make_adapter`` names."""
    return ToyAdapter(ToyEngine())


def make_broken_adapter() -> ToyAdapter:
    """The same adapter over an engine that counts an X2 as one notch: NOT CERTIFIED."""
    return ToyAdapter(ToyEngine(x2_bug=True))
