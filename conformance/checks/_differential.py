"""Differential evaluation: the target's ``evaluate`` against the reference, in batches.

Two ways to look for disagreements, both ending in ``fail_with``:

- ``compare_all``: exhaustive lists of tickets, sent in chunks (the HTTP adapter splits them
  further to the contract's 1000 per request);
- ``search``: hypothesis. A first pass draws ``examples`` tickets and only collects them; they
  are evaluated in batches. If any disagrees, a second pass replays the same seeded generation
  one ticket at a time, evaluating only the tickets known to disagree until the first one
  comes up, then lets hypothesis shrink it on single tickets: the evidence is a minimal ticket
  (its note says so; the first found beside it says it was found before shrinking).

``fail_with`` classifies each shown disagreement to the requirement(s) it breaks
(``_classify``) and narrows ``CheckFailure.requirements`` to them.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, TypeVar

from contract import TargetError

from .._drawing import Recipe, draw, hypothesis_settings
from .._evaluation import check_shape, difference, expected_result
from .._evidence import EvaluationEvidence
from .._lazy import strategies_module
from .._registry import CheckContext, CheckFailure
from ._batch_order import order_failure, permuted

if TYPE_CHECKING:
    from hypothesis import strategies as st
else:  # imported on first use (conformance._lazy): a run of block checks never needs it
    st = strategies_module()

CHUNK = 2000  # tickets per adapter call in exhaustive comparisons (progress granularity)
ALONE = 8  # cases of a search's first pass sent as batches of one ticket
MAX_EVIDENCE = 5
MINIMAL = "minimal ticket"  # the note of a disagreement hypothesis shrank
FIRST_FOUND = "first found, before shrinking"


@dataclass(frozen=True)
class Disagreement:
    game: str
    stake_cents: int
    ticket: str
    expected: dict[str, Any]
    got: dict[str, Any]
    note: str

    def evidence(self, requirements: Sequence[str] = (), note: str = "") -> EvaluationEvidence:
        breaks = f"; breaks {', '.join(requirements)}" if requirements else ""
        return EvaluationEvidence(
            game=self.game,
            stake_cents=self.stake_cents,
            ticket=self.ticket,
            expected=self.expected,
            got=self.got,
            note=(note + ": " if note else "") + self.note + breaks,
            requirements=tuple(requirements),
        )


def compare(
    adapter: Any, game: str, stake_cents: int, tickets: Sequence[str]
) -> list[Disagreement]:
    """Every ticket of ``tickets`` on which the target and the reference disagree."""
    if not tickets:
        return []
    got = check_shape(adapter.evaluate(game, stake_cents, list(tickets)), tickets)
    found = []
    wanted = []
    for ticket, answer in zip(tickets, got, strict=True):
        expected = expected_result(game, stake_cents, ticket)
        wanted.append(expected)
        if answer == expected:
            continue  # the common case, without building multisets
        fault = difference(game, expected, answer)
        if fault is not None:
            found.append(Disagreement(game, stake_cents, ticket, expected, answer, fault))
    if len(found) > 1:  # right results at other tickets' places: one finding about order
        mapping = permuted(game, wanted, got)
        if mapping is not None:
            raise order_failure(game, stake_cents, tickets, mapping)
    return found


def compare_all(
    ctx: CheckContext,
    game: str,
    stake_cents: int,
    tickets: Sequence[str],
    what: str,
    enough: int = 500,
) -> list[Disagreement]:
    """Compare every ticket, in chunks, reporting progress; stop once ``enough`` disagreements
    are in hand (evidence needs a few, not all)."""
    found: list[Disagreement] = []
    for start in range(0, len(tickets), CHUNK):
        found += compare(ctx.adapter, game, stake_cents, tickets[start : start + CHUNK])
        ctx.progress(min(start + CHUNK, len(tickets)), len(tickets), what)
        if len(found) >= enough:
            break
    return found


class _Disagrees(Exception):
    """Raised inside a hypothesis test so hypothesis shrinks the example."""


Case = TypeVar("Case", bound=Hashable)
Finding = TypeVar("Finding")


def hunt(
    ctx: CheckContext,
    cases: Recipe[Case] | st.SearchStrategy[Case],
    examine: Callable[[list[Case]], list[tuple[Case, Finding]]],
    *,
    examples: int,
    batch: int = 500,
    what: str = "examples",
    label: Callable[[Finding, str], Finding] | None = None,
) -> list[Finding]:
    """Hypothesis, batched: draw ``examples`` cases, ``examine`` them in batches (it returns the
    failing cases with what was found); if one fails, replay the same seeded generation with
    single cases, only examining those known to fail until one comes up, and let hypothesis
    shrink it. Returns [minimal, first found], or [] when every case passes. ``cases`` given
    as a ``Recipe`` has its first pass drawn on worker processes (``conformance._drawing``).

    ``label(finding, words)`` names each finding honestly: ``MINIMAL`` for the one shrinking
    ended on, ``FIRST_FOUND`` for the first found beside it; a finding that could not be shrunk
    (the target answered two ways) is returned as found, unlabelled."""
    from hypothesis import Phase, given, seed
    from hypothesis.errors import Flaky

    from .. import _hypothesis  # noqa: F401  (draws depend on the seed alone)

    drawn = draw(cases, ctx.seed, examples, ctx.settings.draw_workers)
    # a few cases, at places the seed draws, go alone: a batch of one ticket is what a
    # player's client sends, judged like any other (never only the shrinking's)
    alone = set(
        random.Random(f"{ctx.seed}:{what}:alone").sample(range(len(drawn)), min(ALONE, len(drawn)))
    )
    first: Finding | None = None
    known: set[Case] = set()
    for start in range(0, len(drawn), batch):
        chunk = range(start, min(start + batch, len(drawn)))
        failing = examine([drawn[k] for k in chunk if k not in alone])
        for k in chunk:
            if k in alone:
                failing += examine([drawn[k]])
        known.update(case for case, _ in failing)
        if failing and first is None:
            first = failing[0][1]
        ctx.progress(min(start + batch, len(drawn)), len(drawn), what)
        if first is not None:
            break
    if first is None:
        return []
    hit: list[Finding] = []
    troubles: list[TargetError] = []

    @seed(ctx.seed)
    @hypothesis_settings(examples, [Phase.generate, Phase.shrink])
    @given(cases.build() if isinstance(cases, Recipe) else cases)
    def shrink(case: Case) -> None:
        if not hit and case not in known:
            return  # the first pass saw this one pass: same seed, same sequence
        try:
            failing = examine([case])
        except TargetError as exc:  # not a disagreement: never shrink on it
            troubles.append(exc)
            return
        if failing:
            hit.append(failing[0][1])
            raise _Disagrees

    with contextlib.suppress(_Disagrees, Flaky):  # Flaky: the target answered two ways
        shrink()
    if not hit and troubles:
        raise troubles[0]
    if not hit:
        return [first]  # never shrunk: not shown as minimal
    name = label or (lambda finding, _words: finding)
    if hit[-1] != first:
        return [name(hit[-1], MINIMAL), name(first, FIRST_FOUND)]
    return [name(first, MINIMAL)]


def search(
    ctx: CheckContext,
    game: str,
    tickets: Recipe[str] | st.SearchStrategy[str],
    *,
    examples: int,
    batch: int = 500,
) -> list[Disagreement]:
    """Disagreements with the reference on ``examples`` tickets drawn from ``tickets`` at every
    stake in scope: [minimal, first found], or [] when the target agrees throughout. Tickets
    given as a ``Recipe`` are drawn on worker processes."""
    stakes = ctx.stakes(game)
    if not stakes:
        return []

    def examine(chunk: list[tuple[int, str]]) -> list[tuple[tuple[int, str], Disagreement]]:
        failing = []
        for stake in sorted({s for s, _ in chunk}):
            found = compare(ctx.adapter, game, stake, [t for s, t in chunk if s == stake])
            failing += [((d.stake_cents, d.ticket), d) for d in found]
        return failing

    cases: Recipe[tuple[int, str]] | st.SearchStrategy[tuple[int, str]]
    if isinstance(tickets, Recipe):
        cases = Recipe(staked_tickets, (tuple(stakes), tickets))
    else:
        cases = staked_tickets(tuple(stakes), tickets)
    return hunt(
        ctx,
        cases,
        examine,
        examples=examples,
        batch=batch,
        what=f"{game} tickets",
        label=lambda d, words: replace(d, note=f"{words}: {d.note}"),
    )


def staked_tickets(
    stakes: tuple[int, ...], tickets: Recipe[str] | st.SearchStrategy[str]
) -> st.SearchStrategy[tuple[int, str]]:
    """(stake, ticket) cases: a stake of ``stakes``, a ticket of ``tickets``."""
    built = tickets.build() if isinstance(tickets, Recipe) else tickets
    return st.tuples(st.sampled_from(stakes), built)


Classifier = Callable[[Any, Disagreement], tuple[str, ...]]


def fail_with(
    message: str,
    disagreements: Iterable[Disagreement],
    classify: Classifier,
    adapter: Any,
    *,
    general: str,
    note: str = "",
) -> None:
    """Raise CheckFailure showing up to MAX_EVIDENCE disagreements, each classified; the
    failure names the requirements they break (``general`` when none can be narrowed)."""
    shown: list[EvaluationEvidence] = []
    requirements: list[str] = []
    seen_kinds: set[tuple[str, ...]] = set()
    pool = list(disagreements)
    for disagreement in pool:
        if len(shown) >= MAX_EVIDENCE:
            break
        ids = classify(adapter, disagreement)
        if ids in seen_kinds and len(shown) >= 2:
            continue  # prefer evidence of different faults
        seen_kinds.add(ids)
        shown.append(disagreement.evidence(ids, note))
        requirements += [i for i in ids if i not in requirements]
    specific = [r for r in requirements if r != general]
    raise CheckFailure(
        f"{message}: {len(pool)} disagreement(s) with the reference"
        + (f" (breaks {', '.join(specific or [general])})" if requirements else ""),
        shown,
        requirements=specific or [general],
    )
