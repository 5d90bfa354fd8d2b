"""The report's figures, drawn as inline SVG by hand so the HTML stays one file.

Where a person would rather look than read: the lot distribution observed vs expected, the
cumulative payout across the block against the expected straight line, and the p-values of
the randomness tests against the significance level.

No plotting library: three simple charts cost a few milliseconds as text, where matplotlib
cost about a second of import and drawing per report. Every label is XML-escaped, and nothing
in a label is ever interpreted (a block id holding ``$`` or ``<`` is drawn as it is).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .._escape import html_text as escape

WIDTH = 760
BLUE, PALE, RED, GRID, INK = "#2d5f99", "#9db7d5", "#c62828", "#d8d8d8", "#222"
FONT = 'font-family="sans-serif"'


def _text(
    x: float,
    y: float,
    text: str,
    *,
    size: int = 11,
    anchor: str = "start",
    colour: str = INK,
    extra: str = "",
) -> str:
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" '
        f'fill="{colour}" {FONT} {extra}>{escape(str(text))}</text>'
    )


def _svg(height: int, body: Iterable[str], label: str) -> str:
    return (
        f'<svg class="plot" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" '
        f'role="img" aria-label="{escape(label)}">' + "".join(body) + "</svg>"
    )


def _euros(cents: int) -> str:
    whole, part = divmod(int(cents), 100)
    return f"{whole:,} €".replace(",", " ") if not part else f"{whole},{part:02d} €"


def _compact(value: float) -> str:
    """An axis label: 1 500 000 -> 1.5M, 12 000 -> 12k."""
    for size, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= size:
            return f"{value / size:.3g}{suffix}"
    return f"{value:.3g}"


def _symlog(value: float) -> float:
    """log10(1 + v): 0 stays 0, tiers from 1 to 10^6 units stay readable side by side."""
    return math.log10(1 + max(value, 0.0))


def lot_distribution(block: Mapping[str, Any]) -> str:
    """Units per prize tier, observed next to expected (log scale: tiers span 1 to 10^6)."""
    expected: Mapping[str, int] = block["lots_expected"]
    observed: Mapping[str, int] = block["lots_observed"]
    tiers = sorted({int(k) for k in expected} | {int(k) for k in observed})
    scale = sample_scale(block)
    exp = [expected.get(str(t), 0) * scale for t in tiers]
    obs = [float(observed.get(str(t), 0)) for t in tiers]
    height, left, top, bottom = 300, 60, 34, 230
    top_value = max([_symlog(v) for v in exp + obs] + [1.0])
    step = (WIDTH - left - 20) / max(len(tiers), 1)

    def y(value: float) -> float:
        return bottom - (bottom - top) * _symlog(value) / top_value

    title = (
        "lot distribution"
        if block["audited_units"] >= block["units"]
        else f"lot distribution (sample of {block['audited_units']:,} units: expected scaled)"
    )
    body = [_text(WIDTH / 2, 18, f"{block['block_id']}: {title}", size=13, anchor="middle")]
    for power in range(-1, int(top_value) + 1):
        value = 0 if power < 0 else 10**power
        at = y(value)
        body.append(
            f'<line x1="{left}" x2="{WIDTH - 20}" y1="{at:.1f}" y2="{at:.1f}" stroke="{GRID}"/>'
        )
        body.append(_text(left - 6, at + 4, _compact(value), size=9, anchor="end"))
    for i, (tier, e, o) in enumerate(zip(tiers, exp, obs, strict=True)):
        x = left + i * step
        bar = step * 0.38
        for offset, value, colour, name in ((0.1, e, PALE, "expected"), (0.5, o, BLUE, "observed")):
            at = y(value)
            body.append(
                f'<rect x="{x + step * offset:.1f}" y="{at:.1f}" width="{bar:.1f}" '
                f'height="{bottom - at:.1f}" fill="{colour}"><title>'
                f"{escape(_euros(tier) if tier else 'loses')}: {name} {value:,.0f}</title></rect>"
            )
        if scale == 1.0 and e != o:
            body.append(
                _text(
                    x + step / 2,
                    y(max(e, o)) - 4,
                    "≠",
                    size=15,
                    anchor="middle",
                    colour=RED,
                    extra='font-weight="bold"',
                )
            )
        label = _euros(tier) if tier else "loses"
        body.append(
            _text(
                x + step / 2,
                bottom + 14,
                label,
                size=9,
                anchor="end",
                extra=f'transform="rotate(-30 {x + step / 2:.1f} {bottom + 14})"',
            )
        )
    body.append(
        _text(
            14,
            (top + bottom) / 2,
            "units",
            size=10,
            anchor="middle",
            extra=f'transform="rotate(-90 14 {(top + bottom) / 2:.1f})"',
        )
    )
    body.append(_legend(WIDTH - 190, top, [("expected", PALE), ("observed", BLUE)]))
    return _svg(height, body, f"lot distribution of {block['block_id']}")


def _legend(x: float, y: float, entries: Sequence[tuple[str, str]], dashed: int = -1) -> str:
    parts = []
    for n, (name, colour) in enumerate(entries):
        at = y + 14 * n
        dash = ' stroke-dasharray="5 3"' if n == dashed else ""
        parts.append(
            f'<line x1="{x}" x2="{x + 18}" y1="{at}" y2="{at}" stroke="{colour}" '
            f'stroke-width="4"{dash}/>'
        )
        parts.append(_text(x + 24, at + 4, name, size=10))
    return "".join(parts)


def _polyline(points: Sequence[tuple[float, float]], colour: str, dashed: bool = False) -> str:
    path = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
    dash = ' stroke-dasharray="6 4"' if dashed else ""
    return f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="1.4"{dash}/>'


def cumulative_payout(block: Mapping[str, Any]) -> str | None:
    """Cumulative prize across the block against the straight line the lot table implies,
    and below it the gap between the two (where clustering of winners would show)."""
    points: Sequence[Sequence[int]] = block["cumulative_payout"]
    if len(points) < 2:
        return None
    expected_total = sum(int(k) * v for k, v in _full_table(block).items())
    per_unit = expected_total / block["units"] if block["units"] else 0.0
    xs = [float(p[0]) for p in points]
    ys = [p[1] / 100 for p in points]
    first = xs[0]
    line = [per_unit * (x - first + 1) / 100 for x in xs]
    gap = [o - e for o, e in zip(ys, line, strict=True)]
    left, right = 80, WIDTH - 20
    x0, x1 = xs[0], xs[-1] if xs[-1] > xs[0] else xs[0] + 1

    def sx(x: float) -> float:
        return left + (right - left) * (x - x0) / (x1 - x0)

    def panel(values: Sequence[Sequence[float]], top: float, bottom: float) -> tuple[Any, Any]:
        lo = min(min(v) for v in values)
        hi = max(max(v) for v in values)
        if hi == lo:
            hi, lo = hi + 1, lo - 1

        def sy(v: float) -> float:
            return bottom - (bottom - top) * (v - lo) / (hi - lo)

        axis = []
        for k in range(5):
            v = lo + (hi - lo) * k / 4
            axis.append(
                f'<line x1="{left}" x2="{right}" y1="{sy(v):.1f}" y2="{sy(v):.1f}" '
                f'stroke="{GRID}"/>'
            )
            axis.append(_text(left - 6, sy(v) + 4, _compact(v), size=9, anchor="end"))
        return sy, axis

    sy_top, axis_top = panel([ys, line], 34, 200)
    sy_bottom, axis_bottom = panel([gap, [0.0]], 230, 320)
    body = [
        _text(WIDTH / 2, 18, f"{block['block_id']}: cumulative payout", size=13, anchor="middle"),
        *axis_top,
        *axis_bottom,
        _polyline([(sx(x), sy_top(y)) for x, y in zip(xs, ys, strict=True)], BLUE),
        _polyline([(sx(x), sy_top(y)) for x, y in zip(xs, line, strict=True)], RED, True),
        _polyline([(sx(x), sy_bottom(y)) for x, y in zip(xs, gap, strict=True)], BLUE),
        _polyline([(sx(x0), sy_bottom(0.0)), (sx(x1), sy_bottom(0.0))], RED, True),
        _text(
            14,
            117,
            "cumulative prize (€)",
            size=10,
            anchor="middle",
            extra='transform="rotate(-90 14 117)"',
        ),
        _text(
            14,
            275,
            "observed − expected (€)",
            size=9,
            anchor="middle",
            extra='transform="rotate(-90 14 275)"',
        ),
        _text((left + right) / 2, 345, "unit index", size=10, anchor="middle"),
        _text(left, 345, _compact(x0), size=9),
        _text(right, 345, _compact(x1), size=9, anchor="end"),
        _legend(
            left + 12,
            48,
            [("observed", BLUE), ("expected (lot table, spread evenly)", RED)],
            dashed=1,
        ),
    ]
    return _svg(355, body, f"cumulative payout of {block['block_id']}")


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
    shown = [
        min(max(float(values[n]), floor), 1.0) if math.isfinite(float(values[n])) else floor
        for n in names
    ]
    low = math.log10(min(min(shown) / 2, alpha / 10))
    left, right, top, row = 250, WIDTH - 20, 34, 18
    height = top + row * len(names) + 44

    def sx(p: float) -> float:
        return left + (right - left) * (math.log10(p) - low) / (math.log10(1.5) - low)

    body = [
        _text(WIDTH / 2, 18, f"{block['block_id']}: randomness tests", size=13, anchor="middle")
    ]
    for power in range(math.floor(low) + 1, 1):
        body.append(
            f'<line x1="{sx(10**power):.1f}" x2="{sx(10**power):.1f}" y1="{top}" '
            f'y2="{top + row * len(names)}" stroke="{GRID}"/>'
        )
        body.append(
            _text(sx(10**power), top + row * len(names) + 14, f"1e{power}", size=9, anchor="middle")
        )
    for n, (name, p) in enumerate(zip(names, shown, strict=True)):
        y = top + row * n
        colour = RED if p < alpha else BLUE
        body.append(
            f'<rect x="{left}" y="{y + 3}" width="{max(sx(p) - left, 1):.1f}" '
            f'height="{row - 6}" fill="{colour}"><title>{escape(name)}: '
            f"p = {float(values[name]):.3g}</title></rect>"
        )
        body.append(_text(left - 6, y + row - 5, name, size=9, anchor="end"))
    at = sx(alpha)
    body.append(
        f'<line x1="{at:.1f}" x2="{at:.1f}" y1="{top - 4}" y2="{top + row * len(names)}" '
        f'stroke="{RED}" stroke-dasharray="5 3"/>'
    )
    body.append(_text(at + 4, top - 6, f"α = {alpha:g}", size=10, colour=RED))
    body.append(
        _text(
            (left + right) / 2,
            height - 8,
            "p-value (raw; the verdict uses Holm–Bonferroni over the family)",
            size=10,
            anchor="middle",
        )
    )
    return _svg(height, body, f"randomness tests of {block['block_id']}")
