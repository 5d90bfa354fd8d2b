"""Faults a thirteenth red team wrote (5 December 2026) from the suite's traffic, not its code:
``tests/faulty/surface.py`` lists every element of the contract's surface and records which a
run tries (docs/coverage.md). Each fault below breaks a sentence of the contract only where a
run did not go: a play's token checked against its account only at each game's first stake
(the security and refusal checks played there alone); a history ``limit`` exactly the
account's number of plays (the listings asked it below and above the count, at it only by
chance). A third, a robots ticket finished button by button credited again, was written and
dropped: the suite caught it already (``play.money.exact``). Each class is the reference with
one behaviour changed, its docstring the bug as a vendor would write it (``variants.py``
registers them with what must catch them); the controls are correct.
"""

from __future__ import annotations

from typing import Any

from reference._games import load_rules
from reference._service import Document, GameService, game_and_stake

from ._base import stored_balance

# == the token of a play checked against its account at the game's first stake only ==========


def _first_stake(game: str) -> int:
    """The smallest stake the rules sell ``game`` at (the stake each game was launched at)."""
    return min(int(s) for s in load_rules(game).stakes_cents)


class LaterStakesTokenOfAnyAccount(GameService):
    """Contract 4 (every play endpoint needs the account's token; a token gives access to its
    own account and plays only): the purchase handler of the stakes added after a game's
    launch (eldorado's 1 EUR and 2 EUR; its 0,50 EUR and robots' 1 EUR are the launch
    handler's) authenticates the token, then buys on the account named in the path, never
    checking that the token is that account's: any player's token buys a 1 EUR or 2 EUR
    eldorado play on anyone's account. Every other operation, and a play at a launch stake,
    is right."""

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        try:
            name, stake = game_and_stake(game, stake_cents)
        except Exception:  # refused by the reference as it would be
            return super().play(account_id, token, game, stake_cents)
        if stake == _first_stake(name):
            return super().play(account_id, token, game, stake_cents)
        self.authenticate(token)  # a token that opens some account
        with self._connection() as db:
            stored_balance(db, account_id)  # 404 for an unknown account
        return super().play(account_id, self._token_of(account_id), game, stake_cents)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._tokens: dict[str, str] = {}  # the launch handler's sessions: account -> token

    def _token_of(self, account_id: object) -> str:
        """The account's own token, as the launch handler's session has it (kept at opening)."""
        return self._tokens[str(account_id)]

    def open_account(self, balance_cents: object) -> Document:
        account = super().open_account(balance_cents)
        self._tokens[str(account["account_id"])] = str(account["token"])
        return account


class LaterStakesTokenOfItsAccount(LaterStakesTokenOfAnyAccount):
    """Correct (a control): the later stakes' handler as above, checking that the token is
    the account's (404 otherwise, as the launch handler answers)."""

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        self.authorize_account(account_id, token)
        return super().play(account_id, token, game, stake_cents)


# == a history page of exactly ``limit`` plays trimmed as if it had one more =================


class HistoryPageTrimmedAtItsLimit(GameService):
    """Contract 4 (history: newest first, ``limit`` n the newest n): a listing with an
    explicit ``limit`` fetches ``limit + 1`` rows, the extra one telling the app's "load
    more" button whether there is more, and drops it with ``if len(rows) >= limit: rows =
    rows[:-1]`` (``>=`` for ``>``): an account that holds exactly ``limit`` plays gets its
    newest ``limit - 1``, the oldest one missing (and a player of one play asking ``limit``
    1 gets none). Any other ``limit``, and a listing without one, is right."""

    def history(self, account_id: object, token: object, limit: object = None) -> Document:
        if type(limit) is not int or limit < 1:
            return super().history(account_id, token, limit)
        rows = list(super().history(account_id, token, limit + 1)["plays"])
        if len(rows) >= limit:
            rows = rows[:-1]
        return {"plays": rows}


class HistoryPageTrimmedPastItsLimit(GameService):
    """Correct (a control): the same listing, the extra row dropped only when it is there
    (``len(rows) > limit``)."""

    def history(self, account_id: object, token: object, limit: object = None) -> Document:
        if type(limit) is not int or limit < 1:
            return super().history(account_id, token, limit)
        rows = list(super().history(account_id, token, limit + 1)["plays"])
        if len(rows) > limit:
            rows = rows[:-1]
        return {"plays": rows}


# == a batch's size checked at each game's first stake only ===================================


class LaterStakesBatchSizeUnchecked(GameService):
    """Contract 4 (``POST /v1/evaluate``: 1 to 1000 tickets; 400 malformed): requests are
    validated by a JSON Schema per (game, stake) generated from the rules files; the batch
    size (``minItems: 1``, ``maxItems: 1000``) was added to the launch stakes' schemas
    (robots 1 EUR, eldorado 0,50 EUR) after eldorado's 1 EUR and 2 EUR schemas had been
    copied from an older one: at those two stakes a batch of no ticket gets an empty list and
    a batch of 1001 or more is evaluated whole. Every batch of 1 to 1000 tickets, and every
    size at a launch stake, is right."""

    def evaluate(self, game: object, stake_cents: object, tickets: object) -> Document:
        name, stake = game_and_stake(game, stake_cents)
        if type(tickets) is not list or stake == _first_stake(name):
            return super().evaluate(game, stake_cents, tickets)
        results: list[Document] = []
        for first in range(0, len(tickets), 1000):
            results += super().evaluate(game, stake_cents, tickets[first : first + 1000])["results"]
        return {"results": results}


class LaterStakesBatchSizeChecked(LaterStakesBatchSizeUnchecked):
    """Correct (a control): the later stakes' schemas as above, with the batch size."""

    def evaluate(self, game: object, stake_cents: object, tickets: object) -> Document:
        if type(tickets) is list and not 1 <= len(tickets) <= 1000:
            return GameService.evaluate(self, game, stake_cents, tickets)
        return super().evaluate(game, stake_cents, tickets)
