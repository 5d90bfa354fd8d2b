"""The seam: ``contract.Validated`` holds every answer to its schema and names the fault."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from contract import ContractBreach, ProtocolViolation, Validated
from harness._reference_adapter import ReferenceAdapter
from harness._runner import Runner, RunPlan

ROBOTS_WIN = "OHPSCTQD|C D2+P S S C S D T S P H O C S T D C C"


class Stream:
    def __init__(self, header: object, lines: list[bytes]) -> None:
        self.header = header
        self._lines = lines
        self.closed = False

    def lines(self) -> Iterator[bytes]:
        yield from self._lines

    def chunks(self) -> Iterator[bytes]:
        yield b"".join(line + b"\n" for line in self._lines)

    def close(self) -> None:
        self.closed = True


class Scripted:
    """An adapter answering whatever the test puts in ``answers`` (by operation)."""

    name = "scripted"

    def __init__(self, **answers: Any) -> None:
        self.answers = answers
        self.closed = False

    def _answer(self, operation: str) -> Any:
        return self.answers[operation]

    def describe(self) -> Any:
        return self._answer("describe")

    def evaluate(self, game: str, stake_cents: int, tickets: Sequence[str]) -> Any:
        return self._answer("evaluate")

    def list_blocks(self, game: str, stake_cents: int) -> Any:
        return self._answer("list_blocks")

    def read_block(self, block_id: str, start: int | None = None, count: int | None = None) -> Any:
        return self._answer("read_block")

    def open_account(self, balance_cents: int) -> Any:
        return self._answer("open_account")

    def balance(self, account_id: str, token: str | None) -> Any:
        return self._answer("balance")

    def play(self, account_id: str, token: str | None, game: str, stake_cents: int) -> Any:
        return self._answer("play")

    def reveal(self, play_id: str, token: str | None, button: int) -> Any:
        return self._answer("reveal")

    def auto(self, play_id: str, token: str | None) -> Any:
        return self._answer("auto")

    def history(self, account_id: str, token: str | None, limit: int | None = None) -> Any:
        return self._answer("history")

    def close(self) -> None:
        self.closed = True

    def extra(self) -> str:
        return "vendor's own"


PLAY = {"play_id": "p", "game": "robots", "stake_cents": 100, "block_id": "b", "index": 0,
        "balance_cents": 900}  # fmt: skip
HEADER = {"format": "block/1", "game": "robots", "stake_cents": 100, "block_id": "b",
          "units": 3, "start": 0, "count": 3}  # fmt: skip


def test_a_malformed_answer_names_operation_path_and_value() -> None:
    adapter = Validated(Scripted(play={**PLAY, "index": "0"}))  # type: ignore[arg-type]
    with pytest.raises(ProtocolViolation) as info:
        adapter.play("a", "t", "robots", 100)
    message = str(info.value)
    assert message.startswith("play('a', 'robots', 100): ")
    assert "play.schema.json at $.index: must be of JSON type integer, got '0'" in message


@pytest.mark.parametrize(
    ("operation", "call", "answer", "where"),
    [
        ("open_account", lambda a: a.open_account(5), {"account_id": "a", "token": 7,
                                                      "balance_cents": 5}, "$.token"),
        ("balance", lambda a: a.balance("a", "t"), {"account_id": "a"}, "has no 'balance_cents'"),
        ("reveal", lambda a: a.reveal("p", "t", 0), {"button": 0, "symbol": "S", "x2": 0,
                                                    "plus_one": False}, "$.x2"),
        ("auto", lambda a: a.auto("p", "t"), [], "must be of JSON type object"),
        ("history", lambda a: a.history("a", "t"), {"plays": [{**PLAY}]}, "$.plays[0]"),
        ("list_blocks", lambda a: a.list_blocks("robots", 100),
         [{"block_id": "b", "game": "robots", "stake_cents": 100, "units": "3"}],
         "$.blocks[0].units"),
        ("describe", lambda a: a.describe(), {"name": "n", "version": "1", "games": {},
                                             "capabilities": [None]}, "$.capabilities[0]"),
        ("evaluate", lambda a: a.evaluate("robots", 100, ["t"]), [{"prize_cents": 1.5,
                                                                  "wins": []}],
         "results[0] breaks evaluation-result.schema.json at $.prize_cents"),
        ("evaluate", lambda a: a.evaluate("robots", 100, ["t"]), {"results": []},
         "must be a list of results"),
    ],
)  # fmt: skip
def test_every_operation_is_checked(operation: str, call: Any, answer: Any, where: str) -> None:
    adapter = Validated(Scripted(**{operation: answer}))  # type: ignore[arg-type]
    with pytest.raises(ProtocolViolation) as info:
        call(adapter)
    assert not isinstance(info.value, ContractBreach)
    assert where in str(info.value) and str(info.value).startswith(operation)


def test_a_refusal_answered_as_a_success_breaks_the_refusal_status() -> None:
    refusal = {"error": {"code": "insufficient_funds", "message": "no money"}}
    with pytest.raises(ContractBreach) as info:
        Validated(Scripted(play=refusal)).play("a", "t", "robots", 100)  # type: ignore[arg-type]
    assert info.value.requirement == "protocol.refusals.status"
    assert info.value.answer["body"] == refusal


def test_an_evaluate_batch_keeps_its_count_and_its_error_document() -> None:
    short = Validated(Scripted(evaluate=[]))  # type: ignore[arg-type]
    with pytest.raises(ContractBreach) as info:
        short.evaluate("robots", 100, ["t"])
    assert info.value.requirement == "evaluate.batch.order"
    bare = Validated(Scripted(evaluate=[{"error": "invalid ticket"}]))  # type: ignore[arg-type]
    with pytest.raises(ContractBreach) as info:
        bare.evaluate("robots", 100, ["t"])
    assert info.value.requirement == "evaluate.batch.errors"
    mixed = [{"prize_cents": 0, "wins": []}, {"error": {"code": "invalid_ticket", "message": "m"}}]
    assert Validated(Scripted(evaluate=mixed)).evaluate("robots", 100, ["a", "b"]) == mixed  # type: ignore[arg-type]


def test_a_block_header_is_checked_and_its_lines_pass_through() -> None:
    lines = [b'{"index":0,"prize_cents":0,"ticket":"x"}', b"not even json"]
    good = Stream(HEADER, lines)
    stream = Validated(Scripted(read_block=good)).read_block("b")  # type: ignore[arg-type]
    assert stream.header == HEADER and list(stream.lines()) == lines
    assert stream.chunks is not None and b"not even json" in next(stream.chunks())
    bad = Stream({**HEADER, "count": None}, lines)
    with pytest.raises(ProtocolViolation, match=r"read_block\('b'.*\$\.count.*got None"):
        Validated(Scripted(read_block=bad)).read_block("b")  # type: ignore[arg-type]
    assert bad.closed  # the stream refused is not left open


def test_wrapping_is_once_and_extras_pass() -> None:
    raw = Scripted()
    adapter = Validated(raw)  # type: ignore[arg-type]
    assert Validated(adapter) is adapter and adapter.unchecked is raw
    assert adapter.name == "scripted" and adapter.extra() == "vendor's own"
    adapter.close()
    assert raw.closed


def test_the_reference_passes_the_seam() -> None:
    adapter = Validated(ReferenceAdapter())
    try:
        assert adapter.describe()["name"] == "instantcert-reference"
        assert adapter.evaluate("robots", 100, [ROBOTS_WIN])[0]["prize_cents"] == 100
    finally:
        adapter.close()


class Sloppy(ReferenceAdapter):
    """The reference, except that a play's index comes back as a string."""

    def play(self, account_id: str, token: str | None, game: str, stake_cents: int) -> Any:
        answer = dict(super().play(account_id, token, game, stake_cents))
        return {**answer, "index": str(answer["index"])}


def test_the_runner_checks_every_answer_at_the_seam() -> None:
    plan = RunPlan(target="python:tests", profile="quick", seed=1, config={},
                   settings={"games": ["robots"], "play_count": 2},
                   requirements=("play.money.exact",))  # fmt: skip
    events: list[Any] = []

    class Collect:
        def handle(self, event: Any) -> None:
            events.append(event)

    adapter = Sloppy()
    try:
        result = Runner(plan, [Collect()]).run(adapter)
    finally:
        adapter.close()
    verdicts = {r.id: r for r in result.requirements}
    assert verdicts["play.money.exact"].outcome == "error"
    message = verdicts["play.money.exact"].message  # whichever check bought first: any index
    assert re.search(
        r"play\.schema\.json at \$\.index: must be of JSON type integer, got '\d+'", message
    )


ENTRY = {"play_id": "p", "game": "robots", "stake_cents": 100, "block_id": "b", "index": 0,
         "ticket": ROBOTS_WIN, "prize_cents": 0, "created_at": "2026-11-29T19:18:46Z"}  # fmt: skip


@pytest.mark.parametrize(
    "created_at",
    [
        "2026-11-29T19:18:46.352880Z",
        "2026-11-29t19:18:46+01:00",
        "02/12/2026 02:24:10",  # a screen's display format
        "2026-11-29T19:18:46",  # no offset
        "2026-13-29T19:18:46Z",
        "1764443926",
        1764443926,  # a Unix time as a number
    ],
)
def test_the_seam_holds_no_created_at_format(created_at: object) -> None:
    """The contract names ``created_at`` only: its format is a reading (a reservation of
    ``play.history.created_at``, tests/conformance/test_created_at.py), never the seam's
    *error*."""
    answer = {"plays": [ENTRY, {**ENTRY, "created_at": created_at}]}
    adapter = Validated(Scripted(history=answer))  # type: ignore[arg-type]
    assert adapter.history("a", "t")["plays"][1]["created_at"] == created_at


@pytest.mark.parametrize("created_at", [None, [], {"at": "2026-11-29T19:18:46Z"}, True])
def test_a_created_at_that_is_no_scalar_breaks_the_shape(created_at: object) -> None:
    answer = {"plays": [ENTRY, {**ENTRY, "created_at": created_at}]}
    adapter = Validated(Scripted(history=answer))  # type: ignore[arg-type]
    with pytest.raises(ProtocolViolation) as info:
        adapter.history("a", "t")
    assert "created_at" in str(info.value)
