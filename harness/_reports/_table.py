"""Plain-text tables for the terminal, in the layout of tabulate's ``simple`` format.

The summary table is the one thing a person reads first; tabulate drew it, and importing it
(with the ``importlib.metadata`` it loads for its own version) cost 10 ms of every command's
start-up. This draws the same layout for the cells the reports have: text, left-aligned, and
integers, right-aligned; a text that looks like a number stays as written (tabulate would
print an article "4.10" as "4.1").
"""

from __future__ import annotations

from collections.abc import Sequence

Cell = str | int
PADDING = 2  # a header's room beyond its text, as tabulate's MIN_PADDING
GAP = "  "  # between columns


def simple_table(rows: Sequence[Sequence[Cell]], headers: Sequence[str]) -> str:
    """``headers``, a rule of dashes under each column, then ``rows``: each column as wide as
    its widest cell or its header plus ``PADDING``; lines end without trailing spaces."""
    if any(len(row) != len(headers) for row in rows):
        raise ValueError(f"every row needs {len(headers)} cells, one a header")
    columns = list(zip(*rows, strict=True)) if rows else [() for _ in headers]
    numeric = [bool(column) and all(_is_int(cell) for cell in column) for column in columns]
    texts = [[_text(cell) for cell in row] for row in rows]
    widths = [
        max([len(header) + PADDING, *(len(row[k]) for row in texts)])
        for k, header in enumerate(headers)
    ]

    def line(cells: Sequence[str]) -> str:
        placed = (
            cell.rjust(width) if right else cell.ljust(width)
            for cell, width, right in zip(cells, widths, numeric, strict=True)
        )
        return GAP.join(placed).rstrip()

    out = [line([h.strip() for h in headers]), GAP.join("-" * width for width in widths)]
    out += [line(row) for row in texts]
    return "\n".join(out)


def _is_int(cell: Cell) -> bool:
    return isinstance(cell, int) and not isinstance(cell, bool)


def _text(cell: Cell) -> str:
    text = str(cell).strip()
    if "\n" in text:
        raise ValueError(f"cell {cell!r}: a table cell is one line")
    return text
