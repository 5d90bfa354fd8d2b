"""What the board drawings of the shipped kits share: euros as the games show them, and the
inline SVG shapes of the robots symbols (the page stays one self-contained file)."""

from __future__ import annotations

import math

from . import Escape

COLOURS = {
    "blue": "#1f63c6",
    "green": "#2e9d3a",
    "orange": "#ef8a00",
    "purple": "#8a3fc6",
    "red": "#d62a2a",
    "yellow": "#e9b800",
}
SIDES = {"triangle": 3, "diamond": 4, "square": 4, "pentagon": 5, "hexagon": 6, "octagon": 8}


def euros(cents: int) -> str:
    """Cents as the game shows euros: 750 -> '7,50 €', 100000 -> '1 000 €'."""
    whole, part = divmod(cents, 100)
    text = f"{whole:,}".replace(",", " ")
    return f"{text},{part:02d} €" if part else f"{text} €"


def shape_svg(name: str, escape: Escape, size: int = 22) -> str:
    """An inline SVG of a robots symbol from its name (``blue_diamond``, ``purple_star``, ...)."""
    colour_word, _, shape = name.partition("_")
    colour = COLOURS.get(colour_word, "#555")
    r, c = size / 2 - 1.5, size / 2
    if shape == "circle":
        body = f'<circle cx="{c}" cy="{c}" r="{r:.1f}"/>'
    else:
        if shape == "star":
            points = [
                (
                    c + (r if k % 2 == 0 else r * 0.45) * math.sin(math.pi * k / 5),
                    c - (r if k % 2 == 0 else r * 0.45) * math.cos(math.pi * k / 5),
                )
                for k in range(10)
            ]
        else:
            n = SIDES.get(shape, 4)
            turn = math.pi / 4 if shape == "square" else (math.pi / n if n == 8 else 0.0)
            points = [
                (
                    c + r * math.sin(2 * math.pi * k / n + turn),
                    c - r * math.cos(2 * math.pi * k / n + turn),
                )
                for k in range(n)
            ]
        pts = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
        body = f'<polygon points="{pts}"/>'
    return (
        f'<svg class="shape" width="{size}" height="{size}" viewBox="0 0 {size} {size}" '
        f'role="img" aria-label="{escape(name)}"><g fill="{colour}" stroke="#222" '
        f'stroke-width="0.8">{body}</g><title>{escape(name.replace("_", " "))}</title></svg>'
    )
