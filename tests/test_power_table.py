"""scripts/power_table.py: its planted layouts are what they say, its section of
docs/strength.md is written between markers, and scripts/strength_table.py keeps it."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def _script(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


power = _script("power_table")
UNITS = 50_000


def test_the_scaled_lot_table_keeps_the_top_tiers_and_the_proportions() -> None:
    lots = power.lot_table(UNITS)
    assert sum(lots.values()) == UNITS
    assert (lots[1_000_000], lots[100_000], lots[10_000]) == (2, 30, 150)  # real counts
    assert lots[100] == round(295_000 * UNITS / 2_000_000)


def test_planted_layouts_keep_the_lot_table() -> None:
    lots = power.lot_table(UNITS)
    want = sorted(np.repeat(list(lots), list(lots.values())).tolist())
    rng = np.random.default_rng(1)
    for make in (
        power.correct,
        power.clustered(0.05),
        power.stratified(1000),
        power.periodic(0.2),
    ):
        assert sorted(make(lots, rng).tolist()) == want
    for pair in (power.independent, power.derived(power.shift(10)), power.top_early(0.1)):
        for block in pair(lots, rng):
            assert sorted(block.tolist()) == want


def test_planted_layouts_are_placed_as_they_say() -> None:
    lots = power.lot_table(UNITS)
    rng = np.random.default_rng(2)
    first, second = power.derived(power.shift(10))(lots, rng)
    assert (np.roll(first, 10) == second).all()
    top = [p for p, n in lots.items() if 0 < n <= 200]
    for block in power.top_early(0.1)(lots, rng):
        assert np.flatnonzero(np.isin(block, top)).max() < UNITS // 10
    regular = power.stratified(1000)(lots, rng)
    per_run = (regular.reshape(-1, 1000) > 0).sum(axis=1)
    assert per_run.max() - per_run.min() <= 1
    on_beat = power.periodic(1.0)(lots, rng)  # more winners than beats: every beat wins
    assert (on_beat[::7] > 0).all()


def test_the_section_is_written_between_markers_and_kept(tmp_path: Path) -> None:
    page = tmp_path / "strength.md"
    page.write_text("# Strength\n\nthe variants table\n")
    power.write_section(f"{power.BEGIN}\nfirst\n{power.END}", page)
    power.write_section(f"{power.BEGIN}\nsecond\n{power.END}", page)
    text = page.read_text()
    assert text.count(power.BEGIN) == 1 and "second" in text and "first" not in text
    assert text.startswith("# Strength\n\nthe variants table\n")
    strength = _script("strength_table")
    assert strength.POWER_BEGIN == power.BEGIN and strength.POWER_END == power.END
    regenerated = strength.keep_power_table("# Strength\n\nnew variants table\n", page)
    assert regenerated.startswith("# Strength\n\nnew variants table\n")
    assert f"{power.BEGIN}\nsecond\n{power.END}" in regenerated
    assert strength.keep_power_table("# only\n", tmp_path / "absent.md") == "# only\n"


def test_the_strength_table_starts_the_runs_that_took_longest_last_time_first(
    tmp_path: Path,
) -> None:
    strength = _script("strength_table")
    page = tmp_path / "strength.md"
    page.write_text(
        "| variant | fault | time (s) | result |\n|---|---|---:|---|\n"
        "| `quick` | a fault with a `\\|` in it | 1.5 | caught |\n"
        "| `long` (*whole*) | x | 120.0 | caught |\n\n"
        "| implementation | verdict | time (s) |\n|---|---|---:|\n| `reference` | OK | 17.4 |\n",
        encoding="utf-8",
    )
    times = strength.previous_times(page)
    assert times == {"quick": 1.5, "long": 120.0, "reference": 17.4}
    assert strength.previous_times(tmp_path / "absent.md") == {}
    jobs = [("faulty", n, "area") for n in ("quick", "new", "long")] + [
        ("correct", "reference", "area")
    ]
    ordered = [name for _kind, name, _scope in strength.longest_first(jobs, times)]
    assert ordered == ["new", "long", "reference", "quick"]
