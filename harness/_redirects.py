"""Redirects a target answers with (docs/contract-decisions.md, ``redirects``).

Contract 4 names each endpoint's path, and says nothing of redirects. A server that answers a
request with a redirect (a ``307``/``308`` to the same path with a trailing slash: FastAPI's
``redirect_slashes`` for a route declared ``"/"`` under a prefix, Django's ``APPEND_SLASH``
with ``301`` for a ``GET``) tells any HTTP client where the resource is; OkHttp, whose requests
the harness's look like, follows it by default. So the harness follows it, within bounds, and
the run gets one reservation naming the endpoints answered so: the project reads the contract's
paths as the ones that answer.

Followed: ``307`` and ``308`` for any method (the method and body kept: RFC 9110 15.4.8,
15.4.9), ``301``, ``302`` and ``303`` for a ``GET`` (a ``POST`` met with them would become a
``GET``: its answer is no answer of the contract); at most ``MAX_HOPS`` in a row; only to the
target's own origin and under its base URL's path (``redirected``): a redirect elsewhere, to an
address in the lab's network say, is never followed (the harness would send the account's
token there, and quote what it answers in its reports), and stays the answer it is.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, urljoin, urlsplit

from ._field_counts import AnswerCounts, reading_reservation

BASIS = "redirects"
KEPT_METHOD = frozenset((307, 308))
GET_ONLY = frozenset((301, 302, 303))
REDIRECTS = KEPT_METHOD | GET_ONLY
MAX_HOPS = 5
"""Redirects followed in a row for one request; the next one is the answer."""

_DEFAULT_PORTS = {"http": 80, "https": 443}


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    return scheme, (parts.hostname or "").lower(), parts.port or _DEFAULT_PORTS.get(scheme)


def redirected(
    base_url: str, method: str, path: str, status: int, location: str | None
) -> tuple[str, dict[str, str]] | None:
    """Where a request for ``path`` (under ``base_url``, a query after ``?`` allowed) answered
    ``status`` with ``location`` goes next: the path under ``base_url`` and its query; None
    when the answer is not a redirect the harness follows (another status or method, no
    ``Location``, another origin, a path outside the base URL's)."""
    if status not in REDIRECTS or (status in GET_ONLY and method != "GET"):
        return None
    if not location or not location.isascii() or len(location) > 8192:
        return None
    base = base_url.rstrip("/")
    try:
        target = urljoin(base + path, location.strip())
        if _origin(target) != _origin(base):
            return None
        parts = urlsplit(target)
    except ValueError:
        return None
    prefix = urlsplit(base).path
    if not parts.path.startswith(prefix + "/"):
        return None
    return parts.path[len(prefix) :], dict(parse_qsl(parts.query, keep_blank_values=True))


class Redirects:
    """Counts the redirects followed, per endpoint and status, and words the run's reservation
    about them (thread-safe)."""

    def __init__(self) -> None:
        self._answers = AnswerCounts()

    def followed(self, endpoint: str, status: int) -> None:
        self._answers.add(endpoint, status)

    def reservations(self) -> list[dict[str, Any]]:
        """One reservation naming every endpoint answered with a redirect, or none."""
        answered = self._answers.listed()
        if not answered:
            return []
        return [
            reading_reservation(
                BASIS,
                f"{answered}: each redirect, to the target's own origin, was followed; the "
                "contract names each endpoint's path, which the project reads as the path "
                "that answers",
                "answer each endpoint at the contract's path (no trailing slash), without a "
                "redirect",
            )
        ]
