"""The reference implementation of Le Retour des Robots and Eldorado: the suite's oracle."""

from ._eldorado import EldoradoEngine, EldoradoTicket
from ._errors import GameError, RulesDataError, StakeError, TicketError, UnknownGameError
from ._evaluate import Ticket, check_stake, evaluate, format_ticket, parse_ticket, prize_cents
from ._robots import Reveal, RobotsEngine, RobotsTicket
from ._rules import (
    GAMES,
    Combination,
    EldoradoRules,
    EldoradoSymbol,
    GameRules,
    Lot,
    LotTable,
    RobotsRules,
    RobotSymbol,
    check_game,
    eldorado_rules,
    load_rules,
    parse_rules,
    robots_rules,
    rules_file_bytes,
)

__all__ = [
    "GAMES",
    "Combination",
    "EldoradoEngine",
    "EldoradoRules",
    "EldoradoSymbol",
    "EldoradoTicket",
    "GameError",
    "GameRules",
    "Lot",
    "LotTable",
    "Reveal",
    "RobotSymbol",
    "RobotsEngine",
    "RobotsRules",
    "RobotsTicket",
    "RulesDataError",
    "StakeError",
    "Ticket",
    "TicketError",
    "UnknownGameError",
    "check_game",
    "check_stake",
    "eldorado_rules",
    "evaluate",
    "format_ticket",
    "load_rules",
    "parse_rules",
    "parse_ticket",
    "prize_cents",
    "robots_rules",
    "rules_file_bytes",
]
