"""``instantcert serve``: run the reference implementation as an HTTP server (contract §4)."""

from __future__ import annotations

import argparse
import sqlite3
import sys

from . import EXIT_OK, UsageError

NAME = "serve"
HELP = "run the reference implementation as an HTTP API v1 server (docs/http-api.md)"
DEFAULT_DB = "instantcert-reference.sqlite3"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default: %(default)s)"
    )
    parser.add_argument(
        "--port", type=int, default=8080, help="port to listen on (default: %(default)s)"
    )
    parser.add_argument(
        "--db",
        default=DEFAULT_DB,
        metavar="FILE",
        help="SQLite file of accounts, plays and sales, created if missing "
        "(default: ./%(default)s); restart on the same file to resume",
    )
    parser.add_argument(
        "--seed",
        default=None,
        metavar="HEX",
        help="master seed of a new database, in hex (default: 32 random bytes); every block "
        "seed derives from it, so a fixed seed serves the same blocks and plays",
    )
    parser.add_argument(
        "--log-level",
        default="info",
        choices=["critical", "error", "warning", "info", "debug"],
        help="server log level (default: %(default)s)",
    )


def _seed(text: str | None) -> bytes | None:
    if text is None:
        return None
    try:
        seed = bytes.fromhex(text)
    except ValueError:
        raise UsageError(f"--seed: {text!r} is not hexadecimal") from None
    if not seed:
        raise UsageError("--seed: the seed is empty")
    return seed


def run(args: argparse.Namespace) -> int:
    from reference._server import serve

    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port: {args.port!r} is not a port (0 to 65535)")
    seed = _seed(args.seed)
    try:
        serve(args.db, host=args.host, port=args.port, seed=seed, log_level=args.log_level)
    except (OSError, sqlite3.Error, ValueError) as exc:
        raise UsageError(f"--db {args.db!r}: {exc}") from None
    except SystemExit as exc:  # uvicorn exits when it cannot bind the address
        if exc.code not in (0, None):
            print(f"instantcert serve: cannot listen on {args.host}:{args.port}", file=sys.stderr)
            return 2
    return EXIT_OK
