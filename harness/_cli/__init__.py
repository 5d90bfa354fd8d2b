"""The ``instantcert`` console command: one module per subcommand in this package.

Each subcommand module has ``NAME``, ``HELP``, ``add_arguments(parser)`` and ``run(args) -> int``;
adding a module adds the subcommand.
Exit codes follow contract section 6: 0 success, 1 a requirement failed or errored, 2 the
command could not do its work (bad arguments, bad input, unreachable target, reports that
could not be written); 130 interrupted (SIGINT, Ctrl-C), 143 terminated (SIGTERM).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from types import FrameType, ModuleType

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130  # SIGINT (Ctrl-C): 128 + 2, as a shell reports it
EXIT_TERMINATED = 143  # SIGTERM (a CI job cancelled, a container stopped): 128 + 15


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread: the run stops as for Ctrl-C (its reports left as
    they were), and the command exits 143."""


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise Terminated


@contextlib.contextmanager
def _sigterm_stops_the_command() -> Iterator[None]:
    """SIGTERM raises ``Terminated`` while a command runs (in the main thread only: signal
    handlers can be set nowhere else); the previous handler is put back after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


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
        with _sigterm_stops_the_command():
            code: int = args.run(args)
    except UsageError as exc:
        from .._escape import shorten, visible

        line = visible(f"instantcert {args.command}: {exc}", one_line=True)
        print(shorten(line, 2000), file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt as exc:
        terminated = isinstance(exc, Terminated)
        notes = "; ".join(getattr(exc, "__notes__", ()))
        what = "terminated (SIGTERM)" if terminated else "interrupted"
        from .._escape import visible

        line = f"instantcert {args.command}: {what}{'; ' + notes if notes else ''}"
        print(visible(line, one_line=True), file=sys.stderr)
        return EXIT_TERMINATED if terminated else EXIT_INTERRUPTED
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
