"""``instantcert evaluate``: evaluate tickets with the reference, one JSON result a line."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator

import reference

from . import EXIT_OK, UsageError

NAME = "evaluate"
HELP = "evaluate tickets with the reference rules engine; one JSON result per line"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", required=True, choices=reference.GAMES)
    parser.add_argument(
        "--stake-cents",
        type=int,
        default=None,
        help="the unit's stake in cents (default: 100, i.e. 1 €, which both games sell)",
    )
    parser.add_argument(
        "tickets", nargs="*", metavar="TICKET", help="tickets (default: stdin, one a line)"
    )


def _tickets(args: argparse.Namespace) -> Iterator[tuple[str, str]]:
    if args.tickets:
        for number, ticket in enumerate(args.tickets):
            yield f"ticket {number}", ticket
        return
    for number, line in enumerate(sys.stdin, start=1):
        ticket = line.rstrip("\r\n")
        if ticket.strip():
            yield f"line {number}", ticket


def run(args: argparse.Namespace) -> int:
    stake = 100 if args.stake_cents is None else args.stake_cents
    try:
        reference.check_stake(args.game, stake)
    except reference.GameError as exc:
        raise UsageError(f"--stake-cents: {exc}") from None
    out = sys.stdout
    for where, ticket in _tickets(args):
        try:
            result = reference.evaluate(args.game, stake, ticket)
        except reference.TicketError as exc:
            out.flush()
            raise UsageError(f"{where} {ticket!r}: {exc}") from None
        out.write(json.dumps(result, separators=(",", ":")) + "\n")
    out.flush()
    return EXIT_OK
