"""The thirteenth red team's faults (tests/faulty/_round13_faults.py): each rejected for the
requirement it breaks and for no other, and correct controls that stay certified.

All three passed before this round: a ticket whose reveal session, reloaded after 1.2 to 4 s
of the ticket's idleness, shows the transposed button's symbol (a robots ticket's clicks came
back to back, or 0.2 to 1 s apart, their answers never judged); a listing read from a replica
5 s behind after the account lay quiet 3.1 to 4.9 s (every paced request came 0.5 to 3 s after
the last, an old account's rounds after 0.5 to 3 s or 5 s and more); a block stream that sends
a page again when its reader stopped for a second (every stream read at full speed).

What changed: as many slow tappers as paced players buy tickets through the span and look
at each as a person does (``players._tapping``, ``players._tapped_slowly``: a glance's read,
``TAPS`` clicks, a glance's read again, AUTO), the run's gaps stratified over a person's range
and dealt from the seed (``pace.stratified``, ``pace.dealt``); every click's answer of the
run's players is judged against the ticket (``players._taps_judged``); ``blocks.slices`` reads
the longest kept slice of up to ``SLOW_READS`` blocks the seed draws as a slow reader, stopped
once, the stalls stratified (``blocks.slow_reads``), judged against the audit's read at full speed;
and, since over HTTP a short slice is in the connection's buffers before its reader stops,
``LONG_SLOW_READS`` slices long enough that more is still to come than those buffers hold
(``blocks.long_slow_reads``), each read at full speed and again slowly.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.checks._block_reading import compare_slice
from conformance.checks._scenarios import players
from conformance.checks._scenarios.client import Session, ticket_buttons

from . import _round13_faults as r13
from ._base import reference_adapter, service_variant
from .certify import (
    assert_narrowed_run_names_the_fault,
    assert_rejected_for_its_requirement_alone,
    certify,
)
from .test_variants import scoped_outcome
from .variants import VARIANTS

ROUND_13 = (
    "play_slow_tap_buttons_transposed",
    "play_quiet_account_listing_from_replica",
    "block_slow_reader_page_repeated",
)
LISTING = [
    "play.history.complete",
    "play.history.limit",
    "robots.4.1.last_unit",
    "eldorado.4.2.last_unit",
]
NARROWED = {
    "play_slow_tap_buttons_transposed": ["robots.4.3.reveal_symbols", "robots.4.4.reveal_order"],
    "play_quiet_account_listing_from_replica": LISTING,
    "block_slow_reader_page_repeated": ["blocks.contract3.slice"],
}


def test_every_round_13_variant_is_registered() -> None:
    assert set(ROUND_13) <= set(VARIANTS)


@pytest.mark.slow
@pytest.mark.parametrize("name", ROUND_13)
def test_round_13_variant_rejected_for_its_requirement_and_no_other(name: str) -> None:
    assert_rejected_for_its_requirement_alone(VARIANTS[name], scoped_outcome(name))


@pytest.mark.slow
@pytest.mark.parametrize("name", ROUND_13)
def test_a_narrowed_run_names_the_fault(name: str) -> None:
    assert_narrowed_run_names_the_fault(VARIANTS[name].factory(), NARROWED[name], name)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("control", "requirements"),
    [
        (r13.SlowTapSessionReloaded, ["robots.4.3.reveal_symbols", "robots.4.4.reveal_order"]),
        (r13.QuietAccountListingFromPrimary, LISTING),
        (r13.SlowReaderCursorKept, ["blocks.contract3.slice"]),
    ],
)
def test_a_correct_control_stays_certified(control: type, requirements: list[str]) -> None:
    # the controls: a reveal session reloaded with the ticket's own buttons; a quiet account's
    # listing read from the primary; a stream cursor kept open however slow the reader
    factory = service_variant(f"faulty:{control.__name__}", control)
    outcome = certify(factory(), requirements=requirements)
    assert outcome.failed == [] and outcome.errored == [], (outcome.failed, outcome.errored)


def _slice_read_slowly(service: type, stalls: list[float]) -> list[list[str]]:
    """A slice of 600 units of robots' first block read at full speed, then read again
    stopped each of ``stalls`` seconds before its 300th line: what ``compare_slice`` finds."""
    adapter = reference_adapter(service, name="x")
    try:
        (entry, *_) = adapter.list_blocks("robots", 100)
        block_id, units = str(entry["block_id"]), int(entry["units"])
        stream = adapter.read_block(block_id, 1000, 600)
        kept = {1000 + n: line for n, line in enumerate(stream.lines())}
        stream.close()
        return [
            compare_slice(adapter, block_id, 1000, 1600, kept, units, {300: stall})
            for stall in stalls
        ]
    finally:
        adapter.close()


def test_a_slice_read_slowly_shows_a_page_sent_again() -> None:
    slow, fast = _slice_read_slowly(r13.SlowReaderPageRepeated, [r13.STALL_S + 0.1, 0.0])
    assert slow and any("read slowly" in p for p in slow), slow
    assert fast == []  # read at full speed: right
    assert _slice_read_slowly(r13.SlowReaderCursorKept, [r13.STALL_S + 0.1]) == [[]]


def _long_slice_read_slowly_over_http(
    service: type, stall: float, slow_first: bool = False
) -> list[str]:
    """A long slow read (``blocks.long_slow_reads``) of robots' first block, over HTTP (the
    variant served by uvicorn, read by the harness's HTTP client), stopped ``stall`` seconds:
    what ``compare_read_twice`` finds."""
    from conformance.checks._block_reading import compare_read_twice
    from conformance.checks.blocks import long_slow_reads
    from harness._http_adapter import HttpAdapter

    from .http_bridge import bridge

    with bridge(reference_adapter(service, name="x")) as url:
        adapter = HttpAdapter(url)
        try:
            (entry, *_) = adapter.list_blocks("robots", 100)
            block_id, units = str(entry["block_id"]), int(entry["units"])
            stream = adapter.read_block(block_id, 5000, 50)
            lines = list(stream.lines())
            stream.close()
            (_, lo, hi, stalls, _), *_ = long_slow_reads("0", [(block_id, units, lines)])
            stalls = dict.fromkeys(stalls, stall)
            return compare_read_twice(adapter, block_id, lo, hi, stalls, slow_first)
        finally:
            adapter.close()


def test_over_http_a_long_slow_read_shows_a_page_sent_again() -> None:
    """Over HTTP a short slice is in the connection's buffers before its reader stops (the
    page is not sent again: ``_slice_read_slowly``'s 600 units read slowly over HTTP were
    right); a long slow read stops with more to come than they hold, so the server's stream
    stops too, and the page sent again shows. A cursor kept open stays right."""
    for slow_first in (False, True):  # the slow read second, then first
        slow = _long_slice_read_slowly_over_http(
            r13.SlowReaderPageRepeated, r13.STALL_S + 1.0, slow_first
        )
        assert slow and any("read slowly" in p for p in slow), (slow_first, slow)
    assert _long_slice_read_slowly_over_http(r13.SlowReaderCursorKept, r13.STALL_S + 1.0) == []


def test_a_slow_read_over_http_has_a_connection_of_its_own_with_a_small_receive_buffer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``read_block_slowly``: a device of its own (a connection no audit's read warmed), whose
    sockets ask for a small receive buffer (the kernel would grow it to tens of megabytes,
    which a stalled reader's server fills before its writes block); ``read_block`` as before."""
    import socket

    import urllib3.connection

    from harness._http_adapter import SLOW_RECEIVE_BYTES, HttpAdapter

    from .http_bridge import bridge

    made: list[object] = []
    create = urllib3.connection.connection.create_connection

    def recorded(*args: Any, **kwargs: Any) -> Any:
        made.append(kwargs.get("socket_options"))
        return create(*args, **kwargs)

    monkeypatch.setattr(urllib3.connection.connection, "create_connection", recorded)
    small = (socket.SOL_SOCKET, socket.SO_RCVBUF, SLOW_RECEIVE_BYTES)
    with bridge(reference_adapter(name="x")) as url:
        adapter = HttpAdapter(url)
        try:
            (entry, *_) = adapter.list_blocks("robots", 100)
            for read in (adapter.read_block, adapter.read_block_slowly, adapter.read_block):
                made.clear()
                stream = read(str(entry["block_id"]), 10, 5)
                assert len(list(stream.lines())) == 5
                stream.close()
                slowly = read == adapter.read_block_slowly
                assert any(small in (o or []) for o in made) == slowly, (read, made)
        finally:
            adapter.close()


class _Named(Exception):
    def __init__(self, requirement: str, *_: Any) -> None:
        super().__init__(requirement)
        self.requirement = requirement


def _tapped(service: type, slow: players.Slow) -> tuple[players.Player, list[str]]:
    """A player's ticket tapped slowly (``slow``), its clicks judged: the requirements named."""
    adapter = reference_adapter(service, name="x")
    try:
        session = Session.of(adapter, adapter.describe())
        account = session.open(100 * 50)
        player = players.Player(account, "robots", 100, 100 * 50, paced=True)
        players._tapped_slowly(session, player, slow)
        try:
            players._taps_judged(player, _Named)
        except _Named as named:
            return player, [named.requirement]
        return player, []
    finally:
        adapter.close()


def test_a_ticket_tapped_slowly_has_every_click_judged() -> None:
    # buttons in turn from one the seed draws: the second tap after 1.5 s of the ticket's
    # idleness, on the transposed fault, shows the transposed button's next symbol
    slow = players.Slow((0.05, 1.5), (0.05, 0.05), "t")
    player, named = _tapped(r13.SlowTapSessionReloaded, slow)
    (one,) = player.bought
    assert one.finished and len(one.shown) == 2 and named == []
    assert player.pages and player.reads  # the glance's read, judged with the span's
    player, named = _tapped(r13.SlowTapButtonsTransposed, slow)
    (one,) = player.bought
    buttons = ticket_buttons("robots", str(one.ticket))
    assert buttons is not None
    button, number, got = one.shown[1]
    other = buttons[r13._transposed(button)]
    assert got == other[min(number, len(other) - 1)]  # what the fault shows
    if got != buttons[button][number]:  # the transposed button's symbol differs: named
        # the reveal rule after buttons in turn from button 0, the order rule otherwise
        # (``reveal.revealed_on``'s reading)
        natural = [b for b, reveals in enumerate(buttons) for _ in reveals]
        in_turn = one.order == natural[: len(one.order)]
        assert named == ["robots.4.3.reveal_symbols" if in_turn else "robots.4.4.reveal_order"]


def test_a_click_judged_wrong_names_the_order_rule_off_buttons_in_turn() -> None:
    ticket = "OHPSCTQD|C D T S C S D T S P H O C S P D C P"  # contract 1's: one symbol a button
    buttons = ticket_buttons("robots", ticket)
    assert buttons is not None
    one = players.Bought({"play_id": "p"}, "robots", 100, ticket=ticket, prize=0)
    player = players.Player(None, "robots", 100, 0, paced=True)  # type: ignore[arg-type]
    player.bought = [one]
    one.order, one.shown = [0, 1], [(0, 0, buttons[0][0]), (1, 0, buttons[1][0])]
    players._taps_judged(player, _Named)  # right: nothing named
    one.shown = [(0, 0, buttons[0][0]), (1, 0, buttons[2][0])]  # button 1 showed 2's "T"
    with pytest.raises(_Named, match=r"robots\.4\.3\.reveal_symbols"):
        players._taps_judged(player, _Named)
    one.order = [3, 4]  # buttons in turn, but from another first one: a click order's
    one.shown = [(3, 0, buttons[3][0]), (4, 0, buttons[2][0])]  # fault (button 4 showed "T")
    with pytest.raises(_Named, match=r"robots\.4\.4\.reveal_order"):
        players._taps_judged(player, _Named)
    one.order = [0, 5]  # not buttons in turn: the order rule
    one.shown = [(0, 0, buttons[0][0]), (5, 0, buttons[2][0])]  # button 5 showed 2's "T"
    with pytest.raises(_Named, match=r"robots\.4\.4\.reveal_order"):
        players._taps_judged(player, _Named)


def test_a_slice_read_slowly_replays_slowly() -> None:
    from conformance.checks._block_evidence import BlockEvidence

    adapter = reference_adapter(r13.SlowReaderPageRepeated, name="x")
    try:
        (entry, *_) = adapter.list_blocks("robots", 100)
        case = {
            "kind": "block",
            "block_id": entry["block_id"],
            "game": "robots",
            "stake_cents": 100,
            "aspect": "slice",
            "start": 1000,
            "count": 600,
        }
        assert BlockEvidence.replay(adapter, case) is None  # at full speed: right
        again = BlockEvidence.replay(adapter, {**case, "stalls": {"300": r13.STALL_S + 0.1}})
        assert again is not None and again.input["stalls"] == {"300": r13.STALL_S + 0.1}
    finally:
        adapter.close()
