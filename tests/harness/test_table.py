"""``harness._reports._table``: tabulate's ``simple`` layout without tabulate (issue 12)."""

from __future__ import annotations

import random

import pytest
from tabulate import tabulate

from harness._reports._table import simple_table


def test_the_layout_of_a_summary() -> None:
    rows: list[list[str | int]] = [["pass", 12], ["FAIL", 3], ["not supported", 0]]
    assert simple_table(rows, ["requirements", "count"]) == (
        "requirements      count\n"
        "--------------  -------\n"
        "pass                 12\n"
        "FAIL                  3\n"
        "not supported         0"
    )


def test_text_that_looks_like_a_number_stays_as_written() -> None:
    table = simple_table([["a", "4.10"], ["b", "4.7"]], ["id", "article"])
    assert table.splitlines()[2:] == ["a     4.10", "b     4.7"]  # tabulate: "4.1", aligned


def test_it_draws_what_tabulate_draws_for_text_and_integers() -> None:
    rng = random.Random(3)
    words = ["robots.4.7.reveal", "eldorado E-I4", "FAIL", "pass", "yes", "no", "why…", "x y"]
    for _ in range(300):
        columns = rng.randint(1, 5)
        numeric = [rng.random() < 0.3 for _ in range(columns)]
        headers = [rng.choice(["requirement", "count", "why", "a", "article"]) for _ in numeric]
        rows: list[list[str | int]] = [
            [rng.randint(0, 10 ** rng.randint(0, 9)) if n else rng.choice(words) for n in numeric]
            for _ in range(rng.randint(0, 6))
        ]
        ours = simple_table(rows, headers)
        assert ours == tabulate(rows, headers=headers, tablefmt="simple"), (rows, headers)


def test_rows_must_fit_the_headers_and_cells_be_one_line() -> None:
    with pytest.raises(ValueError, match="every row needs 2 cells"):
        simple_table([["a"]], ["x", "y"])
    with pytest.raises(ValueError, match="one line"):
        simple_table([["a\nb"]], ["x"])
