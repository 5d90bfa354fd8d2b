"""A target that asks for patience (docs/http-api.md, "A target that asks for patience"): a
429, or a 503 with ``Retry-After``, is no verdict on the request: it is sent again after the
wait asked (capped), a play and a reveal too (a 429 refuses a request, it does not report it
done); a play met with a 503 is settled from the history; a target that keeps refusing ends
the check in *error*, never a refusal a check could read as an answer.

The waits are the adapter's ``sleep``, recorded here: nothing sleeps, no test times anything.
"""

from __future__ import annotations

import email.utils
from collections.abc import Callable, Iterator

import pytest

from harness import HttpAdapter, ProtocolViolation, TargetTimeout
from harness._budget import Cancelled, CancelToken, GuardedAdapter, Stalls, wait_unless_cut
from harness._errors import ErrorReply
from harness._patience import (
    RATE_ASKED_CAP_S,
    RATE_FIRST_WAIT_S,
    RATE_PATIENCE_S,
    RATE_WAIT_CAP_S,
    rate_wait,
)
from harness._reports.console import transport_line
from harness._transport import asks_patience, retry_after
from tests.harness._tiny_target import Answer, Behaviour, Target

ACCOUNT = "acct_1"
PLAY = {
    "play_id": "play_2",
    "game": "robots",
    "stake_cents": 100,
    "block_id": "robots-100-0001",
    "index": 7,
    "balance_cents": 400,
}
ENTRY = {
    **{k: v for k, v in PLAY.items() if k != "balance_cents"},
    "ticket": "T",
    "prize_cents": 0,
    "created_at": "2026-12-03T10:00:00Z",
}
REVEAL = {"button": 3, "symbol": "blue_diamond", "x2": False, "plus_one": False}
BALANCE = {"account_id": ACCOUNT, "balance_cents": 400}
SLOW_DOWN = {"error": {"code": "too_many_requests", "message": "slow down"}}
AGAIN_IN_1 = {"Retry-After": "1"}


class Waits:
    """The adapter's ``sleep``: records each wait asked, sleeps none."""

    def __init__(self) -> None:
        self.asked: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.asked.append(seconds)


Serve = Callable[[Behaviour], tuple[Target, HttpAdapter, Waits]]


@pytest.fixture
def serve() -> Iterator[Serve]:
    started: list[tuple[Target, HttpAdapter]] = []

    def start(behaviour: Behaviour) -> tuple[Target, HttpAdapter, Waits]:
        target, waits = Target(behaviour), Waits()
        adapter = HttpAdapter(target.url, timeout=2.0, backoff=0.01, rate_retries=3, sleep=waits)
        started.append((target, adapter))
        return target, adapter, waits

    yield start
    for target, adapter in started:
        adapter.close()
        target.close()


def refused_first(
    n: int, then: Answer, status: int = 429, headers: dict[str, str] = AGAIN_IN_1
) -> Behaviour:
    """Each request refused (``status``, ``headers``) ``n`` times, then ``then``."""

    def behaviour(target: Target, method: str, path: str) -> Answer:
        if target.count(f"{method} {path}") <= n:
            return status, SLOW_DOWN, headers
        return then

    return behaviour


# -- Retry-After and the waits ------------------------------------------------------------------


def test_retry_after_reads_seconds_and_http_dates() -> None:
    assert retry_after({"Retry-After": "1"}) == 1.0
    assert retry_after({"Retry-After": " 120 "}) == 120.0
    assert retry_after({}) is None
    assert retry_after({"Retry-After": "soon"}) is None
    assert retry_after({"Retry-After": "-1"}) is None
    assert retry_after({"Retry-After": "1.5"}) is None  # delay-seconds is whole seconds
    date = email.utils.formatdate(1_000_000_030, usegmt=True)
    assert retry_after({"Retry-After": date}, now=1_000_000_000) == 30.0
    # measured from the answer's own Date: the target's clock against itself
    told = email.utils.formatdate(1_000_000_020, usegmt=True)
    assert retry_after({"Retry-After": date, "Date": told}, now=5.0) == 10.0
    assert retry_after({"Retry-After": date}, now=2_000_000_000) == 0.0  # past: at once


def test_what_asks_for_patience() -> None:
    assert asks_patience(429, {}) == (True, None)
    assert asks_patience(429, AGAIN_IN_1) == (True, 1.0)
    assert asks_patience(503, AGAIN_IN_1) == (True, 1.0)
    assert asks_patience(503, {}) == (False, None)  # overload: retried as 502 and 504 are
    assert asks_patience(200, AGAIN_IN_1) == (False, None)
    assert asks_patience(404, AGAIN_IN_1) == (False, None)


def test_the_wait_is_what_was_asked_capped_and_spread_a_little() -> None:
    assert rate_wait(1.0, 1, lambda: 0.0) == 1.0
    assert rate_wait(1.0, 1, lambda: 0.999) < 1.25
    assert rate_wait(60.0, 1, lambda: 0.0) == 60.0  # a quota's minute: waited to its end
    assert rate_wait(3600.0, 1, lambda: 0.0) == RATE_ASKED_CAP_S
    unasked = [rate_wait(None, n, lambda: 0.0) for n in range(1, 8)]
    assert unasked[:3] == [RATE_FIRST_WAIT_S, 2 * RATE_FIRST_WAIT_S, 4 * RATE_FIRST_WAIT_S]
    assert max(unasked) == RATE_WAIT_CAP_S


# -- every request is sent again after the wait ---------------------------------------------


def test_a_read_refused_with_429_is_sent_again_after_the_wait(serve: Serve) -> None:
    target, adapter, waits = serve(refused_first(2, (200, BALANCE, {})))
    assert adapter.balance(ACCOUNT, "t") == BALANCE
    assert target.count("GET") == 3
    assert len(waits.asked) == 2 and all(1.0 <= w < 1.25 for w in waits.asked)
    counts = adapter.transport_counts()
    assert counts["rate_limited"] == 2 and counts["retries"] == 0
    assert counts["rate_waited_s"] == 3  # 2 s and a little, rounded up
    assert counts["reductions"] >= 1  # the harness slowed down
    assert "2 answers asked the harness to slow down" in transport_line({"transport": counts})


def test_a_429_without_retry_after_is_waited_on_too(serve: Serve) -> None:
    _, adapter, waits = serve(refused_first(2, (200, BALANCE, {}), headers={}))
    assert adapter.balance(ACCOUNT, "t") == BALANCE
    assert RATE_FIRST_WAIT_S <= waits.asked[0] < waits.asked[1]


def test_a_play_refused_with_429_is_sent_again_not_settled(serve: Serve) -> None:
    """A 429 refuses the request: the play was not bought, and is bought when sent again."""
    target, adapter, _ = serve(refused_first(1, (201, PLAY, {})))
    assert adapter.play(ACCOUNT, "t", "robots", 100) == PLAY
    assert target.count(f"POST /v1/accounts/{ACCOUNT}/plays") == 2
    assert target.count("GET") == 0  # no history read: nothing to settle
    assert adapter.transport_counts()["plays_resent"] == 0


def test_a_reveal_refused_with_429_or_503_is_sent_again(serve: Serve) -> None:
    for status in (429, 503):
        target, adapter, _ = serve(refused_first(1, (200, REVEAL, {}), status=status))
        assert adapter.reveal("play_2", "t", 3) == REVEAL
        assert target.count("POST /v1/plays/play_2/reveal") == 2


def test_a_play_met_with_503_is_settled_from_the_history(serve: Serve) -> None:
    """A 503 with Retry-After: the history says whether the play was bought (not: sent
    again), as for a lost answer; never bought twice."""

    def behaviour(target: Target, method: str, path: str) -> Answer:
        if method == "POST" and target.count("POST") == 1:
            return 503, SLOW_DOWN, AGAIN_IN_1
        if path.endswith("/history"):
            return 200, {"plays": []}, {}
        return 201, PLAY, {}

    target, adapter, waits = serve(behaviour)
    assert adapter.play(ACCOUNT, "t", "robots", 100) == PLAY
    assert target.count(f"GET /v1/accounts/{ACCOUNT}/history") == 1
    assert target.count("POST") == 2
    assert len(waits.asked) == 1
    assert adapter.transport_counts()["plays_resent"] == 1


def test_a_raw_probe_refused_with_429_is_judged_on_the_answer_that_follows(serve: Serve) -> None:
    target, adapter, _ = serve(
        refused_first(2, (404, {"error": {"code": "x", "message": "x"}}, {}))
    )
    answer = adapter.send_raw("GET", f"/v1/accounts/{ACCOUNT}/", {})
    assert answer.status == 404
    assert target.count("GET") == 3


# -- a target that keeps refusing: an error, never an answer ------------------------------------


def test_a_request_refused_to_the_end_is_an_error_never_a_refusal(serve: Serve) -> None:
    """The 429 carries the error document: a check must never read it as the target's refusal
    of the request (a probe's "refused with a 4xx: a limit of the target's own")."""
    target, adapter, waits = serve(lambda target, method, path: (429, SLOW_DOWN, AGAIN_IN_1))
    with pytest.raises(TargetTimeout, match="refused 4 times in a row") as caught:
        adapter.open_account(4_294_967_353)
    assert not isinstance(caught.value, ErrorReply)
    assert target.count("POST /v1/accounts") == 4  # sent, and sent again rate_retries times
    assert len(waits.asked) == 3


def test_a_quota_window_of_a_minute_is_waited_to_its_end(serve: Serve) -> None:
    """A play refused past a quota of its account's (``Retry-After: 60``, a window of a minute)
    is waited on as asked and bought: it was an *error* when every wait was capped at 5 s (row
    ``rate-limited``)."""
    quota = refused_first(2, (201, PLAY, {}), headers={"Retry-After": "60"})
    _, adapter, waits = serve(quota)
    assert adapter.play(ACCOUNT, "t", "robots", 100)["play_id"] == "play_2"
    assert len(waits.asked) == 2 and all(60.0 <= w <= 75.0 for w in waits.asked)


def test_a_request_is_waited_on_for_a_bounded_time_in_all(serve: Serve) -> None:
    """``Retry-After: 3600`` again and again: waited ``RATE_ASKED_CAP_S`` at a time, and no
    more than ``RATE_PATIENCE_S`` in all: then an *error*, before the retries run out."""
    target, adapter, waits = serve(
        lambda target, method, path: (429, SLOW_DOWN, {"Retry-After": "3600"})
    )
    with pytest.raises(TargetTimeout, match="s in all"):
        adapter.balance(ACCOUNT, "t")
    assert waits.asked and all(w <= RATE_ASKED_CAP_S * 1.25 for w in waits.asked)
    assert sum(waits.asked) <= RATE_PATIENCE_S
    assert target.count("GET") == len(waits.asked) + 1 <= 3


def test_an_endpoint_refused_to_the_end_twice_in_a_row_is_not_called_again(serve: Serve) -> None:
    target, adapter, _ = serve(lambda target, method, path: (429, SLOW_DOWN, AGAIN_IN_1))
    for _ in range(2):
        with pytest.raises(TargetTimeout):
            adapter.reveal("play_2", "t", 3)
    sent = target.count("POST")
    with pytest.raises(TargetTimeout, match="not called: it was refused to the end"):
        adapter.reveal("play_9", "t", 1)
    assert target.count("POST") == sent


def test_an_answer_in_between_starts_the_count_again(serve: Serve) -> None:
    """Refused to the end once, answered, refused to the end once more: still called."""

    def behaviour(target: Target, method: str, path: str) -> Answer:
        if path.endswith("/ok"):
            return 200, BALANCE, {}
        return 429, SLOW_DOWN, AGAIN_IN_1

    _, adapter, _ = serve(behaviour)
    for account in ("a", "ok", "b", "ok", "c"):
        if account == "ok":
            assert adapter.balance(account, "t") == BALANCE
            continue
        with pytest.raises(TargetTimeout, match="refused 4 times in a row"):
            adapter.balance(account, "t")


# -- the wait counts against the check's budget -----------------------------------------------


def test_a_wait_ends_when_its_check_is_cut() -> None:
    """The default ``sleep``: a wait inside a check's call ends as soon as the check is cut
    (its budget, or the run's, spent): ``Cancelled``, and nothing more is sent."""
    token = CancelToken()

    class Patient:
        def balance(self, account_id: str, token_: str | None) -> None:
            token.cancel("cut at its budget")
            wait_unless_cut(600.0)

    guarded = GuardedAdapter(Patient(), token, Stalls())
    with pytest.raises(Cancelled, match="cut at its budget"):
        guarded.balance(ACCOUNT, "t")
    wait_unless_cut(0.0)  # outside a check: a plain sleep


def test_a_503_without_retry_after_is_the_overload_it_was(serve: Serve) -> None:
    """No ``Retry-After``: a read sent again with the backoff of a dropped connection (as
    502 and 504), a reveal not sent again (nothing says it was not done)."""
    target, adapter, waits = serve(refused_first(1, (200, BALANCE, {}), status=503, headers={}))
    assert adapter.balance(ACCOUNT, "t") == BALANCE
    counts = adapter.transport_counts()
    assert counts["retries"] == 1 and counts["rate_limited"] == 0 and waits.asked == []
    target, adapter, _ = serve(refused_first(1, (200, REVEAL, {}), status=503, headers={}))
    with pytest.raises(ProtocolViolation, match="expected status 200, got 503"):
        adapter.reveal("play_2", "t", 3)
    assert target.count("POST") == 1


# -- how many purchases went out at once (``contract.HeldBack``) --------------------------------


def test_a_window_gives_the_lowest_limit_while_the_target_had_it_lowered() -> None:
    from harness._transport import MAX_MARKS, Counts, Limiter

    limiter = Limiter(32, Counts(16), start=16, cooldown=0.0)
    quiet = limiter.mark()
    limiter.dropped()  # a connection dropped (an idle one closed): not the target's word
    assert limiter.limit == 8 and limiter.lowest_since(quiet) is None
    for _ in range(100):
        limiter.acquire(1.0)
        limiter.release(answered=True)  # back past where it began
    before = limiter.mark()
    limiter.dropped(asked=True)  # a 429
    during = limiter.mark()  # opened while the target keeps it lowered
    limiter.dropped(asked=True)
    lowest = limiter.limit
    for _ in range(200):
        limiter.acquire(1.0)
        limiter.release(answered=True)  # grows back past where it began
    after = limiter.mark()
    assert limiter.limit > 16
    assert (limiter.lowest_since(before), limiter.lowest_since(during)) == (lowest, lowest)
    assert limiter.lowest_since(after) is None  # nothing asked while it was open
    assert limiter.lowest_since(before) is None  # read once: closed
    marks = [limiter.mark() for _ in range(MAX_MARKS + 5)]  # never read: the oldest dropped
    limiter.dropped(asked=True)
    assert limiter.lowest_since(marks[-1]) == limiter.limit
    assert limiter.lowest_since(marks[0]) is None


def test_the_http_adapter_says_how_many_plays_it_let_out_at_once(serve: Serve) -> None:
    """A 429 halves the requests let out at once: the plays, under half the limit, from 8 to 4
    (docs/http-api.md); an adapter not asked to slow down says so (None)."""
    from contract import HeldBack

    _, adapter, _ = serve(refused_first(1, (200, BALANCE, {})))
    assert isinstance(adapter, HeldBack)
    quiet = adapter.pace_mark()
    assert adapter.fewest_at_once(quiet) is None
    mark = adapter.pace_mark()
    assert adapter.balance(ACCOUNT, "token") == BALANCE  # refused once, then answered
    assert adapter.fewest_at_once(mark) == 4


# -- an in-process adapter's 429: waited on by the guard ----------------------------------------


class Refusing:
    """An in-process adapter over a rate-limited service: its first ``n`` balance reads are
    refused with ``ErrorReply(429)``, then answered; a play always refused with 402."""

    def __init__(self, n: int) -> None:
        self.n, self.calls = n, 0

    def balance(self, account_id: str, token: str) -> dict[str, object]:
        self.calls += 1
        if self.calls <= self.n:
            raise ErrorReply(429, "too_many_requests", "slow down")
        return BALANCE

    def play(self, *args: object) -> dict[str, object]:
        self.calls += 1
        raise ErrorReply(402, "insufficient_funds", "no")


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    import harness._budget

    asked: list[float] = []
    monkeypatch.setattr(harness._budget, "wait_unless_cut", asked.append)
    return asked


def test_an_in_process_adapters_429_is_waited_on_and_the_call_made_again(
    waits: list[float],
) -> None:
    underlying = Refusing(2)
    guarded = GuardedAdapter(underlying, CancelToken(), Stalls())
    assert guarded.balance(ACCOUNT, "t") == BALANCE
    assert underlying.calls == 3
    assert len(waits) == 2 and RATE_FIRST_WAIT_S <= waits[0] < 2 * RATE_FIRST_WAIT_S <= waits[1]


def test_an_in_process_adapter_refusing_to_the_end_is_an_error_never_a_refusal(
    waits: list[float],
) -> None:
    from harness._patience import RATE_RETRIES

    underlying = Refusing(10**6)
    guarded = GuardedAdapter(underlying, CancelToken(), Stalls())
    with pytest.raises(TargetTimeout, match="refused 9 times in a row"):
        guarded.balance(ACCOUNT, "t")
    assert underlying.calls == RATE_RETRIES + 1 and len(waits) == RATE_RETRIES
    assert max(waits) <= RATE_WAIT_CAP_S * 1.25


def test_an_in_process_adapters_other_refusals_reach_the_check_at_once(waits: list[float]) -> None:
    underlying = Refusing(0)
    guarded = GuardedAdapter(underlying, CancelToken(), Stalls())
    with pytest.raises(ErrorReply) as refused:
        guarded.play(ACCOUNT, "t", "robots", 100)
    assert refused.value.status == 402 and underlying.calls == 1 and waits == []
