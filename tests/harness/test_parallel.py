"""Checks side by side (harness._parallel): events in check order, solo tasks alone."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from harness._parallel import Task, run_ordered

#: handed to an xdist worker first (tests/conftest.py): few tests, one of two runs side by side
#: whose player sessions wait out a person's pauses (40 s)
pytestmark = pytest.mark.early


class Recorder:
    """Tracks how many tasks run at once, and whether a solo task ever had company."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.running = 0
        self.most = 0
        self.solo_crowded = False

    def task(self, name: str, events: int, *, solo: bool = False, wait: float = 0.01) -> Task[str]:
        finished: list[str] = []

        def run(emit: Any) -> None:
            with self.lock:
                self.running += 1
                self.most = max(self.most, self.running)
                if solo and self.running > 1:
                    self.solo_crowded = True
            try:
                for n in range(events):
                    time.sleep(wait)
                    with self.lock:
                        if solo and self.running > 1:
                            self.solo_crowded = True
                    emit(f"{name}:{n}")
            finally:
                with self.lock:
                    self.running -= 1

        return Task(run=run, finish=lambda: finished.append(name), solo=solo)


@pytest.mark.parametrize("workers", [1, 2, 4])
def test_events_come_in_task_order_whatever_the_concurrency(workers: int) -> None:
    recorder = Recorder()
    # later tasks are quicker: run side by side, they finish first
    tasks = [recorder.task(f"t{k}", 3, wait=0.03 - 0.005 * k) for k in range(5)]
    got: list[str] = []
    run_ordered(tasks, got.append, workers=workers)
    assert got == [f"t{k}:{n}" for k in range(5) for n in range(3)]
    assert recorder.most <= workers and (recorder.most >= 2) is (workers > 1)


def test_a_solo_task_runs_alone_between_the_others() -> None:
    recorder = Recorder()
    tasks = [
        recorder.task("a", 3),
        recorder.task("b", 3),
        recorder.task("solo", 3, solo=True),
        recorder.task("c", 3),
        recorder.task("d", 3),
    ]
    got: list[str] = []
    run_ordered(tasks, got.append, workers=4)
    assert not recorder.solo_crowded
    assert recorder.most == 4  # the solo task ran first: the four others then side by side
    assert [e.split(":")[0] for e in got] == ["a"] * 3 + ["b"] * 3 + ["solo"] * 3 + ["c"] * 3 + [
        "d"
    ] * 3


def test_solo_tasks_start_first_and_early_ones_before_the_rest() -> None:
    started: list[str] = []
    lock = threading.Lock()

    def task(name: str, *, solo: bool = False, early: bool = False) -> Task[str]:
        def run(emit: Any) -> None:
            with lock:
                started.append(name)
            time.sleep(0.01)
            emit(name)

        return Task(run=run, solo=solo, early=early)

    tasks = [
        task("a"),
        task("s1", solo=True),
        task("b"),
        task("long", early=True),
        task("s2", solo=True),
        task("c"),
    ]
    got: list[str] = []
    run_ordered(tasks, got.append, workers=2)
    assert got == ["a", "s1", "b", "long", "s2", "c"]  # delivered in task order
    assert started[:3] == ["s1", "s2", "long"]  # solos alone and first, then the long one
    assert set(started[3:]) == {"a", "b", "c"}


def test_solo_tasks_run_in_the_calling_thread_with_live_events_in_their_turn() -> None:
    caller = threading.current_thread()
    seen: list[tuple[str, bool]] = []
    got: list[str] = []

    def task(name: str, *, solo: bool = False) -> Task[str]:
        def run(emit: Any) -> None:
            seen.append((name, threading.current_thread() is caller))
            emit(f"{name}:0")
            if name == "first":  # its own turn: its events reach the reports as they come
                assert got == ["first:0"]
            emit(f"{name}:1")

        return Task(run=run, solo=solo)

    tasks = [task("first", solo=True), task("a"), task("later", solo=True), task("b")]
    run_ordered(tasks, got.append, workers=3)
    assert dict(seen) == {"first": True, "later": True, "a": False, "b": False}
    assert got == ["first:0", "first:1", "a:0", "a:1", "later:0", "later:1", "b:0", "b:1"]


def test_a_failing_task_stops_the_tasks_not_started() -> None:
    ran: list[str] = []

    def boom(emit: Any) -> None:
        raise ValueError("broken solo task")

    tasks = [Task(run=boom, solo=True), Task(run=lambda emit: ran.append("after"))]
    with pytest.raises(ValueError, match="broken solo task"):
        run_ordered(tasks, lambda e: None, workers=2)
    assert ran == []


def test_finish_runs_in_task_order_in_the_calling_thread() -> None:
    order: list[tuple[str, bool]] = []
    caller = threading.current_thread()

    def task(name: str, wait: float) -> Task[str]:
        return Task(
            run=lambda emit: time.sleep(wait),
            finish=lambda: order.append((name, threading.current_thread() is caller)),
        )

    run_ordered([task("slow", 0.05), task("fast", 0.0)], lambda e: None, workers=2)
    assert order == [("slow", True), ("fast", True)]


def test_an_exception_is_raised_in_its_turn_after_its_events() -> None:
    def boom(emit: Any) -> None:
        emit("before")
        raise ValueError("broken task")

    got: list[str] = []
    with pytest.raises(ValueError, match="broken task"):
        run_ordered([Task(run=lambda emit: emit("first")), Task(run=boom)], got.append, workers=2)
    assert got == ["first", "before"]


# -- the runner runs real checks side by side ---------------------------------------------


class Counting:
    """The reference adapter, counting the calls in flight at once (a latency of 5 ms each
    gives checks running side by side the chance to overlap)."""

    def __init__(self) -> None:
        from harness._reference_adapter import ReferenceAdapter
        from tests.reference._live import SEED

        self._inner = ReferenceAdapter(seed=SEED)
        self.name = "python:reference"
        self.lock = threading.Lock()
        self.in_flight = 0
        self.most = 0

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._inner, name)
        if not callable(attribute) or name == "close":
            return attribute

        def call(*args: Any, **kwargs: Any) -> Any:
            with self.lock:
                self.in_flight += 1
                self.most = max(self.most, self.in_flight)
            try:
                time.sleep(0.001)  # long enough for calls of other checks to overlap
                return attribute(*args, **kwargs)
            finally:
                with self.lock:
                    self.in_flight -= 1

        return call


SOME = (  # checks that make one call at a time themselves at scenario_workers 1
    "robots.4.1.stake_debited",
    "eldorado.4.2.stake_debited",
    "robots.4.10.prize_credited",
    "eldorado.4.6.prize_credited",
    "robots.4.1.history_unrevealed",
    "security.tokens.required",
    "robots.2.unit_sequence",
)


def certify_some(concurrency: int) -> tuple[list[tuple[str, str]], dict[str, str], int]:
    from conformance._profiles import load_profile
    from harness._events import CheckFinished, CheckStarted
    from harness._runner import Runner, RunPlan

    events: list[Any] = []

    class Keep:
        def handle(self, event: Any) -> None:
            events.append(event)

        def close(self) -> None:
            pass

    settings = {
        **load_profile("quick"),
        "play_count": 10,
        "check_concurrency": concurrency,
        "scenario_workers": 1,  # each check plays its scenarios one by one: only checks overlap
        # the player sessions (started first, beside the others) mostly wait out players'
        # pauses of seconds: one player for a second, and old accounts of a few plays, keep
        # them in the run (27 of each run's 30 s at the quick profile's 8 players for 6 s)
        "player_accounts": 1,
        "player_span_s": 1,
        "old_account_plays": 5,
    }
    plan = RunPlan(
        target="python:reference",
        profile="quick",
        settings=settings,
        seed=11,
        config={},
        filtered=True,
        requirements=SOME,
    )
    adapter = Counting()
    try:
        result = Runner(plan, [Keep()]).run(adapter)  # type: ignore[arg-type]
    finally:
        adapter._inner.close()
    order = [
        (type(e).__name__, e.check_id)
        for e in events
        if isinstance(e, CheckStarted | CheckFinished)
    ]
    return order, {v.id: v.outcome for v in result.requirements if v.id in SOME}, adapter.most


def test_the_runner_runs_checks_side_by_side_with_the_same_reports(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the player sessions' old accounts end with rounds of requests sent at once (the ninth red
    # team's ``overlap.old_account_rounds``): a check's own concurrency, not the runner's
    monkeypatch.setattr("conformance.checks._scenarios.overlap.OLD_ROUNDS", 0)
    # ... and the paced players' (the tenth's ``overlap.paced_rounds``)
    monkeypatch.setattr("conformance.checks._scenarios.overlap.PACED_ROUNDS", 0)
    # the two runs at once, each on its own adapter (and counter of calls in flight): each run
    # mostly waits out its player sessions' pauses (25 of its 38 s), so one after another they
    # were 77 s of a worker's wall; their events and outcomes are each run's own
    with ThreadPoolExecutor(2) as pool:
        one, four = pool.map(certify_some, (1, 4))
    one_order, one_outcomes, one_most = one
    four_order, four_outcomes, four_most = four
    assert one_most == 1  # one check at a time makes one call at a time
    assert four_most > 1  # several checks were waiting on the target at once
    assert four_order == one_order  # the reports see the same events, in the same order
    assert four_outcomes == one_outcomes and set(four_outcomes.values()) == {"pass"}
    started = [c for kind, c in four_order if kind == "CheckStarted"]
    assert "blocks.unit_sequence" in started and len(started) >= 6


def test_guarded_tasks_start_first_and_run_one_at_a_time_beside_the_others() -> None:
    """A guarded task (it watches the units on sale) never has another guarded one beside it;
    what it watches is held at the stream gate (harness._streams, tested there), so every
    other task may run beside it; the guarded ones start first."""
    lock = threading.Lock()
    running: set[str] = set()
    seen_beside: dict[str, set[str]] = {}
    order: list[str] = []

    def task(name: str, *, guarded: bool = False) -> Task[str]:
        def run(emit: Any) -> None:
            with lock:
                order.append(name)
                running.add(name)
            try:
                for _ in range(4):
                    time.sleep(0.01)
                    with lock:
                        seen_beside.setdefault(name, set()).update(running - {name})
            finally:
                with lock:
                    running.discard(name)
            emit(name)

        return Task(run=run, guarded=guarded)

    tasks = [task("p1"), task("g1", guarded=True), task("e1"), task("e2")]
    tasks += [task("g2", guarded=True), task("p2"), task("e3"), task("e4")]
    got: list[str] = []
    run_ordered(tasks, got.append, workers=3)
    assert got == ["p1", "g1", "e1", "e2", "g2", "p2", "e3", "e4"]
    assert "g2" not in seen_beside["g1"] and "g1" not in seen_beside["g2"]
    assert seen_beside["g1"] and seen_beside["g2"]  # the other workers were kept busy
    assert order[0] == "g1" and set(order[1:3]) <= {"p1", "e1", "e2", "p2", "e3", "e4"}


def test_rank_orders_the_start_within_a_group_and_the_events_stay_in_task_order() -> None:
    """Issue 27: the run's seed places each check (a probe among them) in its group; the
    reports are those of the task order whatever the ranks."""
    from harness._parallel import start_order

    def task(name: str, rank: float, *, first: bool = False) -> Task[str]:
        return Task(run=lambda emit: emit(name), rank=rank, first=first)

    tasks = [task("a", 0.9), task("b", 0.1), task("c", 0.5), task("f", 0.99, first=True)]
    names = {id(t): n for t, n in zip(tasks, "abcf", strict=True)}
    assert [names[id(t)] for t in start_order(tasks)] == ["f", "b", "c", "a"]
    got: list[str] = []
    run_ordered(tasks, got.append, workers=1)
    assert got == ["a", "b", "c", "f"]


def test_guarded_tasks_start_at_their_drawn_places_among_the_others() -> None:
    """Issue 27: a guarded task with a ``place`` starts that far into the side-by-side tasks'
    start order, not before them all; the guarded ones keep their order among themselves (the
    earliest place is the ``first`` one's), and one without a place still starts before all."""
    from harness._parallel import start_order

    def task(name: str, **kwargs: Any) -> Task[str]:
        return Task(run=lambda emit: emit(name), **kwargs)

    side = [task(f"e{n}", early=True, rank=n / 10) for n in range(4)]
    side += [task(f"r{n}", rank=n / 10) for n in range(4)]
    guarded = [
        task("g_first", guarded=True, first=True, place=0.6),
        task("g_late", guarded=True, rank=0.1, place=0.25),
        task("g_fixed", guarded=True, rank=0.2),
        task("solo", solo=True),
    ]
    tasks = [*guarded, *side]
    names = {
        id(t): n for t, n in zip(guarded, ["g_first", "g_late", "g_fixed", "solo"], strict=True)
    }
    names.update({id(t): f"e{n}" for n, t in enumerate(side[:4])})
    names.update({id(t): f"r{n}" for n, t in enumerate(side[4:])})
    order = [names[id(t)] for t in start_order(tasks)]
    # 8 side-by-side tasks: places 0.25 and 0.6 are before the 3rd and the 5th of them, the
    # earliest the first one's
    expected = ["solo", "g_fixed", "e0", "e1", "g_first", "e2", "e3", "g_late", "r0", "r1"]
    assert order == [*expected, "r2", "r3"]


def test_the_watching_checks_place_is_drawn_from_the_seed() -> None:
    """The exclusive checks start at places the run's seed draws, within the first half of the
    side-by-side checks, the same for the same seed; no other check gets a place."""
    from conformance import registered_checks
    from harness._parallel import start_order
    from harness._runner import GUARDED_REACH, guarded_place

    checks = list(registered_checks().values())

    def first_watching(seed: int) -> tuple[int, list[str]]:
        tasks = [
            Task(
                run=lambda emit: None,
                solo=c.cost == "block",
                guarded=c.exclusive,
                early=c.cost == "long",
                first=c.first,
                place=guarded_place(seed, c),
            )
            for c in checks
        ]
        ids = {id(t): c.id for t, c in zip(tasks, checks, strict=True)}
        side = [t for t in start_order(tasks) if not t.solo]
        at = next(n for n, t in enumerate(side) if t.guarded)
        return at, [ids[id(t)] for t in side]

    assert all(guarded_place(3, c) is None for c in checks if not c.exclusive)
    seen = {seed: first_watching(seed) for seed in range(12)}
    assert seen[5] == first_watching(5)  # a replay starts them at the same places
    side = len(seen[0][1])
    assert all(at <= GUARDED_REACH * side for at, _ in seen.values())
    assert len({at for at, _ in seen.values()}) > 4  # not the run's first checks every time
