"""A person's pace (a thirteenth red team's): the gaps a run's players leave between their
requests, and the stalls of a slow stream reader, drawn over a human range from the run's seed.

A fault that shows only when a request comes some seconds after the one before (a ticket's
reveal session that leaves a cache after a second of the ticket's idleness, a listing routed
elsewhere after an account lay quiet three seconds, a stream cursor that times out when its
client stops reading for a second) hides from a harness whose gaps are machine-fast, or drawn
from one narrow range (a paced player's 0.5 to 3 s): a vendor picks its window outside it.
Here the gaps of one kind over a whole run are *stratified*: the human range, cut into as many
strata of equal ratio (log scale) as the run has gaps of that kind, one gap drawn in each
stratum, then dealt to the run's players in an order the seed draws. Any window of the range
wider than a stratum or two holds one of the run's gaps, wherever a vendor put it, and no fixed
subset of players or of tickets carries the slow ones (the seed deals them).

``dealt`` hands each player a share whose sum is near the mean (the sorted gaps dealt back and
forth), so the slowest player, whose gaps the run waits for, is not much slower than the rest.
"""

from __future__ import annotations

import math
import random

#: between two taps on one ticket, and before its AUTO (a person taps every few hundred
#: milliseconds to a few seconds)
TAP_S = (0.25, 4.0)
#: before an app's read (its history, its balance): a person glancing back at the screen
GLANCE_S = (0.3, 6.0)
#: a slow stream reader's stalls (a phone on a slow network, a reader that stops to think)
STALL_S = (0.3, 3.0)


def stratified(rng: random.Random, count: int, bounds: tuple[float, float]) -> list[float]:
    """``count`` gaps in seconds, one drawn log-uniformly in each of ``count`` strata of equal
    ratio over ``bounds``, in an order ``rng`` draws."""
    if count <= 0:
        return []
    low, high = math.log(bounds[0]), math.log(bounds[1])
    width = (high - low) / count
    gaps = [math.exp(low + (k + rng.random()) * width) for k in range(count)]
    rng.shuffle(gaps)
    return gaps


def dealt(rng: random.Random, gaps: list[float], hands: int) -> list[list[float]]:
    """``gaps`` dealt to ``hands`` players, sorted and dealt back and forth over the players in
    an order ``rng`` draws (each hand's sum near the mean), each hand's gaps then shuffled."""
    if hands <= 0:
        return []
    order = list(range(hands))
    rng.shuffle(order)
    shares: list[list[float]] = [[] for _ in range(hands)]
    for n, gap in enumerate(sorted(gaps, reverse=True)):
        turn, at = divmod(n, hands)
        shares[order[at if turn % 2 == 0 else hands - 1 - at]].append(gap)
    for share in shares:
        rng.shuffle(share)
    return shares


__all__ = ["GLANCE_S", "STALL_S", "TAP_S", "dealt", "stratified"]
