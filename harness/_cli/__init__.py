"""The ``instantcert`` console command: one module per subcommand in this package.

Each subcommand module has ``NAME``, ``HELP``, ``add_arguments(parser)`` and ``run(args) -> int``;
adding a module adds the subcommand. One that imports its run's modules inside ``run`` sets
``LOADS_IN_RUN = True`` and calls ``modules_loaded()`` once it has (start-up: ``main``).
Exit codes follow contract section 6: 0 success, 1 a requirement failed or errored, 2 the
command could not do its work (bad arguments, bad input, unreachable target, reports that
could not be written); 130 interrupted (SIGINT, Ctrl-C), 143 terminated (SIGTERM).
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import difflib
import gc
import importlib
import os
import re
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from types import FrameType, ModuleType
from typing import NoReturn

from .. import _codecache

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


def _help_only(argv: Sequence[str]) -> bool:
    """The command line names no subcommand and cannot reach one: no words, ``-h``,
    ``--help`` or ``--version`` first (argparse answers it and exits), or a first word that
    is no command (argparse's "invalid choice"). Its parser needs the subcommands' names and
    help lines alone."""
    first = argv[0] if argv else ""
    if not argv or first in ("-h", "--help", "--version"):
        return True
    return not first.startswith("-") and _invoked(argv) is None


def _literal(tree: ast.Module, name: str) -> str | None:
    """The string a module's top-level ``name = "..."`` assigns, if it is a literal."""
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and [getattr(t, "id", None) for t in node.targets] == [name]
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            return node.value.value
    return None


def _summaries() -> list[tuple[str, str]]:
    """(NAME, HELP) of every subcommand, read from its module's source without importing it:
    ``instantcert --help`` lists the commands without loading every command's imports (numpy,
    the reference, jsonschema, cryptography: 0.2 s). A module whose NAME or HELP is not a
    literal string is imported for them."""
    found = []
    for name in _module_names():
        path = next(os.path.join(f, f"{name}.py") for f in __path__)
        with open(path, encoding="utf-8") as source:
            tree = ast.parse(source.read(), path)
        command, text = _literal(tree, "NAME"), _literal(tree, "HELP")
        if command is None or text is None:
            module = importlib.import_module(f"{__name__}.{name}")
            command, text = module.NAME, module.HELP
        found.append((command, text))
    return found


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The whole parser; given the command line, only the subcommand it names is loaded (a
    command pays at start-up for its own imports, not for every other command's), and none
    when it names none (``_help_only``: the commands' names and help lines, read from their
    sources)."""
    from .. import __version__

    parser = _Parser(
        prog="instantcert",
        description="Certification harness for Le Retour des Robots and Eldorado implementations.",
    )
    parser.add_argument("--version", action="version", version=f"instantcert {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    only = _invoked(argv) if argv is not None else None
    words = list(argv or ())
    if argv is not None and _help_only(words):
        parser.argv = words
        for command_name, text in _summaries():
            sub.add_parser(command_name, help=text, description=text)
        return parser
    parser.argv = [] if only else words  # a named subcommand's words are its parser's
    for module in _modules(only):
        command = sub.add_parser(module.NAME, help=module.HELP, description=module.HELP)
        assert isinstance(command, _Parser)
        command.argv = words[1:]  # the words after the subcommand's name
        module.add_arguments(command)
        command.set_defaults(run=module.run, parser=command)
    return parser


def _refuse_unknown(args: argparse.Namespace, extra: Sequence[str]) -> None:
    """Exit 2 for arguments the subcommand does not take, with its own usage (argparse would
    print the top-level one) and the closest of its options for a misspelt one."""
    parser: argparse.ArgumentParser = args.parser
    parser.error(f"unrecognized arguments: {' '.join(extra)}")


class _Parser(argparse.ArgumentParser):
    """argparse with a hint in its errors: the closest option to a misspelt one
    (``--proflie`` -> "did you mean --profile?"), also where the misspelling left a required
    option missing, and the closest choice to a wrong one (a subcommand, a game)."""

    argv: Sequence[str] = ()
    """The words of the command line this parser reads (set by ``build_parser``)."""

    def error(self, message: str) -> NoReturn:
        super().error(self._hinted(message))

    def _hinted(self, message: str) -> str:
        if not message.startswith("argument ") or "invalid choice" not in message:
            flag = self._unknown_option()
            if flag is not None:
                return f"unrecognized argument {flag}{self._closest_option(flag)}"
            return message
        chosen = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)$", message)
        if chosen is None:
            return message
        choices = re.findall(r"'([^']*)'", chosen[2])
        close = difflib.get_close_matches(chosen[1], choices, n=1, cutoff=0.6)
        return f"{message}; did you mean {close[0]!r}?" if close else message

    def _options(self) -> list[str]:
        return [s for action in self._actions for s in action.option_strings]

    def _unknown_option(self) -> str | None:
        """The first ``--option`` of the command line this parser does not know (nor any of its
        options starts with: argparse takes unambiguous prefixes); long options only (a short
        one or a negative number may be a value)."""
        options = self._options()
        words = list(self.argv)
        if "--" in words:
            words = words[: words.index("--")]
        for word in words:
            flag = word.partition("=")[0]
            known = any(option.startswith(flag) for option in options)
            if flag.startswith("--") and len(flag) > 2 and not known:
                return flag
        return None

    def _closest_option(self, flag: str) -> str:
        options = self._options()
        close = difflib.get_close_matches(flag, options, n=1, cutoff=0.6)
        if close:
            return f": did you mean {close[0]}?"
        return f"; the options of {self.prog}: {', '.join(o for o in options if o != '-h')}"


_WHEN_LOADED: list[Callable[[], None]] = []
"""``main``'s ``loaded``, held for a command that imports its run's modules in its ``run``
(its module's ``LOADS_IN_RUN``) until it says it has (``modules_loaded``)."""


def modules_loaded() -> None:
    """Said by a command whose module has ``LOADS_IN_RUN`` once ``run`` has imported what its
    run needs: ``main``'s ``loaded`` runs then (``entry_point``: the garbage collector, off
    while modules load, freezes what they made and collects from then on), not as soon as the
    command's module is imported. ``main`` says it itself when ``run`` returns, if the command
    did not."""
    while _WHEN_LOADED:
        _WHEN_LOADED.pop()()


def main(argv: Sequence[str] | None = None, *, loaded: Callable[[], None] | None = None) -> int:
    """Run the command ``argv`` names; ``loaded`` is called once its modules are imported."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(argv)
    if loaded is not None:
        _WHEN_LOADED.append(loaded)
        name = _invoked(argv)
        if not getattr(sys.modules.get(f"{__name__}.{name}"), "LOADS_IN_RUN", False):
            modules_loaded()
    try:
        return _main(parser, argv)
    finally:
        modules_loaded()


def _main(parser: argparse.ArgumentParser, argv: list[str]) -> int:
    if not argv:  # a first try: the commands, not argparse's "arguments are required"
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    args, extra = parser.parse_known_args(argv)
    if extra:
        _refuse_unknown(args, extra)
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


BLAS_THREADS = {"OPENBLAS_NUM_THREADS": "1"}
"""numpy's OpenBLAS runs on one thread unless the user says otherwise: the harness multiplies
only small matrices (the exact Kolmogorov-Smirnov law), and OpenBLAS's worker threads spin on
after each product, on the cores the block audit's threads need (0.05-0.1 s of CPU of a robots
block's audit, measured with perf; the same figures). Read when numpy loads: set before."""


AUDIT_BLOCK_FLAGS = frozenset({"-v", "--verbose", "-h", "--help"})
"""The options of ``audit-block`` that take no value (``_inflate_early``)."""


def _inflate_early(argv: Sequence[str]) -> None:
    """``instantcert audit-block FILE`` of one gzip file: its inflate begun at once, on a
    thread that lets the GIL go (``conformance._gzip_ahead``), while the command's modules load
    on the other core (numpy, the reference, the harness: 0.2-0.3 s of CPU before the audit
    could read a byte). The command hands it to its audit of that file, or stops it
    (``audit_block._start``). The words are read here by a rough rule (an option other than a
    flag takes the next word): a word mistaken for the file only starts an inflate that is
    stopped."""
    if not argv or argv[0] != "audit-block":
        return
    files: list[str] = []
    words = iter(argv[1:])
    for word in words:
        if word == "--":
            files.extend(words)
        elif word.startswith("-") and len(word) > 1:
            if word not in AUDIT_BLOCK_FLAGS and "=" not in word:
                next(words, None)  # its value
        else:
            files.append(word)
    if len(files) == 1 and "://" not in files[0]:
        from conformance._gzip_ahead import start_early

        start_early(files[0])


def entry_point() -> None:
    for name, value in BLAS_THREADS.items():
        os.environ.setdefault(name, value)
    _inflate_early(sys.argv[1:])
    # the dataclasses' generated methods from the code kept by earlier runs (harness._codecache:
    # 35-45 ms of a block audit's start-up compiled them), before any module defines one
    code_cache = _codecache.install()
    # no garbage collection while the command's modules load: start-up allocates and keeps
    # (collections there cost 11 ms of a block audit's 0.18 s start-up, measured)
    gc.disable()
    code = main(loaded=_collect_again)
    if code_cache is not None:
        code_cache.save()  # only if this run compiled a text the table did not hold
    # loaded once the command has run (its runner loads it too): not 15 ms of the start-up
    # before audit-block's audit can begin
    from .._budget import exit_process

    exit_process(code)  # also when a cut check left threads hanging
