"""Eldorado's kinds of invalid ticket (contract 1's notation broken one rule at a time), the
requirement each belongs to, and a fixed catalogue of at least one invalid ticket of every
kind, made from the contract's example.

Plain data, without hypothesis, so that the kit can be built (and a block audit run) without
importing it; ``_eldorado_strategies`` makes many more invalid tickets of each kind.
"""

from __future__ import annotations

# kind -> requirement id the kind belongs to
ELDORADO_INVALID_KINDS: dict[str, str] = {
    "row_cells": "eldorado.4.1.invalid_grid",
    "grid_rows": "eldorado.4.1.invalid_grid",
    "symbol": "eldorado.4.4.invalid_symbol",
    "missing_extra_grid": "eldorado.4.5.invalid_extra_grids",
    "surplus_grid": "eldorado.4.5.invalid_extra_grids",
    "ungranted_grid": "eldorado.4.5.invalid_extra_grids",
    "separator": "eldorado.contract.invalid_notation",
    "characters": "eldorado.contract.invalid_notation",
}


_ELDORADO_BASE = "YYSYY/VBPSX/BBPPS|SSSSS/PVBYP/BYVPS"  # contract 1's example


# a fixed, readable catalogue: at least one invalid ticket of every kind, made from the
# contract's example (the strategies add many more)
ELDORADO_INVALID_EXAMPLES: tuple[tuple[str, str], ...] = (
    ("row_cells", _ELDORADO_BASE.replace("YYSYY", "YYSY")),
    ("row_cells", _ELDORADO_BASE.replace("YYSYY", "YYSYYY")),
    ("grid_rows", _ELDORADO_BASE.replace("/BBPPS", "")),
    ("grid_rows", _ELDORADO_BASE.replace("/BBPPS", "/BBPPS/YSVBP")),
    ("symbol", _ELDORADO_BASE.replace("YYSYY", "YYAYY")),
    ("symbol", _ELDORADO_BASE.replace("YYSYY", "YYsYY")),
    ("missing_extra_grid", _ELDORADO_BASE.split("|")[0]),
    ("surplus_grid", _ELDORADO_BASE + "|YSVBP/SVBPY/VBPYS"),
    ("ungranted_grid", "YSVBP/SVBPY/VBPYS|XSVBP/SVBPY/VBPYS"),
    # the count of EXTRA is right and the main grid has one: it is a later grid that no
    # EXTRA before it granted (an EXTRA cannot grant its own grid)
    ("ungranted_grid", "XSVBP/SVBPY/VBPYS|YSVBP/SVBPY/VBPYS|XSVBP/SVBPY/VBPYS"),
    (
        "ungranted_grid",
        "XSVBP/SVBPY/VBPYS|XSVBP/SVBPY/VBPYS|YSVBP/SVBPY/VBPYS|XSVBP/SVBPY/VBPYS",
    ),
    ("separator", _ELDORADO_BASE + "|"),
    ("separator", _ELDORADO_BASE.replace("/", "//", 1)),
    ("separator", _ELDORADO_BASE.replace("/", " ", 1)),
    ("characters", ""),
    ("characters", _ELDORADO_BASE + "\n"),
)
