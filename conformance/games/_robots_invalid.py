"""Robots' kinds of invalid ticket (contract 1's notation broken one rule at a time), the
requirement each belongs to, and a fixed catalogue of at least one invalid ticket of every
kind, made from the contract's example.

Plain data, without hypothesis, so that the kit can be built (and a block audit run) without
importing it; ``_robots_strategies`` makes many more invalid tickets of each kind.
"""

from __future__ import annotations

# kind -> requirement id the kind belongs to
ROBOTS_INVALID_KINDS: dict[str, str] = {
    "robots_count": "robots.4.2.invalid_board",
    "robot_twice": "robots.4.2.invalid_board",
    "robot_symbol": "robots.4.2.invalid_board",
    "button_count": "robots.4.3.invalid_buttons",
    "empty_button": "robots.4.3.invalid_buttons",
    "reveal_symbol": "robots.4.3.invalid_symbol",
    "mark": "robots.contract.invalid_notation",
    "dangling_plus": "robots.contract.invalid_notation",
    "separator": "robots.contract.invalid_notation",
    "characters": "robots.contract.invalid_notation",
}


_ROBOTS_BASE = "OHPSCTQD|C D2+P S S C S D T S P H O C S T D C C"  # contract 1's example


# a fixed, readable catalogue: at least one invalid ticket of every kind, made from the
# contract's example (the strategies add many more)
ROBOTS_INVALID_EXAMPLES: tuple[tuple[str, str], ...] = (
    ("robots_count", _ROBOTS_BASE.replace("OHPSCTQD", "OHPSCTQ")),
    ("robots_count", _ROBOTS_BASE.replace("OHPSCTQD", "OHPSCTQDO")),
    ("robot_twice", _ROBOTS_BASE.replace("OHPSCTQD", "OHPSCTQO")),
    ("robot_symbol", _ROBOTS_BASE.replace("OHPSCTQD", "OHPSCTQX")),
    ("button_count", _ROBOTS_BASE[: _ROBOTS_BASE.rindex(" ")]),  # 17 buttons
    ("button_count", _ROBOTS_BASE + " C"),  # 19 buttons
    ("empty_button", _ROBOTS_BASE.replace(" S S ", " S  S ", 1)),
    ("reveal_symbol", _ROBOTS_BASE.replace("|C ", "|X ", 1)),
    ("reveal_symbol", _ROBOTS_BASE.replace(" H O ", " H G ", 1)),
    ("mark", _ROBOTS_BASE.replace("D2+P", "D3+P")),
    ("mark", _ROBOTS_BASE.replace("D2+P", "D22+P")),
    ("mark", _ROBOTS_BASE.replace("D2+P", "2D+P")),
    ("dangling_plus", _ROBOTS_BASE.replace("D2+P", "D2+")),
    ("dangling_plus", _ROBOTS_BASE.replace("D2+P", "D2++P")),
    ("dangling_plus", _ROBOTS_BASE.replace("D2+P", "+D2")),
    ("separator", _ROBOTS_BASE.replace("|", "")),
    ("separator", _ROBOTS_BASE.replace("|", "||")),
    ("separator", _ROBOTS_BASE + " "),
    ("separator", _ROBOTS_BASE.replace(" ", ",", 1)),
    ("characters", ""),
    ("characters", _ROBOTS_BASE.lower()),
    ("characters", _ROBOTS_BASE + "\n"),
    ("characters", _ROBOTS_BASE.replace("C", "\u00c7", 1)),
)
