"""The conformance kit of Eldorado: strategies and invalid kinds from ``conformance.strategies``,
the row classifier of ``checks/_classify.py``, the articles its play faults break, the board
drawing of the HTML report and the block audit's kernel.

Its own checks (``checks/eldorado_rules.py``, the eldorado relations of
``checks/metamorphic.py``) are registered with the check modules."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import reference
import reference.eldorado

from .._compiled import fastaudit
from .._lazy import LazyModule, strategies_module, suite_strategies
from ..checks._eldorado_relations import RELATIONS
from . import Escape, GameKit, register_kit, shipped_data, sweep
from ._eldorado_invalid import ELDORADO_INVALID_EXAMPLES, ELDORADO_INVALID_KINDS
from ._eldorado_kernel import eldorado_chunk, eldorado_prizes, eldorado_tables

if TYPE_CHECKING:
    from hypothesis import strategies as st

    from . import _eldorado_strategies as S
else:  # imported on first use (conformance._lazy): a run of block checks never needs them
    st = strategies_module()
    S = suite_strategies("conformance.games._eldorado_strategies")

_DATA = shipped_data()
CLASSIFY = LazyModule("conformance.checks._eldorado_classify")
"""The probe classifier (``checks/_eldorado_classify.py``), imported when a check first diagnoses
a disagreement: a block audit loads the kits, never it (start-up, issue 32)."""
GENERAL_REQUIREMENT = "eldorado.4.evaluation"
"""``_eldorado_classify.ELDORADO_GENERAL`` (held equal in tests/conformance/test_game_kits)."""

LOOK = {  # letter name -> (glyph, colour)
    "pyramid": ("▲", "#c99a06"),
    "sun": ("☀", "#ef8a00"),
    "vase": ("⚱", "#8a5a2b"),
    "bracelet": ("◯", "#1f63c6"),
    "pendant": ("♦", "#8a3fc6"),
    "extra": ("EXTRA", "#2e9d3a"),
}


def _invalid(kinds: Sequence[str]) -> st.SearchStrategy[tuple[str, str]]:
    return S.eldorado_invalid_tickets(kinds=tuple(kinds))


def _win_rows(result: object) -> set[tuple[int, int]] | None:
    """The (grid, row) a result says win; None if it is not an evaluation result."""
    if not isinstance(result, Mapping) or not isinstance(result.get("wins"), list):
        return None
    return {
        (w["grid"], w["row"])
        for w in result["wins"]
        if isinstance(w, Mapping)
        and isinstance(w.get("grid"), int)
        and isinstance(w.get("row"), int)
    }


def board(ticket: str, expected: object, got: object, stake_cents: object, escape: Escape) -> str:
    """Every grid as a 3×5 table, the rules' winning rows highlighted (``expected``, or the
    reference's own evaluation), rows ``got`` wrongly pays or misses marked."""
    rules = reference.eldorado.eldorado_rules()
    parsed = reference.parse_ticket("eldorado", ticket)
    assert isinstance(parsed, reference.eldorado.EldoradoTicket)
    wins = _win_rows(expected)
    if wins is None and stake_cents in rules.stakes_cents:  # e.g. a block unit's evidence
        wins = _win_rows(reference.evaluate("eldorado", int(str(stake_cents)), ticket))
    wins = wins or set()
    claimed = _win_rows(got)
    grids = []
    for g, grid in enumerate(parsed.grids):
        rows = []
        for r, row in enumerate(grid):
            marks = []
            if (g, r) in wins:
                marks.append("win")
            if claimed is not None and (g, r) in claimed and (g, r) not in wins:
                marks.append("claimed")
            if claimed is not None and (g, r) in wins and (g, r) not in claimed:
                marks.append("missed")
            cells = []
            for letter in row:
                glyph, colour = LOOK.get(rules.symbol(letter).name, (letter, "#333"))
                cls = "cell extra" if glyph == "EXTRA" else "cell"
                cells.append(
                    f'<td class="{cls}" style="color:{colour}" title="{escape(letter)}: '
                    f'{escape(rules.symbol(letter).english)}">{escape(glyph)}</td>'
                )
            rows.append(f'<tr class="{" ".join(marks)}">{"".join(cells)}</tr>')
        title = "main grid" if g == 0 else f"Extra stage {g}"
        grids.append(
            f'<div class="grid"><div class="gt">{title}</div><table>{"".join(rows)}</table></div>'
        )
    return f'<div class="eldorado-unit">{"".join(grids)}</div>'


CSS = """.eldorado-unit{display:flex;gap:12px;flex-wrap:wrap;margin:8px 0}
.grid table{border:2px solid #8a6d1d}.grid td{width:44px;height:34px;text-align:center;
font-size:20px;font-weight:700;background:#fbf5e4}
.grid td.extra{font-size:10px}
.grid tr.win td{background:#c8e6c9}.grid tr.claimed td{background:#ffcdd2}
.grid tr.missed td{background:#c8e6c9;outline:2px dashed var(--fail)}
.gt{font-size:12px;color:#555}
"""

KIT = register_kit(
    GameKit(
        name="eldorado",
        win_keys=("grid", "row", "symbol", "count", "amount_cents"),
        examples=("YYSYY/VBPSX/BBPPS|SSSSS/PVBYP/BYVPS", "VVVVB/PPPPP/YSVBP"),
        valid_tickets=lambda: S.eldorado_tickets(),
        invalid_kinds=ELDORADO_INVALID_KINDS,
        invalid_tickets=_invalid,
        invalid_examples=ELDORADO_INVALID_EXAMPLES,
        sweeps={
            "all_rows": sweep("conformance.checks.eldorado_rules", "all_row_tickets"),
            "extra_stages": sweep("conformance.checks.eldorado_rules", "extra_stage_tickets"),
        },
        relations=RELATIONS,
        diagnosis=lambda: CLASSIFY.EldoradoDiagnosis(),
        general_requirement=GENERAL_REQUIREMENT,
        stakes_article="eldorado 2 (0,5 €, 1 € or 2 €)",
        history_article="eldorado.4.2",
        prize_article="eldorado.4.6",
        board=board,
        board_css=CSS,
        kernel=eldorado_prizes,
        chunk_judge=eldorado_chunk if fastaudit is not None else None,
        prepare=lambda stake: eldorado_tables().row_values(stake),
        requirement_files=(_DATA / "requirements" / "eldorado.yaml",),
        clause_files=(_DATA / "clauses" / "eldorado.yaml",),
    )
)
