"""Which check modules a run loads (``conformance.checks.load_checks``): a run restricted to
some capabilities (``audit-block``: blocks) loads only the modules that hold their checks, so
``MODULES_OF_CAPABILITY`` must name every module where such a check is written."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conformance import load_catalogue, registered_checks
from conformance.checks import MODULES_OF_CAPABILITY


def checks_of(capability: str) -> dict[str, str]:
    """Every registered check of ``capability`` or covering a requirement of it, and the
    module it is written in."""
    catalogue = load_catalogue()
    return {
        check.id: check.function.__module__
        for check in registered_checks().values()
        if check.capability == capability
        or any(r in catalogue and catalogue[r].capability == capability for r in check.requirements)
    }


@pytest.mark.parametrize("capability", sorted(MODULES_OF_CAPABILITY))
def test_every_check_of_a_capability_is_in_its_modules(capability: str) -> None:
    found = checks_of(capability)
    assert found, f"no check of {capability!r}: the table names a capability nothing checks"
    modules = {f"conformance.checks.{name}" for name in MODULES_OF_CAPABILITY[capability]}
    elsewhere = {cid: module for cid, module in found.items() if module not in modules}
    assert not elsewhere, (
        f"checks of {capability!r} written outside MODULES_OF_CAPABILITY[{capability!r}]: "
        f"{elsewhere}; add their modules there (conformance/checks/__init__.py)"
    )
    assert {module for module in found.values()} == modules  # and no module named for nothing


PROBE = """
import json, sys
from conformance import registered_checks
checks = registered_checks(json.loads(sys.argv[1]))
prefix = "conformance.checks."
inside = [m.removeprefix(prefix) for m in sys.modules if m.startswith(prefix)]
loaded = sorted(m for m in inside if m.isidentifier() and not m.startswith("_"))
print(json.dumps({"checks": sorted(checks), "modules": loaded}))
"""


def loaded_for(capabilities: list[str] | None) -> dict[str, list[str]]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(capabilities)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result: dict[str, list[str]] = json.loads(done.stdout.splitlines()[-1])
    return result


def test_a_block_run_loads_the_block_check_modules_alone_and_every_block_check() -> None:
    seen = loaded_for(["blocks"])
    assert set(seen["modules"]) == set(MODULES_OF_CAPABILITY["blocks"])
    assert set(checks_of("blocks")) <= set(seen["checks"])


@pytest.mark.parametrize("capabilities", [None, ["blocks", "play"], ["nothing-of-the-sort"]])
def test_any_other_run_loads_every_check(capabilities: list[str] | None) -> None:
    """A run of every capability, or of one the table does not name, loads them all."""
    assert set(loaded_for(capabilities)["checks"]) == set(registered_checks())
