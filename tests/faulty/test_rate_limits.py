"""Targets that rate-limit (``wire_variants.RateLimit``): a correct one is certified over HTTP
(docs/contract-decisions.md, row ``rate-limited``), and a 429 is no way out of a check.

The contract says nothing of rate limits; production servers answer ``429 Too Many Requests``
(or ``503`` with ``Retry-After``) past theirs. The harness waits what they ask and sends the
request again, a play and a reveal too: a correct rate-limited target must be certified, a
target that refuses one kind of request for ever must not (*error*, INCOMPLETE), and a check's
probe refused with 429 is judged on the answer that follows, never on the refusal.

Fast tier: one check each, over HTTP. Slow tier: whole runs, quick and full
(``test_wire_variants`` runs the three rate-limited wire variants in the quick profile too).
"""

from __future__ import annotations

import itertools
import json
import threading
from typing import Any

import pytest

from harness import HttpAdapter
from harness._errors import ErrorReply

from ._base import Delegating, reference_adapter
from ._faults import RacySales
from ._play_faults import BalanceInFloatEuros
from .certify import TEST_SETTINGS, certify
from .freedom_variants import reservations_of
from .test_freedoms import assert_certified, one_check
from .wire_variants import RateLimit, WireServer, wire_variant

#: handed to an xdist worker first (tests/conftest.py): few tests, runs that wait out a target's
#: refusals (45 s)
pytestmark = pytest.mark.early

UNLIMITED = 1e9  # requests a second: no limit, only the ``refuse`` rule


def _opening_odd_balance(method: str, path: str, body: bytes) -> bool:
    """An account opened with a balance that is not whole euros: ``play.money_exact``'s."""
    if (method, path) != ("POST", "/v1/accounts"):
        return False
    balance = json.loads(body or b"{}").get("balance_cents")
    return type(balance) is int and balance % 100 != 0


def _reveal(method: str, path: str, body: bytes) -> bool:
    return method == "POST" and path.endswith("/reveal")


def _adapter(url: str, **options: Any) -> HttpAdapter:
    return HttpAdapter(url, timeout=10.0, **options)


def test_a_correct_target_that_rate_limits_plays_at_once_is_reserved_not_failed() -> None:
    """Plays of one account at once past its 3 a second: refused with 429, sent again after
    the second asked, each bought once (``play.concurrent_sales`` counts every unit). The
    harness then let fewer plays out at once than the accounts racing: the race is reserved
    (``conformance.checks._races``), never failed, never a plain pass. (At 5 a second, the
    bucket of 5 outlasted each racing account's 5 plays: only the probe account's plays,
    when its accounts' sign-ups were quick, were refused; each sign-up now comes from its
    device on a connection of its own, harness._clients.)"""
    limits = RateLimit(per_account=3.0, per_client=UNLIMITED)
    server = WireServer(reference_adapter(name="freedom:rate_limited"), rate=limits)
    with server as url:
        adapter = _adapter(url)
        outcome, reservations, message = one_check(adapter, "play.concurrent_sales")
    assert outcome == "reserved", message
    assert [r["basis"] for r in reservations] == ["rate-limited"]
    assert reservations[0]["kind"] == "unverifiable"
    assert "play.sales.no_double_sale" in reservations[0]["requirements"]
    assert limits.refused > 0 and adapter.transport_counts()["rate_limited"] == limits.refused


class RacySalesCounted(RacySales):
    """``play_unit_sold_twice``'s service, counting the plays it is processing."""

    processing = 0
    lock = threading.Lock()

    def play(self, *args: Any) -> Any:
        with self.lock:
            RacySalesCounted.processing += 1
        try:
            return super().play(*args)
        finally:
            with self.lock:
                RacySalesCounted.processing -= 1


def _a_play_already_processing(method: str, path: str, body: bytes) -> bool:
    """A gateway's concurrency limit of one on the purchase route: a play while another is
    processed is refused (429) before it reaches the service."""
    return method == "POST" and path.endswith("/plays") and RacySalesCounted.processing > 0


def test_a_racy_target_behind_a_concurrency_limit_is_reserved_not_passed() -> None:
    """``play_unit_sold_twice`` (two accounts playing at once can buy the same unit) behind a
    gateway that takes one play at a time: the double sale never happens, whatever the harness
    sends. The check passed, a race it never ran; now it is reserved for the requirements the
    race tests (the verdict: CERTIFIED WITH RESERVATIONS, which says the race was not run)."""
    limits = RateLimit(UNLIMITED, UNLIMITED, retry_after="1", refuse=_a_play_already_processing)
    server = WireServer(reference_adapter(RacySalesCounted, "faulty:racy"), rate=limits)
    with server as url:
        outcome, reservations, message = one_check(_adapter(url), "play.concurrent_sales")
    assert outcome == "reserved", message
    assert [r["basis"] for r in reservations] == ["rate-limited"], reservations
    assert limits.refused > 0


def test_a_racy_target_that_drops_plays_at_once_is_not_passed() -> None:
    """The same racy service behind a gateway that, instead of a 429, closes the connection
    of a play that comes while another is processed (a reset, no answer). A dropped
    connection is no word of the target's (``_races``: it does not reserve the race), so the
    race is not reserved; the plays dropped are settled from the history and sent again,
    each time together with the others' and dropped again, until the harness gives up on
    one: *error* (INCOMPLETE), never a pass of a race that never ran."""
    limits = RateLimit(UNLIMITED, UNLIMITED, refuse=_a_play_already_processing, drop=True)
    server = WireServer(reference_adapter(RacySalesCounted, "faulty:racy"), rate=limits)
    with server as url:
        adapter = _adapter(url)
        outcome, _, message = one_check(adapter, "play.concurrent_sales")
    assert outcome in ("error", "fail"), message
    assert limits.refused > 0 and adapter.transport_counts()["plays_resent"] > 0


@pytest.mark.parametrize(
    "variant",
    [
        "rate_limited",
        pytest.param("rate_limited_bare", marks=pytest.mark.slow),  # the same waits, longer
        pytest.param("overloaded_503", marks=pytest.mark.slow),
    ],
)
def test_a_correct_target_that_rate_limits_reveals_passes(variant: str) -> None:
    """Clicks refused past the limit (with or without Retry-After, 429 or 503) are sent again:
    each click revealed once, in order (``play.robots_reveal_order``)."""
    server = wire_variant(variant)
    assert server.server.rate is not None
    server.server.rate.rates["account"] = 30.0  # an account's clicks refused past 30 a second
    with server as url:
        adapter = _adapter(url)
        outcome, _, message = one_check(adapter, "play.robots_reveal_order", games=["robots"])
    assert outcome == "pass", (variant, message)
    assert server.server.rate.refused > 0


def test_a_probe_refused_with_429_is_no_way_out_of_its_check() -> None:
    """A wallet in float euros (115 cents held as 114) that answers 429, with the error
    document, to every account opened with odd cents: read as a refusal, "a limit of the
    target's own", it would not be judged; it is sent again, refused to the end, and the check
    cannot judge: *error*, never a pass."""
    faulty = reference_adapter(BalanceInFloatEuros, name="faulty:float_euros")
    with WireServer(
        faulty, rate=RateLimit(UNLIMITED, UNLIMITED, refuse=_opening_odd_balance)
    ) as url:
        outcome, _, message = one_check(_adapter(url, rate_retries=2), "play.money_exact")
    assert outcome == "error", message
    assert "refused 3 times in a row" in message
    # answered, the same wallet fails the check
    faulty = reference_adapter(BalanceInFloatEuros, name="faulty:float_euros")
    with WireServer(faulty) as url:
        outcome, _, message = one_check(_adapter(url), "play.money_exact", games=["robots"])
    assert outcome == "fail", message


def test_a_target_that_refuses_every_reveal_is_not_certified() -> None:
    """Every reveal answered 429 for ever: the reveal checks end in *error* (the endpoint not
    called again once two reveals were refused to the end), never a pass or a fail."""
    limits = RateLimit(UNLIMITED, UNLIMITED, refuse=_reveal)
    requirements = ["robots.4.4.reveal_order", "robots.4.3.reveal_symbols", "robots.4.6.x2"]
    with WireServer(reference_adapter(name="faulty:reveal_refused"), rate=limits) as url:
        outcome = certify(
            _adapter(url, rate_retries=2),
            target=url,
            games=["robots"],
            requirements=requirements,
        )
    assert outcome.verdict == "INCOMPLETE", outcome.note
    assert not outcome.failed, outcome.failed
    assert "robots.4.4.reveal_order" in outcome.errored
    assert "robots.4.6.x2" not in outcome.errored  # evaluations are answered
    message = outcome.messages["robots.4.4.reveal_order"]
    assert "refused" in message and "429" in message, message


# -- whole runs ---------------------------------------------------------------------------------


@pytest.mark.slow  # a full-profile run over HTTP (the tests' settings); the fast tier above
@pytest.mark.parametrize("variant", ["rate_limited", "rate_limited_bare"])
def test_a_rate_limited_target_is_certified_by_a_full_run(variant: str) -> None:
    with wire_variant(variant) as url:
        outcome = certify(_adapter(url), target=url, settings=TEST_SETTINGS, profile="full")
    # a race the harness let out fewer at a time after a 429 is reserved (checks/_races.py):
    # whether a 429 falls while a race runs depends on the pace; nothing else is reserved
    reserved = reservations_of(outcome.reservations)
    assert {basis for _, basis in reserved} <= {"rate-limited"}, reserved
    assert_certified(variant, outcome, reserved)


@pytest.mark.slow
def test_a_target_that_refuses_every_reveal_is_incomplete_in_a_full_run() -> None:
    limits = RateLimit(UNLIMITED, UNLIMITED, refuse=_reveal)
    with WireServer(reference_adapter(name="faulty:reveal_refused"), rate=limits) as url:
        outcome = certify(_adapter(url), target=url, settings=TEST_SETTINGS, profile="full")
    assert outcome.verdict == "INCOMPLETE", outcome.note
    assert outcome.errored and not outcome.failed, outcome.failed


# -- an in-process adapter over a rate-limited service ------------------------------------------


class EveryFifteenthRefused(Delegating):
    """A vendor's Python adapter over its rate-limited service: one call in 15 raises
    ``ErrorReply(429)``, as its HTTP client got the service's 429 (then answered when called
    again)."""

    OPERATIONS = frozenset(
        {"evaluate", "list_blocks", "open_account", "balance", "play", "reveal", "auto"}
    )

    def __init__(self) -> None:
        super().__init__(reference_adapter(name="freedom:python_429"), "freedom:python_429")
        self.calls = itertools.count()
        self.lock = threading.Lock()
        self.refused = 0

    def __getattribute__(self, name: str) -> Any:
        value = super().__getattribute__(name)
        if name not in type(self).OPERATIONS:
            return value

        def call(*args: Any, **kwargs: Any) -> Any:
            with self.lock:
                refuse = next(self.calls) % 15 == 7
                self.refused += refuse
            if refuse:
                raise ErrorReply(429, "too_many_requests", "slow down")
            return value(*args, **kwargs)

        return call


def test_a_python_adapters_429_is_no_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    """The requirements such an adapter failed before (a quick run of it was NOT CERTIFIED:
    7 requirements failed, a 429 read as the refusal a probe judges, 20 in *error*) pass:
    the guard waits on its 429 as the HTTP adapter waits on a target's
    (``harness._budget.GuardedAdapter._patiently``; the waits skipped here)."""
    import harness._budget

    monkeypatch.setattr(harness._budget, "wait_unless_cut", lambda seconds: None)
    adapter = EveryFifteenthRefused()
    outcome = certify(adapter, requirements=PYTHON_429_FAILED)
    bad = {r: outcome.messages[r][:300] for r in outcome.failed + outcome.errored}
    assert not bad, bad
    assert adapter.refused > 0


PYTHON_429_FAILED = [
    "protocol.refusals.status",
    "play.refusal.invalid",
    "security.tokens.required",
    "evaluate.batch.errors",
    "robots.contract.invalid_per_ticket",
    "eldorado.contract.invalid_per_ticket",
    "robots.2.stakes",
]
"""What a quick run of ``EveryFifteenthRefused`` failed before the guard waited on a 429."""
