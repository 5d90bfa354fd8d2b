"""Implementations of Coins for the end-to-end test: the reference as it is, and two with a
fault planted in its service, in-process and behind the reference HTTP server: one pays a purse
of silver coins one euro too much (``python:tests.third_game.targets:mispaying``), one reveals
the play's coins in purse order whichever purse is clicked
(``python:tests.third_game.targets:button_blind``)."""

from __future__ import annotations

from pathlib import Path

from harness._reference_adapter import ReferenceAdapter
from reference._service import Document, GameService, ServiceError
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


PURSES = 2  # Coins' buttons: one per purse (rules.yaml, article 6)


class ButtonBlindService(GameService):
    """The reference service, but a click on a purse's button shows the next coin of the play
    in purse order, whichever purse was clicked (article 6: a click shows *that* purse's next
    coin): right when the purses are clicked in turn, wrong in any other order. For Coins
    plays only (the test certifies it with ``--game coins``)."""

    def reveal(self, play_id: object, token: object, button: object) -> Document:
        if type(button) is not int or not 0 <= button < PURSES:
            return super().reveal(play_id, token, button)  # refused as the reference does
        for purse in range(PURSES):
            try:
                answer = super().reveal(play_id, token, purse)
            except ServiceError as refusal:
                if refusal.code != "nothing_to_reveal":
                    raise
                continue
            return {**answer, "button": button}
        return super().reveal(play_id, token, button)  # nothing left anywhere: the 409


def _with_service(name: str, service: type[GameService]) -> ReferenceAdapter:
    """The in-process reference with ``service`` in place of its service."""
    adapter = ReferenceAdapter(name=f"python:tests.third_game.targets:{name}", seed=SEED)
    folder = Path(adapter.service.db_path).parent  # the adapter's scratch folder, removed on close
    adapter.service.close()
    adapter.service = service(folder / f"{name}.sqlite3", SEED, durable=False)
    return adapter


def mispaying() -> ReferenceAdapter:
    """The in-process reference with ``MisPayingService`` in place of its service."""
    return _with_service("mispaying", MisPayingService)


def button_blind() -> ReferenceAdapter:
    """The in-process reference with ``ButtonBlindService`` in place of its service."""
    return _with_service("button_blind", ButtonBlindService)
