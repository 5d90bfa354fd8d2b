"""A seed draws the same examples whatever modules are loaded (conformance/_hypothesis.py)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from conformance import _hypothesis

from .fresh import fresh_python

SCRIPT = textwrap.dedent(
    """
    import sys
    from hypothesis import Phase, given, seed, settings, strategies as st
    if sys.argv[1] == "pinned":
        import conformance._hypothesis

    def draws():
        seen = []

        @seed(20261201)
        @settings(max_examples=600, database=None, phases=[Phase.generate], deadline=None)
        @given(st.integers(0, 10**6))
        def collect(n):
            seen.append(n)

        collect()
        return seen

    before = draws()
    sys.path.insert(0, sys.argv[2])
    import vendor_constants  # a local module full of integer constants, loaded mid-run
    print("same" if draws() == before else "different")
    """
)


def run(mode: str, tmp_path: Path) -> str:
    constants = ", ".join(str(100_003 + 7919 * i) for i in range(400))
    (tmp_path / "vendor_constants.py").write_text(f"TABLE = [{constants}]\n", encoding="utf-8")
    return fresh_python(SCRIPT, mode, str(tmp_path)).stdout.strip()


def test_a_seed_draws_the_same_examples_after_a_module_loads(tmp_path: Path) -> None:
    assert run("pinned", tmp_path) == "same"


def test_without_the_pin_a_loaded_module_changes_the_draws(tmp_path: Path) -> None:
    # what the pin is for: this hypothesis draws constants from loaded local modules
    if not _hypothesis.PINNED:
        pytest.skip("this hypothesis has no local-constant pool to pin")
    assert run("unpinned", tmp_path) == "different"


RACE = textwrap.dedent(
    """
    import sys, threading
    assert "hypothesis" not in sys.modules
    from conformance import CheckContext, execute, registered_checks
    from conformance._profiles import check_settings
    from harness._reference_adapter import ReferenceAdapter

    ids = [
        "eldorado_rules.all_rows", "eldorado_rules.differential_edges",
        "invalid_tickets.eldorado", "metamorphic.eldorado_row_order",
        "robots_rules.differential_edges", "metamorphic.robots_button_order",
        "invalid_tickets.robots", "robots_rules.several_gauges",
    ]
    checks = registered_checks()
    adapter = ReferenceAdapter()
    settings = check_settings({"hypothesis_max_examples": 10, "exhaustive": False}, "race")
    outcomes = {}

    def run(cid):
        ctx = CheckContext(
            adapter=adapter, implementation=adapter.describe(), settings=settings, seed=1
        )
        outcomes[cid] = execute(checks[cid], ctx)

    threads = [threading.Thread(target=run, args=(c,)) for c in ids]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    adapter.close()
    print({c: o.message[:300] for c, o in outcomes.items() if o.outcome != "pass"})
    """
)


@pytest.mark.parametrize("attempt", [1, 2])
def test_checks_starting_at_once_import_hypothesis_one_at_a_time(attempt: int) -> None:
    """Hypothesis imported for the first time by several checks' threads at once: each thread
    got the other's half-imported hypothesis (ImportError: partially initialized module
    'hypothesis.core') in about one fresh process in three, and its checks ended in error.
    Checks that are not block checks now import it through one lock (conformance._lazy)."""
    done = fresh_python(RACE, timeout=300)
    assert done.stdout.strip() == "{}", done.stdout + done.stderr


THREAD_RANDOM = textwrap.dedent(
    """
    import gc, json, threading
    from hypothesis import given, seed, settings, strategies as st
    from hypothesis.internal import entropy
    from conformance._lazy import prepare_hypothesis_thread

    collections = []
    real_collect = gc.collect
    gc.collect = lambda *a: collections.append(1) or real_collect(*a)

    def draws(prepare):
        seen, out = [], {}

        @seed(1234)
        @settings(max_examples=20, database=None)
        @given(st.integers())
        def probe(n):
            seen.append(n)

        def body():
            if prepare:
                prepare_hypothesis_thread()
            before = len(collections)
            probe()
            mine = entropy.hypothesis.core.threadlocal._hypothesis_global_random
            out.update(
                draws=seen,
                collections=len(collections) - before,
                managed=any(r is mine for r in entropy.RANDOMS_TO_MANAGE.values()),
            )

        thread = threading.Thread(target=body)
        thread.start()
        thread.join()
        return out

    print(json.dumps({"plain": draws(False), "prepared": draws(True)}))
    """
)


def test_a_check_thread_gets_its_seed_generator_without_a_garbage_collection() -> None:
    """Hypothesis's own first test in a thread registers the thread's seed generator with a full
    ``gc.collect()`` (every thread stopped meanwhile); a check's thread has it registered
    beforehand, without one, and draws the same examples from the same seed."""
    found = json.loads(fresh_python(THREAD_RANDOM).stdout)
    plain, prepared = found["plain"], found["prepared"]
    assert plain["collections"] >= 1 and plain["managed"]  # what is saved: hypothesis's guard
    assert prepared["collections"] == 0 and prepared["managed"]
    assert prepared["draws"] == plain["draws"] and len(plain["draws"]) == 20
