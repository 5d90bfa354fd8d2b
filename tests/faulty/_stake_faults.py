"""A fault the clause catalogue found (issue 10): a game sold at fewer stakes than article 2
fixes. Every other check runs at the stakes a target declares, so only the stakes check
(``conformance/checks/stakes.py``) can see it; ``variants.py`` registers it."""

from __future__ import annotations

from reference._service import Document, GameService, ServiceError

SOLD = 100  # the one eldorado stake this implementation sells


def _refuse(game: object, stake_cents: object) -> None:
    if game == "eldorado" and stake_cents != SOLD and stake_cents in (50, 200):
        raise ServiceError(422, "invalid_stake", f"eldorado is sold at {SOLD} cents only")


class EldoradoOneEuroOnly(GameService):
    """We launched eldorado at 1 € only: /v1/implementation lists stakes_cents [100] for it,
    and 0,5 € and 2 € are refused as invalid stakes by evaluate, the block list and play."""

    def implementation(self) -> Document:
        document = super().implementation()
        document["games"]["eldorado"]["stakes_cents"] = [SOLD]
        return document

    def evaluate(self, game: object, stake_cents: object, tickets: object) -> Document:
        _refuse(game, stake_cents)
        return super().evaluate(game, stake_cents, tickets)

    def list_blocks(self, game: object = None, stake_cents: object = None) -> Document:
        _refuse(game, stake_cents)
        listed = super().list_blocks(game, stake_cents)
        blocks = listed["blocks"]
        kept = [b for b in blocks if b["game"] != "eldorado" or b["stake_cents"] == SOLD]
        return {**listed, "blocks": kept}

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        _refuse(game, stake_cents)
        return super().play(account_id, token, game, stake_cents)
