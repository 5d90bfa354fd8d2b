"""The game registry: one engine per game, behind one interface, registered by name.

Every module of ``reference`` reaches a game through here (``game_engine(name)``,
``load_rules(name)``, ``check_game(name)``): no module but a game's own engine holds a game
name, and a name nobody registered is an ``UnknownGameError`` that shows the value, everywhere.

A game is three things (docs/adding-a-game.md walks through them):

- **its rules file**, YAML: the parts every game has (``game``, ``title``, ``block.units``,
  ``stakes.cents``, ``lot_tables``, ``payout_cap_percent``: ``_rules.common_rules`` reads and
  checks them) and its own (symbols, paytable, board...), which its engine's ``parse_rules``
  reads with the same ``RulesNode`` helpers, so a fault names the file and the key;
- **its engine**, a subclass of ``GameEngine`` built from those rules: ticket notation
  (``parse``/``format``), evaluation (``evaluate``, ``prize_cents``, ``win_kinds``), the slow
  ticket generator (``prize_decompositions``, ``ticket_maker``), the block generator's fast path
  (``scenario_pools``), and the reveal-by-button play if it has one (``buttons``,
  ``button_reveals``);
- **its name**, given to ``register_game(name, EngineClass, rules_path)``. The package registers
  robots and eldorado (``_builtin``); a test registers its own game the same way and removes it
  with ``unregister_game``.

Blocks, block files, the game service and the HTTP server then serve the game like the others:
``GAMES`` is a live view of the registered names, in registration order.
"""

from __future__ import annotations

import inspect
import os
import random
import re
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, overload

from contract._schemas import name_games

from ._errors import GameError, RulesDataError, UnknownGameError
from ._gains import Decomposition
from ._rules import GameRules, RulesNode, common_rules, read_rules_file, stake_error
from ._scenarios import PlainPools, ScenarioPools

if TYPE_CHECKING:  # importlib.resources loads tempfile and zipfile: not at start-up
    from importlib.resources.abc import Traversable

#: a game name: it starts block ids (``<game>-<stake>-0001``) and URLs, so it is kept plain
NAME_PATTERN = re.compile(r"[a-z][a-z0-9_]{0,31}")


class RegistrationError(GameError):
    """A game that cannot be registered (bad name, not an engine, name taken, ...)."""

    code = "invalid_game"


class GameEngine(ABC):
    """One game's notation, evaluation and generation, for one set of its rules.

    Built as ``Engine(rules)`` from the ``GameRules`` its own ``parse_rules`` returned. The
    evaluation methods get the stake and the ticket as a caller sent them: the engine checks
    both, raising ``StakeError`` (``_rules.stake_error``) or ``TicketError`` naming the fault and
    where it is. The generation methods are called with a stake already checked.
    """

    #: the structured form ``parse`` returns and ``format`` takes
    TICKET_TYPE: ClassVar[type[Any]]
    #: every kind of win a unit can show (``win_kinds`` returns a subset of these)
    WIN_KINDS: ClassVar[frozenset[str]]

    def __init__(self, rules: GameRules) -> None:
        self.rules = rules

    # -- rules data --------------------------------------------------------------------------

    @classmethod
    @abstractmethod
    def parse_rules(cls, root: RulesNode, common: dict[str, Any]) -> GameRules:
        """The game's rules from its YAML file: ``common`` holds the ``GameRules`` fields already
        read and checked; read the game's own keys from ``root`` (``root.key("board")...``,
        whose faults name file and key) and return ``MyRules(**common, ...)``."""

    # -- notation ----------------------------------------------------------------------------

    @abstractmethod
    def parse(self, ticket: str) -> Any:
        """The structured form (a ``TICKET_TYPE``) of a ticket in the game's notation."""

    @abstractmethod
    def format(self, ticket: Any) -> str:
        """The notation of a structured ticket: the exact inverse of ``parse``; TicketError for
        one that could not have been parsed."""

    # -- evaluation --------------------------------------------------------------------------

    @abstractmethod
    def evaluate(self, stake_cents: int, ticket: str) -> dict[str, Any]:
        """The evaluation result of contract section 2: ``{"prize_cents", "wins"}``."""

    @abstractmethod
    def prize_cents(self, stake_cents: int, ticket: str) -> int:
        """Only the prize: the hot loop of block audits."""

    @abstractmethod
    def win_kinds(self, stake_cents: int, ticket: str) -> frozenset[str]:
        """The kinds of win (of ``WIN_KINDS``) ``ticket`` shows; empty for a losing one."""

    # -- generation --------------------------------------------------------------------------

    @abstractmethod
    def prize_decompositions(self, stake_cents: int, prize_cents: int) -> tuple[Decomposition, ...]:
        """Every way the game's gains add up to ``prize_cents`` (fewest gains first; ``((),)``
        for 0; ``()`` when it cannot be reached)."""

    @abstractmethod
    def ticket_maker(self, stake_cents: int) -> Callable[[int, random.Random], str]:
        """The slow generator at one stake: ``maker(prize_cents, rng)`` is a random valid ticket
        of exactly that prize, every draw from ``rng`` (PrizeError for a prize it cannot make).
        Tables may be built here once: a block calls it for every scenario of its pools."""

    def scenario_pools(
        self, stake_cents: int, pool_key: bytes, sizes: Mapping[int, int]
    ) -> ScenarioPools:
        """The block generator's fast path: pools of ``ticket_maker`` scenarios per prize and
        the prize-keeping transformations a unit shows them through (``_scenarios``). The
        default shows each scenario as drawn (``PlainPools``)."""
        maker = self.ticket_maker(stake_cents)
        return PlainPools(self.rules.game, stake_cents, maker, pool_key, sizes)

    # -- play --------------------------------------------------------------------------------

    @property
    def buttons(self) -> int:
        """Buttons a play reveals one at a time (``POST /v1/plays/{id}/reveal``); 0 when a
        play is only shown whole (``auto``)."""
        return 0

    def button_reveals(self, ticket: str) -> tuple[tuple[dict[str, Any], ...], ...]:
        """What each of the ``buttons`` reveals, click after click: the reveal documents of
        contract section 4 without ``button`` (robots: ``{"symbol", "x2", "plus_one"}``)."""
        return ()

    def reveal_symbols(self) -> dict[str, str]:
        """Every way a reveal document may name a symbol of the game (the rules' name, its
        letter), each mapped to the symbol's letter: how a client reads a reveal whatever
        spelling the target chose. Empty when the game has no ``buttons``. The first entry is
        the example a message about a symbol gives."""
        return {}

    # -- contract ----------------------------------------------------------------------------

    def win_schema(self) -> dict[str, Any] | None:
        """The JSON Schema of one entry of an evaluation result's ``wins``, for a game the
        shipped ``evaluation-result.schema.json`` does not describe; None when it does (robots,
        eldorado)."""
        return None


@dataclass(frozen=True)
class GameDefinition:
    """What ``register_game`` records: picklable, so a worker process can register it too."""

    name: str
    engine: type[GameEngine]
    rules_path: Traversable | Path
    rules_file: str  # the file as error messages name it
    builtin: bool = False


@dataclass
class _Entry:
    definition: GameDefinition
    rules: GameRules | None = None
    engine: GameEngine | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)


# copy-on-write: a registration replaces the dict, so a thread iterating the names (GAMES) never
# sees it change under it
_REGISTRY: dict[str, _Entry] = {}
_ENGINES: dict[str, GameEngine] = {}  # the hot path's lookup: name -> built engine
_LOCK = threading.Lock()


def games() -> tuple[str, ...]:
    """The registered game names, in registration order."""
    return tuple(_REGISTRY)


name_games(games)  # describe's entries of these games are held to the contract's schema


class _GameNames(Sequence[str]):
    """``GAMES``: the registered names as a read-only sequence that follows the registry."""

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[str, ...]: ...
    def __getitem__(self, index: int | slice) -> str | tuple[str, ...]:
        return games()[index]

    def __len__(self) -> int:
        return len(_REGISTRY)

    def __iter__(self) -> Iterator[str]:
        return iter(games())

    def __contains__(self, value: object) -> bool:
        return isinstance(value, str) and value in _REGISTRY

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, str):
            return games() == tuple(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(games())


#: the registered game names (live: a game registered later is in it)
GAMES: Sequence[str] = _GameNames()


def _unknown(game: object) -> UnknownGameError:
    return UnknownGameError(
        f"game {game!r} ({type(game).__name__}) is not a game: "
        f"expected one of {', '.join(_REGISTRY)}"
    )


def check_game(game: object) -> str:
    """``game`` if it names a registered game; UnknownGameError showing the value otherwise."""
    if not isinstance(game, str) or game not in _REGISTRY:
        raise _unknown(game)
    return game


def _entry(game: object) -> _Entry:
    entry = _REGISTRY.get(game) if isinstance(game, str) else None
    if entry is None:
        raise _unknown(game)
    return entry


def game_definition(game: str) -> GameDefinition:
    """How ``game`` was registered."""
    return _entry(game).definition


def register_game(
    name: str,
    engine: type[GameEngine],
    rules_path: Traversable | str | os.PathLike[str],
    *,
    rules_file: str | None = None,
    builtin: bool = False,
    check: bool = True,
) -> GameDefinition:
    """Register game ``name``: its engine class and its rules YAML file.

    ``rules_file`` is how errors name the file (default: its path). With ``check`` the file is
    read and the engine built now, so a broken file or engine fails here, naming the fault;
    otherwise on first use. Registering the same definition again changes nothing; another
    one under a taken name is refused.
    """
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        raise RegistrationError(
            f"game name {name!r}: expected a lower-case letter, then up to 31 lower-case "
            "letters, digits or '_' (it starts block ids and URLs)"
        )
    if not (inspect.isclass(engine) and issubclass(engine, GameEngine)):
        raise RegistrationError(
            f"game {name!r}: engine {engine!r} is not a subclass of reference.GameEngine"
        )
    if inspect.isabstract(engine):
        missing = ", ".join(sorted(getattr(engine, "__abstractmethods__", ())))
        raise RegistrationError(
            f"game {name!r}: engine {engine.__name__} does not define {missing}"
        )
    for attribute in ("TICKET_TYPE", "WIN_KINDS"):
        if not hasattr(engine, attribute):
            raise RegistrationError(
                f"game {name!r}: engine {engine.__name__} has no class attribute {attribute}"
            )
    path: Traversable | Path = (
        Path(os.fspath(rules_path)) if isinstance(rules_path, str | os.PathLike) else rules_path
    )
    definition = GameDefinition(name, engine, path, rules_file or str(path), builtin)
    global _REGISTRY
    with _LOCK:
        found = _REGISTRY.get(name)
        if found is not None:
            if found.definition == definition:
                return found.definition
            raise RegistrationError(
                f"game {name!r} is already registered (engine "
                f"{found.definition.engine.__name__}, rules {found.definition.rules_file})"
            )
        _REGISTRY = {**_REGISTRY, name: _Entry(definition)}
    if check:
        try:
            game_engine(name)
        except BaseException:
            unregister_game(name)
            raise
    return definition


def unregister_game(name: str) -> None:
    """Remove a game registered by ``register_game`` (the package's own games stay)."""
    entry = _entry(name)
    if entry.definition.builtin:
        raise RegistrationError(f"game {name!r} ships with the package: it cannot be removed")
    global _REGISTRY
    with _LOCK:
        _REGISTRY = {n: e for n, e in _REGISTRY.items() if n != name}
        _ENGINES.pop(name, None)


def ensure_registered(definition: GameDefinition | None) -> None:
    """In a worker process: register a game the parent registered at run time (None: a game
    of the package, registered on import)."""
    if definition is not None:
        d = definition
        register_game(d.name, d.engine, d.rules_path, rules_file=d.rules_file, check=False)


def worker_definition(game: str) -> GameDefinition | None:
    """What a worker process needs to know ``game``: None for the package's own."""
    definition = game_definition(game)
    return None if definition.builtin else definition


def rules_file_bytes(game: str) -> bytes:
    """The bytes of ``game``'s rules file."""
    definition = _entry(game).definition
    try:
        return definition.rules_path.read_bytes()
    except OSError as exc:
        raise RulesDataError(f"{definition.rules_file}: cannot be read: {exc}") from None


def parse_rules(text: bytes, file: str, game: str) -> GameRules:
    """Validate one rules file's bytes as ``game``'s; ``file`` names it in every error."""
    definition = _entry(game).definition
    root, sha256 = read_rules_file(text, file)
    rules = definition.engine.parse_rules(root, common_rules(root, game, sha256))
    if not isinstance(rules, GameRules) or rules.game != game:
        raise RulesDataError(
            f"{file}: {definition.engine.__name__}.parse_rules returned {rules!r}, "
            f"expected the GameRules of {game!r}"
        )
    return rules


def load_rules(game: str) -> GameRules:
    """The registered rules of ``game``, loaded and validated once per process."""
    entry = _entry(game)
    if entry.rules is None:
        with entry.lock:
            if entry.rules is None:
                definition = entry.definition
                entry.rules = parse_rules(rules_file_bytes(game), definition.rules_file, game)
    return entry.rules


def game_engine(game: str) -> GameEngine:
    """The engine of ``game``, built once from its registered rules."""
    try:
        return _ENGINES[game]
    except (KeyError, TypeError):  # TypeError: not even hashable, so no game
        pass
    entry = _entry(game)
    if entry.engine is None:
        rules = load_rules(game)
        with entry.lock:
            if entry.engine is None:
                entry.engine = entry.definition.engine(rules)
    with _LOCK:
        if _REGISTRY.get(game) is entry:
            _ENGINES[game] = entry.engine
    return entry.engine


def check_stake(game: str, stake_cents: object) -> int:
    """The stake if ``game`` sells it; a StakeError that shows the value otherwise."""
    stakes = load_rules(check_game(game)).stakes_cents
    if type(stake_cents) is not int or stake_cents not in stakes:
        raise stake_error(game, stake_cents, stakes)
    return stake_cents


def engine_of_ticket(ticket: object) -> GameEngine | None:
    """The engine whose ``TICKET_TYPE`` ``ticket`` is an instance of, if any."""
    for name in games():
        engine = game_engine(name)
        if isinstance(ticket, engine.TICKET_TYPE):
            return engine
    return None
