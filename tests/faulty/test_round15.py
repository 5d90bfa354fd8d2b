"""The fifteenth red team's faults (tests/faulty/_round15_faults.py): each rejected for the
requirement it breaks and for no other, and correct controls that stay certified.

All three passed before this round: a wallet that queues the lots of plays from a device other
than the one the account signed up on (every account of the suite was played from its sign-up
device to its end); a token cache that lets a token unused for 10 s open any account, and a
wallet that queues the lot of an account's first play after 10 s without one (no account of
the run lay idle longer than a person's pause or the player sessions' span, 5 to 6 s).

What changed: one account in ``Devices.SECOND_SHARE`` is a player on two devices
(``harness._clients.Devices.sender``: after its first requests, its requests come in runs
from one device or the other); the player sessions open ``SLEEPERS`` accounts that play once
as the scenario starts and come back at its very end (``players._sleepers``,
``players._sleepers_back``): a play judged for its balance and the token's probe of another
account, in either order.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from conformance.checks._scenarios import players
from conformance.checks._scenarios.client import Session, case_of
from harness import HttpAdapter
from harness._clients import Devices

from . import _round15_faults as r15
from ._base import reference_adapter, service_variant
from .certify import (
    assert_narrowed_run_names_the_fault,
    assert_rejected_for_its_requirement_alone,
    certify,
)
from .test_variants import scoped_outcome
from .variants import VARIANTS

ROUND_15 = (
    "http_second_device_wins_queued",
    "play_idle_token_opens_any_account",
    "play_idle_account_wins_queued",
)
NARROWED = {
    "http_second_device_wins_queued": ["robots.4.10.prize_credited", "play.money.exact"],
    "play_idle_token_opens_any_account": ["security.tokens.isolation"],
    "play_idle_account_wins_queued": [
        "robots.4.10.prize_credited",
        "eldorado.4.6.prize_credited",
        "play.money.exact",
    ],
}


def test_every_round_15_variant_is_registered() -> None:
    assert set(ROUND_15) <= set(VARIANTS)


@pytest.mark.slow
@pytest.mark.parametrize("name", ROUND_15)
def test_round_15_variant_rejected_for_its_requirement_and_no_other(name: str) -> None:
    assert_rejected_for_its_requirement_alone(VARIANTS[name], scoped_outcome(name))


@pytest.mark.slow
@pytest.mark.parametrize("name", ROUND_15)
def test_a_narrowed_run_names_the_fault(name: str) -> None:
    assert_narrowed_run_names_the_fault(VARIANTS[name].factory(), NARROWED[name], name)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("factory", "requirements"),
    [
        (
            r15.device_variant(r15.SecondDeviceCredited, "correct")("second_device"),
            ["robots.4.10.prize_credited", "play.money.exact"],
        ),
        (
            service_variant("correct:idle_token", r15.IdleTokensChecked),
            ["security.tokens.isolation"],
        ),
        (
            service_variant("correct:idle_account", r15.IdleAccountCredited),
            ["robots.4.10.prize_credited", "eldorado.4.6.prize_credited", "play.money.exact"],
        ),
    ],
)
def test_a_correct_control_stays_certified(factory: Any, requirements: list[str]) -> None:
    outcome = certify(factory(), requirements=requirements)
    assert outcome.failed == [] and outcome.errored == [], (outcome.failed, outcome.errored)


# -- a player on two devices ------------------------------------------------------------------


def _senders(devices: Devices, owner: int, requests: int) -> list[int]:
    return [devices.sender(owner) for _ in range(requests)]


def test_one_account_in_three_is_played_from_two_devices() -> None:
    devices = Devices(11)
    owners = [devices.new() for _ in range(60)]
    sent = {owner: _senders(devices, owner, 40) for owner in owners}
    two = [owner for owner in owners if len(set(sent[owner])) == 2]
    assert 10 <= len(two) <= 30, len(two)  # about one in SECOND_SHARE
    for owner in owners:
        first = sent[owner][: Devices.FIRST_ON_ONE]
        assert first == [owner] * Devices.FIRST_ON_ONE  # the sign-up's device first
        assert set(sent[owner]) == set(devices.devices_of(owner))
    for owner in two:  # on its own second device (no other account's), of another family
        (second,) = set(sent[owner]) - {owner}
        assert second == Devices.SECOND_BASE + owner
        assert devices.client(second).family != devices.client(owner).family
    assert devices.new() == owners[-1] + 1  # the second devices take no sign-up's number
    again = Devices(11)
    assert [again.new() for _ in range(60)] == owners
    assert {o: _senders(again, o, 40) for o in owners} == sent  # the seed's, every run
    assert devices.sender(0) == 0  # a device of no account is never moved


def _played_through_http(monkeypatch: pytest.MonkeyPatch, share: int) -> list[str]:
    """Six accounts over the faulty gateway, 15 robots plays each (AUTO after each): the plays
    whose answered balance lacked their lot."""
    monkeypatch.setattr(Devices, "SECOND_SHARE", share)
    adapter: HttpAdapter = r15.device_variant(r15.SecondDeviceWinsQueued)("x")()
    short = []
    try:
        adapter.reseed(3)
        for _ in range(6):
            opened = adapter.open_account(10_000)
            account, token = opened["account_id"], opened["token"]
            balance = int(opened["balance_cents"])
            for _ in range(15):
                played = adapter.play(account, token, "robots", 100)
                prize = int(adapter.auto(played["play_id"], token)["prize_cents"])
                if played["balance_cents"] != balance - 100 + prize:
                    short.append(str(played["play_id"]))
                balance = balance - 100 + prize
    finally:
        adapter.close()
    return short


def test_a_second_device_s_play_shows_a_lot_held(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _played_through_http(monkeypatch, 1)  # every account on two devices: found
    # what hid it: every account played from the device it signed up on
    assert _played_through_http(monkeypatch, 10**9) == []


# -- sleepers: the longest idle of the run -----------------------------------------------------

PAIRS = [("robots", 100), ("eldorado", 50), ("eldorado", 200)]


def _slept(service: type, idle_s: float) -> Any:
    """The player sessions' sleepers (12 of them, so that coming back at once is well under
    the fault's threshold) on ``service``, back after ``idle_s``: their evidence."""
    adapter = reference_adapter(service, name="x")
    try:
        session = Session.of(adapter, adapter.describe())
        case = case_of("player_sessions", seed=5, pairs=PAIRS)
        sleepers = players._sleepers(session, case, PAIRS, 5)
        time.sleep(idle_s)
        return players._sleepers_back(session, case, sleepers)
    finally:
        adapter.close()


def test_a_sleeper_s_old_token_is_refused_another_account(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(players, "SLEEPERS", 12)
    monkeypatch.setattr(r15, "TOKEN_IDLE_S", 0.5)
    found = _slept(r15.IdleTokenOpensAnyAccount, 0.7)
    assert found is not None and "security.tokens.isolation" in found.input["requirement"]
    assert _slept(r15.IdleTokenOpensAnyAccount, 0.0) is None  # back at once: hidden
    assert _slept(r15.IdleTokensChecked, 0.7) is None


def test_a_sleeper_s_first_play_back_is_credited(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(players, "SLEEPERS", 12)
    monkeypatch.setattr(r15, "WALLET_SESSION_S", 0.5)
    found = _slept(r15.IdleAccountWinsQueued, 0.7)
    assert found is not None and found.input["requirement"].endswith(".prize_credited"), found
    assert _slept(r15.IdleAccountWinsQueued, 0.0) is None  # back at once: hidden
    assert _slept(r15.IdleAccountCredited, 0.7) is None
