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


MAX_LINE_CHARS = 4096
"""A line of stdin longer than this is refused unread (a ticket of either game is under 100
characters): ``< /dev/zero`` or a file of one 30 MB line is an error, not all memory."""

SHOWN_CHARS = 80  # of a ticket quoted in an error


def _shown(ticket: str) -> str:
    if len(ticket) <= SHOWN_CHARS:
        return repr(ticket)
    return f"{ticket[:SHOWN_CHARS]!r}… ({len(ticket)} characters)"


def _tickets(args: argparse.Namespace) -> Iterator[tuple[str, str]]:
    if args.tickets:
        for number, ticket in enumerate(args.tickets):
            yield f"ticket {number}", ticket
        return
    number = 0
    while line := sys.stdin.readline(MAX_LINE_CHARS + 1):
        number += 1
        if len(line.rstrip("\r\n")) > MAX_LINE_CHARS:
            raise UsageError(
                f"line {number} (starting {line[:SHOWN_CHARS]!r}) is longer than "
                f"{MAX_LINE_CHARS} characters, which no ticket is"
            )
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
            raise UsageError(f"{where} {_shown(ticket)}: {exc}") from None
        out.write(json.dumps(result, separators=(",", ":")) + "\n")
    out.flush()
    return EXIT_OK
