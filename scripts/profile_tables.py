"""Write the profile tables of ``docs/certify.md`` and ``docs/conformance.md`` from the sources.

The figures the docs quote about the profiles (settings, blocks and units read, the default
timeout, the default profile of certify and of pytest) come from ``conformance/profiles.yaml``,
the CLI defaults and the reference's own block listing, never from someone's memory:

    python scripts/profile_tables.py            # rewrite the tables in place
    python scripts/profile_tables.py --check    # exit 1 if a page is out of date (the tests)

Each table sits between ``<!-- profile-table:NAME -->`` and ``<!-- /profile-table:NAME -->``.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import reference  # noqa: E402
from conformance._profiles import load_profile, profile_names  # noqa: E402
from harness._config import DEFAULT_PROFILE  # noqa: E402
from harness._reference_adapter import ReferenceAdapter  # noqa: E402
from harness._runner import CERTIFYING_PROFILES  # noqa: E402
from harness._targets import REFERENCE_SEED  # noqa: E402
from harness._timeout import DEFAULT_TIMEOUT_S  # noqa: E402

PAGES = {"certify": ROOT / "docs" / "certify.md", "settings": ROOT / "docs" / "conformance.md"}
UNRELATED_BLOCKS = 2  # blocks.unrelated_blocks compares the first two listed blocks


@dataclass(frozen=True)
class Reading:
    """What one profile reads from the built-in reference."""

    blocks: int
    units: int


def listed_blocks() -> dict[tuple[str, int], list[int]]:
    """Units of every block the reference lists, per (game, stake)."""
    adapter = ReferenceAdapter(seed=REFERENCE_SEED)
    try:
        return {
            (game, stake): [int(b["units"]) for b in adapter.list_blocks(game, stake)]
            for game in reference.GAMES
            for stake in reference.load_rules(game).stakes_cents
        }
    finally:
        adapter.close()


def reading(profile: str, listed: dict[tuple[str, int], list[int]]) -> Reading:
    """Blocks and units a run of ``profile`` reads from the reference (the block checks' rule:
    ``blocks_per_stake`` blocks audited, at least two read for ``unrelated_blocks``; each whole
    or a slice of ``block_sample_units``)."""
    settings = load_profile(profile)
    per, sample = settings["blocks_per_stake"], settings["block_sample_units"]
    blocks = units = 0
    for sizes in listed.values():
        audited = len(sizes) if per is None else min(per, len(sizes))
        read = max(audited, min(UNRELATED_BLOCKS, len(sizes)))
        for size in sizes[:read]:
            blocks += 1
            whole = settings["block_mode"] == "whole" or sample is None
            units += size if whole else min(sample, size)
    return Reading(blocks, units)


def figure(n: int) -> str:
    """1,234,567: how the docs write counts."""
    return f"{n:,}"


def certify_table(listed: dict[tuple[str, int], list[int]]) -> str:
    rows = [
        "| profile | can certify | blocks read per (game, stake) | units read per block | "
        "read from the reference | hypothesis examples per check | plays |",
        "|---|---|---|---|---|---|---|",
    ]
    for name in profile_names():
        s = load_profile(name)
        r = reading(name, listed)
        per = s["blocks_per_stake"]
        audited = "every listed block" if per is None else f"{per} audited"
        blocks = (
            f"{audited}, at least {UNRELATED_BLOCKS} read (`unrelated_blocks` compares two)"
            if per is not None and per < UNRELATED_BLOCKS
            else f"{audited} (the reference lists {UNRELATED_BLOCKS})"
        )
        units = (
            "the whole block"
            if s["block_mode"] == "whole"
            else f"a seeded slice of {figure(s['block_sample_units'])}"
        )
        default = " (default)" if name == DEFAULT_PROFILE else ""
        certifies = "yes" if name in CERTIFYING_PROFILES else "no"
        rows.append(
            f"| `{name}`{default} | {certifies} | {blocks} | {units} | "
            f"{figure(r.units)} units in {r.blocks} blocks | "
            f"{figure(s['hypothesis_max_examples'])} | {figure(s['play_count'])} |"
        )
    rows.append("")
    rows.append(f"`--timeout S` defaults to {DEFAULT_TIMEOUT_S:g} s per request.")
    return "\n".join(rows)


def settings_table() -> str:
    names = profile_names()
    profiles = {name: load_profile(name) for name in names}
    rows = ["| setting | " + " | ".join(f"`{n}`" for n in names) + " |"]
    rows.append("|---|" + "---:|" * len(names))
    for key in profiles[names[0]]:
        if key in ("games", "stakes"):
            continue
        values = [profiles[n][key] for n in names]
        shown = [
            "null" if v is None else str(v).lower() if isinstance(v, bool) else str(v)
            for v in values
        ]
        rows.append(f"| `{key}` | " + " | ".join(shown) + " |")
    return "\n".join(rows)


def tables() -> dict[str, str]:
    listed = listed_blocks()
    return {"certify": certify_table(listed), "settings": settings_table()}


def render(text: str, name: str, table: str) -> str:
    """``text`` with the table ``name`` replaced; ValueError when its markers are missing."""
    pattern = re.compile(
        rf"(<!-- profile-table:{name} -->\n)(?:.*?\n)?(<!-- /profile-table:{name} -->)", re.S
    )
    if not pattern.search(text):
        raise ValueError(f"no <!-- profile-table:{name} --> ... <!-- /profile-table:{name} -->")
    return pattern.sub(lambda m: m.group(1) + table + "\n" + m.group(2), text, count=1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a page is out of date")
    args = parser.parse_args(argv)
    stale = []
    for name, table in tables().items():
        page = PAGES[name]
        text = page.read_text(encoding="utf-8")
        new = render(text, name, table)
        if new != text:
            stale.append(str(page.relative_to(ROOT)))
            if not args.check:
                page.write_text(new, encoding="utf-8")
    if stale and args.check:
        print(f"out of date: {', '.join(stale)}; run python scripts/profile_tables.py")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
