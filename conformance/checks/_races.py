"""Races run as asked, or said not to be (``contract.HeldBack``).

A check that races purchases against each other (accounts playing at once, one account's plays
at the same moment, a double click) sends them together; over HTTP the harness lets fewer go
out together than the check sent once the target asked it to slow down (429, or 503 with
``Retry-After``, or a 502/503/504 saying it is overloaded; docs/http-api.md). A race of 8 plays
let out one at a time is no race: a target that double-sells under load, behind a gateway that
takes one play at a time, passed the check while it never met the load. ``race`` asks the
adapter, around the race, the fewest purchases it let out at once because the target asked
it to; fewer than the race needs and the check is *reserved* for the requirements the race
tests (kind ``unverifiable``, docs/contract-decisions.md row ``rate-limited``): never a
failure (the contract says nothing of rate limits), never a silent pass. A connection that
dropped (an idle one a server closed) slows the harness too, but is no word of the target's
and is not counted: a correct server closing idle connections is not reserved by luck. An
adapter without the capability (in-process) sends every purchase when asked.
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
    if fewest is not None and fewest < wanted:
        ctx.details["race_let_out_at_once"] = fewest
        ctx.reserve(
            Reservation(
                f"{what}: {wanted} purchases were sent at once, but the harness let at most "
                f"{fewest} out together at some moment (the target had asked it to slow down: "
                f"429, or 503 with Retry-After, or said it was overloaded): a race of {wanted} "
                "was not run as asked",
                basis=BASIS,
                lift=f"certify with the target taking at least {wanted} purchases at once "
                "from the harness's accounts without asking it to slow down (a rate limit "
                "raised or off for the certification)",
                kind="unverifiable",
                requirements=list(requirements),
            )
        )
