"""Tokens cannot be guessed (contract 4: "the token is the account's secret").

``token_sample`` new accounts are opened and their tokens judged together, in creation order:

- no two alike;
- the part that varies (each token without the prefix and suffix all of them share: a vendor
  prefix such as ``sk_live_`` carries no secret) holds at least 128 bits in the alphabet seen:
  its shortest length × log2 of the smallest alphabet class holding every character seen there
  (digits 10, hex 16, base32 32, alphanumerics 62, base64url or base64 64, else the number of
  distinct characters seen);
- no counter: the numbers inside, read at the same places, do not rise by small steps from one
  account to the next, and consecutive tokens differ in more than half the places of their
  varying part (random characters differ in 1 − 1/alphabet of them);
- nothing of the account id: not inside the token, and not a common hash or encoding of it
  (MD5, SHA-1, SHA-256, SHA-512, BLAKE2b in hex or base64, or the id in hex or base64).

A legitimate token passes: ``secrets.token_hex(16)``, ``token_urlsafe(16..32)``, a UUID4, a
fixed vendor prefix followed by random characters, a JWT-like ``a.b.c`` with a random or
signed part.
"""

from __future__ import annotations

import base64
import hashlib
import math
import random
import re
import string
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from itertools import pairwise
from typing import Any

from contract import ErrorReply

from .._registry import CheckContext, CheckFailure, Evidence, Reservation, check
from . import _scenarios as sc
from ._scenarios.client import Account, open_least
from ._session import session

UNGUESSABLE = "security.tokens.unguessable"
MIN_BITS = 128
SECRET_FLOOR_BITS = 64
"""Below this a token is no secret by the letter: what varies can be enumerated against an
online API (OWASP's session-id floor is 64 bits of entropy); from here to ``MIN_BITS`` it is the
project's reading (a reservation)."""
MIN_SAMPLE = 8
ALPHABETS: tuple[tuple[str, frozenset[str]], ...] = (
    ("digits", frozenset(string.digits)),
    ("hex", frozenset(string.digits + "abcdef")),
    ("hex", frozenset(string.digits + "ABCDEF")),
    ("base32", frozenset(string.ascii_uppercase + "234567=")),
    ("base32", frozenset(string.ascii_lowercase + "234567=")),
    ("alphanumeric", frozenset(string.ascii_letters + string.digits)),
    ("base64url", frozenset(string.ascii_letters + string.digits + "-_=")),
    ("base64", frozenset(string.ascii_letters + string.digits + "+/=")),
)
SIZES = {"digits": 10, "hex": 16, "base32": 32, "alphanumeric": 62, "base64url": 64, "base64": 64}
NUMBER = re.compile(r"\d+")
SMALL_STEP = 1000  # a counter, or a clock in milliseconds between two accounts


def _common_prefix(texts: Sequence[str]) -> str:
    """The longest string every one of ``texts`` starts with (character by character)."""
    if not texts:
        return ""
    first, last = min(texts), max(texts)
    size = next((i for i, (a, b) in enumerate(zip(first, last, strict=False)) if a != b), None)
    return first[: min(len(first), len(last)) if size is None else size]


def varying_parts(tokens: Sequence[str]) -> tuple[str, str, list[str]]:
    """(common prefix, common suffix, each token without them)."""
    prefix = _common_prefix(tokens)
    rest = [t[len(prefix) :] for t in tokens]
    suffix = _common_prefix([r[::-1] for r in rest])[::-1]
    return prefix, suffix, [r[: len(r) - len(suffix)] for r in rest]


def alphabet(parts: Sequence[str]) -> tuple[str, int]:
    """The smallest alphabet class holding every character of ``parts``: (name, size)."""
    seen = set("".join(parts))
    for name, chars in ALPHABETS:
        if seen <= chars:
            return name, SIZES[name]
    return "distinct characters", max(2, len(seen))


def _differing(a: str, b: str) -> float:
    """The share of places (of the longer) where ``a`` and ``b`` differ."""
    size = max(len(a), len(b))
    if not size:
        return 0.0
    same = sum(1 for x, y in zip(a, b, strict=False) if x == y)
    return (size - same) / size


def _counter(parts: Sequence[str]) -> str | None:
    """A description of a counter in ``parts`` (creation order), or None."""
    numbers = [[int(n) for n in NUMBER.findall(p)] for p in parts]
    if len({len(n) for n in numbers}) == 1 and numbers[0]:
        for place in range(len(numbers[0])):
            values = [n[place] for n in numbers]
            steps = [b - a for a, b in pairwise(values)]
            if all(0 < step <= SMALL_STEP for step in steps):
                return (
                    f"number {place} rises by {sorted(set(steps))[:5]} from one account to the next"
                )
    shares = sorted(_differing(a, b) for a, b in pairwise(parts))
    median = shares[len(shares) // 2] if shares else 1.0
    if median <= 0.5:
        return f"consecutive tokens differ in only {median:.0%} of the places (median)"
    return None


def _derivations(account_id: str) -> dict[str, str]:
    """Common hashes and encodings of an account id, by name."""
    raw = account_id.encode("utf-8")
    found = {"hex of the id": raw.hex()}
    for name in ("md5", "sha1", "sha256", "sha512", "blake2b"):
        digest = hashlib.new(name, raw).digest()
        found[f"{name} hex"] = digest.hex()
        found[f"{name} base64"] = base64.b64encode(digest).decode().rstrip("=")
        found[f"{name} base64url"] = base64.urlsafe_b64encode(digest).decode().rstrip("=")
    found["base64 of the id"] = base64.b64encode(raw).decode().rstrip("=")
    found["base64url of the id"] = base64.urlsafe_b64encode(raw).decode().rstrip("=")
    return {k: v for k, v in found.items() if len(v) >= 8}


def _without_id(token: str, account_id: str, id_part: str) -> tuple[str, str | None]:
    """``token`` without the account id, its varying part, or a common hash or encoding of
    it (the id is not a secret, so none of these carries any), and what was taken out."""
    found = None
    pieces = {"the account id": account_id, "the account id's varying part": id_part}
    pieces.update(
        {f"the account id's {name}": text for name, text in _derivations(account_id).items()}
    )
    for name, text in sorted(pieces.items(), key=lambda item: -len(item[1])):
        if len(text) < 6:
            continue
        where = (
            token.lower().find(text.lower()) if "hex" in name or "id" in name else token.find(text)
        )
        if where >= 0:
            token = token[:where] + token[where + len(text) :]
            found = found or name
    return token, found


def token_fault(accounts: Sequence[tuple[str, str]]) -> str | None:
    """What makes the tokens of ``accounts`` ((account_id, token), creation order) guessable,
    or None."""
    found = token_finding(accounts)
    return None if found is None else found[1]


def token_finding(accounts: Sequence[tuple[str, str]]) -> tuple[str, str] | None:
    """(``letter`` or ``reading``, what) makes the tokens of ``accounts`` guessable, or None.

    The letter ("the token is the account's secret") fails a token given twice, tokens with
    nothing that varies but the account id (or a hash or encoding of it), a counter (each can
    be had from another account's token or id), and fewer than ``SECRET_FLOOR_BITS`` bits in
    what varies (enumerable). From there to ``MIN_BITS`` bits is the project's reading of
    "secret" (docs/contract-decisions.md, ``token-bits``): a reservation, not a failure."""
    tokens = [t for _, t in accounts]
    twice = [t for t, n in Counter(tokens).items() if n > 1]
    if twice:
        return "letter", f"two accounts got the same token {twice[0]!r}"
    _, _, id_parts = varying_parts([a for a, _ in accounts])
    residuals, taken = [], []
    for (account_id, token), id_part in zip(accounts, id_parts, strict=True):
        rest, what = _without_id(token, account_id, id_part)
        residuals.append(rest)
        if what is not None:
            taken.append(f"{token!r} holds {what} ({account_id!r})")
    prefix, suffix, parts = varying_parts(residuals)
    name, size = alphabet(parts)
    shortest = min(len(p) for p in parts)
    derived = f"{taken[0]}, which is no secret; " if taken else ""
    if not shortest:
        return "letter", f"{derived}nothing else in the tokens varies from one account to the next"
    counter = _counter(parts)
    if counter is not None:
        return "letter", f"the tokens count: {counter}"
    bits = shortest * math.log2(size)
    if bits < MIN_BITS:
        around = f" after the common prefix {prefix!r}" if prefix else ""
        around += f" before the common suffix {suffix!r}" if suffix else ""
        return "letter" if bits < SECRET_FLOOR_BITS else "reading", (
            f"{derived}the part of the tokens that varies{around} is as short as {shortest} "
            f"characters of {name} ({size} symbols): {bits:.0f} bits, fewer than {MIN_BITS}"
        )
    return None


def scenario_tokens(
    session: sc.Session,
    case: Mapping[str, Any],
    reserve: Callable[[Evidence], None] | None = None,
) -> Evidence | None:
    """``accounts`` new accounts: their tokens are judged together (module docstring); a
    finding of the reading only (``token_finding``) goes to ``reserve``."""
    first, balance = open_least(session, 1)  # 1 cent where an empty account is refused
    sample = int(case["accounts"])
    fundings = [balance, *deposits(case, sample)]
    groups: dict[int, list[Account]] = {b: [] for b in fundings}
    groups[balance].append(first)
    for number in range(1, sample):  # the groups' openings interleaved, one after another
        funding = fundings[number % len(fundings)]
        try:
            groups[funding].append(session.open(funding))
        except ErrorReply as refusal:  # a wallet limit of the target's own: opened empty
            if not 400 <= refusal.status < 500:
                raise
            groups[balance].append(session.open(balance))
    judged: list[tuple[tuple[str, str], list[tuple[str, str]], int]] = []
    for funding, opened in groups.items():
        if len(opened) < MIN_SAMPLE and funding != balance:
            continue  # too few to judge alone: the refusals above went to the empty group
        accounts = [(a.account_id, a.token) for a in opened]
        finding = token_finding(accounts)
        if finding is not None:
            judged.append((finding, accounts, funding))
    if not judged:
        return None
    # the letter's finding first, in any group; else the first reading's
    (kind, fault), accounts, funding = min(judged, key=lambda j: j[0][0] != "letter")
    if len(groups) > 1:
        fault = f"{fault} (accounts opened with {funding} cents)"
    shown = [{"account_id": a, "token": t} for a, t in accounts[:6]]
    seen = sc.evidence(
        case,
        f"tokens of at least {MIN_BITS} bits, unrelated to each other and to the account id",
        {"accounts": shown, "sample": len(accounts)},
        fault,
        {"operation": "open_account", "times": len(accounts)},
    )
    if kind == "reading" and reserve is not None:
        reserve(seen)
        return None
    return seen


FUNDED_GROUPS = 2
"""Groups of the sample opened with money, beside the accounts opened empty: a token may
come from another service when an account is opened with a deposit (a cashier's
open-and-fund path), so each way the run opens accounts has its tokens judged on their own."""
DEPOSITS = (1_000, 2_000, 2_500, 5_000, 10_000, 20_000, 50_000)
"""Deposits players make (10 to 500 EUR, the buttons of a cashier's screen): one group's."""


def deposits(case: Mapping[str, Any], sample: int) -> list[int]:
    """The balances the sample's funded groups are opened with, drawn from the case's seed:
    one of ``DEPOSITS`` and one typed amount (10 to 1 000 EUR, cents included); none when the
    sample is too small for a group of ``MIN_SAMPLE`` beside the empty accounts."""
    if sample < MIN_SAMPLE * (FUNDED_GROUPS + 1):
        return []
    rng = random.Random(f"{case.get('seed', 0)}:tokens:deposits")
    typed = rng.randrange(1_000, 100_001)
    preset = rng.choice([d for d in DEPOSITS if d != typed])
    return [preset, typed]


sc.SCENARIOS["tokens"] = scenario_tokens


@check("security.tokens_unguessable", covers=[UNGUESSABLE], capability="play")
def tokens_unguessable(ctx: CheckContext) -> None:
    """``token_sample`` new accounts: no token twice, no counter, nothing of the account id
    inside or derived from it with nothing else varying (the letter: a *fail*); the part that
    varies holds 128 bits in its alphabet (a reading: a reservation)."""
    sample = max(MIN_SAMPLE, ctx.settings.token_sample)
    case = sc.case_of("tokens", accounts=sample, seed=ctx.seed)

    def reserve(seen: Evidence) -> None:
        ctx.reserve(
            Reservation(
                f"tokens may be short of a secret's strength: {seen.note}",
                basis="token-bits",
                lift=f"hand out tokens with at least {MIN_BITS} random bits (e.g. "
                "secrets.token_urlsafe(16) or a UUID4)",
                evidence=[seen],
                requirements=(UNGUESSABLE,),
            )
        )

    found = scenario_tokens(session(ctx), case, reserve)
    ctx.details["accounts"] = sample
    if found is not None:
        raise CheckFailure(
            f"tokens can be guessed: {found.note}", [found], requirements=(UNGUESSABLE,)
        )
