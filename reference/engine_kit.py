"""What a game engine is built from: the one import a new game's engine needs.

``docs/adding-a-game.md`` walks through writing one; ``tests/third_game/engine.py`` is a
complete example. Everything here is also used by the package's own engines (robots,
eldorado), so a new game is built from the same parts, never from copies.
"""

from __future__ import annotations

from ._errors import GameError, RulesDataError, StakeError, TicketError
from ._gains import (
    Chooser,
    Decomposition,
    Gain,
    PrizeError,
    check_prize,
    decomposition_key,
    sample,
    shuffle,
)
from ._games import GameDefinition, GameEngine, register_game, unregister_game
from ._rules import GameRules, Lot, LotTable, RulesNode, stake_error, unique
from ._scenarios import (
    PlainPools,
    ScenarioPools,
    shuffled_columns,
    split_tickets,
    uniform_below,
)

__all__ = [
    "Chooser",
    "Decomposition",
    "Gain",
    "GameDefinition",
    "GameEngine",
    "GameError",
    "GameRules",
    "Lot",
    "LotTable",
    "PlainPools",
    "PrizeError",
    "RulesDataError",
    "RulesNode",
    "ScenarioPools",
    "StakeError",
    "TicketError",
    "check_prize",
    "decomposition_key",
    "register_game",
    "sample",
    "shuffle",
    "shuffled_columns",
    "split_tickets",
    "stake_error",
    "uniform_below",
    "unique",
    "unregister_game",
]
