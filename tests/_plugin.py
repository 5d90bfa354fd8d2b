"""How a test's own ``python -m pytest`` gets the suite's plugin, installed or not."""

from __future__ import annotations

from importlib.metadata import entry_points

PLUGIN = "harness.pytest_plugin"


def plugin_args() -> list[str]:
    """``-p harness.pytest_plugin`` unless the plugin is installed as a pytest11 entry point
    (an environment installed before the plugin moved to the harness has an older entry)."""
    installed = any(ep.value == PLUGIN for ep in entry_points(group="pytest11"))
    return [] if installed else ["-p", PLUGIN]
