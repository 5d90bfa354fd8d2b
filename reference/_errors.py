"""The reference package's exceptions: one base, one subclass per kind of fault.

Each carries the contract's error ``code`` so that the HTTP server, the CLI and the
harness report the same fault under the same name.
"""

from __future__ import annotations


class GameError(Exception):
    """Base of every error the reference raises on bad input or bad data."""

    code = "invalid_request"


class RulesDataError(GameError):
    """A rules YAML file is missing a key, has a wrong type, or contradicts itself."""

    code = "invalid_rules_data"


class UnknownGameError(GameError):
    """A game name that no game registered under (``reference.register_game``)."""

    code = "invalid_game"


class StakeError(GameError):
    """A stake that the game does not sell, or that is not an integer number of cents."""

    code = "invalid_stake"


class TicketError(GameError):
    """A ticket that breaks the notation or the rules; the message says what and where."""

    code = "invalid_ticket"
