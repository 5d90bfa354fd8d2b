"""Scenarios side by side within one check (conformance._pool): results in input order."""

from __future__ import annotations

import threading
import time
from contextlib import closing

import pytest

from conformance._pool import iter_in_order, map_in_order, split, workers_of


def test_results_keep_the_input_order_and_calls_overlap() -> None:
    lock = threading.Lock()
    running = [0, 0]  # now, most

    def slow_square(n: int) -> int:
        with lock:
            running[0] += 1
            running[1] = max(running[1], running[0])
        time.sleep(0.02 * (5 - n))  # the first inputs finish last
        with lock:
            running[0] -= 1
        return n * n

    assert map_in_order(slow_square, [1, 2, 3, 4], 4) == [1, 4, 9, 16]
    assert running[1] > 1
    running[1] = 0
    assert map_in_order(slow_square, [1, 2, 3], 1) == [1, 4, 9]
    assert running[1] == 1


def test_the_first_failing_input_raises() -> None:
    def fail_on_odd(n: int) -> int:
        if n % 2:
            raise ValueError(f"odd {n}")
        return n

    with pytest.raises(ValueError, match="odd 1"):
        map_in_order(fail_on_odd, [0, 1, 2, 3], 3)


def test_split_and_workers() -> None:
    assert split(50, 4) == [13, 13, 12, 12]
    assert split(2, 4) == [1, 1]
    assert sum(split(7, 3)) == 7
    assert workers_of({"check_concurrency": 3}) == 3
    assert workers_of({}) == 1 and workers_of({"check_concurrency": True}) == 1


def test_a_caller_stopping_early_leaves_the_items_not_started_unplayed() -> None:
    started: list[int] = []

    def slow(n: int) -> int:
        started.append(n)
        time.sleep(0.05)
        return n

    with closing(iter_in_order(slow, list(range(8)), 2)) as results:
        assert next(results) == 0  # yielded as soon as the first is done
    assert len(started) < 8
    assert list(iter_in_order(slow, [3, 1, 2], 3)) == [3, 1, 2]
