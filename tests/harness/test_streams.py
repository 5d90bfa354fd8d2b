"""The stream gate (harness._streams): while a check holds a (game, stake), no other check buys
one of its units; everything else goes on; no wait outlives a cut, none deadlocks."""

from __future__ import annotations

import contextlib
import random
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from conformance import EVERY_STREAM as EVERY
from harness._streams import StreamGate, offered_streams

ROBOTS, EL50, EL100 = ("robots", 100), ("eldorado", 50), ("eldorado", 100)
STREAMS = (ROBOTS, EL50, EL100)


def in_thread(work: Callable[[], Any]) -> tuple[threading.Thread, threading.Event, list[Any]]:
    """``work()`` on a thread of its own: (the thread, set once it returned, what it raised)."""
    done, raised = threading.Event(), []

    def run() -> None:
        try:
            work()
        except BaseException as exc:
            raised.append(exc)
        finally:
            done.set()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, done, raised


def play_on(gate: StreamGate, owner: str, stream: tuple[Any, Any], **kw: Any) -> Callable[[], None]:
    def play() -> None:
        with gate.playing(owner, *stream, **kw):
            pass

    return play


def test_a_play_waits_while_another_check_holds_its_stream_and_only_then() -> None:
    gate = StreamGate(STREAMS)
    with gate.hold("watcher", [ROBOTS]):
        _, robots_done, _ = in_thread(play_on(gate, "other", ROBOTS))
        _, eldorado_done, _ = in_thread(play_on(gate, "other", EL50))
        assert eldorado_done.wait(2)  # another stream: not held
        assert not robots_done.wait(0.3)  # the held one: it waits
        with gate.playing("watcher", *ROBOTS):  # the holder's own plays go on
            pass
    assert robots_done.wait(2)  # released: it goes


def test_a_holder_waits_for_plays_in_flight_and_stops_new_ones_meanwhile() -> None:
    gate = StreamGate(STREAMS)
    release = threading.Event()

    def long_play() -> None:
        with gate.playing("player", *ROBOTS):
            release.wait(5)

    _, first_done, _ = in_thread(long_play)
    time.sleep(0.05)
    held = threading.Event()

    def watch() -> None:
        with gate.hold("watcher", [ROBOTS]):
            held.set()
            time.sleep(0.2)

    _, watch_done, _ = in_thread(watch)
    time.sleep(0.05)
    _, later_done, _ = in_thread(play_on(gate, "player", ROBOTS))
    assert not held.wait(0.3)  # a play is in flight on the stream
    assert not later_done.wait(0.1)  # a holder is waiting: no new play passes it
    release.set()
    assert first_done.wait(2) and held.wait(2)
    assert not later_done.is_set()  # still held
    assert watch_done.wait(2) and later_done.wait(2)


def test_a_play_that_names_no_stream_of_the_target_waits_for_any_hold() -> None:
    gate = StreamGate(STREAMS)
    with gate.hold("watcher", [EL100]):
        for stream in [("poker", 100), ("robots", 1), ("robots", "100"), ("robots", [100])]:
            _, done, raised = in_thread(play_on(gate, "other", stream))
            assert not done.wait(0.1), stream  # a faulty target might sell it from any stream
    assert done.wait(2) and not raised
    _, done, _ = in_thread(play_on(gate, "other", ("poker", 100)))
    assert done.wait(2)  # nothing held: it goes


def test_every_stream_held_stops_every_play_of_other_checks() -> None:
    gate = StreamGate(STREAMS)
    with gate.hold("watcher", EVERY):
        waiting = [in_thread(play_on(gate, "other", s)) for s in [*STREAMS, ("poker", 1)]]
        assert not any(done.wait(0.1) for _, done, _ in waiting)
        with gate.playing("watcher", *EL50):
            pass
    assert all(done.wait(2) for _, done, _ in waiting)


def test_one_check_holds_at_a_time_its_scenarios_several_streams_at_once() -> None:
    gate = StreamGate(STREAMS)
    second = gate.hold("a", [EL50])
    with gate.hold("a", [ROBOTS]):
        _, same_owner, _ = in_thread(second.__enter__)
        assert same_owner.wait(2)  # another scenario of the same check
        _, other_owner, _ = in_thread(lambda: gate.hold("b", [EL100]).__enter__())
        assert not other_owner.wait(0.3)  # another check: after this one
        with gate.playing("a", *EL100):  # a holder's play never waits (no cycle)
            pass
        with gate.playing("a", "poker", 1):
            pass
    assert not other_owner.wait(0.3)  # "a" still holds EL50
    second.__exit__(None, None, None)
    assert other_owner.wait(2)


def test_a_cut_check_stops_waiting_and_leaves_nothing_behind() -> None:
    gate = StreamGate(STREAMS)
    cut = threading.Event()

    def cancelled() -> None:
        if cut.is_set():
            raise RuntimeError("cut at its budget")

    with gate.hold("watcher", [ROBOTS]):
        _, play_done, play_raised = in_thread(play_on(gate, "player", ROBOTS, cancelled=cancelled))

        def hold_too() -> None:
            with gate.hold("other watcher", [ROBOTS, EL50], cancelled):
                pass

        _, hold_done, hold_raised = in_thread(hold_too)
        time.sleep(0.1)
        cut.set()
        assert play_done.wait(2) and hold_done.wait(2)  # within a poll of the cut
        assert [str(e) for e in play_raised + hold_raised] == ["cut at its budget"] * 2
        # the cut holder no longer wants EL50: plays there go on while ROBOTS is still held
        assert in_thread(play_on(gate, "player", EL50))[1].wait(2)


def test_a_cut_holder_lets_go_though_its_thread_never_ends() -> None:
    """The runner releases a cut check's holds: its thread may be stuck in a call that never
    returns, and the other checks' plays must not wait on it for the rest of the run."""
    gate = StreamGate(STREAMS)
    stuck = threading.Event()

    def holder() -> None:
        with gate.hold("stuck check", [ROBOTS]):
            stuck.wait(10)  # a call that never returns, as far as the run can tell

    thread, _, _ = in_thread(holder)
    time.sleep(0.05)
    _, waiting, _ = in_thread(play_on(gate, "other", ROBOTS))
    assert not waiting.wait(0.2)
    gate.release("stuck check")
    assert waiting.wait(2)
    with gate.hold("next check", [ROBOTS]):  # a later holder takes it
        pass
    stuck.set()
    thread.join(2)
    assert in_thread(play_on(gate, "other", ROBOTS))[1].wait(2)  # its late exit changed nothing


def test_many_checks_at_once_never_see_a_foreign_play_on_a_held_stream_and_never_deadlock() -> None:
    """Owners hold random sets of streams (EVERY too) and play on random streams, known or not,
    at random; throughout, no play of one owner is in flight on a stream another holds."""
    gate = StreamGate(STREAMS)
    lock = threading.Lock()
    held: dict[Any, str] = {}
    faults: list[str] = []
    choices = [*STREAMS, ("poker", 5)]

    def owner(name: str, seed: int) -> None:
        rng = random.Random(seed)
        for _ in range(40):
            if rng.random() < 0.3:
                want: Any = EVERY if rng.random() < 0.15 else rng.sample(STREAMS, rng.randint(1, 3))
                with gate.hold(name, want):
                    keys = STREAMS if want == EVERY else want
                    with lock:
                        for key in keys:
                            if held.get(key, name) != name:
                                faults.append(f"{name} and {held[key]} both hold {key}")
                            held[key] = name
                    time.sleep(rng.random() / 500)
                    with gate.playing(name, *rng.choice(keys)):
                        pass
                    with lock:
                        for key in keys:
                            del held[key]
            else:
                stream = rng.choice(choices)
                with gate.playing(name, *stream):
                    with lock:
                        holders = (
                            set(held.values())
                            if stream not in STREAMS
                            else {held.get(stream, name)}
                        )
                        if holders - {name}:
                            faults.append(f"{name} played {stream} held by {holders}")
                    time.sleep(rng.random() / 1000)

    threads = [
        threading.Thread(target=owner, args=(f"check-{n}", n), daemon=True) for n in range(8)
    ]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 30
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    assert not any(t.is_alive() for t in threads), "deadlocked"
    assert faults == []


@pytest.mark.parametrize(
    ("implementation", "expected"),
    [
        (
            {"games": {"robots": {"stakes_cents": [100]}, "eldorado": {"stakes_cents": [50]}}},
            [("robots", 100), ("eldorado", 50)],
        ),
        ({}, []),
        ({"games": ["robots"]}, []),
        ({"games": {"robots": {"stakes_cents": "100"}}}, []),
        ({"games": {"robots": {"stakes_cents": [100, "200", True, None]}}}, [("robots", 100)]),
    ],
)
def test_the_streams_of_a_target_are_the_pairs_it_offers(
    implementation: dict[str, Any], expected: list[tuple[str, int]]
) -> None:
    assert offered_streams(implementation) == expected


# -- the runner: a watching check beside checks that play ----------------------------------


class Slow:
    """The in-process reference, each call 3 ms away: checks side by side overlap."""

    def __init__(self) -> None:
        from harness._reference_adapter import ReferenceAdapter
        from tests.reference._live import SEED

        self.inner = ReferenceAdapter(seed=SEED)
        self.name = "python:reference"

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self.inner, name)
        if not callable(attribute) or name == "close":
            return attribute

        def call(*args: Any, **kwargs: Any) -> Any:
            time.sleep(0.003)
            return attribute(*args, **kwargs)

        return call


def _watcher(how: str, spans: list[tuple[float, float]]) -> Callable[[Any], None]:
    """30 robots plays in a row on one account, each the next unit (play.sales.block_order);
    ``how``: "holds" the stream around them, "whole" (the runner holds every stream for the
    whole check), "forgets" (says it holds its streams, and does not); when its plays ran
    goes to ``spans``."""
    from conformance import CheckFailure

    def watch(ctx: Any) -> None:
        account = ctx.adapter.open_account(10_000)
        hold = ctx.hold([ROBOTS]) if how == "holds" else contextlib.nullcontext()
        with hold:
            began, before = time.monotonic(), None
            for _ in range(30):
                played = ctx.adapter.play(account["account_id"], account["token"], *ROBOTS)
                if before is not None and played["index"] != before["index"] + 1:
                    raise CheckFailure(f"unit {played['index']} after {before['index']}")
                before = played
            spans.append((began, time.monotonic()))

    return watch


def _player(
    stream: tuple[str, int], log: list[tuple[str, float, float]], plays: int = 60
) -> Callable[[Any], None]:
    """``plays`` plays at ``stream`` on an account of its own, when each was asked and answered
    logged."""

    def play(ctx: Any) -> None:
        account = ctx.adapter.open_account(10_000)
        for _ in range(plays):
            asked = time.monotonic()
            ctx.adapter.play(account["account_id"], account["token"], *stream)
            log.append((stream[0], asked, time.monotonic()))

    return play


@pytest.mark.parametrize(("how", "passes"), [("holds", True), ("whole", True), ("forgets", False)])
def test_a_watching_check_sees_no_play_of_the_checks_beside_it_on_what_it_holds(
    how: str, passes: bool
) -> None:
    from conformance import Check
    from conformance._profiles import load_profile
    from harness._runner import Runner, RunPlan

    log: list[tuple[str, float, float]] = []
    spans: list[tuple[float, float]] = []
    order, money = "play.sales.block_order", "play.money.exact"
    checks = {
        "watcher": Check(
            id="watcher",
            requirements=(order,),
            capability="play",
            games=("robots",),
            function=_watcher(how, spans),
            doc="",
            cost="long",
            exclusive=True,
            holds_streams=how != "whole",
        ),
        **{
            f"player{n}": Check(
                id=f"player{n}",
                requirements=(money,),
                capability="play",
                games=("robots", "eldorado"),
                function=_player((ROBOTS, EL50, EL100)[n], log),
                doc="",
                cost="long",
            )
            for n in range(3)
        },
    }
    plan = RunPlan(
        target="python:reference",
        profile="quick",
        settings={**load_profile("quick"), "check_concurrency": 4},
        seed=11,
        config={},
        filtered=True,
        requirements=(order, money),
    )
    adapter = Slow()
    try:
        result = Runner(plan, [], checks=checks).run(adapter)  # type: ignore[arg-type]
    finally:
        adapter.inner.close()
    outcomes = {v.id: v.outcome for v in result.requirements}
    assert outcomes[money] == "pass"
    assert outcomes[order] == ("pass" if passes else "fail"), outcomes
    assert len(log) == 180
    began, ended = spans[0] if spans else (0.0, 0.0)  # when the watcher's plays ran
    inside = [game for game, asked, answered in log if began < asked < answered < ended]
    if how == "holds":  # only robots was held: eldorado plays went on meanwhile
        assert "eldorado" in inside and "robots" not in inside, spans
    if how == "whole":  # every stream held: no play asked meanwhile was answered before its end
        assert inside == []


def test_a_watching_check_cut_while_it_holds_does_not_hold_up_the_run() -> None:
    """A watching check stuck (in a call that never returns) while it holds robots is cut at
    its budget; the check playing robots beside it goes on then, and passes."""
    from conformance import Check
    from conformance._profiles import load_profile
    from harness._runner import Runner, RunPlan

    release = threading.Event()
    log: list[tuple[str, float, float]] = []
    order, money = "play.sales.block_order", "play.money.exact"

    def stuck(ctx: Any) -> None:
        with ctx.hold([ROBOTS]):
            release.wait(30)

    checks = {
        "stuck": Check("stuck", (order,), "play", ("robots",), stuck, "", "long", True, True),
        "player": Check("player", (money,), "play", ("robots",), _player(ROBOTS, log, 20), ""),
    }
    # the budget cuts the stuck check; the player's 20 plays (a fraction of a second) must fit
    # in it on a busy machine too, its wait at the gate not counted
    plan = RunPlan(
        target="python:reference",
        profile="quick",
        settings={**load_profile("quick"), "check_concurrency": 4, "check_budget_s": 5},
        seed=11,
        config={},
        filtered=True,
        requirements=(order, money),
    )
    adapter = Slow()
    try:
        result = Runner(plan, [], checks=checks).run(adapter)  # type: ignore[arg-type]
    finally:
        release.set()
        adapter.inner.close()
    outcomes = {v.id: v.outcome for v in result.requirements if v.id in (order, money)}
    assert outcomes == {order: "error", money: "pass"}, outcomes  # its wait was not counted
    assert len(log) == 20
