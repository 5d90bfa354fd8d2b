"""Le Retour des Robots' own public names: its engine, its ticket and reveal types, its rules
and their symbols (``reference.robots.robots_rules()``).

The package's face (``reference``) names no game: what every game shares is there, each game's
own is in its module (``reference.robots``, ``reference.eldorado``), so a game added beside
them (docs/adding-a-game.md) changes no shared module.
"""

from ._robots import Reveal, RobotsEngine, RobotsTicket, robots_rules
from ._robots_rules import RobotsRules, RobotSymbol

__all__ = ["Reveal", "RobotSymbol", "RobotsEngine", "RobotsRules", "RobotsTicket", "robots_rules"]
