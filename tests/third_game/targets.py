"""Implementations of Coins for the end-to-end test: the reference as it is, and one with a
fault planted in its service (it pays a purse of silver coins one euro too much), in-process
(``python:tests.third_game.targets:mispaying``) and behind the reference HTTP server."""

from __future__ import annotations

from pathlib import Path

from harness._reference_adapter import ReferenceAdapter
from reference._service import Document, GameService
from tests.seeds import TEST_SEED

OVERPAID_CENTS = 100
SEED = TEST_SEED
"""The master seed of every service here: the blocks, hence the randomness tests' p-values,
are the same at every run (a random seed would fail a randomness test in 1 run in 100)."""


class MisPayingService(GameService):
    """The reference service, but a Coins purse of three silver coins pays 1 € more than the
    rules say (article 4: a purse pays its coin's amount at the stake played)."""

    def evaluate(self, game: object, stake_cents: object, tickets: object) -> Document:
        answer = super().evaluate(game, stake_cents, tickets)
        if game != "coins":
            return answer
        for result in answer["results"]:
            for win in result.get("wins", []):
                if win["symbol"] == "silver":
                    win["amount_cents"] += OVERPAID_CENTS
                    result["prize_cents"] += OVERPAID_CENTS
        return answer


def mispaying() -> ReferenceAdapter:
    """The in-process reference with ``MisPayingService`` in place of its service."""
    adapter = ReferenceAdapter(name="python:tests.third_game.targets:mispaying", seed=SEED)
    folder = Path(adapter.service.db_path).parent  # the adapter's scratch folder, removed on close
    adapter.service.close()
    adapter.service = MisPayingService(folder / "mispaying.sqlite3", SEED, durable=False)
    return adapter
