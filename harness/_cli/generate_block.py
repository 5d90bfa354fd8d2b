"""``instantcert generate-block``: write a reference block, or a slice of it, as a block/1 file.

The block is fixed by (game, stake, block id, seed): the same arguments give the same bytes,
whatever ``--workers``. Without ``--seed`` a fresh seed is drawn from ``secrets`` and printed on
stderr, the only place it is ever shown (the file carries its SHA-256 only): keep it to
reproduce or audit the block.
"""

from __future__ import annotations

import argparse
import re
import sys
import time

import reference

from . import EXIT_OK, UsageError

NAME = "generate-block"
HELP = "write a reference block (or a slice of it) to a .jsonl or .jsonl.gz block file"
DEFAULT_STAKE_CENTS = 100
_HEX_SEED = re.compile(r"[0-9a-fA-F]{64}")
_HEX = re.compile(r"[0-9a-fA-F]*")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", required=True, help=f"one of {', '.join(reference.GAMES)}")
    parser.add_argument(
        "--stake-cents",
        default=None,
        metavar="N",
        help=f"the stake in cents (default: {DEFAULT_STAKE_CENTS}, which both games sell)",
    )
    parser.add_argument(
        "--seed",
        default=None,
        metavar="HEX",
        help="the block's 256-bit seed as 64 hex digits (default: a fresh one from secrets, "
        "printed on stderr so that it is recorded)",
    )
    parser.add_argument(
        "--block-id",
        default=None,
        metavar="ID",
        help="the block id (default: GAME-STAKE-0001, e.g. robots-100-0001)",
    )
    parser.add_argument("--start", default=None, metavar="S", help="first unit (default: 0)")
    parser.add_argument(
        "--count", default=None, metavar="C", help="number of units (default: up to the end)"
    )
    parser.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="FILE",
        help="the file to write: .jsonl.gz is gzip-compressed, .jsonl plain",
    )
    parser.add_argument(
        "--workers",
        default=None,
        metavar="N",
        help="worker processes (default: one per available core); the bytes do not depend on it",
    )


MAX_WORKERS = 64  # processes: more than any machine this runs on has cores for


def _int(value: str | None, option: str, low: int, high: int | None = None) -> int | None:
    if value is None:
        return None
    try:
        number = int(value[:40], 10) if len(value) <= 40 else None
    except ValueError:
        number = None
    if number is None:
        raise UsageError(f"{option} {value[:40]!r}: expected an integer")
    if number < low or (high is not None and number > high):
        bound = f"from {low} to {high}" if high is not None else f">= {low}"
        raise UsageError(f"{option} {value!r}: expected an integer {bound}")
    return number


def _seed(value: str | None) -> bytes:
    if value is None:
        seed = reference.new_seed()
        print(
            f"instantcert generate-block: --seed {seed.hex()} (fresh from secrets; "
            "keep it to reproduce this block)",
            file=sys.stderr,
        )
        return seed
    text = value.strip()
    if not _HEX_SEED.fullmatch(text):
        fault = "not hexadecimal" if _HEX.fullmatch(text) is None else f"{len(text)} digits"
        raise UsageError(f"--seed {value!r}: expected 64 hex digits (a 256-bit seed), {fault}")
    return bytes.fromhex(text)


class _Progress:
    """A one-line progress counter on stderr, only when stderr is a terminal."""

    def __init__(self) -> None:
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        if sys.stderr.isatty():
            print(f"\r{done:,} / {total:,} units", end="", file=sys.stderr, flush=True)
            self.shown = True

    def close(self) -> None:
        if self.shown:
            print(file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    if args.game not in reference.GAMES:
        raise UsageError(f"--game {args.game!r}: expected one of {', '.join(reference.GAMES)}")
    stake = _int(args.stake_cents, "--stake-cents", 1)
    stake = DEFAULT_STAKE_CENTS if stake is None else stake
    try:
        reference.check_stake(args.game, stake)
    except reference.GameError as exc:
        raise UsageError(f"--stake-cents: {exc}") from None
    start = _int(args.start, "--start", 0) or 0
    count = _int(args.count, "--count", 0)
    workers = _int(args.workers, "--workers", 1, MAX_WORKERS)
    block_id = args.block_id or reference.default_block_id(args.game, stake, 1)
    output: str = args.output
    if not output.endswith((".jsonl", ".jsonl.gz")):
        raise UsageError(f"-o {output!r}: expected a file name ending in .jsonl or .jsonl.gz")
    try:
        reference.check_block_id(block_id)
    except reference.BlockError as exc:
        raise UsageError(f"--block-id: {exc}") from None
    units = reference.load_rules(args.game).block_units
    try:
        first, size = reference.check_slice(units, start, None)
    except reference.BlockError as exc:
        raise UsageError(f"--start: {exc}") from None
    try:
        first, size = reference.check_slice(units, start, count)
    except reference.BlockError as exc:
        raise UsageError(f"--count: {exc}") from None
    block = reference.Block(args.game, stake, block_id, _seed(args.seed))
    progress = _Progress()
    began = time.perf_counter()
    try:
        digest = reference.write_block_file(output, block, first, size, workers, progress)
    except OSError as exc:
        raise UsageError(f"-o {output!r}: {exc.strerror or exc}") from None
    finally:
        progress.close()
    seconds = time.perf_counter() - began
    print(
        f"wrote {output}: block {block_id} ({args.game}, stake {stake} cents), {size} of its "
        f"{block.units} units from index {first}, in {seconds:.1f} s, sha256 {digest}"
    )
    return EXIT_OK
