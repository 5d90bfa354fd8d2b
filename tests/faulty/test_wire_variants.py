"""Correct targets that speak HTTP differently (``wire_variants``), certified over HTTP with
the tests' profile: none may end with a *fail* or an *error* outcome.

The HTTP/1.0 server with an accept backlog of 5 drops connections under the harness's
concurrency (reset, or closed before any answer): the transport retries what is safe to send
again, settles a lost play from the history, and lowers its concurrency for the target
(``harness._transport.Limiter``); the run's ``transport`` counts say so.
"""

from __future__ import annotations

import pytest

from harness import open_target

from .certify import certify
from .wire_variants import WIRE_VARIANTS, wire_variant


@pytest.mark.parametrize("name", sorted(WIRE_VARIANTS))
def test_wire_variant_certified_over_http(name: str) -> None:
    with wire_variant(name) as url:
        outcome = certify(open_target(url, timeout=20), target=url)
    bad = {r: outcome.messages[r][:300] for r in outcome.failed + outcome.errored}
    assert not bad, f"{name} is correct but was rejected: {bad}"
