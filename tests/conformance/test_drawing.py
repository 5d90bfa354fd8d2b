"""A search's first pass drawn on worker processes (conformance/_drawing.py): the same examples
as in the check's own thread, the same findings and minimal tickets, and a fallback, never a
failure, wherever the workers cannot be used."""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import os
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import strategies as st

from conformance import CheckContext, execute, registered_checks
from conformance import _drawing as drawing
from conformance._drawing import Recipe, draw, draw_here
from conformance._profiles import check_settings
from conformance._settings import ProfileError, Settings
from conformance.checks._differential import staked_tickets
from conformance.checks.eldorado_rules import edge_tickets as eldorado_edges
from conformance.checks.invalid_tickets import invalid_tickets_of_kind
from conformance.checks.metamorphic import relation_cases
from conformance.checks.robots_rules import edge_tickets as robots_edges
from conformance.checks.robots_rules import tickets_with_several_full_gauges

from .faults import FaultyAdapter
from .fresh import fresh_python

EXAMPLES = 60


@pytest.fixture(autouse=True)
def _small_searches_in_workers(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(drawing, "WORKERS_FROM_EXAMPLES", 10)
    monkeypatch.setattr(drawing, "_UNAVAILABLE", None)
    yield
    drawing.shutdown()


def pid_of_the_drawer() -> st.SearchStrategy[int]:
    """Every example is the process id of the process that drew it."""
    return st.integers(0, 10**9).map(lambda _: os.getpid())


def only_in_this_process() -> st.SearchStrategy[int]:
    """A strategy a worker cannot build (as a game known only to the parent process)."""
    if multiprocessing.parent_process() is not None:
        raise LookupError("not known in a worker")
    return st.integers(0, 1000)


RECIPES = {
    "robots edges": Recipe(staked_tickets, ((100,), Recipe(robots_edges))),
    "robots several gauges": Recipe(
        staked_tickets, ((100,), Recipe(tickets_with_several_full_gauges))
    ),
    "eldorado edges": Recipe(staked_tickets, ((50, 100, 200), Recipe(eldorado_edges))),
    "eldorado row order": Recipe(relation_cases, ("eldorado.4.1.row_order", (50, 100, 200))),
    "robots invalid marks": Recipe(
        staked_tickets, ((100,), Recipe(invalid_tickets_of_kind, ("robots", "mark")))
    ),
}


def test_the_first_pass_is_drawn_on_another_process() -> None:
    pids = draw(Recipe(pid_of_the_drawer), 1, EXAMPLES, 2)
    assert len(pids) == EXAMPLES
    assert os.getpid() not in pids
    assert drawing._POOL is not None


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_a_worker_draws_the_examples_of_the_checks_own_thread(name: str) -> None:
    recipe = RECIPES[name]
    assert draw(recipe, 20261201, EXAMPLES, 2) == draw_here(recipe, 20261201, EXAMPLES)


def test_a_strategy_a_worker_cannot_build_is_drawn_here() -> None:
    drawn = draw(Recipe(only_in_this_process), 4, EXAMPLES, 2)
    assert drawn == draw_here(Recipe(only_in_this_process), 4, EXAMPLES)
    assert drawing._UNAVAILABLE is None  # one recipe failed; the workers stay in use


def test_no_worker_for_draw_workers_0_small_searches_and_plain_strategies() -> None:
    for cases, examples, workers in (
        (Recipe(pid_of_the_drawer), EXAMPLES, 0),
        (Recipe(pid_of_the_drawer), 5, 2),  # under WORKERS_FROM_EXAMPLES
        (pid_of_the_drawer(), EXAMPLES, 2),  # a strategy object does not pickle
        (Recipe(lambda: pid_of_the_drawer()), EXAMPLES, 2),  # nor does a lambda
    ):
        assert set(draw(cases, 1, examples, workers)) == {os.getpid()}
    assert drawing._POOL is None


def dies_at_start() -> None:
    raise SystemExit("a worker that cannot run here")


@pytest.mark.parametrize("start", ["cannot be started", "dies at start"])
def test_workers_that_cannot_start_make_every_pass_drawn_here(
    monkeypatch: pytest.MonkeyPatch, start: str
) -> None:
    def not_picklable() -> None:
        pass

    initializer = not_picklable if start == "cannot be started" else dies_at_start
    monkeypatch.setattr(drawing, "_init_worker", initializer)
    assert set(draw(Recipe(pid_of_the_drawer), 1, EXAMPLES, 2)) == {os.getpid()}
    assert drawing._UNAVAILABLE is not None
    assert set(draw(Recipe(pid_of_the_drawer), 2, EXAMPLES, 2)) == {os.getpid()}
    assert drawing._POOL is None


@pytest.mark.parametrize(("fault", "game"), [("x2_once", "robots"), ("main_grid_only", "eldorado")])
def test_a_search_drawn_on_workers_finds_and_shrinks_what_one_drawn_here_does(
    fault: str, game: str
) -> None:
    adapter = FaultyAdapter(fault)
    check = registered_checks()[f"{game}_rules.differential_edges"]
    found = {}
    for workers in (0, 2):
        settings = check_settings(
            {"hypothesis_max_examples": 40, "exhaustive": False, "draw_workers": workers}, "test"
        )
        ctx = CheckContext(
            adapter=adapter, implementation=adapter.describe(), settings=settings, seed=5
        )
        outcome = execute(check, ctx)
        assert outcome.outcome == "fail", outcome.message
        found[workers] = [(e["input"], e["note"]) for e in outcome.evidence]
        assert (drawing._POOL is not None) == (workers > 0)
    assert found[2] == found[0]
    assert "minimal ticket" in found[2][0][1]


@pytest.mark.parametrize("value", [-1, 1.5, "2", True])
def test_draw_workers_is_a_whole_number_or_null(value: object) -> None:
    with pytest.raises(ProfileError, match=r"draw_workers must be a whole number .* got"):
        Settings.parse({"draw_workers": value}, "test")


@pytest.mark.parametrize("value", [0, 1, 3, None])
def test_draw_workers_accepts(value: int | None) -> None:
    assert Settings.parse({"draw_workers": value}, "test").draw_workers == value


NUMPY_SCRIPT = """
import numpy as np
calls = []
real = np.random.get_state
np.random.get_state = lambda *a, **k: calls.append(1) or real(*a, **k)
from hypothesis import given, seed, settings, strategies as st
from conformance import _hypothesis

@seed(1)
@settings(max_examples=20, database=None)
@given(st.integers())
def draws(n):
    pass

draws()
before = len(calls)
left_out = _hypothesis.unmanage_numpy_random()
calls.clear()
draws()
print(before > 0, left_out, len(calls))
"""


def test_instantcerts_own_processes_leave_numpys_global_generator_alone() -> None:
    done = fresh_python(NUMPY_SCRIPT)
    # hypothesis saved and seeded numpy's generator around each example, then no longer
    assert done.stdout.split() == ["True", "True", "0"], done.stdout + done.stderr


def forever() -> st.SearchStrategy[int]:
    """A strategy whose building never ends (a pass still drawn when its run ends)."""
    import time

    time.sleep(3600)
    return st.integers()


def test_the_end_of_a_run_stops_a_worker_still_drawing() -> None:
    import threading

    errors: list[BaseException] = []

    def search() -> None:
        try:
            draw(Recipe(forever), 1, EXAMPLES, 1)
        except BaseException as exc:
            errors.append(exc)

    waiting = threading.Thread(target=search, daemon=True)
    waiting.start()
    for _ in range(200):  # the worker has started and taken the pass
        if drawing._POOL is not None and any(
            p.is_alive() for p in drawing._POOL._processes.values()
        ):
            break
        waiting.join(0.05)
    assert drawing._POOL is not None
    workers = list(drawing._POOL._processes.values())
    drawing.shutdown()
    waiting.join(30)
    assert not waiting.is_alive()
    assert [type(e) for e in errors] == [RuntimeError], errors  # not drawn again here
    for worker in workers:
        worker.join(10)
        assert _ended(worker), worker
    assert drawing._UNAVAILABLE is None  # a pool ended on purpose is no broken pool


def _ended(worker: Any) -> bool:
    """Whether a worker process has ended: ``is_alive()`` False, or its pid gone. The pool's
    own manager thread joins its workers as it shuts down; when its ``waitpid`` reaps one
    first, the test's ``Process`` object never learns the exit status (its ``waitpid`` fails
    with ECHILD) and ``is_alive()`` stays True for a process that no longer exists (seen in 1
    full fast tier in 6). A worker still running answers signal 0."""
    if not worker.is_alive():
        return True
    try:
        os.kill(worker.pid, 0)
    except ProcessLookupError:
        return True
    return False


def sigint_is_ignored() -> bool:
    import signal

    return signal.getsignal(signal.SIGINT) is signal.SIG_IGN


def test_a_worker_leaves_ctrl_c_to_the_parent() -> None:
    """Ctrl+C reaches the whole process group: a worker ignores it (no traceback per worker);
    the parent's own handling ends the run."""
    pool = drawing._pool(1)
    assert pool is not None
    assert pool.submit(sigint_is_ignored).result(timeout=60) is True


def test_the_pool_ends_with_the_last_run_under_way() -> None:
    with drawing.for_a_run():
        with drawing.for_a_run():
            assert draw(Recipe(pid_of_the_drawer), 1, EXAMPLES, 1)
            pool = drawing._POOL
            assert pool is not None
        assert drawing._POOL is pool  # the other run's searches still use it
        assert os.getpid() not in draw(Recipe(pid_of_the_drawer), 2, EXAMPLES, 1)
    assert drawing._POOL is None


def test_a_pool_that_cannot_be_made_leaves_every_pass_drawn_here(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_semaphores(*args: object, **kwargs: object) -> None:
        raise OSError(38, "Function not implemented")  # SemLock without /dev/shm

    # the pool class is looked up when the first pool is made (multiprocessing loads then)
    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", no_semaphores)
    assert set(draw(Recipe(pid_of_the_drawer), 1, EXAMPLES, 2)) == {os.getpid()}
    assert drawing._UNAVAILABLE is not None
    assert drawing._POOL is None
