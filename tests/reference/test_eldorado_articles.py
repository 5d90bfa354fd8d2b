"""Worked examples for every article and interpretation of Eldorado.

Each ticket is written by hand; the comment computes the prize by hand from the article 4.4
paytable (at 0,5 € / 1 € / 2 €): 5Y 5 000/10 000/20 000 €, 4Y 2 500/5 000/10 000 €,
5S 500/1 000/2 000 €, 4S 50/100/200 €, 5V 25/50/100 €, 4V 7,5/15/30 €, 5B 5/10/20 €,
4B 2,5/5/10 €, 5P 1,5/3/6 €, 4P 1/2/4 €. Filler rows such as YSVBP hold no combination.
"""

from __future__ import annotations

import pytest

import reference
import reference.eldorado
from reference import TicketError

STAKES = (50, 100, 200)


def prize(stake: int, ticket: str) -> int:
    result = reference.evaluate("eldorado", stake, ticket)
    assert result["prize_cents"] == sum(w["amount_cents"] for w in result["wins"])
    assert reference.prize_cents("eldorado", stake, ticket) == result["prize_cents"]
    return int(result["prize_cents"])


# (article, ticket, prize at 0,5 €, at 1 €, at 2 €), in cents
WORKED_EXAMPLES = [
    # 4.7: no row with 4 of a kind; rows of three are near misses -> 0
    ("4.7 losing, rows of three", "YYYSV/SSSVB/VVVBP", 0, 0, 0),
    # 4.4: 4 pyramids adjacent on row 0
    ("4.4 four pyramids", "YYYYS/YSVBP/SVBPY", 250000, 500000, 1000000),
    # 4.4: 5 pyramids on row 2
    ("4.4 five pyramids", "YSVBP/SVBPY/YYYYY", 500000, 1000000, 2000000),
    ("4.4 five suns", "SSSSS/YSVBP/SVBPY", 50000, 100000, 200000),
    ("4.4 four suns", "YSVBP/SSSVS/SVBPY", 5000, 10000, 20000),
    ("4.4 five vases", "VVVVV/YSVBP/SVBPY", 2500, 5000, 10000),
    # 4.4 / article 3: 7,5 € at 0,5 € is exactly 750 cents, never rounded
    ("4.4 four vases", "VVVVB/YSVBP/SVBPY", 750, 1500, 3000),
    ("4.4 five bracelets", "BBBBB/YSVBP/SVBPY", 500, 1000, 2000),
    ("4.4 four bracelets", "BBPBB/YSVBP/SVBPY", 250, 500, 1000),
    ("4.4 five pendants", "PPPPP/YSVBP/SVBPY", 150, 300, 600),
    ("4.4 four pendants", "PPPPY/YSVBP/SVBPY", 100, 200, 400),
    # E-I1: YSYYY holds 4 pyramids, not adjacent
    ("E-I1 non-adjacent", "YSYYY/YSVBP/SVBPY", 250000, 500000, 1000000),
    # E-I2: five identical pay the 5-symbol amount only, not 5 + 4
    ("E-I2 five pays five only", "BBBBB/YSVBP/SVBPY", 500, 1000, 2000),
    # 4.4 several combinations add up: 4B + 4B + 4B = 3 x 2,5/5/10 €
    ("4.4 rows add up", "BBBBY/BBBYB/BYBBB", 750, 1500, 3000),
    # 4.6: 10 + 3 + 2 € (at 1 €): 5B + 5P + 4P
    ("4.6 gains add up", "BBBBB/PPPPP/PPPPS", 750, 1500, 3000),
    # 4.5: one EXTRA on row 1 grants one Extra grid; its row 0 holds 5 suns; main row 0
    # holds 4 pyramids: 4Y + 5S
    ("4.5 contract example", "YYSYY/VBPSX/BBPPS|SSSSS/PVBYP/BYVPS", 300000, 600000, 1200000),
    # E-I3: four EXTRA on a row pay nothing; they grant 4 Extra grids, all losing
    (
        "E-I3 EXTRA never pays",
        "XXXXS/YSVBP/SVBPY|YSVBP/SVBPY/VBPYS|YSVBP/SVBPY/VBPYS|YSVBP/SVBPY/VBPYS|YSVBP/SVBPY/VBPYS",
        0,
        0,
        0,
    ),
    # E-I3: EXTRA on a winning row: PPPPX is 4 pendants, and grants a grid with 4 vases
    ("E-I3 EXTRA on a winning row", "PPPPX/YSVBP/SVBPY|VVVVS/YSVBP/SVBPY", 850, 1700, 3400),
    # E-I4: an EXTRA in the Extra grid grants a second Extra grid: 4B in grid 2 only
    (
        "E-I4 Extra inside Extra",
        "YSVBX/YSVBP/SVBPY|YSVBX/YSVBP/SVBPY|BBBBS/YSVBP/SVBPY",
        250,
        500,
        1000,
    ),
    # E-I6: the Extra grid pays at the unit's stake: 5 pyramids in grid 1 only
    (
        "E-I6 unit's stake for Extra",
        "YSVBX/YSVBP/SVBPY|YYYYY/YSVBP/SVBPY",
        500000,
        1000000,
        2000000,
    ),
]


@pytest.mark.parametrize(("article", "ticket", "at50", "at100", "at200"), WORKED_EXAMPLES)
def test_worked_example(article: str, ticket: str, at50: int, at100: int, at200: int) -> None:
    assert (prize(50, ticket), prize(100, ticket), prize(200, ticket)) == (at50, at100, at200), (
        article
    )


# Every lot amount of every lot table (articles 3.1, 3.2, 3.3) reached by hand-written tickets,
# as (ticket, prize at 0,5 / 1 / 2 €). Several reach their lot only by cumulating gains.
LOT_TICKETS = [
    ("YYYYY/YSVBP/SVBPY", (500000, 1000000, 2000000)),  # 5Y
    ("YYYYB/YSVBP/SVBPY", (250000, 500000, 1000000)),  # 4Y
    ("SSSSS/YSVBP/SVBPY", (50000, 100000, 200000)),  # 5S
    ("SSSSB/YSVBP/SVBPY", (5000, 10000, 20000)),  # 4S
    ("VVVVV/YSVBP/SVBPY", (2500, 5000, 10000)),  # 5V
    ("VVVVB/YSVBP/SVBPY", (750, 1500, 3000)),  # 4V
    ("BBBBY/BBBYB/BYBBB", (750, 1500, 3000)),  # 4B + 4B + 4B
    ("BBBBB/PPPPP/PPPPS", (750, 1500, 3000)),  # 5B + 5P + 4P
    ("BBBBB/YSVBP/SVBPY", (500, 1000, 2000)),  # 5B
    ("BBBBY/BBBBS/SVBPY", (500, 1000, 2000)),  # 4B + 4B
    ("BBBBY/YSVBP/SVBPY", (250, 500, 1000)),  # 4B
    ("PPPPX/YSVBP/SVBPY|PPPPY/YSVBP/SVBPY", (200, 400, 800)),  # 4P + 4P in the Extra grid
    ("PPPPP/YSVBP/SVBPY", (150, 300, 600)),  # 5P
    ("PPPPY/YSVBP/SVBPY", (100, 200, 400)),  # 4P
]


def test_every_lot_amount_of_every_table_is_reached() -> None:
    rules = reference.eldorado.eldorado_rules()
    for position, stake in enumerate(STAKES):
        amounts = {lot.prize_cents for lot in rules.lot_table(stake).lots}
        reached = {prizes[position] for _, prizes in LOT_TICKETS}
        assert amounts <= reached, (stake, amounts - reached)
        for ticket, prizes in LOT_TICKETS:
            assert prize(stake, ticket) == prizes[position], (stake, ticket)


def test_wins_name_grid_row_symbol_and_count() -> None:
    result = reference.evaluate("eldorado", 100, "YYSYY/VBPSX/BBPPS|SSSSS/PVBYP/BYVPS")
    assert sorted(result["wins"], key=lambda w: w["grid"]) == [
        {"grid": 0, "row": 0, "symbol": "pyramid", "count": 4, "amount_cents": 500000},
        {"grid": 1, "row": 0, "symbol": "sun", "count": 5, "amount_cents": 100000},
    ]


def test_parse_gives_grids_rows_and_cells() -> None:
    ticket = "YYSYY/VBPSX/BBPPS|SSSSS/PVBYP/BYVPS"
    parsed = reference.parse_ticket("eldorado", ticket)
    assert isinstance(parsed, reference.eldorado.EldoradoTicket)
    assert parsed.grids == (("YYSYY", "VBPSX", "BBPPS"), ("SSSSS", "PVBYP", "BYVPS"))
    assert parsed.cell(0, 1, 4) == "X"
    assert reference.format_ticket(parsed) == ticket


INVALID = [
    ("YYSYY/VBPSX/BBPPS", "2 grids expected"),
    ("YYSYY/VBPSS/BBPPS|SSSSS/PVBYP/BYVPS", "grid 1 was not granted by an EXTRA"),
    # two grids granted by one EXTRA in the main grid: the third has no EXTRA before it
    ("YYSYX/VBPSS/BBPPS|SSSSS/PVBYP/BYVPS|SSSSS/PVBYP/BYVPX", "grid 2 was not granted"),
    ("YYSYY/VBPSS", "grid 0: expected 3 rows"),
    ("YYSYY/VBPSS/BBPPS/SSSSS", "grid 0: expected 3 rows"),
    ("YYSY/VBPSS/BBPPS", "grid 0, row 0: expected 5 cells, got 4"),
    ("YYSYYY/VBPSS/BBPPS", "grid 0, row 0: expected 5 cells, got 6"),
    ("YYSYY/VBPSQ/BBPPS", "grid 0, row 1, cell 4: 'Q' is not an eldorado symbol"),
    ("YYSYY/VBPSS/BBPPs", "grid 0, row 2, cell 4: 's'"),
    ("YYSYY/VBPSS/BBPPS|", "grid 1, row 0: expected 5 cells, got 0"),
    ("YYSYY/VBPSS/BBPPS ", "grid 0, row 2, cell 5: ' '"),
    ("", "grid 0, row 0: expected 5 cells, got 0"),
]


@pytest.mark.parametrize(("ticket", "words"), INVALID)
def test_invalid_ticket_names_the_fault(ticket: str, words: str) -> None:
    with pytest.raises(TicketError) as info:
        reference.evaluate("eldorado", 100, ticket)
    assert words in str(info.value)
    with pytest.raises(TicketError):
        reference.parse_ticket("eldorado", ticket)


@pytest.mark.parametrize("stake", [0, 75, 150, 1000, 100.0, True, "100", None])
def test_eldorado_stakes_are_50_100_200(stake: object) -> None:
    with pytest.raises(reference.StakeError, match="is not a stake of eldorado"):
        reference.evaluate("eldorado", stake, "YYYYS/YSVBP/SVBPY")  # type: ignore[arg-type]


def test_format_refuses_ungranted_grids() -> None:
    bad = reference.eldorado.EldoradoTicket(
        (("YYYYS", "YSVBP", "SVBPY"), ("YYYYS", "YSVBP", "SVBPY"))
    )
    with pytest.raises(TicketError, match="grid 1 was not granted"):
        reference.format_ticket(bad)


@pytest.mark.parametrize(
    ("ticket", "kinds"),
    [
        ("YSVBP/YSVBP/SVBPY", set()),  # no combination: a loss
        ("PPPPY/YSVBP/SVBPY", {"main grid"}),
        ("BBBBY/BBBBS/SVBPY", {"main grid", "gains added"}),
        ("PPPPX/YSVBP/SVBPY|PPPPY/YSVBP/SVBPY", {"main grid", "Extra grid", "gains added"}),
        ("YSVBX/YSVBP/SVBPY|YYYYY/YSVBP/SVBPY", {"Extra grid"}),
    ],
)
def test_win_kinds_name_where_a_unit_wins(ticket: str, kinds: set[str]) -> None:
    # the play checks go on until they have paid a unit of each kind (an Extra-grid win is in
    # about 1 unit of 23, so a short run may sell none)
    assert reference.win_kinds("eldorado", 100, ticket) == kinds
    assert kinds <= reference.game_win_kinds("eldorado")


@pytest.mark.parametrize("stake", [50, 100, 200])
def test_the_row_paytable_is_what_a_ticket_of_that_one_row_pays(stake: int) -> None:
    """``EldoradoEngine.row_prizes`` (what the block audit's kernel reads) against the
    evaluator itself: every one of the 6^5 rows, in a ticket whose other rows pay nothing
    (and with an Extra grid, all quiet, for each EXTRA the row holds)."""
    import itertools

    engine = reference.game_engine("eldorado")
    assert isinstance(engine, reference.eldorado.EldoradoEngine)
    table = engine.row_prizes(stake)
    rules = reference.eldorado.eldorado_rules()
    letters = "".join(s.letter for s in rules.symbols)
    quiet_row = "YSVBP"  # five paying symbols once each: no combination (E-I1)
    quiet = "/".join([quiet_row] * rules.rows)
    winning = 0
    for cells in itertools.product(letters, repeat=rules.cells):
        row = "".join(cells)
        grid = "/".join([row, *[quiet_row] * (rules.rows - 1)])
        ticket = "|".join([grid, *[quiet] * row.count(rules.extra_letter)])
        assert table.get(row, 0) == reference.prize_cents("eldorado", stake, ticket), row
        winning += row in table
    assert 0 < winning < len(letters) ** rules.cells
    with pytest.raises(TypeError):
        table["YYYYY"] = 1  # type: ignore[index]  # read-only: the evaluator's own table
