"""The report's figures (matplotlib, Agg), returned as inline SVG so the HTML stays one file.

Where a person would rather look than read: the lot distribution observed vs expected, the
cumulative payout across the block against the expected straight line, and the p-values of
the randomness tests against the significance level.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

_counter = [0]


def _svg(figure: Figure) -> str:
    """The figure as an inline ``<svg>`` element: no XML prolog, DOCTYPE or metadata."""
    _counter[0] += 1
    buffer = io.StringIO()
    with plt.rc_context({"svg.fonttype": "none", "svg.hashsalt": f"fig{_counter[0]}"}):
        figure.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(figure)
    text = buffer.getvalue()
    text = text[text.index("<svg") :]
    text = re.sub(r"<metadata>.*?</metadata>", "", text, flags=re.S)
    return re.sub(r'\s(width|height)="[^"]*pt"', "", text, count=2).replace(
        "<svg ", '<svg class="plot" ', 1
    )


def _euros(cents: int) -> str:
    whole, part = divmod(int(cents), 100)
    return f"{whole:,} €".replace(",", " ") if not part else f"{whole},{part:02d} €"


def lot_distribution(block: Mapping[str, Any]) -> str:
    """Units per prize tier, observed next to expected (log scale: tiers span 1 to 10^6)."""
    expected: Mapping[str, int] = block["lots_expected"]
    observed: Mapping[str, int] = block["lots_observed"]
    tiers = sorted({int(k) for k in expected} | {int(k) for k in observed})
    labels = [_euros(t) if t else "loses" for t in tiers]
    scale = sample_scale(block)
    exp = [expected.get(str(t), 0) * scale for t in tiers]
    obs = [observed.get(str(t), 0) for t in tiers]
    figure, axes = plt.subplots(figsize=(8, 3.2))
    x = range(len(tiers))
    axes.bar([i - 0.2 for i in x], exp, width=0.4, label="expected", color="#9db7d5")
    axes.bar([i + 0.2 for i in x], obs, width=0.4, label="observed", color="#2d5f99")
    for i, (e, o) in enumerate(zip(exp, obs, strict=True)):
        if scale == 1.0 and e != o:
            axes.annotate(
                "≠",
                (i, max(e, o, 1)),
                ha="center",
                va="bottom",
                color="#c62828",
                fontsize=14,
                fontweight="bold",
            )
    axes.set_yscale("symlog", linthresh=1)
    axes.set_xticks(list(x), labels, rotation=30, ha="right", fontsize=8)
    axes.set_ylabel("units")
    title = (
        "lot distribution"
        if block["audited_units"] >= block["units"]
        else (f"lot distribution (sample of {block['audited_units']:,} units: expected scaled)")
    )
    axes.set_title(f"{block['block_id']}: {title}", fontsize=10)
    axes.legend(fontsize=8)
    axes.grid(axis="y", alpha=0.3)
    return _svg(figure)


def cumulative_payout(block: Mapping[str, Any]) -> str | None:
    """Cumulative prize across the block against the straight line the lot table implies,
    and below it the gap between the two (where clustering of winners would show)."""
    points: Sequence[Sequence[int]] = block["cumulative_payout"]
    if len(points) < 2:
        return None
    expected_total = sum(int(k) * v for k, v in _full_table(block).items())
    per_unit = expected_total / block["units"] if block["units"] else 0.0
    xs = [p[0] for p in points]
    ys = [p[1] / 100 for p in points]
    first = xs[0]
    line = [per_unit * (x - first + 1) / 100 for x in xs]
    figure, (top, bottom) = plt.subplots(
        2, 1, figsize=(8, 4.6), sharex=True, gridspec_kw={"height_ratios": [3, 2]}
    )
    top.plot(xs, ys, color="#2d5f99", linewidth=1.2, label="observed")
    top.plot(
        xs,
        line,
        color="#c62828",
        linestyle="--",
        linewidth=1,
        label="expected (lot table, spread evenly)",
    )
    top.set_ylabel("cumulative prize (€)")
    top.set_title(f"{block['block_id']}: cumulative payout", fontsize=10)
    top.legend(fontsize=8)
    top.grid(alpha=0.3)
    bottom.plot(xs, [y - e for y, e in zip(ys, line, strict=True)], color="#2d5f99", linewidth=1)
    bottom.axhline(0, color="#c62828", linestyle="--", linewidth=1)
    bottom.set_ylabel("observed − expected (€)", fontsize=8)
    bottom.set_xlabel("unit index")
    bottom.grid(alpha=0.3)
    return _svg(figure)


def _full_table(block: Mapping[str, Any]) -> dict[str, int]:
    """The lot table of the whole block: ``lots_expected`` (also when only a slice was read)."""
    return {str(k): int(v) for k, v in block["lots_expected"].items()}


def sample_scale(block: Mapping[str, Any]) -> float:
    """The share of the block the audit read (1.0 for a whole block)."""
    units, audited = block["units"], block["audited_units"]
    return audited / units if units and audited < units else 1.0


def p_values(block: Mapping[str, Any], alpha: float) -> str | None:
    """Each randomness test's p-value on a log axis, with the significance level marked."""
    values: Mapping[str, float] = block["p_values"]
    if not values:
        return None
    names = sorted(values)
    floor = 1e-12
    shown = [max(float(values[n]), floor) for n in names]
    figure, axes = plt.subplots(figsize=(8, max(1.6, 0.28 * len(names) + 0.8)))
    colours = ["#c62828" if v < alpha else "#2d5f99" for v in shown]
    axes.barh(names, shown, color=colours)
    axes.axvline(alpha, color="#c62828", linestyle="--", linewidth=1, label=f"α = {alpha:g}")
    axes.set_xscale("log")
    axes.set_xlim(min(min(shown) / 2, alpha / 10), 1.5)
    axes.tick_params(axis="y", labelsize=7)
    axes.set_xlabel("p-value (raw; the verdict uses Holm–Bonferroni over the family)")
    axes.set_title(f"{block['block_id']}: randomness tests", fontsize=10)
    axes.legend(fontsize=8, loc="lower right")
    axes.grid(axis="x", alpha=0.3)
    return _svg(figure)
