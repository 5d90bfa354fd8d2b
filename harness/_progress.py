"""Progress on long work: a tqdm bar on a terminal, periodic one-line progress otherwise.

A CI log must not fill with carriage returns, and a person at a terminal must not stare at a
silent screen for minutes: the same events drive both, chosen by ``stream.isatty()``.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

from ._escape import terminal
from ._events import (
    CheckFinished,
    CheckStarted,
    Event,
    Progress,
    RunFinished,
    RunStarted,
    SmokeFinished,
)

LINE_INTERVAL_S = 10.0


class ProgressHandler:
    """Shows each check as it runs, as "check 3/17" (the total comes with ``SmokeFinished``)."""

    def __init__(
        self,
        total_checks: int = 0,
        stream: TextIO | None = None,
        *,
        tty: bool | None = None,
        interval_s: float = LINE_INTERVAL_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.total = total_checks
        self.interval_s = interval_s
        self.clock = clock
        self.index = 0
        self.bar: Any = None
        self.last_line = 0.0

    def _write(self, line: str) -> None:
        self.stream.write(terminal(line) + "\n")  # a target's text cannot drive the terminal
        self.stream.flush()

    def handle(self, event: Event) -> None:
        if isinstance(event, RunStarted):
            self._write(
                f"instantcert: certifying {event.target} (profile {event.profile}, "
                f"seed {event.seed})"
            )
        elif isinstance(event, SmokeFinished):
            self.total = event.checks or self.total
            if not event.ok:
                self._write(f"instantcert: {event.message}")
        elif isinstance(event, CheckStarted):
            self.index += 1
            self.last_line = self.clock()
            if self.tty:
                from tqdm import tqdm  # type: ignore[import-untyped]  # a terminal's only

                self.bar = tqdm(
                    total=None,
                    desc=f"[{self.index}/{self.total}] {event.check_id}",
                    file=self.stream,
                    leave=False,
                    dynamic_ncols=True,
                    unit="",
                )
        elif isinstance(event, Progress):
            self._progress(event)
        elif isinstance(event, CheckFinished):
            if self.bar is not None:
                self.bar.close()
                self.bar = None
            self._write(
                f"[{self.index}/{self.total}] {event.check_id}: {event.outcome} "
                f"({event.duration_s:.1f} s)"
            )
        elif isinstance(event, RunFinished) and self.bar is not None:
            self.bar.close()
            self.bar = None

    def _progress(self, event: Progress) -> None:
        if self.bar is not None:
            if event.total is not None and self.bar.total != event.total:
                self.bar.total = event.total
            self.bar.n = event.done
            self.bar.set_postfix_str(event.what, refresh=False)
            self.bar.refresh()
            return
        now = self.clock()
        if now - self.last_line < self.interval_s:
            return
        self.last_line = now
        share = f" ({100 * event.done // event.total}%)" if event.total else ""
        total = f"/{event.total:,}" if event.total is not None else ""
        self._write(
            f"[{self.index}/{self.total}] {event.check_id}: {event.done:,}{total}{share} "
            f"{event.what}"
        )

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
