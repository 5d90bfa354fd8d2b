"""``instantcert certify``: run the conformance suite against a target, write the reports.

Exit codes (contract section 6): 0 no requirement failed or errored, 1 one did, 2 the run
could not start (bad arguments or config, an impossible target, the smoke step failed) or its
reports could not be written; 130 interrupted (SIGINT), 143 terminated (SIGTERM). The reports
are put in place together once all are written (``_reports._folder``).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import reference
from conformance._settings import WEEK_S

from .. import _reports
from .._adapter import Adapter
from .._budget import close_within, run_within
from .._cases import CASES_DIR
from .._config import DEFAULT_PROFILE, DEFAULT_TARGET, RunConfig, build_config
from .._errors import ConfigError, TargetError, TargetUnreachable
from .._escape import terminal
from .._events import EventHandler
from .._progress import ProgressHandler
from .._reports._folder import STAGING_PREFIX, ReportFolder, ReportWriteError, describe
from .._reports.console import ConsoleReport
from .._runner import EXIT_NOT_STARTED, Runner, RunPlan
from .._timeout import DEFAULT_TIMEOUT_S
from .._waivers import load_waivers
from . import UsageError

if TYPE_CHECKING:  # cryptography loads only when a run is signed
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

NAME = "certify"
SOAK = "soak"
DEFAULT_SOAK_MINUTES = 20.0
HELP = "run the conformance suite against an implementation and write the reports"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--target",
        default=None,
        help=f"python:reference, python:package.module:factory or http://host:port "
        f"(default: {DEFAULT_TARGET}, the built-in reference, in-process)",
    )
    parser.add_argument(
        "--game",
        action="append",
        default=None,
        choices=reference.GAMES,
        help="only this game (repeatable); a filtered run never certifies",
    )
    parser.add_argument(
        "--stake-cents",
        action="append",
        type=int,
        default=None,
        metavar="N",
        help="only this stake (repeatable); a filtered run never certifies",
    )
    parser.add_argument(
        "--requirement",
        action="append",
        default=None,
        metavar="ID",
        help="only the checks of this requirement id (repeatable); never certifies",
    )
    parser.add_argument(
        "--profile",
        default=None,
        help=f"quick (sampled blocks, short runs; never certifies), full (every block whole; "
        f"certifies) or soak (full, and player sessions over --duration; certifies); "
        f"default {DEFAULT_PROFILE}",
    )
    parser.add_argument(
        "--duration",
        type=float,
        default=None,
        metavar="MINUTES",
        help=f"soak only: minutes the player sessions last (default {DEFAULT_SOAK_MINUTES:g}; "
        "fractions accepted); the run takes about that long",
    )
    parser.add_argument(
        "--out", default=None, metavar="DIR", help="report directory (default: instantcert-report)"
    )
    parser.add_argument("--config", default=None, metavar="FILE", help="YAML config file")
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        help="fixes every random choice of the suite (default: a fresh one, "
        "recorded in the report)",
    )
    parser.add_argument("--waivers", default=None, metavar="FILE", help="waivers file (YAML)")
    parser.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="S",
        help=f"seconds the target may take to answer one request (default: {DEFAULT_TIMEOUT_S:g})",
    )
    parser.add_argument(
        "--user-agent",
        default=None,
        metavar="TEXT",
        help="the User-Agent header every device sends to an HTTP target (default: each "
        "device its own, drawn from the seed, so that nothing in the traffic names the "
        "harness; docs/http-api.md)",
    )
    parser.add_argument(
        "--wait",
        type=float,
        default=0.0,
        metavar="S",
        help="wait up to S seconds for a target that is still starting to answer (default: 0)",
    )
    parser.add_argument(
        "--sign-key",
        default=None,
        metavar="KEY",
        help="sign the report folder with this Ed25519 key (instantcert keygen): writes "
        "attestation.intoto.jsonl, checked by instantcert verify",
    )
    parser.add_argument(
        "--check-budget",
        type=float,
        default=None,
        metavar="S",
        help="seconds one check may run before it is cut and marked error "
        "(default: the profile's, quick 300, full 3600)",
    )
    parser.add_argument(
        "--run-budget",
        type=float,
        default=None,
        metavar="S",
        help="seconds the whole run may take; checks not done by then are errors "
        "(default: the profile's, quick 1800, full 14400)",
    )
    parser.add_argument(
        "--check-concurrency",
        type=int,
        default=None,
        metavar="N",
        help="checks run at once against the target, block checks always alone "
        "(default: the profile's, 4); 1 runs them one by one",
    )
    parser.add_argument(
        "--fail-on",
        choices=["reservation"],
        default=None,
        help="exit 1 for CERTIFIED WITH RESERVATIONS too (default: exit 0, the reservations "
        "listed in every report); the config key fail_on: [reservation] does the same",
    )
    parser.add_argument(
        "--verbose",
        "-v",
        action="store_true",
        help="list passing requirements in the summary table too",
    )


def _stakes(games: list[str] | None, stakes: list[int] | None) -> dict[str, list[int]] | None:
    """``--stake-cents`` applied to every game in scope that sells it."""
    if stakes is None:
        return None
    chosen: dict[str, list[int]] = {}
    from conformance.games import kit_names

    known = kit_names()
    for game in games or list(known):
        if game not in known:
            continue  # the config's validation names an unknown game
        sold = [s for s in stakes if s in reference.load_rules(game).stakes_cents]
        if sold:
            chosen[game] = sold
    if not chosen:
        scope = ", ".join(games or known)
        raise ConfigError(f"--stake-cents {stakes}: no game in scope ({scope}) sells that stake")
    return chosen


def config_from_args(args: argparse.Namespace) -> RunConfig:
    flags: dict[str, Any] = {
        "target": args.target,
        "profile": args.profile,
        "games": args.game,
        "stakes": _stakes(args.game, args.stake_cents),
        "requirements": args.requirement,
        "seed": args.seed,
        "timeout_s": args.timeout,
        "user_agent": args.user_agent,
        "check_budget_s": args.check_budget,
        "run_budget_s": args.run_budget,
        "check_concurrency": args.check_concurrency,
        "out": args.out,
        "waivers": args.waivers,
        "fail_on": [args.fail_on] if args.fail_on else None,
    }
    return build_config(args.config, flags).with_seed()


def load_sign_key(path: str | None) -> Ed25519PrivateKey | None:
    """``--sign-key``, loaded before anything runs: a bad key is exit 2, not a lost run."""
    if path is None:
        return None
    from .._signing import SigningError, load_private_key

    try:
        return load_private_key(Path(path))
    except SigningError as exc:
        raise UsageError(f"--sign-key: {exc}") from None


def check_signable(out: Path) -> None:
    """A signed folder holds the report and nothing else (verify refuses any other file)."""
    from .._signing import folder_entries

    ours = {*_reports.REPORT_FILES, *_reports.SIGNED_FILES}
    foreign = sorted(
        name
        for name in folder_entries(out)
        if name not in ours and not name.startswith((f"{CASES_DIR}/", STAGING_PREFIX))
    )
    if foreign:
        raise UsageError(
            f"--sign-key: the report folder {str(out)!r} holds other files ({foreign[0]!r}"
            f"{f' and {len(foreign) - 1} more' if len(foreign) > 1 else ''}); a signed report "
            "needs a folder of its own"
        )


def open_out_dir(out: Path, signed: bool, adapter: Adapter) -> ReportFolder:
    """``out`` ready for this run's reports, written into a staging folder inside it until
    every one is written (``_reports._folder``; for a signed run, a folder of its own), or
    close ``adapter`` and exit 2 saying why. Nothing of an earlier run is removed here."""
    try:
        if signed and out.is_dir():
            check_signable(out)
        return ReportFolder(out)
    except ReportWriteError as exc:
        adapter.close()
        raise UsageError(f"could not write the reports: {exc}") from None
    except UsageError:
        adapter.close()
        raise


def execute_run(
    adapter: Adapter,
    plan: RunPlan,
    folder: ReportFolder,
    *,
    verbose: bool = False,
    sign_key: Ed25519PrivateKey | None = None,
) -> int:
    """Run ``plan`` on ``adapter`` with every report and the progress display; the exit code.

    The reports are written into ``folder``'s staging folder and put in place together once
    all are written; a report that cannot be written exits 2 (one line, the previous reports
    left as they were), an interrupted run leaves them as they were too."""
    handlers = _reports.report_handlers(
        folder.staging, sys.stdout, verbose=verbose, sign_key=sign_key, shown_as=folder.out
    )
    progress = ProgressHandler()
    runner = Runner(plan, [progress, *handlers])
    files = [h for h in handlers if not isinstance(h, ConsoleReport)]
    try:
        try:
            result = runner.run(adapter)
        finally:
            progress.close()
            close_within(adapter)  # a hung vendor adapter must not keep the reports unwritten
        for handler in files:
            close_report(handler)
        last = (_reports.REPORT_FILES[-1], *_reports.SIGNED_FILES)  # unsigned: a stale one goes
        folder.commit(_reports.REPORT_FILES[:-1], last, (CASES_DIR,))
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM (harness/_cli/__init__.py)
        folder.discard()
        exc.add_note(f"the reports in {str(folder.out)!r} were not changed")
        raise
    except BaseException as exc:
        folder.discard()
        if isinstance(exc, OSError | ReportWriteError):
            detail = describe(exc) if isinstance(exc, OSError) else str(exc)
            raise UsageError(
                f"could not write the reports: {detail}; the reports in {str(folder.out)!r} "
                "were not changed"
            ) from None
        raise
    for handler in handlers:
        if isinstance(handler, ConsoleReport):  # the table, once the reports are in place
            handler.close()
    return result.exit_code


def close_report(handler: EventHandler) -> None:
    """Write one report; any fault of its own (not the disk's) is a report not written."""
    try:
        handler.close()
    except OSError:
        raise
    except Exception as exc:
        raise ReportWriteError(
            f"the {type(handler).__name__} failed: {type(exc).__name__}: {exc}"
        ) from None


def run(args: argparse.Namespace) -> int:
    from .._targets import open_target

    wait = float(getattr(args, "wait", 0.0))
    if not 0 <= wait <= 3600:
        raise UsageError(f"--wait: {wait!r} is not a number of seconds in [0, 3600]")
    try:
        config = config_from_args(args)
        with_duration(config, args)  # a bad --duration is exit 2 before the target opens
        settings = config.run_settings()
        from conformance import load_catalogue

        waivers = load_waivers(config.waivers, load_catalogue())
        sign_key = load_sign_key(args.sign_key)
        budget = float(settings.check_budget_s)  # a vendor module that hangs on import
        ready, opened = run_within(
            lambda: open_target(
                config.target, timeout=config.timeout_s, user_agent=config.user_agent
            ),
            budget,
            "open target",
        )
        if not ready or opened is None:
            raise TargetUnreachable(
                f"target {config.target!r}: not loaded within the check budget of {budget:g} s"
            )
        adapter = opened
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    except TargetError as exc:
        print(terminal(f"instantcert certify: target unreachable: {exc}"), file=sys.stderr)
        return EXIT_NOT_STARTED
    if wait:
        from .._wait import wait_for_target

        # bounded even if describe() of a Python adapter never returns; if it crashes, the
        # smoke step reports how
        with contextlib.suppress(Exception):
            run_within(lambda: wait_for_target(adapter, wait), wait + budget, "wait for target")
    config = with_duration(config, args)
    settings = config.run_settings()
    assert config.seed is not None
    out = Path(config.out)
    from conformance._hypothesis import unmanage_numpy_random

    unmanage_numpy_random()  # this process is instantcert's own (conformance/_hypothesis.py)
    folder = open_out_dir(out, sign_key is not None, adapter)  # execute_run removes its staging
    plan = RunPlan(
        target=config.target,
        profile=config.profile,
        settings=settings,
        seed=config.seed,
        config={**config.to_dict(), "effective_settings": settings.to_dict()},
        filtered=config.filtered,
        requirements=config.requirements,
        waivers=waivers,
        out_dir=folder.staging,
        fail_on_reservation="reservation" in config.fail_on,
    )
    started = time.monotonic()
    code = execute_run(adapter, plan, folder, verbose=args.verbose, sign_key=sign_key)
    if config.profile == SOAK:
        ran = (time.monotonic() - started) / 60
        print(
            f"instantcert certify: the soak ran {ran:.1f} min; its player sessions "
            f"{settings.player_span_s / 60:g} min (report.json: play.player_sessions' details)"
        )
    return code


def with_duration(config: RunConfig, args: argparse.Namespace) -> RunConfig:
    """``config`` with ``--duration`` applied: a soak's player sessions last that many minutes
    (default 20), and the check and run budgets leave them room (unless given). UsageError
    for ``--duration`` outside a soak, or not a number of minutes in (0, one week]."""
    minutes = getattr(args, "duration", None)
    if config.profile != SOAK:
        if minutes is not None:
            raise UsageError(f"--duration is for --profile soak, not {config.profile!r}")
        return config
    if minutes is None:
        minutes = DEFAULT_SOAK_MINUTES
    if not (minutes > 0 and minutes * 60 <= WEEK_S):  # NaN fails too
        raise UsageError(
            f"--duration: {minutes!r} is not a number of minutes in (0, {WEEK_S // 60}]"
        )
    span = minutes * 60
    changes: dict[str, Any] = {"player_span_s": span}
    if config.check_budget_s is None and "check_budget_s" not in config.settings:
        changes["check_budget_s"] = min(WEEK_S, span + 600)  # the sessions check runs it all
    if config.run_budget_s is None and "run_budget_s" not in config.settings:
        changes["run_budget_s"] = min(WEEK_S, span + 14400)  # the full profile's beside it
    return replace(config, settings={**config.settings, **changes})
