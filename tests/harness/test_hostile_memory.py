"""Bounded memory for everything a target sends (docs/http-api.md, "Bounded answers"): each
answer is held to its operation's size (on the wire and once inflated) and to the memory its
parsed value may take, counted before it is built; over a limit, an *error* that names it.

The memory a refused answer cost is measured with ``tracemalloc`` (the Python allocations of
this process, while the call runs): before the limits, a 4 MiB answer of ``{"x":[{},{},...]}``
took about 100 MiB to parse, and the issue's 24 MiB one 1.9 GB.
"""

from __future__ import annotations

import socket
import threading
import tracemalloc
import zlib
from collections.abc import Callable

import pytest

from harness import HttpAdapter, ProtocolViolation, TargetError, open_target
from reference._strict_json import JsonError, loads, structure
from tests.faulty.certify import certify
from tests.faulty.hostile_memory import MIB, PAYLOADS, deep, empty_objects, serve_payload
from tests.faulty.hostile_transport import RawTarget, read_request

DESCRIBE = (("GET", "/v1/implementation"),)
EVALUATE = (("POST", "/v1/evaluate"),)
PLAY_ANSWERS = (
    ("POST", "/v1/accounts"),
    ("GET", "/v1/accounts/{account_id}"),
    ("POST", "/v1/accounts/{account_id}/plays"),
    ("GET", "/v1/accounts/{account_id}/history"),
)
PEAK_BOUND = 40 * MIB  # what one refused answer may cost, at most (its limits: 16 MiB)


def peak_of(call: Callable[[], object]) -> tuple[BaseException | None, int]:
    tracemalloc.start()
    try:
        call()
        raised = None
    except Exception as exc:  # the fault, returned for the test to judge
        raised = exc
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return raised, peak


@pytest.mark.parametrize("name", sorted(PAYLOADS))
def test_a_hostile_describe_is_refused_naming_its_limit(name: str) -> None:
    with serve_payload(name, DESCRIBE, size_mib=4) as url:
        adapter = HttpAdapter(url, timeout=20)
        raised, peak = peak_of(adapter.describe)
        adapter.close()
    assert isinstance(raised, ProtocolViolation), raised
    assert "limit" in str(raised)
    assert peak < PEAK_BOUND, f"{peak / MIB:.0f} MiB"


@pytest.mark.parametrize("name", sorted(PAYLOADS))
def test_a_hostile_evaluate_answer_costs_a_bounded_memory(name: str) -> None:
    """1.5 MiB: inside the size limit of a batch's answer (2 MiB), so the memory limit or the
    shape decides."""
    with serve_payload(name, EVALUATE, size_mib=1.5) as url:
        adapter = HttpAdapter(url, timeout=20)
        raised, peak = peak_of(lambda: adapter.evaluate("robots", 100, ["x"]))
        adapter.close()
    assert isinstance(raised, ProtocolViolation), raised
    assert peak < PEAK_BOUND, f"{peak / MIB:.0f} MiB"


def test_the_memory_limit_names_itself() -> None:
    with serve_payload("empty objects", EVALUATE, size_mib=1.5) as url:
        adapter = HttpAdapter(url, timeout=20)
        with pytest.raises(ProtocolViolation, match=r"over its memory limit: .* 16\.0 MiB"):
            adapter.evaluate("robots", 100, ["x"])
        adapter.close()


def test_a_gzip_bomb_is_cut_by_its_inflation() -> None:
    """A block stream has no size limit (it is read line by line): the ratio cuts it."""
    with serve_payload("gzip bomb of empty objects", (("GET", "/v1/blocks"),), 24) as url:
        adapter = HttpAdapter(url, timeout=20)
        with pytest.raises(TargetError, match=r"limit|inflates"):
            adapter.list_blocks("robots", 100)
        adapter.close()


def test_a_run_against_a_describe_bomb_stops_naming_the_limit() -> None:
    with serve_payload("gzip bomb of empty objects", DESCRIBE) as url:
        outcome = certify(open_target(url, timeout=20), target=url, games=["robots"])
    assert outcome.exit_code == 2
    assert all("limit" in message for message in outcome.messages.values())


def test_a_run_against_play_answer_bombs_ends_in_error() -> None:
    requirements = ["robots.4.1.stake_debited", "play.money.exact"]
    with serve_payload("gzip bomb of empty objects", PLAY_ANSWERS, size_mib=4) as url:
        outcome = certify(open_target(url, timeout=20), target=url, requirements=requirements)
    assert outcome.errored == sorted(requirements)
    assert not outcome.failed
    assert all("limit" in outcome.messages[r] for r in requirements)


# -- the strict parser: structure counted before anything is built ---------------------------


def test_structure_counts_outside_strings() -> None:
    text = b'{"a":[1,2,{"b":"x[{,:y\\"]"}],"c":"\\\\"}'
    assert structure(text) == (3, 3 + 6, 3)
    assert structure(text.decode()) == structure(text)
    assert structure(b"[[[]]]").depth == 3
    assert structure(b'"[[["').containers == 0


def test_the_cost_bound_refuses_before_parsing() -> None:
    text = empty_objects(4 * MIB)
    raised, peak = peak_of(lambda: loads(text, max_cost=16 * MIB))
    assert isinstance(raised, JsonError) and "16.0 MiB" in str(raised)
    assert peak < 3 * len(text)  # a copy of the text without its strings, no parsed value


def test_depth_is_counted_without_a_copy_per_level() -> None:
    text = deep(2 * MIB)
    raised, peak = peak_of(lambda: loads(text))
    assert isinstance(raised, JsonError) and "deeper than 64" in str(raised)
    assert peak < 3 * len(text)


def test_a_block_stream_inflating_a_thousand_times_is_cut() -> None:
    """A block stream has no size of its own (a whole block is hundreds of megabytes, read line
    by line): a gzip bomb of short lines is cut by its inflation ratio."""
    header = (
        b'{"format":"block/1","game":"robots","stake_cents":100,"block_id":"b",'
        b'"units":2000000,"start":0,"count":2000000}\n'
    )
    squeezer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    body = squeezer.compress(header + b'{"index":0}\n' * 2_000_000) + squeezer.flush()

    def behaviour(conn: socket.socket, stop: threading.Event) -> None:
        read_request(conn)
        conn.sendall(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\n"
            b"Content-Encoding: gzip\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
        )

    with RawTarget(behaviour) as url:
        adapter = HttpAdapter(url, timeout=20)
        with pytest.raises(ProtocolViolation, match="inflates more than 200 times"):
            for _ in adapter.read_block("b").lines():
                pass
        adapter.close()
