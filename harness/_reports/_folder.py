"""The report folder written all at once: a run's reports go to a hidden staging folder inside
``--out``, and replace the previous run's only when every one of them is written.

``--out`` therefore holds either the previous run's complete reports or this run's, never a
mix, a file cut in the middle or an empty one (issue 29 item 4, issue 30 item 2): a full disk,
a read-only folder or an interrupted run (Ctrl-C, SIGTERM) leave the previous reports as they
were and no staging folder behind. The renames are atomic (same file system); the manifest,
which vouches for the others, is put in place after them and the signed attestation last, and
the few renames run with SIGINT and SIGTERM held (docs/reports.md).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import tempfile
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import FrameType

STAGING_PREFIX = ".instantcert-partial-"


class ReportWriteError(Exception):
    """The reports could not be written (disk full, read-only, a file where a folder should
    be): one line, exit 2."""


def describe(exc: OSError) -> str:
    """An ``OSError`` as one short line: its reason and the path it names."""
    reason = exc.strerror or type(exc).__name__
    return f"{reason}: {exc.filename}" if exc.filename else reason


class ReportFolder:
    """``out`` and the staging folder this run writes into (``staging``)."""

    def __init__(self, out: Path) -> None:
        self.out = out
        try:
            out.mkdir(parents=True, exist_ok=True)
            self.staging = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=out))
        except OSError as exc:
            raise ReportWriteError(f"--out {str(out)!r}: {describe(exc)}") from None

    def discard(self) -> None:
        """Forget this run's reports: the staging folder goes, ``out`` is as it was."""
        shutil.rmtree(self.staging, ignore_errors=True)

    def commit(self, names: Sequence[str], last: Sequence[str], folders: Sequence[str]) -> None:
        """Put the staged reports in place of the previous run's: ``folders`` (e.g. ``cases``)
        and ``names`` first, then ``last`` in order (the manifest, the attestation). A report
        file of the previous run that this run did not write is removed before (a stale
        manifest must not vouch for a mix)."""
        with _signals_held():
            try:
                for name in last:  # what vouches for the others goes first, comes back last
                    (self.out / name).unlink(missing_ok=True)
                for name in folders:
                    self._swap_folder(name)
                for name in (*names, *last):
                    staged = self.staging / name
                    if staged.is_file():
                        os.replace(staged, self.out / name)
                    else:
                        (self.out / name).unlink(missing_ok=True)
            except OSError as exc:
                raise ReportWriteError(describe(exc)) from None
            finally:
                self.discard()

    def _swap_folder(self, name: str) -> None:
        old, new, final = self.staging / f"{name}.old", self.staging / name, self.out / name
        if final.is_dir() and not final.is_symlink():
            os.replace(final, old)
        elif final.exists() or final.is_symlink():
            final.unlink()
        if new.is_dir():
            os.replace(new, final)


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM wait for the block's end (a few renames), then act as they would
    have; outside the main thread (handlers can only be set there) nothing is held."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []

    def hold(signum: int, frame: FrameType | None) -> None:
        caught.append(signum)

    previous = {s: signal.signal(s, hold) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        if caught:
            signal.raise_signal(caught[0])
