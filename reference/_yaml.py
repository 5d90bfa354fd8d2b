"""The project's own YAML data (rules, requirements, clauses, profiles), read by libyaml.

These files ship with the package and are trusted; what they say is validated by their
loaders. ``yaml.CSafeLoader`` parses them about ten times faster than the pure-Python
``safe_load`` (about 0.3 s of every command's start-up otherwise), with the same safe schema.
Files from outside (configs, waivers) go through ``harness._config``'s bounded loader instead.
"""

from __future__ import annotations

from typing import Any

import yaml

_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # PyYAML without libyaml: Python


def load(text: str | bytes) -> Any:
    """``yaml.safe_load(text)``, by libyaml where PyYAML has it."""
    return yaml.load(text, Loader=_LOADER)
