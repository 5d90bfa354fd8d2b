"""Checks run side by side, their events delivered in check order, as if they ran one by one.

Most checks spend their time waiting on the target (a play, a reveal, a batch of tickets):
against a target 20 ms away, a run that makes one request at a time is all latency. The runner
therefore runs independent checks concurrently on a bounded pool of threads (every check opens
its own accounts, so none sees another's plays). A *solo* task (a block check, which keeps both
cores busy with audit processes of its own, forked) runs alone: every task before it has
finished, and none after it has started, so no other thread is busy when it forks.

Reports must not depend on any of that: each task's events go to a buffer of its own and are
handed on in task order, those of the first unfinished task as they come (its progress stays
live), every other one's when its turn comes; then its ``finish`` runs. Event handlers and
``finish`` are only ever called from the thread that calls ``run_ordered``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Generic, TypeVar

E = TypeVar("E")
Emit = Callable[[E], None]


@dataclass
class Task(Generic[E]):
    """``run(emit)`` does the work and emits its events through ``emit``; ``finish()`` runs
    after its events were handed on, in task order; ``solo`` tasks run alone."""

    run: Callable[[Emit[E]], None]
    finish: Callable[[], None] = lambda: None
    solo: bool = False
    events: list[E] = field(default_factory=list)
    done: bool = False
    error: BaseException | None = None


def run_ordered(tasks: Sequence[Task[E]], deliver: Emit[E], *, workers: int) -> None:
    """Run ``tasks``, up to ``workers`` at once (solo ones alone), handing their events to
    ``deliver`` in task order. With ``workers <= 1`` they run in turn in this thread.

    An exception a task raises is raised here, in its turn, after the events it emitted.
    """
    group: list[Task[E]] = []
    for task in tasks:
        if task.solo or workers <= 1:
            _concurrently(group, deliver, workers)
            group = []
            task.run(deliver)
            task.finish()
        else:
            group.append(task)
    _concurrently(group, deliver, workers)


def _concurrently(tasks: Sequence[Task[E]], deliver: Emit[E], workers: int) -> None:
    if not tasks:
        return
    changed = threading.Condition()

    def emitter(task: Task[E]) -> Emit[E]:
        def emit(event: E) -> None:
            with changed:
                task.events.append(event)
                changed.notify_all()

        return emit

    def body(task: Task[E]) -> None:
        try:
            task.run(emitter(task))
        except BaseException as exc:  # handed on in its turn, in the caller's thread
            task.error = exc
        finally:
            with changed:
                task.done = True
                changed.notify_all()

    pool = ThreadPoolExecutor(min(workers, len(tasks)), thread_name_prefix="instantcert-check")
    try:
        for task in tasks:
            pool.submit(body, task)
        for task in tasks:
            handed = 0
            while True:
                with changed:
                    while handed == len(task.events) and not task.done:
                        changed.wait()
                    fresh = task.events[handed:]
                    finished = task.done and handed + len(fresh) == len(task.events)
                for event in fresh:
                    deliver(event)
                handed += len(fresh)
                if finished:
                    break
            task.events.clear()
            if task.error is not None:
                raise task.error
            task.finish()
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
