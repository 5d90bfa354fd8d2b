"""The fourth red team's faults that only time shows (tests/faulty/_round4_faults.py): each is
rejected by a soak for the requirement it breaks, and for no other.

The registered variants wait a minute (an account's welcome session, an archive of plays
finished a minute ago), which a soak's sessions outlast (``--duration 12``; the strength
table's 100 s); here the same classes wait seconds, so a soak of seconds shows them. An account
opened alone needs no scaling: a soak of a minute or more has paced players that sign up late,
alone (``_scenarios.players._joins``). A history index too narrow for a deep unit is scaled to
12 bits. The other round-4 variants are certified with the others (test_variants.py).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from conformance.checks._scenarios import overlap
from conformance.checks._scenarios.client import Session
from reference._service import Document, GameService

from ._base import reference_adapter, service_variant
from ._round4_faults import AutoArchivedWinsEmpty, HistoryIndexInt16, OldAccountWinsQueued
from .certify import certify, variant_scope
from .test_soak import failed, sessions, soak
from .variants import VARIANTS


class OldAccountSoonQueued(OldAccountWinsQueued):
    """The welcome session lasting 3 seconds."""

    WELCOME_S = 3.0


class AutoArchivedSoon(AutoArchivedWinsEmpty):
    """The archive taking plays finished 3 seconds ago."""

    ARCHIVED_AFTER_S = 3.0


class HistoryIndexInt12(HistoryIndexInt16):
    """The index column 12 bits wide: a unit past 2 047 is listed wrapped."""

    BITS = 12


old_account_soon = service_variant("faulty:old_account_soon", OldAccountSoonQueued)
auto_archived_soon = service_variant("faulty:auto_archived_soon", AutoArchivedSoon)
history_index_int12 = service_variant("faulty:history_index_int12", HistoryIndexInt12)

PRIZE = "robots.4.10.prize_credited"
AUTO = "play.auto.answer"


@pytest.mark.slow  # 12 s of wall clock each
@pytest.mark.parametrize(
    ("factory", "variant", "requirement"),
    [
        ("old_account_soon", "play_old_account_wins_queued", PRIZE),
        ("auto_archived_soon", "play_auto_archived_wins_empty", AUTO),
    ],
)
def test_a_soak_rejects_what_changes_with_an_accounts_or_a_plays_age(
    factory: str,
    variant: str,
    requirement: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, report, _ = soak(
        f"python:tests.faulty.test_round4:{factory}", "0.2", tmp_path, capsys, (requirement,)
    )
    assert code == 1
    assert failed(report) == [requirement], failed(report)
    assert VARIANTS[variant].caught_by(failed(report))
    assert sessions(report)["outcome"] == "fail"


@pytest.mark.slow  # a soak of 66 s: paced players sign up late only in a span of a minute
def test_a_soak_rejects_a_wallet_that_treats_accounts_opened_alone_otherwise(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    variant = VARIANTS["play_lone_account_wins_queued"]
    target = f"python:tests.faulty.variants:{variant.name}"
    code, report, _ = soak(target, "1.1", tmp_path, capsys, (PRIZE,))
    assert code == 1
    assert failed(report) == [PRIZE] and variant.caught_by(failed(report))
    assert sessions(report)["outcome"] == "fail"


@pytest.mark.slow  # 5 000 plays through to a deep unit
def test_a_deep_play_rejects_a_history_index_too_narrow() -> None:
    """The registered variant wraps past unit 32 767, which the soak's play through to unit
    100 000 reaches; 12 bits wrap past 2 047, which a play through to unit 5 000 reaches."""
    variant = VARIANTS["play_history_index_int16"]
    scope = variant_scope(variant.area, variant.games)
    scope["settings"] = {"deep_units": 5000, "deep_budget_s": 300}
    target = "python:tests.faulty.test_round4:history_index_int12"
    outcome = certify(history_index_int12(), target=target, **scope)
    assert outcome.failed == ["robots.4.1.history_unrevealed"], outcome.failed
    assert variant.caught_by(outcome.failed)


class _BalanceReadFrozen(GameService):
    """A read cache that a race filled and never drops: every balance read answers the
    account's first (its plays' answers are right)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._first: dict[object, Document] = {}

    def balance(self, account_id: object, token: object) -> Document:
        return self._first.setdefault(account_id, super().balance(account_id, token))


def test_an_old_accounts_round_replayed_on_its_own_account_names_wins_queued_by_age() -> None:
    """A round of an old account that finds its plays' order broken is replayed one after
    another on fresh accounts (``overlap.serial_replay``), then on the round's own account
    (``overlap.own_account_replay``), each play there judged from the answer before it: a
    wallet that queues the wins of accounts past their welcome session breaks
    ``prize_credited`` there only (young accounts are right); a balance read the race left
    stale names nothing (the race is the fault), nor does the reference."""
    case = {"pairs": [["robots", 100]], "seed": 3, "rounds": 2}
    services = ((OldAccountSoonQueued, PRIZE), (_BalanceReadFrozen, None), (GameService, None))
    for service, named in services:
        adapter = reference_adapter(service, name="old-account-replay")
        try:
            session = Session.of(adapter, adapter.describe())
            account = session.open(100 * 300)
            session.balance(account)  # the read the race left in the cache
            session.play(account, "robots", 100)
            time.sleep(OldAccountSoonQueued.WELCOME_S + 0.2)  # the account past its welcome
            assert overlap.serial_replay(session, case, 2, "fresh") is None
            assert overlap.own_account_replay(session, case, account, 6) == named, service
        finally:
            adapter.close()
