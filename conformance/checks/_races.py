"""Races run as asked, or said not to be (``contract.HeldBack``).

A check that races purchases against each other (accounts playing at once, one account's plays
at the same moment, a double click) sends them together; over HTTP the harness may let fewer
go out together than the check sent, once the target asked it to slow down (429, or 503 with
``Retry-After``) or dropped connections (docs/http-api.md). A race of 8 plays let out one at
a time is no race: a target that double-sells under load, behind a rate limit, would pass the
check while it never met the load. ``race`` asks the adapter, around the race, the fewest
purchases it let out at once; fewer than the race needs and the check is *reserved* for the
requirements the race tests (kind ``unverifiable``, docs/contract-decisions.md row
``rate-limited``): never a failure (the contract says nothing of rate limits), never a silent
pass. An adapter without the capability (in-process) sends every purchase when asked.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from contract import HeldBack

from .._registry import CheckContext, Reservation

BASIS = "rate-limited"


@contextmanager
def race(ctx: CheckContext, wanted: int, requirements: Sequence[str], what: str) -> Iterator[None]:
    """Around a race of ``wanted`` purchases at once (``what``: how the check sends them): the
    check is reserved for ``requirements`` when the adapter let fewer than ``wanted`` out
    together at some moment meanwhile. Nothing is reserved when the race ends in an exception
    (a failure found is a failure whatever the pace)."""
    adapter = ctx.adapter
    if not isinstance(adapter, HeldBack):
        yield
        return
    mark = adapter.pace_mark()
    try:
        yield
    except BaseException:
        adapter.fewest_at_once(mark)  # the window closed
        raise
    fewest = adapter.fewest_at_once(mark)
    if fewest < wanted:
        ctx.details["race_let_out_at_once"] = fewest
        ctx.reserve(
            Reservation(
                f"{what}: {wanted} purchases were sent at once, but the harness let at most "
                f"{fewest} out together at some moment (the target had asked it to slow down: "
                f"429, or 503 with Retry-After; or dropped connections): a race of {wanted} "
                "was not run as asked",
                basis=BASIS,
                lift=f"certify with the target taking at least {wanted} purchases at once "
                "from the harness's accounts without asking it to slow down (a rate limit "
                "raised or off for the certification)",
                kind="unverifiable",
                requirements=list(requirements),
            )
        )
