"""The reference implementation of Le Retour des Robots and Eldorado: the suite's oracle."""

from ._blockfile import write_block_file
from ._blocks import (
    Block,
    BlockError,
    Unit,
    check_block_id,
    check_slice,
    default_block_id,
    new_seed,
)
from ._eldorado import EldoradoEngine, EldoradoTicket
from ._errors import GameError, RulesDataError, StakeError, TicketError, UnknownGameError
from ._evaluate import Ticket, check_stake, evaluate, format_ticket, parse_ticket, prize_cents
from ._generate import Decomposition, Gain, PrizeError, generate_ticket, prize_decompositions
from ._permutation import FeistelPermutation
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
    "Block",
    "BlockError",
    "Combination",
    "Decomposition",
    "EldoradoEngine",
    "EldoradoRules",
    "EldoradoSymbol",
    "EldoradoTicket",
    "FeistelPermutation",
    "Gain",
    "GameError",
    "GameRules",
    "Lot",
    "LotTable",
    "PrizeError",
    "Reveal",
    "RobotSymbol",
    "RobotsEngine",
    "RobotsRules",
    "RobotsTicket",
    "RulesDataError",
    "StakeError",
    "Ticket",
    "TicketError",
    "Unit",
    "UnknownGameError",
    "check_block_id",
    "check_game",
    "check_slice",
    "check_stake",
    "default_block_id",
    "eldorado_rules",
    "evaluate",
    "format_ticket",
    "generate_ticket",
    "load_rules",
    "new_seed",
    "parse_rules",
    "parse_ticket",
    "prize_cents",
    "prize_decompositions",
    "robots_rules",
    "rules_file_bytes",
    "write_block_file",
]
