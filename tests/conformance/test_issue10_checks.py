"""Issue 10's checks piece by piece: the judgements on exact small cases (token formats,
history listings, serial orders, reordered batches, misreported reveals), and the seam that
turns a well-formed wrong answer into a *fail* of the requirement it breaks.

Each new check is also run end to end, against the reference (pass) and against its faulty
variants (caught for its requirement), by tests/faulty/test_variants.py.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import uuid
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from conformance._execute import execute
from conformance._registry import CheckContext
from conformance._suite import registered_checks, replay
from conformance.checks._batch_order import permuted
from conformance.checks._scenarios import misreported
from conformance.checks.history import PAGE_SIZES, judge_listing, limits_to_ask
from conformance.checks.tokens import token_fault, token_finding
from conformance.checks.wallet import _serial, _serial_orders, misplaced_at_once
from harness import ContractBreach, HttpAdapter, open_target
from tests.harness.test_http_adapter_faults import FakeTarget, answer

# -- tokens ------------------------------------------------------------------------------------


def _ids(n: int = 24) -> list[str]:
    return ["acct_" + secrets.token_hex(12) for _ in range(n)]


def _jwt(account_id: str) -> str:
    def part(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).decode().rstrip("=")

    head = part(b'{"alg":"HS256","typ":"JWT"}')
    body = part(json.dumps({"sub": account_id, "iat": 1764547200}).encode())
    signature = part(hmac.new(b"vendor key", f"{head}.{body}".encode(), "sha256").digest())
    return f"{head}.{body}.{signature}"


LEGITIMATE: dict[str, Callable[[str], str]] = {
    "token_hex(16)": lambda a: secrets.token_hex(16),
    "token_urlsafe(16)": lambda a: secrets.token_urlsafe(16),
    "token_urlsafe(32)": lambda a: secrets.token_urlsafe(32),
    "uuid4": lambda a: str(uuid.uuid4()),
    "uuid4 hex": lambda a: uuid.uuid4().hex,
    "vendor prefix": lambda a: "sk_live_" + secrets.token_hex(16),
    "JWT-like": _jwt,
    "id then random": lambda a: f"{a}.{secrets.token_hex(16)}",
}


@pytest.mark.parametrize("name", sorted(LEGITIMATE))
def test_legitimate_token_formats_pass(name: str) -> None:
    assert token_fault([(a, LEGITIMATE[name](a)) for a in _ids()]) is None


GUESSABLE: dict[str, tuple[Callable[[str, int], str], str]] = {
    "counter": (lambda a, n: f"tok_{n:06d}", "count"),
    "long counter": (lambda a, n: f"tok_{n:040d}", "count"),
    "32 random bits": (lambda a, n: secrets.token_hex(4), "32 bits"),
    "sha256 of the id": (lambda a, n: hashlib.sha256(a.encode()).hexdigest(), "sha256 hex"),
    "md5 base64 of the id": (
        lambda a, n: base64.b64encode(hashlib.md5(a.encode()).digest()).decode(),
        "md5 base64",
    ),
    "hex of the id": (lambda a, n: a.encode().hex(), "hex of the id"),
    "the id itself": (lambda a, n: a.upper(), "account id"),
    "common random prefix": (lambda a, n: "Zq81" + secrets.token_hex(8), "64 bits"),
    "clock": (lambda a, n: f"t{1764547200000 + 7 * n}{secrets.token_hex(30)[:2]}", "bits"),
    "counter in a long token": (
        lambda a, n: f"{'f' * 20}{n:08d}{'e' * 20}{secrets.choice('ab')}{'0' * 30}",
        "",
    ),
}


@pytest.mark.parametrize("name", sorted(GUESSABLE))
def test_guessable_tokens_are_caught(name: str) -> None:
    make, said = GUESSABLE[name]
    fault = token_fault([(a, make(a, n)) for n, a in enumerate(_ids())])
    assert fault is not None
    assert said in fault


#: 64 bits: short of the project's 128, enumerable by no one: a reservation, not a failure
SHORT = ("common random prefix",)


@pytest.mark.parametrize("name", sorted(GUESSABLE))
def test_only_the_letter_fails_a_token(name: str) -> None:
    make, _said = GUESSABLE[name]
    found = token_finding([(a, make(a, n)) for n, a in enumerate(_ids())])
    assert found is not None
    assert found[0] == ("reading" if name in SHORT else "letter"), found


def test_a_token_given_twice_is_caught() -> None:
    ids = _ids(8)
    tokens = [secrets.token_hex(16) for _ in ids]
    tokens[5] = tokens[2]
    assert "same token" in str(token_fault(list(zip(ids, tokens, strict=True))))


# -- history -----------------------------------------------------------------------------------


def test_history_listing_judgements() -> None:
    sold = ["p1", "p2", "p3"]
    assert judge_listing(sold, ["p3", "p2", "p1"]) == (None, "")
    assert judge_listing(sold, ["p1", "p2", "p3"])[0] == "play.history.order"
    assert "oldest first" in judge_listing(sold, ["p1", "p2", "p3"])[1]
    assert judge_listing(sold, ["p3", "p1", "p2"])[0] == "play.history.order"  # not "missing"
    assert judge_listing(sold, ["p2", "p1"])[0] == "last_unit"
    assert judge_listing(sold, ["p3", "p1"])[0] == "play.history.complete"
    assert judge_listing(sold, ["p3", "p3", "p2", "p1"])[0] == "play.history.complete"
    assert judge_listing(sold, ["p3", "p2", "p1", "x9"])[0] == "play.history.complete"


def test_history_limits_reach_past_every_usual_page_size() -> None:
    assert limits_to_ask(8) == [1, 2, 3, 8]  # the count itself last: a listing of all there is
    assert limits_to_ask(37) == [1, 2, 3, 9, 10, 11, 19, 20, 21, 24, 25, 26, 37]
    assert limits_to_ask(117)[-4:] == [99, 100, 101, 117]
    assert limits_to_ask(2) == [1, 2]
    assert all(117 % size for size in PAGE_SIZES)  # the full profile's count: no page divides it


# -- one account at once -----------------------------------------------------------------------


def test_serial_order_of_plays_on_one_account() -> None:
    # 300 cents, stake 100: three losing plays, in any answer order
    assert _serial(300, 100, [(100, 0), (0, 0), (200, 0)]) == [2, 0, 1]
    # a win of 500 pays for more plays: 300 -> 200 -> 600 -> 500
    assert _serial(300, 100, [(500, 0), (200, 0), (600, 500)]) is not None
    # a double spend: two plays both answering 200 from the same 300
    assert _serial(300, 100, [(200, 0), (200, 0), (100, 0)]) is None


def _listing(order: str, times: dict[str, str]) -> list[dict[str, str]]:
    return [{"play_id": p, "created_at": times[p]} for p in order]


def test_plays_at_once_judged_for_order_only_where_the_answers_fix_it() -> None:
    # 300 cents, stake 100, three losing plays a, b, c answered 100, 0, 200: sold c, a, b
    ids, orders = ["a", "b", "c"], _serial_orders(300, 100, [(100, 0), (0, 0), (200, 0)])
    assert orders == [[2, 0, 1]]
    apart = {"c": "2026-12-04T23:00:00.001Z", "a": "2026-12-04T23:00:00.002Z"}
    apart["b"] = "2026-12-04T23:00:00.003Z"
    assert misplaced_at_once(ids, orders, _listing("bac", apart)) is None
    # ties broken by id: a listed above b, whose balance follows a's and whose time is later
    assert misplaced_at_once(ids, orders, _listing("abc", apart)) == ("b", "a")
    # the same listing with times of whole seconds that tie: the target's to order
    tied = dict.fromkeys(ids, "2026-12-04T23:00:00Z")
    assert misplaced_at_once(ids, orders, _listing("abc", tied)) is None
    # times that say a is the newer (against the balances): the answers disagree, not judged
    crossed = {**apart, "a": "2026-12-04T23:00:00.004Z"}
    assert misplaced_at_once(ids, orders, _listing("abc", crossed)) is None
    # balances that allow either order (each a win of its stake): not judged, whatever the times
    either = _serial_orders(300, 100, [(300, 100), (300, 100)])
    assert sorted(either) == [[0, 1], [1, 0]]
    assert misplaced_at_once(["a", "b"], either, _listing("ab", apart)) is None


# -- evaluate batch ----------------------------------------------------------------------------


def test_permutation_of_results_is_told_from_wrong_results() -> None:
    a, b, c = ({"prize_cents": p, "wins": []} for p in (0, 100, 200))
    error = {"error": {"code": "invalid_ticket", "message": "x"}}
    assert permuted("robots", [a, b, c], [a, b, c]) is None
    assert permuted("robots", [a, b, c], [c, b, a]) == [2, 1, 0]
    assert permuted("robots", [a, b, error], [error, a, b]) == [2, 0, 1]
    assert permuted("robots", [a, b, c], [a, b, b]) is None  # wrong, not reordered
    assert permuted("robots", [a, a, b], [a, a, b]) is None  # equal results: in order


# -- reveal answers ----------------------------------------------------------------------------


def test_misreported_reveals_are_told_from_wrong_reveals() -> None:
    want = [[("C", False, True), ("D", True, False)], [("O", False, False)], [("C", False, False)]]
    letter_swapped = [
        [("O", False, True), ("D", True, False)],
        [("O", False, False)],
        [("O", False, False)],
    ]
    assert misreported(want, letter_swapped)
    dropped_x2 = [
        [("C", False, True), ("D", False, False)],
        [("O", False, False)],
        [("C", False, False)],
    ]
    assert misreported(want, dropped_x2)
    other_unit = [
        [("C", False, True), ("D", True, False)],
        [("Q", False, False)],
        [("D", False, False)],
    ]
    assert not misreported(want, other_unit)  # C answered as C and as D: not a fixed misreport
    assert not misreported(want, want)


# -- the seam: a well-formed wrong answer is a fail --------------------------------------------


@pytest.fixture
def refusing_with_200() -> Iterator[FakeTarget]:
    """Answers every request 200 with the error document; describe() in shape."""
    implementation = {
        "name": "x",
        "version": "1",
        "games": {"robots": {"stakes_cents": [100]}},
        "capabilities": ["play"],
    }

    def behaviour(handler: BaseHTTPRequestHandler) -> None:
        if handler.path.startswith("/v1/implementation"):
            answer(handler, 200, json.dumps(implementation).encode())
        else:
            body = {"error": {"code": "unauthorized", "message": "no"}}
            answer(handler, 200, json.dumps(body).encode())

    with FakeTarget(behaviour) as target:
        yield target


def test_a_refusal_sent_with_200_is_a_contract_breach(refusing_with_200: FakeTarget) -> None:
    adapter = HttpAdapter(refusing_with_200.url, timeout=2, retries=0)
    with pytest.raises(ContractBreach) as info:
        adapter.balance("a", None)
    assert info.value.requirement == "protocol.refusals.status"
    assert info.value.answer["status"] == 200
    adapter.close()


def test_a_breach_fails_its_requirement_not_the_check(refusing_with_200: FakeTarget) -> None:
    adapter = HttpAdapter(refusing_with_200.url, timeout=2, retries=0)
    check = registered_checks()["security.no_token"]
    ctx = CheckContext(adapter, adapter.describe(), {}, 1)
    outcome = execute(check, ctx)
    adapter.close()
    assert outcome.outcome == "fail", outcome.message
    assert outcome.requirements == ("protocol.refusals.status",)
    assert outcome.evidence[0]["got"]["status"] == 200
    assert outcome.evidence[0]["input"]["kind"] == "contract_breach"


def test_a_4xx_without_the_error_document_is_a_breach() -> None:
    def behaviour(handler: BaseHTTPRequestHandler) -> None:
        answer(handler, 402, b'{"error": {"message": "no money"}}')

    with FakeTarget(behaviour) as target:
        adapter = HttpAdapter(target.url, timeout=2, retries=0)
        with pytest.raises(ContractBreach) as info:
            adapter.play("a", "t", "robots", 100)
        adapter.close()
    assert info.value.requirement == "protocol.refusals.error_document"


def test_breach_evidence_replays_on_the_reference_without_finding() -> None:
    adapter: Any = open_target("python:reference")
    try:
        case = {"kind": "contract_breach", "check": "x", "requirement": "protocol.refusals.status"}
        assert replay(adapter, case) is None
    finally:
        adapter.close()


def test_unknown_ids_keep_the_target_s_format() -> None:
    from conformance.checks.refusals import unknown_like

    assert unknown_like("acct_00ff") == "acct_00fg"
    assert (
        unknown_like("0f8e1c2a-7d3b-4a55-9c1e-2b3c4d5e6f79")
        == "0f8e1c2a-7d3b-4a55-9c1e-2b3c4d5e6f70"
    )
    assert unknown_like("PLAY-Z") == "PLAY-A"
    assert unknown_like("___") == "___0"


# -- case files: issue 10's evidence passes the case schema and replays --------------------------


class _EvaluatesPoker:
    """The reference, but an unknown game is evaluated as robots at 1 € (not refused)."""

    def __init__(self) -> None:
        self.inner: Any = open_target("python:reference")
        self.name = "faulty:poker"

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def evaluate(self, game: str, stake_cents: int, tickets: list[str]) -> Any:
        if game not in ("robots", "eldorado"):  # the suite's unknown game is a misspelt one
            return self.inner.evaluate("robots", 100, tickets)
        return self.inner.evaluate(game, stake_cents, tickets)


def _case_files(outcome: Any, tmp: Any, check_id: str) -> list[Any]:
    from harness._cases import load_case, write_cases

    written = write_cases(
        tmp,
        check_id=check_id,
        requirements=outcome.requirements,
        message=outcome.message,
        evidence=outcome.evidence,
        target="faulty",
        seed=1,
        profile="quick",
        settings={},
    )
    return [load_case(tmp / path) for path in written]


def test_evaluate_refusal_evidence_is_a_valid_replayable_case(tmp_path: Any) -> None:
    target = _EvaluatesPoker()
    outcome = execute(
        registered_checks()["evaluate.refusals"], CheckContext(target, target.describe(), {}, 1)
    )
    assert outcome.outcome == "fail" and outcome.requirements == ("evaluate.refusals.status",)
    (case,) = _case_files(outcome, tmp_path, "evaluate.refusals")
    assert replay(target, case.evidence["input"]) is not None
    assert replay(target.inner, case.evidence["input"]) is None
    target.close()


def test_breach_evidence_is_a_valid_case(refusing_with_200: FakeTarget, tmp_path: Any) -> None:
    adapter = HttpAdapter(refusing_with_200.url, timeout=2, retries=0)
    outcome = execute(
        registered_checks()["security.no_token"], CheckContext(adapter, adapter.describe(), {}, 1)
    )
    adapter.close()
    (case,) = _case_files(outcome, tmp_path, "security.no_token")
    assert case.evidence["input"]["kind"] == "contract_breach"
