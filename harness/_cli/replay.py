"""``instantcert replay CASE --target T``: run one saved counterexample again.

Exit 0 when the target now agrees with the rules on the case, 1 when it still fails (expected
and got are printed), 2 when the case or the target cannot be used.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from contract import Validated
from reference import GameError
from reference import _strict_json as strict_json

from .._cases import load_case
from .._errors import ConfigError, TargetError
from .._escape import shorten, terminal
from .._timeout import DEFAULT_TIMEOUT_S
from . import EXIT_FAILED, EXIT_OK, EXIT_USAGE, UsageError

NAME = "replay"
MAX_TIMEOUT_S = 86400.0  # as certify's --timeout (harness/_config.py)
HELP = "re-run a saved failure (cases/<check>-<n>.json) against a target"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "case", metavar="CASE", help="a case file written by certify or audit-block"
    )
    parser.add_argument(
        "--target",
        default=None,
        help="the target to replay on (default: the target the case was recorded against)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT_S,
        metavar="S",
        help="seconds the target may take to answer one request (default: %(default)g)",
    )


def _open(target: str, timeout: float) -> Any:
    """The target's adapter; ``file:PATH`` (a case from audit-block) is the block file itself."""
    from .._targets import open_target

    if target.startswith("file:"):
        import os

        from conformance._audit import AuditError
        from conformance._file_target import open_file_target, open_file_targets

        path = target.removeprefix("file:")
        try:
            if os.pathsep in path and not os.path.exists(path):  # several files, audited together
                return open_file_targets(path.split(os.pathsep))
            return open_file_target(path)
        except (AuditError, OSError) as exc:
            raise ConfigError(f"target {target!r}: {exc}") from None
    return Validated(open_target(target, timeout=timeout))  # answers checked at the seam


def _show(value: Any) -> str:
    return value if isinstance(value, str) else strict_json.dumps(value, sort_keys=True)


class _Terminal:
    """stdout that shows control characters from the case or the target as escapes."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> None:
        self.stream.write(terminal(text))


def choose_target(recorded: str, given: str | None) -> str:
    """The target to replay on. A case file may come from anyone, so it reads and runs nothing
    the command line did not name: its recorded target is used only when it is the built-in
    ``python:reference``; any other (a ``python:module:factory`` imports code, a ``file:PATH``
    reads a file of this machine, a URL sends requests where the case says) only when
    ``--target`` names one: otherwise ConfigError saying so (docs/certify.md)."""
    if given is not None:
        return given
    if recorded == "python:reference":
        return recorded
    if recorded.startswith("python:"):
        does = "imports and runs a Python module"
    elif recorded.startswith("file:"):
        does = "reads a file of this machine"
    else:
        does = "sends requests to the address it names"
    raise ConfigError(
        f"it names the target {shorten(recorded, 200)!r}, which {does}: replay uses a "
        "case's target only when you pass it explicitly with --target"
    )


def run(args: argparse.Namespace) -> int:
    from conformance._evidence import ReplayError
    from conformance._suite import replay

    if not 0 < args.timeout <= MAX_TIMEOUT_S:  # also NaN
        raise UsageError(f"--timeout: {args.timeout!r} is not a number of seconds in (0, 86400]")
    try:
        case = load_case(args.case)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    try:
        target = choose_target(case.target, args.target)
        adapter = _open(target, args.timeout)
    except ConfigError as exc:
        raise UsageError(f"case file {args.case!r}: {exc}") from None
    except TargetError as exc:
        print(terminal(f"instantcert replay: target unreachable: {exc}"), file=sys.stderr)
        return EXIT_USAGE
    out = _Terminal(sys.stdout)
    out.write(f"case: {args.case} ({case.check_id}: {', '.join(case.requirements)})\n")
    out.write(f"input: {_show(case.evidence['input'])}\n")
    try:
        evidence = replay(adapter, case.evidence["input"])
    except ReplayError as exc:
        raise UsageError(f"{args.case}: {exc}") from None
    except GameError as exc:  # a case input the rules cannot judge (schema-valid, e.g. a stake)
        raise UsageError(f"{args.case}: the case's input is outside the rules: {exc}") from None
    except TargetError as exc:
        out.write(f"error: the target misbehaved ({exc.kind}): {exc}\n")
        return EXIT_FAILED
    except Exception as exc:  # a vendor adapter can fail any way: an error, not a traceback
        out.write(f"error: the replay failed: {type(exc).__name__}: {shorten(str(exc), 500)}\n")
        return EXIT_FAILED
    finally:
        adapter.close()
    if evidence is None:
        out.write(f"passes: {target} now agrees with the rules on this case\n")
        return EXIT_OK
    out.write(f"still fails on {target}\n")
    out.write(f"expected: {_show(evidence.expected)}\n")
    out.write(f"got:      {_show(evidence.got)}\n")
    if evidence.note:
        out.write(f"note:     {evidence.note}\n")
    return EXIT_FAILED
