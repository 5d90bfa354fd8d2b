"""The two games the package ships, registered on import: Le Retour des Robots and Eldorado."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from ._eldorado import EldoradoEngine
from ._games import register_game
from ._robots import RobotsEngine

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable


def _rules_folder() -> Traversable | Path:
    """The rules shipped in the package: a folder beside this module, read as files; the
    package's resources only where it is not on disk as files (a zip): ``importlib.resources``
    and what it loads (``zipfile``, ``tempfile``: 3-4 ms) are not on the start-up of every
    command, before a block file's audit can begin."""
    here = Path(__file__).parent / "rules"
    if os.path.isdir(here):
        return here
    from importlib import resources

    return resources.files("reference").joinpath("rules")


def _register() -> None:
    rules = _rules_folder()
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
