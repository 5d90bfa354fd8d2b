"""The twelfth red team's vendors that know the harness (tests/faulty/_round12_seen_faults.py):
each rejected for the requirement it breaks, and the harness's traffic a population of
devices no vendor can single out.

All four passed before this round, because every request of a run came from one client: a
gateway that sends every client but ``okhttp/`` to a wallet crediting wins at AUTO (every
request said ``okhttp/4.12.0``); a play body scanner that reads ``game`` then ``stake_cents``
and otherwise takes the default stake (every body's keys came in the contract's order); a
token checked once per kept-alive connection (a request without the account's token, or
with another's, never came on a connection its token had opened); an auth module that reads
the web session cookie ahead of a bad Bearer token for bodies typed as OkHttp types them
(the probes sent as written, the only requests with a cookie, were typed
``application/json`` by ``requests``, their JSON spaced as Python writes it).

What changed (``harness/_clients.py``): each account is a device of its own, drawn from the
run's seed: OkHttp (``okhttp/4.x``), Dalvik's agent, or URLSession (iOS), each with its
version, headers and their order, and its JSON writer's key order; every request naming an
account or a play, with its token or not, comes from that account's device, on its
connections. The run's devices cycle through the families.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from harness import HttpAdapter
from harness._clients import FAMILIES, Devices, draw_client

from ._base import reference_adapter
from ._protocol_faults import BridgedHttp
from .certify import certify
from .http_bridge import Serving, create_app
from .test_freedoms import check_outcome
from .test_variants import scoped_outcome
from .variants import VARIANTS

ROUND_12 = (
    "http_other_clients_wins_queued",
    "http_play_keys_in_another_order_at_default_stake",
    "http_token_checked_once_per_connection",
    "http_app_bodies_cookie_over_bad_bearer",
)
#: each variant and a requirement a run narrowed to it fails
NARROWED = {
    "http_other_clients_wins_queued": "robots.4.10.prize_credited",
    "http_play_keys_in_another_order_at_default_stake": "eldorado.4.2.stake_debited",
    "http_token_checked_once_per_connection": "security.tokens.isolation",
    "http_app_bodies_cookie_over_bad_bearer": "security.tokens.bearer_only",
}
FAST = (
    "http_token_checked_once_per_connection",
    "http_app_bodies_cookie_over_bad_bearer",
    "http_play_keys_in_another_order_at_default_stake",
)


def test_every_round_12_variant_is_registered() -> None:
    assert set(ROUND_12) <= set(VARIANTS)


@pytest.mark.slow
@pytest.mark.parametrize("name", ROUND_12)
def test_round_12_variant_rejected_for_its_requirement(name: str) -> None:
    variant, outcome = VARIANTS[name], scoped_outcome(name)
    assert outcome.verdict == "NOT CERTIFIED", outcome.note
    assert variant.caught_by(outcome.failed), outcome.failed
    assert outcome.errored == [], outcome.errored


@pytest.mark.parametrize(
    "name", [n if n in FAST else pytest.param(n, marks=pytest.mark.slow) for n in ROUND_12]
)
def test_a_narrowed_run_names_the_fault(name: str) -> None:
    requirement = NARROWED[name]
    outcome = certify(VARIANTS[name].factory(), requirements=[requirement], target=name)
    assert requirement in outcome.failed, (outcome.failed, outcome.errored)
    assert outcome.errored == [], outcome.errored


def test_the_wallet_of_other_clients_is_met_by_one_check() -> None:
    # the fast one beside the narrowed run (the player sessions: 80 s): the prize check alone
    outcome = check_outcome(
        VARIANTS["http_other_clients_wins_queued"].factory(), "play.robots_prize_credited"
    )
    assert outcome.outcome == "fail", outcome.message
    assert "robots.4.10.prize_credited" in outcome.requirements, outcome.requirements


def test_the_reference_over_the_bridge_passes_the_same_check() -> None:
    # the control: the reference over the same bridge, no gateway tagging its clients
    outcome = check_outcome(_reference_over_http(), "play.robots_prize_credited")
    assert outcome.outcome == "pass", outcome.message


def _reference_over_http() -> Any:
    inner = reference_adapter(name="correct:round12")
    return BridgedHttp(Serving(create_app(inner), on_close=inner.close))


# -- the devices, without a target -------------------------------------------------------------


def test_a_run_devices_are_its_seed_s_and_every_family_plays() -> None:
    first = [draw_client(7, n) for n in range(30)]
    again = [draw_client(7, n) for n in range(30)]
    other = [draw_client(8, n) for n in range(30)]
    assert [c.headers for c in first] == [c.headers for c in again]
    assert [c.headers for c in first] != [c.headers for c in other]
    for window in range(0, 30, len(FAMILIES)):  # every family in each run of three devices
        assert {c.family for c in first[window : window + len(FAMILIES)]} == set(FAMILIES)
    assert len({c.user_agent for c in first}) >= 8
    assert {c.keys for c in first} == {"declared", "reversed", "shuffled"}


def test_a_device_writes_its_bodies_its_own_way() -> None:
    body = {"game": "eldorado", "stake_cents": 50}
    orders = set()
    for number in range(12):
        client = draw_client(3, number)
        written = {tuple(json.loads(client.body(body))) for _ in range(8)}
        assert all(json.loads(client.body(body)) == body for _ in range(3))
        assert len(written) == (2 if client.keys == "shuffled" else 1), client
        orders |= written
        assert b" " not in client.body(body)  # compact, as a phone's JSON library writes
    assert orders == {("game", "stake_cents"), ("stake_cents", "game")}


def test_a_lab_s_user_agent_is_every_device_s() -> None:
    devices = Devices(5, "ACME-lab/1")
    assert {devices.client(n).user_agent for n in range(9)} == {"ACME-lab/1"}


def test_a_request_naming_an_account_comes_from_its_device() -> None:
    adapter = HttpAdapter("http://127.0.0.1:9")
    adapter.reseed(11)
    device = adapter.devices.new()
    adapter.devices.own(device, "account", "acc/1")
    adapter.devices.own(device, "token", "tok-1")
    adapter.devices.own(device, "play", "p-1")
    for path, token in (
        ("/v1/accounts/acc%2F1", None),  # the app logged out
        ("/v1/accounts/acc%2F1/history", "mistyped"),
        ("/v1//accounts/acc%2F1/plays/", "another's"),  # a probe's spelling
        ("/v1/plays/p-1/reveal", None),
        ("/v1/plays/unknown/auto", "tok-1"),  # by its token
    ):
        # its device, or its second one for a player on two devices (harness._clients)
        assert adapter._device(path, token) in adapter.devices.devices_of(device), path
    assert adapter._device("/v1/evaluate", None) < Devices.TOOLS
    prepared = adapter._prepare(
        "POST", "/v1/plays/p-1/reveal", {"button": 1}, {}, None, adapter.devices.client(device)
    )
    assert prepared.headers["User-Agent"] == adapter.devices.client(device).user_agent
    adapter.close()


def test_the_devices_remember_the_newest_plays_only(monkeypatch: pytest.MonkeyPatch) -> None:
    # a soak buys hundreds of thousands of plays: their devices are kept for the newest only
    monkeypatch.setattr(Devices, "PLAYS_KEPT", 3)
    devices = Devices(1)
    owner = devices.new()
    devices.own(owner, "account", "acc-1")
    for n in range(5):
        devices.own(owner, "play", f"p-{n}")
    assert [devices.of("play", f"p-{n}") for n in range(5)] == [None, None, owner, owner, owner]
    assert devices.of("account", "acc-1") == owner  # accounts and tokens are never let go
