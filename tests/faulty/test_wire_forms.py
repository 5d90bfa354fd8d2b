"""Each wire variant read by the HTTP adapter, one request of each operation (fast tier): no
fault, the documents the reference answers, and the wire's reservations the variant gives
(the whole run of each is ``test_wire_variants.py``'s, slow tier)."""

from __future__ import annotations

import time

import pytest

from contract import Validated
from harness import ErrorReply, HttpAdapter
from harness._runner import wire_reservations
from harness._transport import FRESH_AFTER_S, IDLE_SHARE

from .wire_variants import CHECK_BASES, WIRE_RESERVATIONS, WIRE_VARIANTS, wire_variant

FORMS = [name for name, options in WIRE_VARIANTS.items() if not options.get("rate")]
TICKET = "OHPSCTQD|C D2+P S S C S D T S P H O C S T D C C"


@pytest.mark.parametrize("name", FORMS)
def test_one_request_of_each_operation_is_read_right(name: str) -> None:
    with wire_variant(name) as url:
        http = HttpAdapter(url, timeout=20)
        adapter = Validated(http)
        try:
            assert set(adapter.describe()["games"]) == {"robots", "eldorado"}
            good, bad = adapter.evaluate("robots", 100, [TICKET, "nonsense"])
            assert good["prize_cents"] == 100 and bad["error"]["code"]
            (listed, *_) = adapter.list_blocks("robots", 100)
            with adapter.read_block(str(listed["block_id"]), 10, 5) as stream:
                assert stream.header["block_id"] == listed["block_id"]
                assert len(list(stream.lines())) == 5
            with adapter.read_block(str(listed["block_id"]), 10, 5) as stream:
                assert b"".join(stream.chunks()).count(b"\n") == 5
            account = adapter.open_account(1000)
            mine, token = account["account_id"], account["token"]
            play = adapter.play(mine, token, "robots", 100)
            assert play["block_id"] == listed["block_id"]
            adapter.reveal(play["play_id"], token, 0)
            done = adapter.auto(play["play_id"], token)
            assert done["play_id"] == play["play_id"]
            (entry,) = adapter.history(mine, token, 5)["plays"]
            assert entry["play_id"] == play["play_id"] and entry["ticket"] == done["ticket"]
            assert adapter.balance(mine, token)["balance_cents"] == play["balance_cents"]
            with pytest.raises(ErrorReply) as refused:
                adapter.balance(mine, token + "x")
            assert refused.value.status == 401
        finally:
            adapter.close()
        bases = {made["basis"] for made in wire_reservations(http)}
        assert bases == WIRE_RESERVATIONS.get(name, frozenset()) - CHECK_BASES


def test_a_short_keep_alive_timeout_is_learnt_for_plays_and_reveals() -> None:
    """A connection found closed after 0.3 s idle: plays and reveals then take a new one past
    a quarter of that (``harness._transport.IdleCloses``), reads keep theirs."""
    with wire_variant("keep_alive_300ms") as url:
        adapter = HttpAdapter(url, timeout=20)
        try:
            assert adapter.idle_closes.fresh_after() == FRESH_AFTER_S
            adapter.describe()
            time.sleep(0.5)
            adapter.describe()  # its connection found closed: sent on a new one
            assert 0.5 <= adapter.idle_closes.shortest < 5
            assert adapter.idle_closes.fresh_after() == adapter.idle_closes.shortest * IDLE_SHARE
        finally:
            adapter.close()
