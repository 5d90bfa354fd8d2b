"""``certify --wait S``: give a service that is still starting S seconds to answer.

A service started in the background (``instantcert serve &``, a CI service container) takes a
moment to listen; without this, the run would stop at once with "target unreachable" (exit 2).
Only "nothing answers" is waited out: a target that answers, even wrongly, is left to the run's
smoke step to judge, and after S seconds the run goes on and reports what it finds.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

from ._adapter import Adapter
from ._errors import TargetError, TargetUnreachable

POLL_S = 0.5


def wait_for_target(
    adapter: Adapter,
    seconds: float,
    *,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> bool:
    """True once ``adapter.describe()`` gets any answer, False if nothing answered in time."""
    deadline = clock() + seconds
    told = False
    while True:
        try:
            adapter.describe()
            return True
        except TargetUnreachable:
            pass
        except TargetError:
            return True  # it answers: the smoke step judges how
        if clock() >= deadline:
            return False
        if not told:
            print(f"waiting up to {seconds:g} s for {adapter.name} to answer", file=sys.stderr)
            told = True
        sleep(min(POLL_S, max(0.0, deadline - clock())))
