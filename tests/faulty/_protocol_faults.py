"""Faults of issue 10 in the protocol: the evaluate batch, refusals' statuses and error
documents (some only HTTP can show: a target served over the bridge with its own way of
writing refusals), each the reference with one thing changed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from starlette.responses import JSONResponse, Response

from harness._errors import ErrorReply
from harness._http_adapter import HttpAdapter
from reference._service import Document, GameService, ServiceError

from ._base import Delegating, reference_adapter
from .http_bridge import Serving, create_app

# == the evaluate batch ==========================================================================


class ResultsReversed(Delegating):
    """Contract 4: the batch's results are pushed on a stack as they are computed and popped
    into the answer: they come back in reverse order."""

    def evaluate(self, game: str, stake_cents: int, tickets: Sequence[str]) -> list[Document]:
        return list(reversed(super().evaluate(game, stake_cents, tickets)))


class ResultsSortedByPrize(Delegating):
    """Contract 4: the batch's results are sorted by prize, biggest first, "for the display",
    losing and invalid tickets last."""

    def evaluate(self, game: str, stake_cents: int, tickets: Sequence[str]) -> list[Document]:
        results = super().evaluate(game, stake_cents, tickets)
        return sorted(results, key=lambda r: -int(r.get("prize_cents", -1)))


class BatchRefusedWhole(Delegating):
    """Contract 4: a batch holding one invalid ticket is refused whole with 422, as a
    validation error, instead of an error object in that ticket's place."""

    def evaluate(self, game: str, stake_cents: int, tickets: Sequence[str]) -> list[Document]:
        results = super().evaluate(game, stake_cents, tickets)
        bad = next((n for n, r in enumerate(results) if "error" in r), None)
        if bad is not None and len(results) > 1:
            raise ErrorReply(422, "invalid_ticket", f"ticket {bad} is not a valid ticket")
        return results


class BareErrorString(Delegating):
    """Contract 4: the error in place of an invalid ticket is a bare string,
    ``{"error": "invalid ticket"}``, not the error object."""

    def evaluate(self, game: str, stake_cents: int, tickets: Sequence[str]) -> list[Document]:
        results = super().evaluate(game, stake_cents, tickets)
        return [{"error": "invalid ticket"} if "error" in r else r for r in results]


class BatchSizeUnchecked(GameService):
    """Contract 4: the number of tickets is never checked: an empty batch gets an empty list
    and a batch of 1001 is evaluated."""

    def evaluate(self, game: object, stake_cents: object, tickets: object) -> Document:
        if isinstance(tickets, list) and not tickets:
            return {"results": []}
        if isinstance(tickets, list) and len(tickets) > 1000:
            head = super().evaluate(game, stake_cents, tickets[:1000])["results"]
            tail = super().evaluate(game, stake_cents, tickets[1000:])["results"]
            return {"results": head + tail}
        return super().evaluate(game, stake_cents, tickets)


# == refusals ====================================================================================


class FundsRefused400(GameService):
    """Contract 4: a stake above the balance is refused as a bad request, 400, not 402."""

    def play(
        self, account_id: object, token: object, game: object, stake_cents: object
    ) -> Document:
        try:
            return super().play(account_id, token, game, stake_cents)
        except ServiceError as exc:
            if exc.status == 402:
                raise ServiceError(400, exc.code, exc.message) from None
            raise


def _camel(code: str) -> str:
    return "".join(part.capitalize() for part in code.split("_"))


class CamelCaseCodes(Delegating):
    """Contract 4: error codes are the names of a Java enum, ``InsufficientFunds``,
    ``NotFound``, not snake_case."""

    def _guard(self, call: Callable[[], Any]) -> Any:
        try:
            return call()
        except ErrorReply as reply:
            raise ErrorReply(reply.status, _camel(reply.code), reply.message) from None

    def open_account(self, balance_cents: int) -> Document:
        return self._guard(lambda: super(CamelCaseCodes, self).open_account(balance_cents))  # type: ignore[no-any-return]

    def balance(self, account_id: str, token: str | None) -> Document:
        return self._guard(lambda: super(CamelCaseCodes, self).balance(account_id, token))  # type: ignore[no-any-return]

    def play(self, account_id: str, token: str | None, game: str, stake_cents: int) -> Document:
        return self._guard(  # type: ignore[no-any-return]
            lambda: super(CamelCaseCodes, self).play(account_id, token, game, stake_cents)
        )

    def reveal(self, play_id: str, token: str | None, button: int) -> Document:
        return self._guard(lambda: super(CamelCaseCodes, self).reveal(play_id, token, button))  # type: ignore[no-any-return]

    def auto(self, play_id: str, token: str | None) -> Document:
        return self._guard(lambda: super(CamelCaseCodes, self).auto(play_id, token))  # type: ignore[no-any-return]

    def history(self, account_id: str, token: str | None, limit: int | None = None) -> Document:
        return self._guard(lambda: super(CamelCaseCodes, self).history(account_id, token, limit))  # type: ignore[no-any-return]


def delegating_variant(cls: type[Delegating]) -> Callable[[str], Callable[[], Any]]:
    """A variant factory maker: ``cls`` over a fresh reference adapter."""

    def make(name: str) -> Callable[[], Any]:
        return lambda: cls(reference_adapter(name=f"faulty:{name}"), f"faulty:{name}")

    return make


# == refusals only HTTP shows ====================================================================


def refusal_with_200(status: int, code: str, message: str) -> Response:
    """Contract 4: every refusal is sent with status 200 and the error document (the client
    is expected to look for "error")."""
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=200)


def refusal_without_code(status: int, code: str, message: str) -> Response:
    """Contract 4: a refusal's error document carries the message only, no "code"."""
    return JSONResponse({"error": {"message": message}}, status_code=status)


def refusal_as_detail(status: int, code: str, message: str) -> Response:
    """Contract 4: refusals are the web framework's default, ``{"detail": "..."}``, with the
    right status but not the contract's error document."""
    return JSONResponse({"detail": re.sub(r"\s+", " ", message)}, status_code=status)


class BridgedHttp(HttpAdapter):
    """An HttpAdapter to its own bridge server, stopped (and the reference closed) with it."""

    def __init__(self, serving: Serving) -> None:
        self._serving = serving
        super().__init__(serving.start(), timeout=20)

    def close(self) -> None:
        super().close()
        self._serving.stop()


def http_variant(error: Callable[[int, str, str], Response]) -> Callable[[str], Callable[[], Any]]:
    """A variant factory maker: the reference over the bridge, refusals written by ``error``."""

    def make(name: str) -> Callable[[], Any]:
        def factory() -> BridgedHttp:
            inner = reference_adapter(name=f"faulty:{name}")
            return BridgedHttp(Serving(create_app(inner, error), on_close=inner.close))

        return factory

    return make


class NothingToReveal400(GameService):
    """Contract 4: a click on a button with nothing left is refused as a bad request, 400,
    not 409 (wrong state)."""

    def reveal(self, play_id: object, token: object, button: object) -> Document:
        try:
            return super().reveal(play_id, token, button)
        except ServiceError as exc:
            if exc.status == 409:
                raise ServiceError(400, exc.code, exc.message) from None
            raise
