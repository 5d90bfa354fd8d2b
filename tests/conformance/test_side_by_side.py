"""Play scenarios side by side within one check (issue 12): the money scenarios spread their
plays over several accounts, each account's plays serial, and the verdicts, the first failure
and its evidence's shape are those of a run one scenario after another."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

import reference
from conformance._execute import CheckOutcome, execute
from conformance._profiles import DEFAULTS
from conformance._registry import CheckContext
from conformance._suite import registered_checks
from conformance.checks import _scenarios as sc
from conformance.checks._scenarios import money
from harness._reference_adapter import ReferenceAdapter
from tests.seeds import TEST_SEED

Document = dict[str, Any]
SPREAD = ("play.money_exact", "play.robots_stake_debited", "play.eldorado_stake_debited")


@pytest.fixture
def reference_adapter(tmp_path: Path) -> Iterator[ReferenceAdapter]:
    adapter = ReferenceAdapter(tmp_path / "reference.sqlite3", seed=TEST_SEED)
    yield adapter
    adapter.close()


class Counting:
    """The reference a few ms away (each play waits 5 ms), counting each account's plays and
    how many accounts play at once."""

    def __init__(self, inner: ReferenceAdapter) -> None:
        self.inner = inner
        self.plays: Counter[str] = Counter()
        self.lock = threading.Lock()
        self.now, self.most = 0, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def play(self, account_id: str, token: str | None, game: str, stake_cents: int) -> Document:
        with self.lock:
            self.plays[account_id] += 1
            self.now += 1
            self.most = max(self.most, self.now)
        try:
            time.sleep(0.005)
            return self.inner.play(account_id, token, game, stake_cents)
        finally:
            with self.lock:
                self.now -= 1


class DoubleDebit(Counting):
    """Every play takes its stake twice (the balance and the play's answer agree)."""

    def __init__(self, inner: ReferenceAdapter) -> None:
        super().__init__(inner)
        self.taken: Counter[str] = Counter()

    def balance(self, account_id: str, token: str | None) -> Document:
        doc = self.inner.balance(account_id, token)
        return {**doc, "balance_cents": doc["balance_cents"] - self.taken[account_id]}

    def play(self, account_id: str, token: str | None, game: str, stake_cents: int) -> Document:
        doc = super().play(account_id, token, game, stake_cents)
        with self.lock:
            self.taken[account_id] += stake_cents
            taken = self.taken[account_id]
        return {**doc, "balance_cents": doc["balance_cents"] - taken}


def test_money_plays_spread_over_accounts_until_every_kind_is_paid(
    reference_adapter: ReferenceAdapter,
) -> None:
    target = Counting(reference_adapter)
    session = sc.Session.of(target)
    case = sc.case_of("money_exact", game="eldorado", stake_cents=100, plays=10, accounts=4)
    chains = money.observe_accounts(session, case, until_every_kind=True)
    assert not isinstance(chains, sc.Evidence)
    assert len(chains) == 4 and sorted(map(len, chains)) == sorted(target.plays.values())
    assert target.most > 1  # the accounts played at the same time
    seen = [o for chain in chains for o in chain]
    assert 10 <= len(seen) <= sc.EVERY_KIND_CAP
    kinds = set().union(*(reference.win_kinds("eldorado", 100, o.ticket) for o in seen if o.prize))
    assert kinds == set(reference.game_win_kinds("eldorado"))
    assert any(o.prize == 0 for o in seen)
    for chain in chains:  # each account's balances follow one another
        for earlier, later in pairwise(chain):
            assert later.before == earlier.after
    assert sc.scenario_money_exact(session, case) is None


def test_a_fault_met_on_several_accounts_names_the_case_played(
    reference_adapter: ReferenceAdapter,
) -> None:
    target = DoubleDebit(reference_adapter)
    case = sc.case_of("stake_debited", game="robots", stake_cents=100, plays=12, accounts=3)
    found = sc.scenario_stake_debited(sc.Session.of(target), case)
    assert found is not None and found.input == case
    assert "took 200 cents" in found.note
    assert len(target.plays) <= 3 and sum(target.plays.values()) == 12


def _outcomes(adapter: Any, workers: int) -> dict[str, CheckOutcome]:
    settings = {**DEFAULTS, "play_count": 12, "scenario_workers": workers}
    implementation = adapter.describe()
    checks = registered_checks()
    return {
        name: execute(checks[name], CheckContext(adapter, implementation, settings, 7))
        for name in SPREAD
    }


def test_side_by_side_and_one_by_one_give_the_same_verdicts(
    reference_adapter: ReferenceAdapter,
) -> None:
    serial = _outcomes(DoubleDebit(reference_adapter), 1)
    spread = _outcomes(DoubleDebit(reference_adapter), 8)
    for name in SPREAD:
        one, many = serial[name], spread[name]
        assert (one.outcome, one.requirements) == (many.outcome, many.requirements) != ("pass", ())
        assert one.message.split(":")[0] == many.message.split(":")[0]  # the same first pair
        first, other = one.evidence[0], many.evidence[0]
        assert set(first) == set(other)
        assert set(first["input"]) | {"accounts"} == set(other["input"])
    assert all(o.outcome == "pass" for o in _outcomes(reference_adapter, 8).values())
