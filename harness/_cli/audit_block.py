"""``instantcert audit-block FILE [FILE ...]``: the exhaustive audit of block files, offline.

The file is served to the suite by a file-backed adapter (capability ``blocks`` only), so the
audit runs exactly the block checks ``certify`` runs, whole-block, with the same reports and
exit codes; only the requirements of blocks are reported.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reference._files import NotRegularFile, check_regular, kind

from . import UsageError, modules_loaded

if TYPE_CHECKING:  # the command loads conformance and the run when it runs (start-up)
    from conformance._file_target import FileTarget, FileTargets
    from conformance._started_audit import StartedAudit

SEED_LIMIT = 2**32  # harness._config's, which loads the profiles: checked in a test

NAME = "audit-block"
LOADS_IN_RUN = True
"""``run`` imports the run's modules once the file's audit has begun (``_start``), then says
so (``modules_loaded``): no garbage collection while they load either."""
HELP = "audit a block file: every unit re-evaluated, lot table, payout, randomness"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file",
        metavar="FILE",
        nargs="+",
        help="block file(s) (.jsonl or .jsonl.gz); several are audited together, their "
        "randomness tests pooled (consecutive blocks of a stake compared, top tiers pooled)",
    )
    parser.add_argument(
        "--out",
        default="instantcert-report",
        metavar="DIR",
        help="report directory (default: instantcert-report)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        help="fixes every random choice (default: a fresh one, recorded)",
    )
    parser.add_argument(
        "--alpha",
        type=float,
        default=None,
        help="family-wise level of the randomness tests (default 0.01)",
    )
    parser.add_argument(
        "--sign-key",
        default=None,
        metavar="KEY",
        help="sign the report folder with this Ed25519 key (see instantcert certify --sign-key)",
    )
    parser.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="audit on a Dask cluster (tcp://host:port, as `dask scheduler` prints it; pip "
        "install 'instantcert[dask]'): its workers read the files, named by paths every worker "
        "can open or fsspec URLs (https://, s3://, ...)",
    )
    parser.add_argument(
        "--verbose",
        "-v",
        action="store_true",
        help="list passing requirements in the summary table too",
    )


def _check_block_file(name: str, path: Path) -> None:
    """A block file is a regular file the audit can open and read again (its reader seeks):
    a missing path, a directory, a pipe or a device is named for what it is."""
    if path.is_file():
        return
    if not path.exists():
        raise UsageError(f"{name!r}: no such file")
    if path.is_dir():
        raise UsageError(f"{name!r}: is a directory, expected a block file (.jsonl or .jsonl.gz)")
    try:
        check_regular(path)  # the one test of every path instantcert reads (reference/_files)
    except NotRegularFile:
        raise UsageError(
            f"{name!r}: not a regular file ({kind(path.stat().st_mode)}); audit-block reads a "
            "block file on disk: save the stream first (e.g. curl URL > block.jsonl)"
        ) from None


def _shown(name: str) -> str:
    """A file as the reports name it: a path as ``pathlib`` writes it, a URL as given."""
    return name if "://" in name else str(Path(name))


def _on_cluster(names: list[str], scheduler: str, budget: float) -> FileTarget | FileTargets:
    """The files as a target whose blocks a Dask cluster audits (``conformance._dask_audit``,
    imported here only: nothing of Dask is loaded without ``--scheduler``)."""
    try:
        from conformance import _dask_audit
    except ImportError as exc:
        raise UsageError(
            f"--scheduler needs Dask ({exc.name} is not installed): pip install 'instantcert[dask]'"
        ) from None
    try:
        client: Any = _dask_audit.connect(scheduler)
        try:
            return _dask_audit.open_cluster_targets([_shown(n) for n in names], client, budget)
        except BaseException:
            client.close()
            raise
    except _dask_audit.ClusterUnavailable as exc:
        raise UsageError(str(exc)) from None


def _start(args: argparse.Namespace, paths: list[Path], seed: int) -> StartedAudit | None:
    """One block file audited locally: its audit begun at once, on threads, while the rest of
    the harness loads (``conformance._started_audit``; the block checks take it up)."""
    from conformance._gzip_ahead import started_early

    if args.scheduler is not None or len(paths) != 1:
        started_early(None)  # an inflate the entry point began, stopped
        return None
    ahead = started_early(paths[0])  # the file's inflate, begun by the entry point
    from conformance._started_audit import start_file_audit
    from conformance.games import kit_names

    kit_names()  # the game kits loaded here first: the audit's thread reads them as it judges
    return start_file_audit(paths[0], seed, ahead)


def run(args: argparse.Namespace) -> int:
    import secrets

    paths = [Path(f) for f in args.file]
    if args.scheduler is None:
        for name, path in zip(args.file, paths, strict=True):
            _check_block_file(name, path)
    if args.seed is not None and not 0 <= args.seed < SEED_LIMIT:
        raise UsageError(f"--seed must be in [0, 2**32), got {args.seed!r}")
    seed = args.seed if args.seed is not None else secrets.randbelow(SEED_LIMIT)
    started = _start(args, paths, seed)
    try:
        return _run(args, paths, seed, started)
    finally:
        if started is not None:
            started.stop()


def _run(
    args: argparse.Namespace, paths: list[Path], seed: int, started: StartedAudit | None
) -> int:
    from conformance._audit import AuditError
    from conformance._file_target import FileTarget, open_file_targets
    from conformance._profiles import ProfileError, profile_settings

    from .._errors import ConfigError
    from .._runner import RunPlan
    from .certify import execute_run, load_sign_key, open_out_dir

    modules_loaded()
    sign_key = load_sign_key(args.sign_key)
    overrides: dict[str, object] = {
        "block_mode": "whole",
        "block_sample_units": None,
        "blocks_per_stake": None,
    }
    if args.alpha is not None:
        overrides["alpha"] = args.alpha
    engine: dict[str, object] | None = None
    try:
        settings = profile_settings("full").with_changes("--alpha", **overrides)
        if args.scheduler is None:
            adapter: FileTarget | FileTargets = open_file_targets(paths)
            if isinstance(adapter, FileTarget):
                adapter.started = started
        else:
            adapter = _on_cluster(args.file, args.scheduler, float(settings.check_budget_s))
            engine = None if adapter.engine is None else adapter.engine.describe()
    except ProfileError as exc:
        raise UsageError(str(exc)) from None
    except AuditError as exc:
        raise UsageError(str(exc)) from None
    except (ConfigError, OSError) as exc:
        raise UsageError(f"{' '.join(args.file)!r}: {exc}") from None
    out = Path(args.out)
    folder = open_out_dir(out, sign_key is not None, adapter)
    target = "file:" + os.pathsep.join(_shown(f) for f in args.file)
    plan = RunPlan(
        target=target,
        profile="audit",
        settings=settings,
        seed=seed,
        config={
            "target": target,
            "profile": "audit",
            "seed": seed,
            "out": str(out),
            "file": _shown(args.file[0]) if len(paths) == 1 else [_shown(f) for f in args.file],
            "effective_settings": settings.to_dict(),
            **({} if engine is None else {"engine": engine}),
        },
        capabilities=("blocks",),
        out_dir=folder.staging,
    )
    return execute_run(adapter, plan, folder, verbose=args.verbose, sign_key=sign_key)
