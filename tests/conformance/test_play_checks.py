"""The play and security checks: the reference passes them, and each deliberately broken
adapter (the reference wrapped, with one fault) fails on the requirement that fault breaks."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
import yaml

import reference
from conformance._catalogue import load_catalogue
from conformance._execute import CheckOutcome, execute
from conformance._profiles import DEFAULTS
from conformance._registry import CheckContext, registered_checks
from conformance._replay import replay
from harness._errors import ErrorReply
from harness._reference_adapter import ReferenceAdapter

Document = dict[str, Any]
OURS = ("play.", "security.", "protocol.")
SMALL = {
    **DEFAULTS,
    "play_count": 12,
    "concurrency_threads": 4,
    "concurrent_plays_per_thread": 6,
}


def _db(tmp: Path) -> Path:
    """A database on /dev/shm when there is one: fsync on tmpfs costs nothing (speed only)."""
    shm = Path("/dev/shm")
    folder = Path(shm / f"instantcert-test-{time.time_ns()}") if shm.is_dir() else tmp
    folder.mkdir(parents=True, exist_ok=True)
    return folder / "reference.sqlite3"


@pytest.fixture
def reference_adapter(tmp_path: Path) -> Iterator[ReferenceAdapter]:
    path = _db(tmp_path)
    adapter = ReferenceAdapter(path, seed=bytes(range(32)))
    yield adapter
    adapter.close()
    for file in path.parent.glob("reference.sqlite3*"):
        file.unlink()
    if path.parent != tmp_path:
        path.parent.rmdir()


def run_ours(adapter: Any, settings: dict[str, Any], seed: int = 7) -> dict[str, CheckOutcome]:
    implementation = adapter.describe()
    outcomes = {}
    for check_id, check in registered_checks().items():
        if check_id.startswith(OURS):
            ctx = CheckContext(adapter, implementation, settings, seed)
            outcomes[check_id] = execute(check, ctx)
    return outcomes


def failed_requirements(outcomes: dict[str, CheckOutcome]) -> set[str]:
    return {r for o in outcomes.values() if o.outcome != "pass" for r in o.requirements}


# -- the broken adapters -----------------------------------------------------------------------


class Wrapper:
    """The reference adapter, passed through; subclasses break one thing."""

    def __init__(self, inner: ReferenceAdapter) -> None:
        self.inner = inner
        self.name = f"faulty:{type(self).__name__}"
        self.tokens: dict[str, str] = {}  # account -> token
        self.offset: dict[str, int] = {}  # account -> cents the fault moved

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def open_account(self, balance_cents: int) -> Document:
        doc = self.inner.open_account(balance_cents)
        self.tokens[doc["account_id"]] = doc["token"]
        return doc

    def balance(self, account_id: str, token: str | None) -> Document:
        doc = self.inner.balance(account_id, token)
        return {**doc, "balance_cents": doc["balance_cents"] + self.offset.get(account_id, 0)}

    def play(self, account_id: str, token: str | None, game: str, stake_cents: int) -> Document:
        doc = self.inner.play(account_id, token, game, stake_cents)
        self.after_play(account_id, doc)
        return {**doc, "balance_cents": doc["balance_cents"] + self.offset.get(account_id, 0)}

    def after_play(self, account_id: str, doc: Document) -> None:
        pass

    def prize(self, account_id: str, play_id: str) -> int:
        plays = self.inner.history(account_id, self.tokens[account_id], 5)["plays"]
        return int(next(p["prize_cents"] for p in plays if p["play_id"] == play_id))


class DoubleDebit(Wrapper):
    def after_play(self, account_id: str, doc: Document) -> None:
        self.offset[account_id] = self.offset.get(account_id, 0) - doc["stake_cents"]


class PrizeNotCredited(Wrapper):
    def after_play(self, account_id: str, doc: Document) -> None:
        prize = self.prize(account_id, doc["play_id"])
        self.offset[account_id] = self.offset.get(account_id, 0) - prize


class HistoryHidesUnrevealed(Wrapper):
    def __init__(self, inner: ReferenceAdapter) -> None:
        super().__init__(inner)
        self.shown: set[str] = set()

    def reveal(self, play_id: str, token: str | None, button: int) -> Document:
        doc = self.inner.reveal(play_id, token, button)
        self.shown.add(play_id)
        return doc

    def auto(self, play_id: str, token: str | None) -> Document:
        doc = self.inner.auto(play_id, token)
        self.shown.add(play_id)
        return doc

    def history(self, account_id: str, token: str | None, limit: int | None = None) -> Document:
        plays = self.inner.history(account_id, token, limit)["plays"]
        return {"plays": [p for p in plays if p["play_id"] in self.shown]}


class RevealInClickOrder(Wrapper):
    """Each button keeps its number of clicks and its +1s, but the symbols come from the
    ticket read button after button, in the order of the clicks."""

    def __init__(self, inner: ReferenceAdapter) -> None:
        super().__init__(inner)
        self.owner: dict[str, str] = {}
        self.clicks: dict[str, list[int]] = {}

    def after_play(self, account_id: str, doc: Document) -> None:
        self.owner[doc["play_id"]] = account_id

    def reveal(self, play_id: str, token: str | None, button: int) -> Document:
        account = self.owner[play_id]
        plays = self.inner.history(account, token, 50)["plays"]
        ticket = next(p["ticket"] for p in plays if p["play_id"] == play_id)
        parsed = reference.parse_ticket("robots", ticket)
        assert isinstance(parsed, reference.RobotsTicket)
        clicks = self.clicks.setdefault(play_id, [])
        if clicks.count(button) >= len(parsed.buttons[button]):
            raise ErrorReply(409, "nothing_to_reveal", f"button {button} has nothing left")
        flat = [r for reveals in parsed.buttons for r in reveals]
        shown = flat[len(clicks)]
        plus_one = parsed.buttons[button][clicks.count(button)].plus_one
        clicks.append(button)
        name = reference.robots_rules().symbol(shown.symbol).name
        return {"button": button, "symbol": name, "x2": shown.x2, "plus_one": plus_one}


class PlusOneTwice(Wrapper):
    """A button with nothing left reveals its last symbol once more."""

    def __init__(self, inner: ReferenceAdapter) -> None:
        super().__init__(inner)
        self.last: dict[tuple[str, int], Document] = {}
        self.extra: set[tuple[str, int]] = set()

    def reveal(self, play_id: str, token: str | None, button: int) -> Document:
        key = (play_id, button)
        try:
            doc = self.inner.reveal(play_id, token, button)
        except ErrorReply as reply:
            if reply.status != 409 or key not in self.last or key in self.extra:
                raise
            self.extra.add(key)
            return self.last[key]
        self.last[key] = doc
        return doc


class PlusOneRefused(Wrapper):
    """The click a +1 allows is refused."""

    def __init__(self, inner: ReferenceAdapter) -> None:
        super().__init__(inner)
        self.plus: set[tuple[str, int]] = set()

    def reveal(self, play_id: str, token: str | None, button: int) -> Document:
        if (play_id, button) in self.plus:
            raise ErrorReply(409, "nothing_to_reveal", "nothing left (wrongly)")
        doc = self.inner.reveal(play_id, token, button)
        if doc["plus_one"]:
            self.plus.add((play_id, button))
        return doc


class DoubleSale(Wrapper):
    """A race: a play that starts while another is being sold reports the previous sale's unit."""

    def __init__(self, inner: ReferenceAdapter) -> None:
        super().__init__(inner)
        self.lock = threading.Lock()
        self.busy = 0
        self.last: dict[tuple[str, int], tuple[str, int]] = {}
        self.moved: dict[str, tuple[str, int]] = {}

    def play(self, account_id: str, token: str | None, game: str, stake_cents: int) -> Document:
        with self.lock:
            raced = self.busy > 0
            self.busy += 1
        try:
            time.sleep(0.002)
            doc = self.inner.play(account_id, token, game, stake_cents)
        finally:
            with self.lock:
                self.busy -= 1
        with self.lock:
            pair = (game, stake_cents)
            if raced and pair in self.last:
                self.moved[doc["play_id"]] = self.last[pair]
                doc = {**doc, "block_id": self.last[pair][0], "index": self.last[pair][1]}
            self.last[pair] = (doc["block_id"], doc["index"])
        return doc

    def history(self, account_id: str, token: str | None, limit: int | None = None) -> Document:
        plays = self.inner.history(account_id, token, limit)["plays"]
        for p in plays:
            if p["play_id"] in self.moved:
                p["block_id"], p["index"] = self.moved[p["play_id"]]
        return {"plays": plays}


class HistoryOpenToAll(Wrapper):
    """Any valid token reads any account's history."""

    def history(self, account_id: str, token: str | None, limit: int | None = None) -> Document:
        if token in self.tokens.values() and account_id in self.tokens:
            token = self.tokens[account_id]
        return self.inner.history(account_id, token, limit)


class HouseCoversStake(Wrapper):
    """A play the balance cannot pay is sold anyway, the balance going below zero."""

    def __init__(self, inner: ReferenceAdapter) -> None:
        super().__init__(inner)
        self.house: Document | None = None

    def play(self, account_id: str, token: str | None, game: str, stake_cents: int) -> Document:
        try:
            return super().play(account_id, token, game, stake_cents)
        except ErrorReply as reply:
            if reply.status != 402:
                raise
        if self.house is None:
            self.house = self.inner.open_account(10**9)
        doc = self.inner.play(self.house["account_id"], self.house["token"], game, stake_cents)
        self.offset[account_id] = self.offset.get(account_id, 0) - stake_cents
        balance = self.balance(account_id, token)["balance_cents"]
        return {**doc, "balance_cents": balance}


class RefusalCharges(Wrapper):
    """A refused play still takes a cent."""

    def play(self, account_id: str, token: str | None, game: str, stake_cents: int) -> Document:
        try:
            return super().play(account_id, token, game, stake_cents)
        except ErrorReply as reply:
            if reply.status in (402, 422):
                self.offset[account_id] = self.offset.get(account_id, 0) - 1
            raise


def _swap(index: int) -> int:
    return index ^ 1


class PairsSwapped(Wrapper):
    """Sells units 1, 0, 3, 2, ...: the served block is relabelled to match, so each play is
    still the unit at its (block_id, index); only the order is wrong."""

    def play(self, account_id: str, token: str | None, game: str, stake_cents: int) -> Document:
        doc = super().play(account_id, token, game, stake_cents)
        return {**doc, "index": _swap(doc["index"])}

    def history(self, account_id: str, token: str | None, limit: int | None = None) -> Document:
        plays = self.inner.history(account_id, token, limit)["plays"]
        return {"plays": [{**p, "index": _swap(p["index"])} for p in plays]}

    def read_block(self, block_id: str, start: int | None = None, count: int | None = None) -> Any:
        return Relabelled(self.inner, block_id, start, count, _swap)


class BlockShifted(Wrapper):
    """Serves a block whose unit i is the unit i + 1 it sells."""

    def read_block(self, block_id: str, start: int | None = None, count: int | None = None) -> Any:
        return Relabelled(self.inner, block_id, start, count, lambda i: i + 1)


class Relabelled:
    """A block slice whose line for index i holds the inner block's unit ``source(i)``."""

    def __init__(
        self,
        inner: ReferenceAdapter,
        block_id: str,
        start: int | None,
        count: int | None,
        source: Any,
    ) -> None:
        first = start or 0
        size = count if count is not None else 0
        stream = inner.read_block(block_id, max(0, first - 1), size + 2)
        self.header = {**stream.header, "start": first, "count": size}
        units = {u["index"]: u for u in map(json.loads, stream.lines())}
        stream.close()
        self._lines = [
            json.dumps({**units[source(i)], "index": i}).encode()
            for i in range(first, first + size)
            if source(i) in units
        ]

    def lines(self) -> Iterator[bytes]:
        return iter(self._lines)

    def close(self) -> None:
        pass


FAULTS = {
    DoubleDebit: {"robots.4.1.stake_debited", "eldorado.4.2.stake_debited", "play.money.exact"},
    PrizeNotCredited: {
        "robots.4.10.prize_credited",
        "eldorado.4.6.prize_credited",
        "play.money.exact",
    },
    HistoryHidesUnrevealed: {"robots.4.1.history_unrevealed", "eldorado.4.2.history_unrevealed"},
    RevealInClickOrder: {"robots.4.4.reveal_order"},
    PlusOneTwice: {"robots.4.7.reveal_plus_one"},
    PlusOneRefused: {"robots.4.7.reveal_plus_one"},
    DoubleSale: {"play.sales.no_double_sale"},
    HistoryOpenToAll: {"security.tokens.isolation"},
    HouseCoversStake: {"play.refusal.insufficient_funds"},
    RefusalCharges: {"play.refusal.insufficient_funds", "play.refusal.invalid"},
    PairsSwapped: {"play.sales.block_order"},
    BlockShifted: {"play.sales.block_unit"},
}


# -- the tests ---------------------------------------------------------------------------------


def test_reference_passes_every_play_and_security_check(
    reference_adapter: ReferenceAdapter,
) -> None:
    outcomes = run_ours(reference_adapter, dict(DEFAULTS))
    assert len(outcomes) >= 16
    bad = {
        k: (o.outcome, o.message, o.traceback) for k, o in outcomes.items() if o.outcome != "pass"
    }
    assert bad == {}


@pytest.mark.parametrize("fault", list(FAULTS), ids=lambda f: f.__name__)
def test_each_fault_fails_exactly_its_requirements(
    fault: type[Wrapper], reference_adapter: ReferenceAdapter
) -> None:
    outcomes = run_ours(fault(reference_adapter), SMALL)
    errors = {k: o.message for k, o in outcomes.items() if o.outcome == "error"}
    assert errors == {}
    assert failed_requirements(outcomes) == FAULTS[fault]
    for outcome in outcomes.values():
        if outcome.outcome == "fail":
            assert outcome.evidence and outcome.evidence[0]["input"]["kind"] == "play"


@pytest.mark.parametrize(
    "fault",
    [DoubleDebit, RevealInClickOrder, PlusOneRefused, BlockShifted, HistoryOpenToAll],
    ids=lambda f: f.__name__,
)
def test_evidence_replays_on_the_faulty_target_and_not_on_the_reference(
    fault: type[Wrapper], reference_adapter: ReferenceAdapter
) -> None:
    outcomes = run_ours(fault(reference_adapter), SMALL)
    failing = [o for o in outcomes.values() if o.outcome == "fail"]
    case = failing[0].evidence[0]["input"]
    again = [replay(fault(reference_adapter), case) for _ in range(3)]
    assert any(e is not None for e in again)
    assert replay(reference_adapter, case) is None


def test_hypothesis_click_order_evidence_is_minimal(reference_adapter: ReferenceAdapter) -> None:
    outcome = run_ours(RevealInClickOrder(reference_adapter), SMALL)["play.robots_reveal_order"]
    assert outcome.requirements == ("robots.4.4.reveal_order",)
    case = outcome.evidence[0]["input"]
    assert sum(1 for c in case["choices"] if c) == 1  # one click away from buttons in turn


def test_every_play_requirement_is_covered_by_a_check() -> None:
    text = resources.files("conformance").joinpath("requirements/play.yaml").read_text()
    ours = {entry["id"] for entry in yaml.safe_load(text)["requirements"]}
    assert ours <= set(load_catalogue())
    covered = {
        r for c in registered_checks().values() if c.id.startswith(OURS) for r in c.requirements
    }
    assert len(ours) == 29
    assert ours == covered
