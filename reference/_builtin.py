"""The two games the package ships, registered on import: Le Retour des Robots and Eldorado."""

from __future__ import annotations

from importlib import resources

from ._eldorado import EldoradoEngine
from ._games import register_game
from ._robots import RobotsEngine


def _register() -> None:
    rules = resources.files("reference").joinpath("rules")
    for name, engine in (("robots", RobotsEngine), ("eldorado", EldoradoEngine)):
        register_game(
            name,
            engine,
            rules.joinpath(f"{name}.yaml"),
            rules_file=f"reference/rules/{name}.yaml",
            builtin=True,
            check=False,  # read on first use: importing reference stays cheap
        )


_register()
