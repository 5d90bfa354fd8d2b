"""Eldorado's own public names: its engine, its ticket type, its rules, their symbols and
paytable combinations (``reference.eldorado.eldorado_rules()``).

The package's face (``reference``) names no game: what every game shares is there, each game's
own is in its module (``reference.robots``, ``reference.eldorado``), so a game added beside
them (docs/adding-a-game.md) changes no shared module.
"""

from ._eldorado import EldoradoEngine, EldoradoTicket, eldorado_rules
from ._eldorado_rules import Combination, EldoradoRules, EldoradoSymbol

__all__ = [
    "Combination",
    "EldoradoEngine",
    "EldoradoRules",
    "EldoradoSymbol",
    "EldoradoTicket",
    "eldorado_rules",
]
