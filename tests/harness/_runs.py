"""Real runs of the small test catalogue (``_support``) written to a report folder, for the
tests of the CI reports, ``compare`` and signing: every report file as ``certify`` writes it.
"""

from __future__ import annotations

import datetime as dt
import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from conformance._profiles import load_profile
from harness._adapter import Adapter
from harness._errors import TargetTimeout
from harness._reference_adapter import ReferenceAdapter
from harness._reports import report_handlers
from harness._runner import Runner, RunPlan
from harness._waivers import Waiver
from tests.faulty._wrapped import BrokenX2Adapter

from . import _support as support

HOSTILE = "no answer <script>alert(1)</script> | @vendor/team `tick` ``x``\nsecond line"


class HostileAdapter(BrokenX2Adapter):
    """Breaks robots 4.6 (X2) and times out on eldorado with a message made to break Markdown."""

    def evaluate(self, game: str, stake_cents: int, tickets: Sequence[str]) -> list[dict[str, Any]]:
        if game == "eldorado":
            raise TargetTimeout(HOSTILE)
        return super().evaluate(game, stake_cents, tickets)


def report_run(
    out: Path,
    adapter: Adapter,
    *,
    waivers: Sequence[Waiver] = (),
    seed: int = 11,
    **extra: Any,
) -> Path:
    """Run the test catalogue's checks on ``adapter``; every report written to ``out``."""
    settings = load_profile("full")
    handlers = report_handlers(out, io.StringIO(), **extra)
    plan = RunPlan(
        target=getattr(adapter, "name", "python:test"),
        profile="full",
        settings=settings,
        seed=seed,
        config={"effective_settings": settings},
        out_dir=out,
        waivers=waivers,
    )
    Runner(plan, handlers, checks=support.make_checks(), catalogue=support.CATALOGUE).run(adapter)
    adapter.close()
    for handler in handlers:
        handler.close()
    return out


def reference_run(out: Path, **extra: Any) -> Path:
    return report_run(out, ReferenceAdapter(name="python:reference"), **extra)


def broken_run(out: Path, **extra: Any) -> Path:
    return report_run(out, support.broken_x2(), **extra)


def hostile_run(out: Path) -> Path:
    """A failure waived, an error with a hostile message, an unsupported play check."""
    waiver = Waiver("robots.4.6.x2", "vendor ticket #12 | <b>fix</b> due", dt.date(2999, 1, 1))
    adapter = HostileAdapter(name="python:tests.harness._runs:hostile <i>|</i>")
    return report_run(out, adapter, waivers=[waiver])
