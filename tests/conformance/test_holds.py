"""The exclusive checks that hold their streams themselves (``holds_streams``) buy every unit
inside a hold of its (game, stake): otherwise a play of another check could fall between
theirs (harness._streams holds only what a check asks for)."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from conformance import EVERY_STREAM
from conformance._execute import execute
from conformance._profiles import DEFAULTS
from conformance._registry import CheckContext
from conformance._suite import registered_checks
from harness._reference_adapter import ReferenceAdapter
from tests.seeds import TEST_SEED

HOLDERS = sorted(c.id for c in registered_checks().values() if c.holds_streams)


class Recorder:
    """The reference, recording each play's (game, stake) with the holds active when it was
    asked; the check's holds come from ``hold``."""

    def __init__(self, inner: ReferenceAdapter) -> None:
        self.inner = inner
        self.lock = threading.Lock()
        self.active: Counter[Any] = Counter()
        self.plays: list[tuple[Any, Any, bool]] = []  # game, stake, asked inside a hold of it

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def play(self, account_id: str, token: str | None, game: str, stake_cents: int) -> Any:
        with self.lock:
            held = self.active[(game, stake_cents)] > 0 or self.active[EVERY_STREAM] > 0
            self.plays.append((game, stake_cents, held))
        return self.inner.play(account_id, token, game, stake_cents)

    @contextmanager
    def hold(self, streams: Collection[tuple[str, int]] | str) -> Iterator[None]:
        keys = [EVERY_STREAM] if streams == EVERY_STREAM else list(streams)
        with self.lock:
            self.active.update(keys)
        try:
            yield
        finally:
            with self.lock:
                self.active.subtract(keys)


def test_the_checks_that_hold_their_own_streams_are_the_exclusive_ones_that_should() -> None:
    exclusive = {c.id: c.holds_streams for c in registered_checks().values() if c.exclusive}
    assert exclusive == {
        "play.block_order": True,
        "play.concurrent_one_account": True,
        "play.concurrent_sales": True,
        "play.insufficient_funds": True,
        "play.invalid_requests": False,  # every stream, its whole run (an invalid play's unit)
        "play.top_lots": True,
    }
    assert registered_checks()["play.top_lots"].first


@pytest.mark.parametrize("check_id", HOLDERS)
def test_a_check_holding_its_streams_buys_every_unit_inside_a_hold_of_it(
    check_id: str, tmp_path: Path
) -> None:
    inner = ReferenceAdapter(tmp_path / "reference.sqlite3", seed=TEST_SEED)
    recorder = Recorder(inner)
    try:
        settings = {**DEFAULTS, "play_count": 12, "top_lot_units": 150, "one_account_rounds": 2}
        ctx = CheckContext(
            recorder,  # type: ignore[arg-type]
            inner.describe(),
            settings,
            7,  # the checks' seed
            stream_gate=recorder.hold,
        )
        outcome = execute(registered_checks()[check_id], ctx)
    finally:
        inner.close()
    assert outcome.outcome == "pass", outcome.message
    assert recorder.plays, "the check made no play"
    unheld = sorted({(g, s) for g, s, held in recorder.plays if not held})
    assert unheld == [], f"{check_id} played {unheld} outside a hold of it"
