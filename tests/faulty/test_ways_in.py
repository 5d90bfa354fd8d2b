"""Issue 27 items 3 and 5: every way in and every bound has a faulty variant, each rejected for
its own requirement and for no other (its area's requirements certified, as the strength table
does); the probes themselves (what they send, how an answer is read) and the request sent as
written over HTTP."""

from __future__ import annotations

import random

import pytest

from conformance import registered_checks
from conformance.checks._scenarios.ways_in import (
    _path_variant,
    altered_tokens,
    let_in,
    made_up_token,
)
from conformance.checks.block_slice_bounds import slice_bounds
from conformance.checks.bounds import large_balances
from contract import ErrorReply, RawAnswer
from harness import open_target

from . import _ways_in_faults as wf
from ._base import reference_adapter
from .certify import Outcome, certify, variant_scope
from .http_bridge import Serving, bridge
from .variants import VARIANTS

#: handed to an xdist worker first: few tests, long ones (three play-area runs, 50 s)
pytestmark = pytest.mark.early

ISSUE_27 = (
    "play_token_truncated",
    "play_token_case_insensitive",
    "play_token_prefix_search",
    "play_neighbour_check_digit",
    "http_access_token_unchecked",
    "http_cookie_over_bad_bearer",
    "http_trailing_slash_unguarded",
    "http_merged_slashes_unguarded",
    "http_encoded_path_unguarded",
    "play_buttons_modulo_18",
    "play_eldorado_reveal_answered",
    "play_balance_in_float64",
    "play_balance_in_float64_at_two_euros",
    "block_slice_past_end_wraps",
    "robots_gauge_counter_four_bits",
    "play_history_limit_uint32",
)


def _scoped(name: str) -> tuple[str, Outcome]:
    variant = VARIANTS[name]
    scope = variant_scope(
        variant.area, variant.games, variant.whole_blocks, variant.expected_requirements
    )
    return name, certify(variant.factory(), target=name, **scope)


#: the fast tier's sample over its whole area (a bound); the others in the slow tier. The
#: carrier (``http_access_token_unchecked``) is the fast tier's over the check that judges it
#: (``test_a_carrier_over_http_is_caught_by_the_check_that_judges_it``): its whole play area
#: over HTTP was 12 of this file's 28 CPU-s, nearly all of it the player sessions over HTTP
#: (which ``security.tokens.required`` and ``.isolation`` bring in), 0.1 CPU-s narrowed
FAST_SAMPLE = ("play_buttons_modulo_18",)

#: the requirements of the check that judges a way in by another carrier or path spelling
#: (``security.ways_in_request``)
REQUEST_WAYS = ["security.tokens.bearer_only", "security.paths.guarded"]


@pytest.mark.parametrize(
    "name",
    [n if n in FAST_SAMPLE else pytest.param(n, marks=pytest.mark.slow) for n in ISSUE_27],
)
def test_caught_by_its_requirement_and_no_other(name: str) -> None:
    variant, outcome = VARIANTS[name], _scoped(name)[1]
    assert outcome.verdict == "NOT CERTIFIED", outcome.note
    assert variant.caught_by(outcome.failed), (outcome.failed, outcome.errored)
    others = [r for r in outcome.failed + outcome.errored if not variant.caught_by([r])]
    assert not others, {r: outcome.messages[r][:300] for r in others}


def test_a_carrier_over_http_is_caught_by_the_check_that_judges_it() -> None:
    """``http_access_token_unchecked`` (any ``?access_token=`` opens the account of the path)
    over HTTP, certified for the requirements of ``security.ways_in_request`` alone: rejected
    for its own, and for no other of them (its whole area, as the strength table runs it, is
    ``test_caught_by_its_requirement_and_no_other``'s in the slow tier)."""
    name = "http_access_token_unchecked"
    variant = VARIANTS[name]
    assert variant.caught_by(REQUEST_WAYS)
    outcome = certify(variant.factory(), target=name, requirements=REQUEST_WAYS)
    assert outcome.verdict == "NOT CERTIFIED", outcome.note
    assert variant.caught_by(outcome.failed), (outcome.failed, outcome.errored)
    others = [r for r in outcome.failed + outcome.errored if not variant.caught_by([r])]
    assert not others, {r: outcome.messages[r][:300] for r in others}


def test_money_bounds_tries_every_game_and_stake() -> None:
    """A balance past 2^53 cents rounded by one stake's play path alone (eldorado at 2 €):
    ``play.money_bounds`` judged one game at its first stake, and certified it."""
    from .test_freedoms import check_outcome

    found = check_outcome(
        reference_adapter(wf.BalanceInFloat64AtTwoEuros, name="x"), "play.money_bounds"
    )
    assert found.outcome == "fail", found.message
    assert "200" in found.message
    exact = check_outcome(reference_adapter(wf.BalanceInFloat64, name="x"), "play.money_bounds")
    assert exact.outcome == "fail"  # every stake's path rounds: failed at the first one tried
    assert (
        len(
            check_outcome(reference_adapter(name="x"), "play.money_bounds").details["stakes_judged"]
        )
        == 4
    )  # robots at 1 €, eldorado at 0,5 €, 1 € and 2 €


def test_slice_bounds_tries_every_game_and_stake() -> None:
    """Slices past the end wrapped round on eldorado's 2 € blocks alone: ``blocks.slice_bounds``
    read one (game, stake) the seed drew, and certified it three runs in four."""
    from .test_freedoms import check_outcome

    for seed in range(3):
        adapter = reference_adapter(wf.SlicePastEndWrapsAtTwoEuros, name="x")
        found = check_outcome(adapter, "blocks.slice_bounds", seed=seed)
        assert found.outcome == "fail", (seed, found.message)
    right = check_outcome(reference_adapter(name="x"), "blocks.slice_bounds")
    assert right.outcome == "pass" and right.details["stakes_judged"] == 4


def test_altered_tokens_all_differ_and_vary_with_the_seed() -> None:
    token = "Zx9_k-3LmQ0pR7sT2vW4yA6cE8gI1nO5uB3dF7hJ9kL"
    drawn = [altered_tokens(token, random.Random(seed)) for seed in range(20)]
    for found in drawn:
        kinds = [what for what, _ in found]
        assert len(kinds) == 4, kinds
        assert all(t != token and t for _, t in found)
        assert any(t == token.upper() or t == token.lower() for _, t in found)
    assert len({tuple(t for _, t in found) for found in drawn}) > 10


def test_a_made_up_token_has_the_tokens_shape_and_none_of_its_characters() -> None:
    token = "Zx9_k-3LmQ0pR7sT2vW4yA6cE8gI1nO5uB3dF7hJ9kL"
    for seed in range(20):
        made = made_up_token(token, random.Random(seed))
        assert len(made) == len(token)
        for mine, theirs in zip(made, token, strict=True):
            assert mine != theirs
            assert mine.isdigit() == theirs.isdigit() and mine.isupper() == theirs.isupper()


@pytest.mark.parametrize(
    "token", ["0123456789" * 4, "9f86d081884c7d659a2feaa0c55ad015", "MFRGG43FMZ"]
)
def test_a_token_in_one_case_is_not_asked_in_another(token: str) -> None:
    found = altered_tokens(token, random.Random(1))
    assert [w for w, _ in found if "case" in w] == []


def test_path_variants_are_spellings_of_the_same_path() -> None:
    path = "/v1/accounts/acct_12/history"
    for seed in range(30):
        variants = dict(_path_variant(path, random.Random(seed)))
        assert variants["a trailing slash"] == path + "/"
        assert variants["a doubled slash"].replace("//", "/") == path
        encoded = next(p for w, p in variants.items() if "encoded" in w)
        at = encoded.index("%")
        assert chr(int(encoded[at + 1 : at + 3], 16)) + encoded[at + 3 :] == path[at:]


def test_let_in_reads_status_and_body() -> None:
    assert not let_in(ErrorReply(401, "unauthorized", "no"))
    assert let_in({"account_id": "a", "balance_cents": 5})
    assert let_in(RawAnswer(200, b"{}"))
    assert let_in(RawAnswer(204, b""))
    assert not let_in(RawAnswer(404, b'{"error": {"code": "not_found", "message": "x"}}'))
    assert not let_in(RawAnswer(307, b""))
    assert not let_in(RawAnswer(500, b"oops"))
    assert let_in(RawAnswer(403, b'{"account_id": "a", "balance_cents": 5}'))


def test_bounds_drawn_past_the_limits() -> None:
    rng = random.Random(3)
    balances = large_balances(rng)
    assert all(b > 2**53 and b % 2 == 1 and b < 2**63 for b in balances)
    assert all(int(float(b)) != b for b in balances)
    units = 1000
    slices = slice_bounds(units, rng)
    assert any(s + c > units and s < units for s, c in slices)
    assert any(c == 0 for _, c in slices) and any(s < 0 for s, _ in slices)
    assert any(c < 0 for _, c in slices) and any(s >= units for s, _ in slices)


def test_send_raw_sends_the_path_as_written() -> None:
    seen: list[tuple[bytes, bytes]] = []

    async def app(scope: dict, receive: object, send: object) -> None:  # type: ignore[type-arg]
        if scope["type"] != "http":
            return
        auth = dict(scope["headers"]).get(b"authorization", b"")
        seen.append((scope["raw_path"], auth))
        await send({"type": "http.response.start", "status": 404, "headers": []})  # type: ignore[operator]
        await send({"type": "http.response.body", "body": b"nope"})  # type: ignore[operator]

    with Serving(app) as url:
        adapter = open_target(url, timeout=10)
        try:
            answer = adapter.send_raw("GET", "//v1/%61ccounts/x/", {"Cookie": "token=t"})
        finally:
            adapter.close()
    assert answer == RawAnswer(404, b"nope")
    assert seen == [(b"//v1/%61ccounts/x/", b"")]


def test_in_process_targets_are_asked_no_request_variation() -> None:
    """An in-process adapter has no header or path: ways_in_request passes having asked
    nothing, and says so."""
    outcome = certify(
        open_target("python:reference"),
        target="reference",
        requirements=["security.tokens.bearer_only", "security.paths.guarded"],
        games=["robots"],
    )
    assert outcome.outcomes["security.tokens.bearer_only"] == "pass"
    assert outcome.outcomes["security.paths.guarded"] == "pass"


#: what a correct target over HTTP must let no way in by (the requests as written, the bounds)
OVER_HTTP = {
    "security.tokens.required",
    "security.tokens.isolation",
    "security.tokens.bearer_only",
    "security.paths.guarded",
    "play.reveal.bounds",
    "blocks.contract3.slice",
}


def test_correct_target_over_http_lets_no_way_in() -> None:
    """Every check judging ``OVER_HTTP``, each alone, on the reference over HTTP: none fails,
    none reserves. But the player sessions, which judge the token requirements on their way
    back: over HTTP they were 8 of this test's 11 CPU-s, and the reference's sessions over HTTP
    pass in ``tests/harness/test_user_agent.py``'s recorded run (``security.tokens.required``)."""
    from .test_freedoms import check_outcome

    checks = [
        c.id
        for c in registered_checks().values()
        if set(c.requirements) & OVER_HTTP and c.id != "play.player_sessions"
    ]
    judged = {r for c in checks for r in registered_checks()[c].requirements}
    assert judged >= OVER_HTTP and "security.ways_in_request" in checks
    with bridge(open_target("python:reference")) as url:
        outcomes = {c: check_outcome(open_target(url, timeout=20), c) for c in checks}
    bad = {c: (o.outcome, o.message[:300]) for c, o in outcomes.items() if o.outcome != "pass"}
    assert not bad
    # Bearer only: not even the reading's reservation
    assert {c: o.reservations for c, o in outcomes.items() if o.reservations} == {}


@pytest.mark.parametrize(
    ("name", "ways"),
    [
        ("play_token_case_insensitive", "token"),
        ("play_neighbour_check_digit", "neighbour"),
        ("http_cookie_over_bad_bearer", "scheme"),
    ],
)
def test_a_way_in_found_replays(name: str, ways: str) -> None:
    from conformance._suite import replay
    from conformance.checks._scenarios import Session
    from conformance.checks._scenarios.ways_in import scenario_ways_in

    adapter = VARIANTS[name].factory()
    try:
        session = Session.of(adapter)
        found = None
        for seed in range(5):  # the probe that lets in depends on the draw; one will
            case = {
                "kind": "play",
                "scenario": "ways_in",
                "game": "robots",
                "stake_cents": 100,
                "ways": ways,
                "seed": seed,
            }
            found = scenario_ways_in(session, case)
            if found is not None:
                break
        assert found is not None
        again = replay(adapter, found.input)
        assert again is not None and again.input["requirement"] == found.input["requirement"]
    finally:
        adapter.close()


def test_a_request_as_written_goes_through_the_budget_guard() -> None:
    """``send_raw`` is guarded like the contract's operations where the adapter has it (a cut
    check sends no more), and absent where it has not."""
    from harness._budget import Cancelled, CancelToken, GuardedAdapter, Stalls

    class Raw:
        name = "raw"

        def send_raw(self, method: str, path: str) -> RawAnswer:
            return RawAnswer(404, path.encode())

    plain = GuardedAdapter(open_target("python:reference"), CancelToken(), Stalls())
    assert not hasattr(plain, "send_raw")
    token = CancelToken()
    guarded = GuardedAdapter(Raw(), token, Stalls())
    assert guarded.send_raw("GET", "/v1//x") == RawAnswer(404, b"/v1//x")
    token.cancel("cut")
    with pytest.raises(Cancelled):
        guarded.send_raw("GET", "/v1//x")
