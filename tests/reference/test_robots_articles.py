"""Worked examples for every article and interpretation of Le Retour des Robots.

Each ticket is written by hand; the comment beside it computes the prize by hand from the
rules (gauge notches and amounts of article 4.8: D 4/1 €, Q 1/2 €, T 3/3 €, C 6/5 €, S 7/10 €,
P 5/100 €, H 3/1 000 €, O 2/10 000 €).
"""

from __future__ import annotations

import pytest

import reference
import reference.robots
from reference import TicketError
from reference.robots import Reveal


def prize(ticket: str) -> int:
    result = reference.evaluate("robots", 100, ticket)
    assert result["prize_cents"] == sum(w["amount_cents"] for w in result["wins"])
    assert reference.prize_cents("robots", 100, ticket) == result["prize_cents"]
    return int(result["prize_cents"])


WORKED_EXAMPLES = [
    # article 4.11 / near misses: every gauge one notch short: D3 T2 C5 S6 P2, no Q -> 0
    ("4.11 all gauges short", "DQTCSPHO|D D D T T C C C C C S S S S S S P P", 0),
    # 4.5: four plain diamonds fill the 4-notch gauge -> 1 €
    ("4.5 one notch per reveal", "DQTCSPHO|D D D D T T C C C C C S S S S S S P", 100),
    # 4.6: two X2 diamonds, 2 + 2 = 4 notches -> 1 €
    ("4.6 X2 two notches", "DQTCSPHO|D2 D2 T T C C C C C S S S S S S P P P", 100),
    # 4.6: without the second X2 the diamond gauge has 2 + 1 = 3 of 4 -> 0
    ("4.6 X2 one notch short", "DQTCSPHO|D2 D T T C C C C C S S S S S S P P P", 0),
    # 4.7: +1 on button 0 gives a 19th reveal, D D D D = 4 -> 1 €
    ("4.7 +1 extra click", "DQTCSPHO|D+D D D T T C C C C C S S S S S S P P", 100),
    # R-I4: +1 after +1, last reveal X2: 1 + 1 + 2 = 4 -> 1 €
    ("R-I4 +1 chain with X2", "DQTCSPHO|D+D+D2 T T C C C C C S S S S S S P P P P", 100),
    # contract example: D2 + D + D = 4 -> 1 €; C 5, S 5 short
    ("contract example", "OHPSCTQD|C D2+P S S C S D T S P H O C S T D C C", 100),
    # 4.8 each symbol's gauge alone, the others short
    ("4.8 green square", "DQTCSPHO|Q D D D T T C C C C C S S S S S S P", 200),
    ("4.8 blue triangle", "DQTCSPHO|T T T D D D C C C C C S S S S S S P", 300),
    ("4.8 orange circle", "DQTCSPHO|C C C C C C D D D T T S S S S S S P", 500),
    ("4.8 purple star", "DQTCSPHO|S S S S S S S D D D T T C C C C C P", 1000),
    ("4.8 red pentagon", "DQTCSPHO|P P P P P D D D T T C C C C C S S S", 10000),
    ("4.8 blue hexagon", "DQTCSPHO|H H H D D D T T C C C C C S S S S S", 100000),
    ("4.8 yellow octagon", "DQTCSPHO|O O D D D T T C C C C C S S S S S S", 1000000),
    # R-I3: octagon pushed to 2 + 2 + 1 = 5 of 2 notches wins once -> 10 000 €
    ("R-I3 capped gauge", "DQTCSPHO|O2 O2 O D D D T T C C C C C S S S S S", 1000000),
    # R-I3: an X2 pushes the 1-notch square gauge to 2: wins 2 € once
    ("R-I3 X2 past full", "DQTCSPHO|Q2 D D D T T C C C C C S S S S S S P", 200),
    # 4.9/4.10: C 6 (5 €) + T 3 (3 €) + Q 1 (2 €) = 10 € lot from three gains
    ("4.9 10 € as 5 + 3 + 2", "DQTCSPHO|C C C C C C T T T Q D D S S S S S S", 1000),
    # 4.9/4.10: T 3 (3 €) + Q (2 €) = 5 € lot
    ("4.10 5 € as 3 + 2", "DQTCSPHO|T T T Q D D D C C C C C S S S S S S", 500),
    # 4.9/4.10: D 4 (1 €) + Q (2 €) = 3 € lot
    ("4.10 3 € as 1 + 2", "DQTCSPHO|D D D D Q T T C C C C C S S S S S S", 300),
    # every gauge full at once, all X2 where needed:
    # 10 000 + 1 000 + 100 + 10 + 5 + 3 + 2 + 1 = 11 121 €
    (
        "4.9 every gauge",
        "DQTCSPHO|O2 H2 H P2 P2 P S2 S2 S2 S C2 C2 C2 T2 T Q D2 D2",
        1112100,
    ),
    # R-I1: the robots' order changes nothing: same buttons as the 5 + 3 + 2 example
    ("R-I1 other robot order", "OHPSCTQD|C C C C C C T T T Q D D S S S S S S", 1000),
]


@pytest.mark.parametrize(("article", "ticket", "expected"), WORKED_EXAMPLES)
def test_worked_example(article: str, ticket: str, expected: int) -> None:
    assert prize(ticket) == expected, article


# Every lot amount of the robots lot table (article 3) reached by a hand-written ticket.
LOT_TICKETS = {
    1000000: "DQTCSPHO|O O D D D T T C C C C C S S S S S S",  # O 2/2 -> 10 000 €
    100000: "DQTCSPHO|H H H D D D T T C C C C C S S S S S",  # H 3/3 -> 1 000 €
    10000: "DQTCSPHO|P P P P P D D D T T C C C C C S S S",  # P 5/5 -> 100 €
    1000: "DQTCSPHO|C C C C C C T T T Q D D S S S S S S",  # 5 + 3 + 2 € -> 10 €
    500: "DQTCSPHO|T T T Q D D D C C C C C S S S S S S",  # 3 + 2 € -> 5 €
    300: "DQTCSPHO|D D D D Q T T C C C C C S S S S S S",  # 1 + 2 € -> 3 €
    200: "DQTCSPHO|Q D D D T T C C C C C S S S S S S P",  # Q 1/1 -> 2 €
    100: "DQTCSPHO|D2 D2 T T C C C C C S S S S S S P P P",  # D 2+2 -> 1 €
}


def test_every_lot_amount_is_reached_by_a_hand_written_ticket() -> None:
    table = reference.robots.robots_rules().lot_table(100)
    assert set(LOT_TICKETS) == {lot.prize_cents for lot in table.lots}
    for amount, ticket in LOT_TICKETS.items():
        assert prize(ticket) == amount


def test_wins_name_the_robot_position_and_symbol() -> None:
    # robots O H P S C T Q D: the circle is robot 4, the star robot 3
    ticket = "OHPSCTQD|C C C C C C S S S S S S S D D D T T"  # C 6 -> 5 €, S 7 -> 10 €
    result = reference.evaluate("robots", 100, ticket)
    assert result["prize_cents"] == 1500
    assert sorted(result["wins"], key=lambda w: w["robot"]) == [
        {"robot": 3, "symbol": "purple_star", "amount_cents": 1000},
        {"robot": 4, "symbol": "orange_circle", "amount_cents": 500},
    ]


def test_parse_gives_buttons_with_x2_and_plus_one() -> None:
    parsed = reference.parse_ticket("robots", "OHPSCTQD|C D2+P S S C S D T S P H O C S T D C C")
    assert isinstance(parsed, reference.robots.RobotsTicket)
    assert parsed.robots == tuple("OHPSCTQD")
    assert len(parsed.buttons) == 18
    assert parsed.buttons[1] == (Reveal("D", x2=True, plus_one=True), Reveal("P"))
    assert reference.format_ticket(parsed) == "OHPSCTQD|C D2+P S S C S D T S P H O C S T D C C"


INVALID = [
    # (ticket, words the message must contain)
    ("OHPSCTQD C D T S C S D T S P H O C S P D C P", "no '|'"),
    ("OHPSCTQ|C D T S C S D T S P H O C S P D C P", "expected 8 robots"),
    ("OHPSCTQDD|C D T S C S D T S P H O C S P D C P", "expected 8 robots"),
    ("OHPSCTQQ|C D T S C S D T S P H O C S P D C P", "R-I1"),
    ("OHPSCTQZ|C D T S C S D T S P H O C S P D C P", "robot 7: 'Z'"),
    ("OHPSCTQD|C D T S C S D Z S P H O C S P D C P", "button 7: 'Z' is not a robots symbol"),
    ("OHPSCTQD|C D T S C S D T S P H O C S P D C", "expected 18 buttons, got 17"),
    ("OHPSCTQD|C D T S C S D T S P H O C S P D C P P", "expected 18 buttons, got 19"),
    ("OHPSCTQD|C D+ T S C S D T S P H O C S P D C P", "button 1, reveal 1"),
    ("OHPSCTQD|C +D T S C S D T S P H O C S P D C P", "button 1"),
    ("OHPSCTQD|C D22 T S C S D T S P H O C S P D C P", "'D22' is not a reveal"),
    ("OHPSCTQD|C 2 T S C S D T S P H O C S P D C P", "button 1: '2' is not a robots symbol"),
    ("OHPSCTQD|C D  T S C S D T S P H O C S P D C P", "button 2 is empty"),
    ("OHPSCTQD|C d T S C S D T S P H O C S P D C P", "button 1: 'd'"),
    ("OHPSCTQD|C D T S C S D T S P H O C S P D C P ", "button 18 is empty"),
    (" OHPSCTQD|C D T S C S D T S P H O C S P D C P", "robot 0: ' '"),
    ("OHPSCTQD|C D T S C S D T S P H O C S P D C\tP", "'\\t' has no place"),
    ("OHPSCTQD|C D T S C S D T S P H O C S P D C É", "'É' has no place"),
    ("", "no '|'"),
]


@pytest.mark.parametrize(("ticket", "words"), INVALID)
def test_invalid_ticket_names_the_fault(ticket: str, words: str) -> None:
    with pytest.raises(TicketError) as info:
        reference.evaluate("robots", 100, ticket)
    assert words in str(info.value)
    with pytest.raises(TicketError):
        reference.parse_ticket("robots", ticket)


@pytest.mark.parametrize("value", [None, 5, b"OHPSCTQD|C", ["x"]])
def test_a_ticket_that_is_not_a_string_is_refused(value: object) -> None:
    with pytest.raises(TicketError, match="a ticket is a string"):
        reference.evaluate("robots", 100, value)  # type: ignore[arg-type]


@pytest.mark.parametrize("stake", [50, 200, 0, -100, 100.0, True, "100", None])
def test_robots_sells_only_the_1_euro_unit(stake: object) -> None:
    ticket = "DQTCSPHO|D D D D T T C C C C C S S S S S S P"
    with pytest.raises(reference.StakeError, match="is not a stake of robots"):
        reference.evaluate("robots", stake, ticket)  # type: ignore[arg-type]


def test_unknown_game_is_refused() -> None:
    with pytest.raises(reference.UnknownGameError, match="'keno'"):
        reference.evaluate("keno", 100, "x")


def test_format_refuses_a_structured_ticket_that_cannot_be_written() -> None:
    parsed = reference.parse_ticket("robots", "DQTCSPHO|D D D D T T C C C C C S S S S S S P")
    assert isinstance(parsed, reference.robots.RobotsTicket)
    dangling = (Reveal("D", plus_one=True),)
    broken = reference.robots.RobotsTicket(parsed.robots, (dangling, *parsed.buttons[1:]))
    with pytest.raises(TicketError, match="button 0, reveal 0"):
        reference.format_ticket(broken)
    short = reference.robots.RobotsTicket(parsed.robots, parsed.buttons[:17])
    with pytest.raises(TicketError, match="expected 18 buttons"):
        reference.format_ticket(short)


def test_win_kinds_tell_one_gain_from_gains_added() -> None:
    one = "OHPSCTQD|C C C C C C S S S S S S D D D P P P"  # C 6 -> 5 €; S 6/7, D 3/4, P 3/5
    two = "OHPSCTQD|C C C C C C S S S S S S S D D D T T"  # C 6 and S 7
    assert reference.win_kinds("robots", 100, one) == {"one gain"}
    assert reference.win_kinds("robots", 100, two) == {"gains added"}
    assert reference.game_win_kinds("robots") == {"one gain", "gains added"}
    with pytest.raises(reference.UnknownGameError):
        reference.game_win_kinds("bingo")
