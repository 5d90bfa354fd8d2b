"""The reference implementation of Le Retour des Robots and Eldorado: the suite's oracle.

Games are registered by name (``register_game``; the package registers its two): every function
here taking a ``game`` finds it in the registry, and raises UnknownGameError for any other.
This face holds what every game shares; each shipped game's own names (its engine, ticket and
rules types) are in its public module, ``reference.robots`` and ``reference.eldorado``.
"""

from . import _builtin  # noqa: F401 - registers robots and eldorado
from ._blockfile import write_block_file
from ._blocks import (
    Block,
    BlockError,
    Unit,
    check_block_id,
    check_slice,
    default_block_id,
    new_seed,
    probe_prizes,
)
from ._errors import GameError, RulesDataError, StakeError, TicketError, UnknownGameError
from ._evaluate import (
    Ticket,
    evaluate,
    format_ticket,
    game_win_kinds,
    parse_ticket,
    prize_cents,
    win_kinds,
)
from ._gains import Chooser
from ._games import (
    GAMES,
    GameDefinition,
    GameEngine,
    RegistrationError,
    check_game,
    check_stake,
    game_engine,
    games,
    load_rules,
    parse_rules,
    register_game,
    rules_file_bytes,
    unregister_game,
)
from ._generate import Decomposition, Gain, PrizeError, generate_ticket, prize_decompositions
from ._permutation import FeistelPermutation
from ._rules import GameRules, Lot, LotTable, RulesNode
from ._scenarios import PlainPools, ScenarioPools

__all__ = [
    "GAMES",
    "Block",
    "BlockError",
    "Chooser",
    "Decomposition",
    "FeistelPermutation",
    "Gain",
    "GameDefinition",
    "GameEngine",
    "GameError",
    "GameRules",
    "Lot",
    "LotTable",
    "PlainPools",
    "PrizeError",
    "RegistrationError",
    "RulesDataError",
    "RulesNode",
    "ScenarioPools",
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
    "evaluate",
    "format_ticket",
    "game_engine",
    "game_win_kinds",
    "games",
    "generate_ticket",
    "load_rules",
    "new_seed",
    "parse_rules",
    "parse_ticket",
    "prize_cents",
    "prize_decompositions",
    "probe_prizes",
    "register_game",
    "rules_file_bytes",
    "unregister_game",
    "win_kinds",
    "write_block_file",
]
