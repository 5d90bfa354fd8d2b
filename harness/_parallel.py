"""Checks run side by side, their events delivered in check order, as if they ran one by one.

Most checks spend their time waiting on the target (a play, a reveal, a batch of tickets):
against a target 20 ms away, a run that makes one request at a time is all latency. The runner
therefore runs independent checks concurrently on a bounded pool of threads (every check opens
its own accounts, so none sees another's plays). A *solo* task (a block check, which keeps both
cores busy with audit processes of its own, forked) runs alone, in the calling thread: no other
task is running while it runs, so no other thread is busy when it forks.

A *guarded* task (a check that watches the units on sale: plays in a row get consecutive units,
a refused play takes none) needs that no other task buys a unit of what it watches meanwhile.
The run's stream gate gives that, (game, stake) by (game, stake) (``harness._streams``): the
other tasks' plays on a watched stream wait at the gate, everything else they do goes on. Here
guarded tasks only run one at a time (they watch much the same streams: two would mostly wait
for each other, each holding a worker). Against a target 20 ms away the guarded checks are
seconds of round trips: run alone they were a third of a quick run's wall time, and beside the
tasks that never play (the evaluation checks) still a fifth.

The order tasks *start* in is free, and chosen for the wall time: the solo tasks first, one by
one, then every other task side by side, those marked ``early`` (the long ones) first, with the
guarded ones, one by one, at places among them the run's seed draws (``Task.place``: a vendor
must not learn that the watching checks are a run's first minutes); in each group, those marked
``first`` (a check that reads the units about to be sold: what it sees then depends the least
on what the others bought; or one of the longest, which the run should not end waiting on
alone) before the others.
Solo tasks spread through the list would otherwise cut it into short groups, each waiting for
its slowest member while the pool idles (against a target 20 ms away that was 35 s of a quick
run instead of about 26).

Reports must not depend on any of that: each task's events go to a buffer of its own and are
handed on in task order, those of the first unfinished task as they come (its progress stays
live), every other one's when its turn comes; then its ``finish`` runs. Event handlers and
``finish`` are only ever called from the thread that calls ``run_ordered``.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Generic, TypeVar

E = TypeVar("E")
Emit = Callable[[E], None]


@dataclass
class Task(Generic[E]):
    """``run(emit)`` does the work and emits its events through ``emit``; ``finish()`` runs
    after its events were handed on, in task order; ``solo`` tasks run alone; ``guarded`` ones
    (a check that watches the units on sale) one at a time, beside the others; ``early`` ones
    start before the other side-by-side tasks (a hint: the long ones); ``first`` ones before
    the others of their group."""

    run: Callable[[Emit[E]], None]
    finish: Callable[[], None] = lambda: None
    solo: bool = False
    early: bool = False
    guarded: bool = False
    first: bool = False
    rank: float = 0.0
    """Where it starts within its group, after ``first`` (the run's seed draws it: the probes
    of a run come at random places, not early; issue 27)."""
    place: float | None = None
    """A guarded task's place among the side-by-side tasks, as a fraction of their start order
    (the run's seed draws it, ``harness._runner``: the watching checks are not the run's first
    minutes in every run; issue 27); None: before all of them."""
    events: list[E] = field(default_factory=list)
    done: bool = False
    error: BaseException | None = None


def start_order(tasks: Sequence[Task[E]]) -> list[Task[E]]:
    """The order tasks start in: solo ones, then the side-by-side ones, ``early`` ones before
    the rest, with the guarded ones among them at their ``place`` (those without one before
    them all); in each group the ``first`` ones, then the others, each by ``rank``, then in
    task order. The guarded ones keep that order among themselves: the earliest place drawn
    is the first's."""
    ordered = sorted(tasks, key=lambda t: (not t.first, t.rank))  # stable: task order within
    solo = [t for t in ordered if t.solo]
    guarded = [t for t in ordered if not t.solo and t.guarded]
    early = [t for t in ordered if not t.solo and not t.guarded and t.early]
    rest = [t for t in ordered if not t.solo and not t.guarded and not t.early]
    side = [*early, *rest]
    fixed = [t for t in guarded if t.place is None]
    drawn = [t for t in guarded if t.place is not None]
    places = sorted(min(len(side), int(t.place * len(side))) for t in drawn if t.place is not None)
    waiting = deque(zip(places, drawn, strict=True))
    merged: list[Task[E]] = []
    for at, task in enumerate(side):
        while waiting and waiting[0][0] <= at:
            merged.append(waiting.popleft()[1])
        merged.append(task)
    merged += [task for _, task in waiting]
    return [*solo, *fixed, *merged]


_MAIN = threading.main_thread()


def run_ordered(tasks: Sequence[Task[E]], deliver: Emit[E], *, workers: int) -> None:
    """Run ``tasks``, up to ``workers`` at once (solo ones alone), handing their events to
    ``deliver`` in task order. With ``workers <= 1`` they run in turn in this thread.
    An exception a task raises is raised here, in its turn, after the events it emitted; once a
    task has failed, no task after it (in task order) starts, those still running are left to
    end on their own.
    """
    if workers <= 1:
        for task in tasks:
            task.run(deliver)
            task.finish()
        return
    if not tasks:
        return
    changed = threading.Condition()
    waiting = deque(start_order(tasks))
    place = {id(task): n for n, task in enumerate(tasks)}
    running = 0
    solo_running = False
    guarded_running = False
    failed_at = len(tasks)  # the first task (in task order) that raised: none yet

    def emitter(task: Task[E]) -> Emit[E]:
        def emit(event: E) -> None:
            with changed:
                task.events.append(event)
                changed.notify_all()

        return emit

    def body(task: Task[E], emit: Emit[E] | None = None) -> None:
        nonlocal running, solo_running, guarded_running, failed_at
        try:
            task.run(emitter(task) if emit is None else emit)
        except BaseException as exc:  # handed on in its turn, in the caller's thread
            task.error = exc
            if isinstance(exc, KeyboardInterrupt) and threading.current_thread() is _MAIN:
                # Ctrl-C or SIGTERM met a solo task run in this thread: the run stops now, not
                # once every task before it in task order has ended (an audit check running
                # on the pool kept a SIGTERM'd audit-block going 20 s to minutes)
                raise
        finally:
            with changed:
                if task.error is not None:
                    failed_at = min(failed_at, place[id(task)])
                task.done = True
                running -= 1
                if task.solo:
                    solo_running = False
                if task.guarded and not task.solo:
                    guarded_running = False
                changed.notify_all()

    def may_start(task: Task[E]) -> bool:
        if task.solo:
            return running == 0
        if task.guarded:  # what it watches is held at the stream gate, not here
            return not guarded_running
        return True

    def start_what_may(pool: ThreadPoolExecutor) -> Task[E] | None:
        """Start waiting tasks while the rules allow (called with ``changed`` held), the first
        one that may in start order each time (a solo task lets none pass it); a solo task
        whose turn to start has come is returned instead, for this thread to run."""
        nonlocal running, solo_running, guarded_running
        while waiting and not solo_running and running < workers:
            chosen = None
            for task in list(waiting):
                if place[id(task)] > failed_at:  # the run ends at that task: not needed
                    waiting.remove(task)
                    continue
                if may_start(task):
                    chosen = task
                    break
                if task.solo:
                    break  # it waits for every running task to end, and none passes it
            if chosen is None:
                return None
            waiting.remove(chosen)
            running += 1
            solo_running = chosen.solo
            if chosen.guarded and not chosen.solo:
                guarded_running = True
            if chosen.solo:
                return chosen
            pool.submit(body, chosen)
        return None

    pool = ThreadPoolExecutor(min(workers, len(tasks)), thread_name_prefix="instantcert-check")
    try:
        for task in tasks:
            handed = 0
            while True:
                with changed:
                    solo = start_what_may(pool)
                    while solo is None and handed == len(task.events) and not task.done:
                        changed.wait()
                        solo = start_what_may(pool)
                    fresh = task.events[handed:]
                    finished = task.done and handed + len(fresh) == len(task.events)
                for event in fresh:
                    deliver(event)
                handed += len(fresh)
                if solo is not None:
                    # alone, in this thread (no other thread is busy when it forks); its events
                    # go straight out when it is the task whose turn it is, else to its buffer
                    current = solo is task and handed == len(task.events)
                    body(solo, deliver if current else None)
                    continue
                if finished:
                    break
            task.events.clear()
            if task.error is not None:
                raise task.error  # nothing after it has started since it failed
            task.finish()
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
