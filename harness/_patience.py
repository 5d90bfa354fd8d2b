"""How long the harness waits on a target that asks it to slow down, and how often.

The HTTP adapter waits on ``429 Too Many Requests`` and on ``503`` with ``Retry-After``
(``harness._http_adapter``, docs/http-api.md); the guard every check calls a target through
(``harness._budget.GuardedAdapter``) waits the same way on an in-process adapter that raises
``ErrorReply(429, ...)`` (a vendor's Python adapter over a rate-limited service): the refusal
is no verdict on the request, which is made again after the wait; refused to the end, the
check cannot judge (*error*). docs/contract-decisions.md, row ``rate-limited``.
"""

from __future__ import annotations

from collections.abc import Callable

RATE_RETRIES = 8
"""How many times a request refused with ``429 Too Many Requests`` (or ``503`` with
``Retry-After``) is sent again, each after the wait the target asks (``rate_wait``); refused
once more, the check that sent it cannot judge (*error*, never a failure)."""
RATE_WAIT_CAP_S = 5.0
"""The longest the harness waits before sending again a request refused without a
``Retry-After`` (the backoff doubled up to it). Every wait also counts against the check's and
the run's budgets."""
RATE_ASKED_CAP_S = 90.0
"""The longest the harness waits when the target asks (``Retry-After``): a quota's window of a
minute is waited to its end, as a client honouring the header does; a ``Retry-After: 3600`` is
waited 90 s. Was ``RATE_WAIT_CAP_S`` (5 s): a correct target refusing plays past 20 a minute
with ``Retry-After`` the seconds left of its window ended *error* (row ``rate-limited``)."""
RATE_PATIENCE_S = 180.0
"""The most the harness waits in all for one request refused again and again: past it, the
check that sent it cannot judge (*error*, never a failure), however few the retries."""
RATE_FIRST_WAIT_S = 0.5
"""The wait after a refusal that names none (no ``Retry-After``): doubled at each refusal of
the same request, up to ``RATE_WAIT_CAP_S``."""


def rate_wait(asked: float | None, refusals: int, spread: Callable[[], float]) -> float:
    """The wait before sending again a request refused ``refusals`` times (1, 2, ...): what
    the target asked, at most ``RATE_ASKED_CAP_S``, or ``RATE_FIRST_WAIT_S`` doubled at each
    refusal when it asked nothing, at most ``RATE_WAIT_CAP_S``; then up to a quarter longer
    (``spread()`` in [0, 1)), so the requests refused together do not all come back at the
    same instant, and never shorter than asked below the cap."""
    if asked is not None:
        return min(asked, RATE_ASKED_CAP_S) * (1 + spread() / 4)
    base: float = RATE_FIRST_WAIT_S * 2 ** min(refusals - 1, 16)
    return min(base, RATE_WAIT_CAP_S) * (1 + spread() / 4)


__all__ = [
    "RATE_ASKED_CAP_S",
    "RATE_FIRST_WAIT_S",
    "RATE_PATIENCE_S",
    "RATE_RETRIES",
    "RATE_WAIT_CAP_S",
    "rate_wait",
]
