"""Faults around a history ``limit`` maximum of the target's own (rows ``history-own-limit``,
``limit-far-out``): a maximum is a freedom (``freedom_variants.history_limit_100``, ``_10``),
but each of these hides behind one. Each class is the reference with one behaviour changed,
its docstring the bug as a vendor would write it (``variants.py`` registers them with what must
catch them).
"""

from __future__ import annotations

from reference._service import Document, GameService, ServiceError


def _wanted(limit: object) -> int | None:
    return limit if type(limit) is int else None


class HistoryCapUnderOwnLimit(GameService):
    """Contract 4 (``limit`` n gives the newest n): the API refuses a ``limit`` above 1 000
    (400), its documented maximum, but the store reads a page of 100 rows at most: a limit of
    101 to 1 000 is answered with the newest 100 plays, without a word."""

    maximum, page = 1000, 100

    def history(self, account_id: object, token: object, limit: object = None) -> Document:
        wanted = _wanted(limit)
        if wanted is not None and wanted > self.maximum:
            raise ServiceError(400, "bad_request", f"limit must be 1 to {self.maximum}")
        if wanted is not None:
            limit = min(wanted, self.page)
        return super().history(account_id, token, limit)


class HistoryLimitFloor(GameService):
    """Contract 4 (``limit`` n gives the newest n): the API's validation takes a ``limit``
    of 5 to 100, a page size copied from another endpoint; 1 to 4 are refused (400)."""

    low, high = 5, 100

    def history(self, account_id: object, token: object, limit: object = None) -> Document:
        wanted = _wanted(limit)
        if wanted is not None and not self.low <= wanted <= self.high:
            raise ServiceError(400, "bad_request", f"limit must be {self.low} to {self.high}")
        return super().history(account_id, token, limit)


class HistoryLimitMaxFive(GameService):
    """Contract 4 (``limit`` n gives the newest n): a ``limit`` above 5 refused (400), the page
    of a phone screen: a listing of 10 plays can never be read."""

    maximum = 5

    def history(self, account_id: object, token: object, limit: object = None) -> Document:
        wanted = _wanted(limit)
        if wanted is not None and wanted > self.maximum:
            raise ServiceError(400, "bad_request", f"limit must be 1 to {self.maximum}")
        return super().history(account_id, token, self.maximum if limit is None else limit)
