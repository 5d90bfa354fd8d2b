"""Independent scenarios of one check run side by side, their results kept in input order.

A scenario that waits on the target (clicks of a robots play, one request each) is all latency
over a network; scenarios that each open their own account do not see one another, so a check
may run several at once. Results come back in the order of the inputs, whatever order they
finished in, so what a check reports does not depend on timing; an exception is raised for the
first input (in input order) whose scenario raised one.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from ._settings import Settings

T = TypeVar("T")
R = TypeVar("R")


def workers_of(settings: Settings | Mapping[str, Any]) -> int:
    """How many scenarios a check may run at once: the run's ``scenario_workers`` (a plain
    mapping, not validated, falls back on its ``check_concurrency``, and counts a missing or
    unusable value as 1)."""
    if isinstance(settings, Settings):
        return settings.scenario_workers
    value = settings.get("scenario_workers", settings.get("check_concurrency"))
    return value if type(value) is int and value > 0 else 1


def iter_in_order(
    function: Callable[[T], R], items: Sequence[T], workers: int
) -> Generator[R, None, None]:
    """``function(item) for item in items``, up to ``workers`` at once, each result yielded
    (in the caller's thread) as soon as it and every one before it are done. A caller that
    stops early (its first failure) leaves the items not yet started unplayed."""
    if workers <= 1 or len(items) <= 1:
        yield from (function(item) for item in items)
        return
    pool = ThreadPoolExecutor(min(workers, len(items)), thread_name_prefix="scenario")
    try:
        futures = [pool.submit(function, item) for item in items]
        for future in futures:
            yield future.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def map_in_order(function: Callable[[T], R], items: Sequence[T], workers: int) -> list[R]:
    """``[function(item) for item in items]``, up to ``workers`` at once."""
    return list(iter_in_order(function, items, workers))


def split(total: int, parts: int) -> list[int]:
    """``total`` as ``parts`` near-equal positive counts (fewer parts when total is small)."""
    parts = max(1, min(parts, total))
    return [total // parts + (1 if k < total % parts else 0) for k in range(parts)]
