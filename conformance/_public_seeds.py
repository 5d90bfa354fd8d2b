"""Is a block the reference's block of a public seed? (``public_seeds.yaml``)

The rules want the order of the units independent of anything a player can see. A vendor that
produced its blocks with the reference generator run as the README shows it (``--seed
000102…1f``), or started ``instantcert serve`` with such a master seed, serves blocks that pass
every statistical test, alone and in pairs, and yet anyone with the public reference knows
where every winner sits. Such a block is recognised by its layout: the prizes of
``PROBE_UNITS`` of its audited units, spread over them, equal at ``MATCH`` of them or more
those of the reference block of the same game, stake and id drawn from a public seed (two
independent layouts agree at about 60 % of the units, so by chance this never happens:
below 10^-23). A header's ``seed_sha256`` commitment to a public seed is recognised too, for
any generator. The probe evaluates the reference's permutation at those units only
(``reference.probe_prizes``): about 2 ms a candidate seed.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
from dataclasses import dataclass
from importlib import resources
from typing import Any

import numpy as np
import numpy.typing as npt

import reference
from reference import _yaml

PROBE_UNITS = 128  # units compared, spread over the slice audited
MATCH = 126  # of them equal: a few faulty lines still tell; chance agreement is about 60 %
PROBE_GROUP = 16  # units compared at a time, so an unrelated candidate costs one group
SEED_BYTES = 32  # a block seed's length (reference.Block)


@dataclass(frozen=True)
class PublicSeed:
    """A seed anyone can read, and where it is published."""

    seed: bytes
    where: str


@functools.cache
def public_seeds() -> tuple[PublicSeed, ...]:
    """``public_seeds.yaml``'s seeds, checked once (a wrong entry is the package's bug)."""
    text = resources.files("conformance").joinpath("public_seeds.yaml").read_bytes()
    found = []
    for n, entry in enumerate(_yaml.load(text)["seeds"]):
        seed = bytes.fromhex(entry["hex"])
        if not seed:
            raise ValueError(f"public_seeds.yaml: seed {n} is empty")
        found.append(PublicSeed(seed, str(entry["where"])))
    return tuple(found)


def _candidates(block_id: str) -> list[tuple[str, bytes]]:
    """(how it was published, the block seed) for every public seed, used as the block's seed
    and as the master seed of ``instantcert serve``."""
    out = []
    for public in public_seeds():
        if len(public.seed) == SEED_BYTES:  # a block seed has 32 bytes; a master seed any
            out.append((f"the public seed {public.seed.hex()} ({public.where})", public.seed))
        served = hmac.new(public.seed, block_id.encode("utf-8"), hashlib.sha256).digest()
        out.append(
            (
                f"instantcert serve's block seed of the public master seed {public.seed.hex()} "
                f"({public.where})",
                served,
            )
        )
    return out


def public_commitment(header: dict[str, Any]) -> str | None:
    """What public seed the header's ``seed_sha256`` commits to, if any."""
    committed = header.get("seed_sha256")
    block_id = header.get("block_id")
    if not isinstance(committed, str) or not isinstance(block_id, str):
        return None
    for how, seed in _candidates(block_id):
        if hmac.compare_digest(hashlib.sha256(seed).hexdigest(), committed.lower()):
            return how
    return None


def public_layout(
    game: str, stake_cents: int, block_id: str, start: int, prizes: npt.NDArray[Any]
) -> str | None:
    """What public seed's reference block has the layout of ``prizes`` (the audited prizes of
    units ``start``.., -1 where a line had none), if any."""
    if len(prizes) < PROBE_UNITS:
        return None  # too few units to tell a copy from chance
    at = np.linspace(0, len(prizes) - 1, PROBE_UNITS).astype(np.int64)
    observed = prizes[at].tolist()
    indices = (at + start).tolist()
    for how, seed in _candidates(block_id):
        # a group of units at a time: a candidate is dropped at its (PROBE_UNITS - MATCH + 1)th
        # unequal unit, after about 8 units for an unrelated layout instead of all 128
        missed = 0
        for lo in range(0, PROBE_UNITS, PROBE_GROUP):
            hi = lo + PROBE_GROUP
            try:
                expected = reference.probe_prizes(game, stake_cents, block_id, seed, indices[lo:hi])
            except (reference.GameError, ValueError):  # an id or slice the reference cannot draw
                return None
            missed += sum(e != o for e, o in zip(expected, observed[lo:hi], strict=True))
            if missed > PROBE_UNITS - MATCH:
                break
        else:
            return how
    return None
