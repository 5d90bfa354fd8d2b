"""The ``instantcert`` console command: one module per subcommand in this package.

Each subcommand module has ``NAME``, ``HELP``, ``add_arguments(parser)`` and ``run(args) -> int``;
adding a module adds the subcommand.
Exit codes follow contract section 6: 0 success, 1 a requirement failed or errored, 2 the
command could not do its work (bad arguments, bad input, unreachable target).
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from types import ModuleType

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2


class UsageError(Exception):
    """Bad arguments or input: printed as one line, exit 2."""


def _module_names() -> list[str]:
    """The subcommand modules: this package's public ``.py`` files (listed directly:
    ``pkgutil.iter_modules`` imports ``inspect``, 4 ms of every command's start-up)."""
    return sorted(
        entry.name[:-3]
        for folder in __path__
        for entry in os.scandir(folder)
        if entry.name.endswith(".py") and not entry.name.startswith("_") and entry.is_file()
    )


def _modules(only: str | None = None) -> list[ModuleType]:
    names = _module_names()
    if only is not None:
        names = [n for n in names if n == only]
    return [importlib.import_module(f"{__name__}.{name}") for name in names]


def _invoked(argv: Sequence[str]) -> str | None:
    """The module of the subcommand ``argv`` names (``audit-block`` -> ``audit_block``), if
    the first argument is one; None for ``--help``, ``--version`` or a name that is none."""
    first = argv[0] if argv else ""
    module = first.replace("-", "_")
    return module if not first.startswith("-") and module in _module_names() else None


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The whole parser; given the command line, only the subcommand it names is loaded (a
    command pays at start-up for its own imports, not for every other command's)."""
    from .. import __version__

    parser = argparse.ArgumentParser(
        prog="instantcert",
        description="Certification harness for Le Retour des Robots and Eldorado implementations.",
    )
    parser.add_argument("--version", action="version", version=f"instantcert {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    only = _invoked(argv) if argv is not None else None
    for module in _modules(only):
        command = sub.add_parser(module.NAME, help=module.HELP, description=module.HELP)
        module.add_arguments(command)
        command.set_defaults(run=module.run)
    return parser


def main(argv: Sequence[str] | None = None, *, loaded: Callable[[], None] | None = None) -> int:
    """Run the command ``argv`` names; ``loaded`` is called once its modules are imported."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(argv)
    if loaded is not None:
        loaded()
    args = parser.parse_args(argv)
    try:
        code: int = args.run(args)
    except UsageError as exc:
        from .._escape import shorten, visible

        line = visible(f"instantcert {args.command}: {exc}", one_line=True)
        print(shorten(line, 2000), file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"instantcert {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK
    return code


def _collect_again() -> None:
    """The imports are done: what they made lives as long as the process, so the collector
    never looks at it again (``gc.freeze``) and collects from here on."""
    gc.freeze()
    gc.enable()


def entry_point() -> None:
    from .._budget import exit_process

    # no garbage collection while the command's modules load: start-up allocates and keeps
    # (collections there cost 11 ms of a block audit's 0.18 s start-up, measured)
    gc.disable()
    exit_process(main(loaded=_collect_again))  # also when a cut check left threads hanging
