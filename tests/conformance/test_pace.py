"""A person's pace (``conformance/checks/_pace.py``): the run's gaps stratified over a
human range and dealt from the seed, reproducible, covering every window of the range; the
player sessions' slow tickets and the slow stream reads drawn from them."""

from __future__ import annotations

import math
import random
import time
from collections.abc import Iterator
from typing import Any

import pytest

from conformance.checks import _block_reading
from conformance.checks import _pace as pace
from conformance.checks._scenarios import players
from conformance.checks.blocks import (
    LONG_SLOW_READS,
    SLOW_HEAD_BYTES,
    SLOW_READS,
    SLOW_TAIL_BYTES,
    long_slow_reads,
    slow_reads,
)


def test_stratified_gaps_are_one_a_stratum_within_bounds_and_reproducible() -> None:
    for count in (1, 5, 48):
        gaps = pace.stratified(random.Random(7), count, pace.TAP_S)
        assert gaps == pace.stratified(random.Random(7), count, pace.TAP_S)
        assert gaps != pace.stratified(random.Random(8), count, pace.TAP_S)
        low, high = (math.log(b) for b in pace.TAP_S)
        strata = sorted(int((math.log(g) - low) / (high - low) * count) for g in gaps)
        assert strata == list(range(count))  # one in each stratum
    assert pace.stratified(random.Random(1), 0, pace.TAP_S) == []


def test_any_window_of_the_range_a_little_wider_than_a_stratum_holds_a_gap() -> None:
    count = 48  # a test run's tap gaps: 16 paced players, TAPS + 1 each
    low, high = pace.TAP_S
    ratio = (high / low) ** (2 / count)  # two strata wide: always holds a whole one
    for seed in range(20):
        gaps = pace.stratified(random.Random(seed), count, pace.TAP_S)
        start = low
        while start * ratio <= high:
            assert any(start <= g < start * ratio for g in gaps), (seed, start)
            start *= 1.05


def test_dealt_hands_out_every_gap_in_balanced_shares_from_the_seed() -> None:
    gaps = pace.stratified(random.Random(3), 30, pace.TAP_S)
    shares = pace.dealt(random.Random(4), gaps, 10)
    assert sorted(g for share in shares for g in share) == sorted(gaps)
    assert [len(s) for s in shares] == [3] * 10
    sums = [sum(s) for s in shares]
    assert max(sums) - min(sums) <= max(gaps)  # dealt back and forth: near the mean
    assert shares == pace.dealt(random.Random(4), gaps, 10)
    assert shares != pace.dealt(random.Random(5), gaps, 10)  # who gets which: the seed's


def test_each_tapper_has_its_slow_ticket_from_the_seed() -> None:
    slow = players._slow_shares(42, 16)
    assert slow == players._slow_shares(42, 16)
    assert slow != players._slow_shares(43, 16)
    assert len(slow) == 16
    for one in slow:
        assert len(one.taps) == players.TAPS and len(one.glances) == players.GLANCES
        assert all(pace.TAP_S[0] <= g <= pace.TAP_S[1] for g in one.taps)
        assert all(pace.GLANCE_S[0] <= g <= pace.GLANCE_S[1] for g in one.glances)
    # every stratum's gap is someone's: all the taps and glances of the run, dealt
    taps = sorted(g for one in slow for g in one.taps)
    assert taps == sorted(pace.stratified(random.Random("42:pace"), 32, pace.TAP_S))
    # the slow glances and taps are not always the same players' (no fixed subset)
    longest = {
        max(range(16), key=lambda n: max(shares[n].glances))
        for shares in (players._slow_shares(seed, 16) for seed in range(10))
    }
    assert len(longest) > 1
    sums = [sum(one.taps) + sum(one.glances) for one in slow]
    assert max(sums) < 2 * sum(sums) / len(sums)  # the slowest tapper near the rest


def test_slow_reads_are_the_longest_kept_slices_of_blocks_the_seed_draws() -> None:
    blocks = [(f"b{n}", [(0, 1), (10, 17), (100, 150), (99, 100)]) for n in range(5)]
    slow = slow_reads("seed", blocks)
    assert len(slow) == SLOW_READS
    assert {(lo, hi) for _, lo, hi in slow} == {(100, 150)}
    for stalls in slow.values():
        ((at, pause),) = stalls.items()
        assert 1 <= at < 50 and pace.STALL_S[0] <= pause <= pace.STALL_S[1]
    assert slow == slow_reads("seed", blocks)
    picked = {frozenset(b for b, *_ in slow_reads(str(s), blocks)) for s in range(10)}
    assert len(picked) > 1  # which blocks are read slowly: the seed's
    assert len(slow_reads("s", blocks[:2])) == 2  # every block when fewer


def test_long_slow_reads_stop_with_more_to_come_than_a_connection_buffers() -> None:
    """A slice read slowly over HTTP is all in the connection's buffers before its reader
    stops, unless more is still to come than they hold (``SLOW_TAIL_BYTES``): the long slow
    reads stop early, at a line the seed draws, for stalls stratified over the run."""
    lines = [b"x" * 99] * 10  # 100 bytes a line, its newline included
    blocks = [("a", 2_000_000, lines), ("b", 900_000, lines)]
    reads = long_slow_reads("seed", blocks)
    assert len(reads) == LONG_SLOW_READS and reads == long_slow_reads("seed", blocks)
    for block_id, lo, hi, stalls, _ in reads:
        ((at, pause),) = stalls.items()
        units = dict((b, u) for b, u, _ in blocks)[block_id]
        assert 0 <= lo < hi <= units
        assert 1 <= at <= SLOW_HEAD_BYTES // 100
        assert (hi - lo - at) * 100 >= SLOW_TAIL_BYTES  # more to come than buffers hold
        assert pace.STALL_S[0] <= pause <= pace.STALL_S[1]
    pauses = sorted(p for *_, stalls, _ in reads for p in stalls.values())
    middle = (pace.STALL_S[0] * pace.STALL_S[1]) ** 0.5  # one stall in each stratum
    assert pauses[0] <= middle <= pauses[1]
    assert len({tuple(r[:3]) for s in range(8) for r in long_slow_reads(str(s), blocks)}) > 8
    small = long_slow_reads("seed", [("c", 300, lines)])
    assert {(lo, hi) for _, lo, hi, *_ in small} == {(0, 300)}  # a small block: whole
    firsts = {r[4] for s in range(8) for r in long_slow_reads(str(s), blocks)}
    assert firsts == {True, False}  # the slow read before or after the fast one: the seed's
    assert long_slow_reads("seed", [("d", 300, [])]) == []  # no line to size it by


class _Stream:
    def __init__(self, lines: list[bytes], pulled: list[int]) -> None:
        self._lines, self._pulled = lines, pulled

    def lines(self) -> Iterator[bytes]:
        for n, line in enumerate(self._lines):
            self._pulled.append(n)
            yield line


def test_a_slow_reader_stops_before_the_lines_drawn(monkeypatch: pytest.MonkeyPatch) -> None:
    slept: list[tuple[float, int]] = []
    pulled: list[int] = []
    monkeypatch.setattr(_block_reading.time, "sleep", lambda s: slept.append((s, len(pulled))))
    stream = _Stream([b"a", b"b", b"c", b"d"], pulled)
    got = list(_block_reading.stalled_lines(stream, 3, {2: 1.5}))
    assert got == [b"a", b"b", b"c"]
    assert slept == [(1.5, 2)]  # after two lines pulled, before the third


class _Stop(Exception):
    pass


def test_a_tapper_taps_round_after_round_its_first_ticket_always(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tapped: list[players.Slow] = []

    def record(session: object, player: object, slow: players.Slow) -> None:
        tapped.append(slow)
        if len(tapped) == 3:
            raise _Stop

    monkeypatch.setattr(players, "_tapped_slowly", record)
    player = players.Player(None, "robots", 100, 10_000, paced=True)  # type: ignore[arg-type]
    now = time.monotonic()
    with pytest.raises(_Stop):  # a long span: round after round, each its own draws
        players._tapping(None, player, 7, 2, 4, now + 1000)  # type: ignore[arg-type]
    assert tapped == [players._slow_shares(f"7:{turn}", 4)[2] for turn in range(3)]
    tapped.clear()
    players._tapping(None, player, 7, 2, 4, now - 1)  # type: ignore[arg-type]
    assert tapped == [players._slow_shares("7:0", 4)[2]]  # past the deadline: the first only
    tapped.clear()
    player.limited = True  # a limit of its own reached: no more
    players._tapping(None, player, 7, 2, 4, now + 1000)  # type: ignore[arg-type]
    assert tapped == []


class _Served:
    """A block server whose slices are right, each stream's header with a field of its own
    (when it was served) and its lines written one way or another (key order): a freedom."""

    def __init__(self, repeat_after_stall: bool = False) -> None:
        self.served = 0
        self.repeat = repeat_after_stall

    def read_block(self, block_id: str, start: int, count: int) -> Any:
        self.served += 1
        served, repeat = self.served, self.repeat

        class Stream:
            def __init__(self) -> None:
                self.header = {"block_id": block_id, "units": 100, "start": start}
                self.header.update(count=count, served_at=served)

            def lines(self) -> Iterator[bytes]:
                for n in range(start, start + count):
                    if served % 2:
                        yield b'{"index":%d,"prize_cents":0,"ticket":"T"}' % n
                    else:
                        yield b'{"ticket":"T","prize_cents":0,"index":%d}' % n
                    if repeat and n == start + 2:
                        yield b'{"index":%d,"prize_cents":0,"ticket":"T"}' % n

            def close(self) -> None:
                pass

        return Stream()


def test_read_twice_judges_only_what_differs_between_the_reads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``compare_read_twice``: a header field of the server's own and lines written another
    way at each read are no finding; a line sent again in one read is (here the server sends
    it again whatever the pace: read slowly or not, the two reads differ only in that)."""
    monkeypatch.setattr(_block_reading.time, "sleep", lambda s: None)
    for slow_first in (False, True):
        found = _block_reading.compare_read_twice(_Served(), "b", 10, 20, {3: 1.0}, slow_first)
        assert found == []

    class Repeating(_Served):
        def read_block(self, block_id: str, start: int, count: int) -> Any:
            self.repeat = self.served % 2 == (0 if self.first_slow else 1)
            return super().read_block(block_id, start, count)

    for slow_first in (False, True):
        served = Repeating()
        served.first_slow = slow_first  # type: ignore[attr-defined]
        found = _block_reading.compare_read_twice(served, "b", 10, 20, {3: 1.0}, slow_first)
        assert found and all("read slowly: stopped 1.0 s before line 3" in p for p in found)
