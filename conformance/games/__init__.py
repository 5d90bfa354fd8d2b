"""One conformance kit per game, registered by name: everything the suite knows of a game.

The generic checks (invalid tickets, stakes, plays, history, blocks), the block audit and the
reports name no game: they ask the kit of each game in scope for what differs between games
(its strategies, invalid-ticket kinds, fault classifier, the articles its play faults break,
its board drawing, its audit kernel, its requirement and clause files). A game is added by
registering its reference engine (``reference``) and its kit here; docs/adding-a-game.md walks
through both. The two real games' kits are ``games/robots.py`` and ``games/eldorado.py``,
registered on first use; a test may register a kit of its own (``registered(kit)``).

An unknown game is an error everywhere: ``kit(name)`` raises ``UnknownGame`` naming it and
every known game, never a fall-through to another game's kit.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._errors import ConformanceError

if TYPE_CHECKING:
    from importlib.abc import Traversable

    from hypothesis import strategies as st

    from .._kernels import ChunkJudge, Kernel
    from ..checks._differential import Disagreement
    from ..checks._relations import Relation


def shipped_data() -> Traversable | Path:
    """The folder of the files the ``conformance`` package ships (``requirements/``,
    ``clauses/``): beside its modules, read as files; the package's resources only where it
    is not on disk as files (a zip). ``importlib.resources`` is then not on the start-up of a
    block audit before its first chunk is judged (the kits load there)."""
    here = Path(__file__).parent.parent
    if os.path.isdir(here / "requirements"):
        return here
    from importlib import resources

    return resources.files("conformance")


Diagnosis = Callable[[Any, "Disagreement"], tuple[str, ...]]
"""Classifies one disagreement (adapter, disagreement) to the requirement ids it breaks."""

Escape = Callable[[object], str]
Board = Callable[[str, object, object, object, Escape], str]
"""(ticket, expected, got, stake_cents, escape) -> HTML of the unit as the game shows it;
raises ``reference.GameError`` (or KeyError/AssertionError) for a ticket it cannot draw.
``escape`` is the report's HTML escaper: every string from outside goes through it."""


def sweep(module: str, function: str) -> Callable[[], list[str]]:
    """A sweep of a game's own check module, imported when the sweep is first built (a kit
    module must not import the check modules: they register checks as they load)."""

    def build() -> list[str]:
        import importlib

        tickets: list[str] = getattr(importlib.import_module(module), function)()
        return tickets

    return build


@dataclass(frozen=True)
class RevealRequirements:
    """What a game played button by button (its engine's ``buttons``, the contract's reveal
    operation) names its reveal rules: the requirement each reveal check covers, from the
    game's own articles. The reveal checks (``checks/play_reveal.py``,
    ``checks/reveal_answer.py``) play every such game through the same code, driven by its
    engine's description of the buttons (``buttons``, ``button_reveals``, ``reveal_symbols``).
    """

    symbols: str
    """Each click shows the next reveal under its button (symbol, X2, +1) as the ticket holds
    it: ``robots.4.3.reveal_symbols``."""
    order: str
    """The buttons may be clicked in any order, at once too, and a ticket left half revealed
    revealed on later: no order changes a button's reveals or the unit:
    ``robots.4.4.reveal_order``."""
    plus_one: str
    """A reveal with +1 allows exactly one more click on its button, one without none (409):
    ``robots.4.7.reveal_plus_one``."""
    auto_any_moment: str
    """AUTO after any number of clicks shows the unit bought and its lot:
    ``robots.4.4.auto_any_moment``."""

    @property
    def revealed_on(self) -> tuple[str, str, str]:
        """What a ticket left half revealed, then revealed on, can break."""
        return (self.symbols, self.order, self.plus_one)


class UnknownGame(ConformanceError, KeyError):
    """A game no kit is registered for; the message names it and the known games."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


@dataclass(frozen=True)
class GameKit:
    """What the conformance suite needs of one game, beyond its reference engine.

    Requirement ids the generic checks build from a kit: ``<name>.2.stakes``,
    ``<name>.contract.invalid_per_ticket``, ``<name>.contract.invalid_stake``,
    ``<history_article>.{stake_debited,history_unrevealed,last_unit}``,
    ``<prize_article>.prize_credited``, and the block requirements ``<name>.2.block_size``,
    ``<name>.2.unit_sequence``, ``<name>.2.valid_tickets``, ``<name>.3.unit_prize``,
    ``<name>.3.cumulated_gains``, ``<name>.3.payout_cap``, the lot table's
    ``<name>.<article>.lot_table`` and ``<name>.randomness.{winner_positions,
    unrelated_blocks,top_tiers}``: the kit's requirement files must define them.
    """

    name: str
    win_keys: tuple[str, ...]
    """The keys of a win that make it the same win (``difference`` compares multisets)."""
    examples: tuple[str, str]
    """Two valid tickets (the contract's example first): evaluated at every stake by the
    stakes check, the neighbours of an invalid ticket in a batch."""
    valid_tickets: Callable[[], st.SearchStrategy[str]]
    """Valid tickets aimed at the edges of the game's rules."""
    invalid_kinds: Mapping[str, str]
    """Every kind of invalid ticket -> the requirement id the rule it breaks belongs to."""
    invalid_tickets: Callable[[Sequence[str]], st.SearchStrategy[tuple[str, str]]]
    """(kind, ticket) pairs, one of the given kinds each, made by breaking a valid ticket."""
    invalid_examples: tuple[tuple[str, str], ...]
    """A fixed catalogue of (kind, ticket): at least one invalid ticket of every kind."""
    sweeps: Mapping[str, Callable[[], list[str]]]
    """The exhaustive ticket lists the game's own checks send whole (robots' gauge fills,
    eldorado's 6^5 rows), by name: each one valid tickets only (a test holds every kit to it)."""
    diagnosis: Callable[[], Diagnosis]
    """A fresh fault classifier (it may cache probe answers for one check's run)."""
    general_requirement: str
    """The requirement a disagreement stays on when nothing narrows it."""
    stakes_article: str
    """How the stakes check cites the article that fixes the stakes: ``robots 2 (1 €)``."""
    history_article: str
    """The article of a play's stake and history: ``robots.4.1``."""
    prize_article: str
    """The article by which a unit's gains add up to its prize: ``robots.4.10``."""
    relations: tuple[Relation, ...] = ()
    """The game's metamorphic relations: changes to a ticket the rules say change nothing
    (``checks/_relations.py``); ``metamorphic`` checks each one."""
    reveals: RevealRequirements | None = None
    """The requirements of the game's reveal protocol, for a game whose engine has
    ``buttons`` (played button by button through the contract's reveal operation); None for a
    game whose plays are finished by AUTO only. Given exactly when the engine has buttons."""
    board: Board | None = None
    """Draws a ticket for the HTML report; None: the report shows the notation only."""
    board_css: str = ""
    """The CSS the board's HTML needs (the report inlines every kit's)."""
    kernel: Kernel | None = None
    """Vectorised prizes for the block audit's fast path; None: the reference, line by line."""
    prepare: Callable[[int], object] | None = None
    """Builds the kernel's tables for a stake before worker processes fork."""
    chunk_judge: ChunkJudge | None = None
    """Judges a whole chunk of unit lines written as the reference writes them, at once
    (both games' are compiled, and let the GIL go: chunks of a game that has one are judged on
    threads); it vouches for every line or for none, and a chunk it does not vouch for takes
    the kernel's path. It must accept only lines the kernel's path accepts, with the same prize
    and index (``tests/conformance/test_fastaudit.py`` holds both games')."""
    requirement_files: tuple[Traversable, ...] = ()
    """YAML files of the game's requirements (the ``requirements/*.yaml`` format)."""
    clause_files: tuple[Traversable, ...] = ()
    """YAML files of the game's clauses (the ``clauses/*.yaml`` format, ``source: <name>``);
    a clause file's ``original`` is read from the same folder."""
    register_checks: Callable[[], None] | None = None
    """Registers the game's own checks (``conformance.check``), called once on registration;
    the checks it registers are dropped again when the kit is unregistered."""
    own_checks: tuple[str, ...] = field(default=(), compare=False)
    """Filled by the registry: the ids of the checks registered for this kit."""

    def invalid_tickets_of(self, kind: str) -> st.SearchStrategy[str]:
        """Invalid tickets of one ``kind`` only."""
        if kind not in self.invalid_kinds:
            raise ConformanceError(
                f"{self.name}: unknown kind of invalid ticket {kind!r}; known: "
                f"{', '.join(self.invalid_kinds)}"
            )
        return self.invalid_tickets((kind,)).map(lambda pair: pair[1])


_KITS: dict[str, GameKit] = {}
_PER_KIT: list[Callable[[GameKit], None]] = []
_LOCK = threading.RLock()
_BUILTIN_LOADED = False
_BUILTIN_DONE = False


@dataclass(frozen=True)
class CheckBook:
    """How the kit registry reaches the check registry (``conformance._registry``), which sits
    above it and attaches itself as it loads: the ids of the checks registered now, forgetting
    one, and recomputing the checks that follow the kits."""

    ids: Callable[[], set[str]]
    unregister: Callable[[str], None]
    refresh: Callable[[], None]


_CHECKS = CheckBook(ids=set, unregister=lambda _id: None, refresh=lambda: None)
_FOLLOWERS: list[tuple[Callable[[], None], Callable[[], object]]] = []


def attach_check_registry(book: CheckBook) -> None:
    """Called once by ``conformance._registry``: a kit's checks are then recorded with it."""
    global _CHECKS
    _CHECKS = book


def follow_kits(clear: Callable[[], None], load: Callable[[], object]) -> None:
    """A catalogue built from every kit's files (requirements, clauses) follows the kits:
    ``clear`` is called whenever a kit is registered or unregistered, and ``load`` checks the
    files of the shipped kits together, once all are in (it raises for a malformed kit)."""
    _FOLLOWERS.append((clear, load))


def _load_builtin() -> None:
    """Import the shipped kits once (lazily: they import the strategies and classifiers): the
    kit module ``conformance.games.<name>`` of every game the reference registered, in the
    reference's order."""
    global _BUILTIN_LOADED, _BUILTIN_DONE
    if _BUILTIN_DONE:
        return
    with _LOCK:  # another thread loading them: wait for all of them, not a part
        if _BUILTIN_LOADED:  # done, or this thread's own kit module asking back
            return
        _BUILTIN_LOADED = True
        import importlib
        import importlib.util

        import reference

        for name in reference.games():
            module = f"{__name__}.{name}"
            if importlib.util.find_spec(module) is not None:
                importlib.import_module(module)
        _BUILTIN_DONE = True


def _check_ids() -> set[str]:
    return _CHECKS.ids()


def register_kit(kit: GameKit) -> GameKit:
    """Add ``kit`` under ``kit.name``: the game is then known to every check and report.

    Its own checks and the per-game checks of the generic modules are registered for it, and
    the requirement and clause catalogues are reloaded with its files. A name registered twice
    is an error (``unregister_kit`` first)."""
    with _LOCK:
        if kit.name in _KITS:
            raise ConformanceError(f"game kit {kit.name!r} is registered already")
        if not kit.name.isidentifier() or kit.name != kit.name.lower():
            raise ConformanceError(f"game kit name {kit.name!r}: expected a lower-case word")
        _needs_engine(kit.name)
        _needs_reveals_iff_buttons(kit)
        _KITS[kit.name] = kit
        before = _check_ids()
        try:
            if kit.register_checks is not None:
                kit.register_checks()
            for factory in list(_PER_KIT):
                factory(kit)
        except Exception:
            for cid in _check_ids() - before:
                _CHECKS.unregister(cid)
            del _KITS[kit.name]
            raise
        _KITS[kit.name] = _with_checks(kit, tuple(sorted(_check_ids() - before)))
        _CHECKS.refresh()
        _reload_catalogues()
        if _BUILTIN_DONE:  # the shipped kits' data is checked together, once all are in
            try:
                _check_data()
            except Exception:
                unregister_kit(kit.name)
                raise
    return kit


def _check_data() -> None:
    """The catalogues with every kit's files loaded and cross-checked: a kit whose files are
    malformed, or whose clauses name requirements nobody defines, is refused at once."""
    for _clear, load in _FOLLOWERS:
        load()


def _needs_engine(name: str) -> None:
    """A kit judges a target against the reference: its game's engine must be registered
    (``reference``) before the kit."""
    import reference

    try:
        reference.load_rules(name)
    except reference.GameError as exc:
        raise ConformanceError(
            f"game kit {name!r}: the reference knows no such game ({exc}); register the "
            "game's reference engine first (docs/adding-a-game.md)"
        ) from None


def _needs_reveals_iff_buttons(kit: GameKit) -> None:
    """A kit names its reveal requirements exactly when its engine has buttons: the reveal
    checks play the buttons the engine describes, under the requirements the kit names."""
    import reference

    buttons = reference.game_engine(kit.name).buttons
    if buttons and kit.reveals is None:
        raise ConformanceError(
            f"game kit {kit.name!r}: its engine has {buttons} buttons; give the kit its reveal "
            "requirements (reveals=RevealRequirements(...), docs/adding-a-game.md)"
        )
    if not buttons and kit.reveals is not None:
        raise ConformanceError(
            f"game kit {kit.name!r}: it names reveal requirements, but its engine has no "
            "buttons (GameEngine.buttons is 0)"
        )


def _with_checks(kit: GameKit, ids: tuple[str, ...]) -> GameKit:
    from dataclasses import replace

    return replace(kit, own_checks=ids)


def unregister_kit(name: str) -> None:
    """Forget the kit ``name`` and every check registered for it (tests register a game of
    their own and must leave the suite as they found it)."""
    with _LOCK:
        found = kit(name)
        for cid in found.own_checks:
            _CHECKS.unregister(cid)
        del _KITS[name]
        _CHECKS.refresh()
        _reload_catalogues()


@contextlib.contextmanager
def registered(kit: GameKit) -> Iterator[GameKit]:
    """``kit`` registered for the ``with`` block only."""
    register_kit(kit)
    try:
        yield kit
    finally:
        unregister_kit(kit.name)


def _reload_catalogues() -> None:
    for clear, _load in _FOLLOWERS:
        clear()


def kit(name: object) -> GameKit:
    """The kit of game ``name``; ``UnknownGame`` (naming the known games) if there is none."""
    _load_builtin()
    found = _KITS.get(name) if isinstance(name, str) else None
    if found is None:
        raise UnknownGame(f"unknown game {name!r}: known games are {', '.join(_KITS)}")
    return found


def kits(names: Sequence[str] | None = None) -> list[GameKit]:
    """Every registered kit, in registration order (or the kits of ``names``, in order)."""
    _load_builtin()
    if names is not None:
        return [kit(n) for n in names]
    return list(_KITS.values())


def kit_names() -> tuple[str, ...]:
    """The names of the games the suite knows, in registration order."""
    _load_builtin()
    return tuple(_KITS)


def each_kit(factory: Callable[[GameKit], None]) -> Callable[[GameKit], None]:
    """Call ``factory(kit)`` for every kit registered now and every kit registered later: how
    a generic check module registers its per-game checks (``stakes.<game>``, ...)."""
    with _LOCK:
        present = kits()  # the built-in kits loaded first: their registering calls the
        _PER_KIT.append(factory)  # factories already there, not this one (it would run twice)
        for found in present:
            before = _check_ids()
            factory(found)
            added = tuple(sorted(_check_ids() - before))
            if added:
                _KITS[found.name] = _with_checks(_KITS[found.name], found.own_checks + added)
    return factory


__all__ = [
    "Board",
    "CheckBook",
    "Diagnosis",
    "Escape",
    "GameKit",
    "RevealRequirements",
    "UnknownGame",
    "attach_check_registry",
    "each_kit",
    "follow_kits",
    "kit",
    "kit_names",
    "kits",
    "register_kit",
    "registered",
    "sweep",
    "unregister_kit",
]
