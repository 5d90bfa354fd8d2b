"""Ways in (contract 4: "Every play endpoint needs the account's token; a token gives access
to its own account and plays only"): every way a request can reach an account without being
its owner's ``Authorization: Bearer <token>`` is refused, and changes nothing.

One scenario, four families of probes (``case["ways"]``), each on a play of its own so a
fault is named by the requirement of its family:

- ``token`` (``security.tokens.required``): the account's token with its last 2 or 3
  characters changed, a prefix of it, the token with a character more, the token in another
  case (when it mixes cases: a hex or base32 token may rightly be read in either);
- ``neighbour`` (``security.tokens.isolation``): the token of the account opened just before
  the owner's, and of the one opened just after (an off-by-one between neighbours, either way);
- ``scheme`` (``security.tokens.bearer_only``): tokens carried otherwise than the contract's
  ``Authorization: Bearer``: ``Basic`` (as the password, or as the user), the ``Token``
  scheme, a query parameter (``token``, ``access_token``), a cookie. A token there that opens
  no account (its tail changed, one made up of its shape) or another account's (a neighbour's,
  on this account's paths), and a bad ``Bearer`` header beside the owner's own token in a
  query or a cookie, must not let in (the letter: a failure). The owner's own token carried
  so, on an account of its own, may (RFC 6750 offers ``access_token``): let in, it is a
  reservation (``bearer-only``), never a failure;
- ``path`` (``security.paths.guarded``): the endpoint's path spelled otherwise (a trailing
  slash, a doubled slash, one character percent-encoded) or with a query parameter the
  contract does not name (a cache-buster, a language, a campaign's tag: ``QUERY_NAMES``, its
  value and its place beside the history's ``limit`` drawn), with no token, an altered token
  or a neighbour's.

The first two travel through the contract's operations (any adapter); the last two need
requests as written (``contract.RawRequests``: the HTTP adapter has it), and are not asked of
an in-process adapter, which has neither header nor path. Which probes, in which order, with
which variant (the characters changed, the place of the doubled slash or of the encoded
character, the credential of a path probe) is drawn from ``case["seed"]``: a replay sends
the same probes, and nothing in them is the same from one run to the next. A probe is let in
when it is answered with a 2xx status, or with a body showing the account (its balance, its
plays, a ticket, a reveal); then, every probe refused, the account must be as it was
(balance, the play's reveal state, history: ``tokens._untouched``). The probes a reading
allows (the owner's own token carried otherwise) go to an account and play of their own, so
what they are let to change is not the account judged untouched.
"""

from __future__ import annotations

import base64
import random
import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from contract import ErrorReply, RawAnswer
from reference import _strict_json as strict_json

from ..._registry import Evidence
from ...games import kit
from .client import Account, Case, Document, Session, evidence, refused, reply_doc
from .tokens import _calls, _untouched

REQUIREMENT = {
    "token": "security.tokens.required",
    "neighbour": "security.tokens.isolation",
    "scheme": "security.tokens.bearer_only",
    "path": "security.paths.guarded",
}
ROUTE_WORDS = frozenset({"v1", "accounts", "plays", "history", "reveal", "auto"})
"""The contract's path segments that are the route's own (every other segment is an id)."""
SHOWN_FIELDS = frozenset({"balance_cents", "plays", "ticket", "symbol", "prize_cents", "wins"})
"""Fields of an answer that show an account or its plays: a refusal carries none of them."""
_CLASSES = (string.digits, string.ascii_lowercase, string.ascii_uppercase, "-_", "+/", ".~")


def has_raw(session: Session) -> bool:
    """Whether the session's adapter sends requests as written (``contract.RawRequests``)."""
    return callable(getattr(session.adapter, "send_raw", None))


def _other_in_class(rng: random.Random, char: str) -> str:
    for chars in _CLASSES:
        if char in chars and len(chars) > 1:
            return rng.choice([c for c in chars if c != char])
    return rng.choice(string.ascii_letters)


def altered_tokens(token: str, rng: random.Random) -> list[tuple[str, str]]:
    """(what, token) of the ``token`` family: each differs from ``token``."""
    found: list[tuple[str, str]] = []
    # two characters at least: the last character of an encoded token may carry padding bits
    # only (base64 of 32 bytes: 2 of its 6 bits), which a target that decodes and compares the
    # bytes rightly ignores
    changed = min(len(token), rng.randint(2, 3))
    tail = "".join(_other_in_class(rng, c) for c in token[len(token) - changed :])
    found.append((f"its last {changed} character(s) changed", token[: len(token) - changed] + tail))
    if len(token) > 1:
        cut = rng.randint(max(1, len(token) // 2), len(token) - 1)
        found.append((f"its first {cut} of {len(token)} characters", token[:cut]))
    found.append(("a character more at its end", token + _other_in_class(rng, token[-1])))
    # only where case carries information: a token handed out in one case (hex, base32) may
    # rightly be read whatever its case
    if token.upper() != token and token.lower() != token:
        found.append(("in another case", token.upper() if rng.random() < 0.5 else token.lower()))
    return found


def made_up_token(token: str, rng: random.Random) -> str:
    """A token of ``token``'s shape (its length, each character's class), every character
    other than ``token``'s there: a stale or mistyped token opens no account."""
    return "".join(_other_in_class(rng, c) for c in token)


@dataclass(frozen=True)
class Probe:
    """One way in: what it is, the operation it aims at, and how to send it; ``reading``: a
    reading allows it in (the owner's own token carried otherwise: a reservation if let in)."""

    what: str
    operation: str
    send: Callable[[], object]
    request: Mapping[str, Any]
    reading: bool = False


@dataclass(frozen=True)
class Endpoint:
    operation: str
    method: str
    path: str  # as the contract spells it, ids quoted
    query: str  # "" or "limit=10"
    body: Document | None


def _endpoints(session: Session, owner: Account, played: Document) -> list[Endpoint]:
    acc, play_id = quote(owner.account_id, safe=""), quote(played["play_id"], safe="")
    found = [
        Endpoint("balance", "GET", f"/v1/accounts/{acc}", "", None),
        Endpoint(
            "play",
            "POST",
            f"/v1/accounts/{acc}/plays",
            "",
            {"game": played["game"], "stake_cents": played["stake_cents"]},
        ),
        Endpoint("history", "GET", f"/v1/accounts/{acc}/history", "limit=10", None),
        Endpoint("auto", "POST", f"/v1/plays/{play_id}/auto", "", {}),
    ]
    if kit(played["game"]).reveals and "reveal" in session.capabilities:
        found.insert(
            3, Endpoint("reveal", "POST", f"/v1/plays/{play_id}/reveal", "", {"button": 0})
        )
    return found


def _url(path: str, query: str, extra: str = "") -> str:
    params = "&".join(p for p in (query, extra) if p)
    return path + ("?" + params if params else "")


def _basic(user: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


Carrier = tuple[str, dict[str, str], str]
"""(what, headers, extra query) of one way to carry a token otherwise than Bearer."""


def _carriers(account_id: str, token: str, rng: random.Random) -> list[Carrier]:
    """Every way to carry ``token`` for ``account_id`` otherwise than Bearer."""
    cookies = [f"token={token}", f"session={token}"]
    rng.shuffle(cookies)
    return [
        ("Basic, the token as the password", {"Authorization": _basic(account_id, token)}, ""),
        ("Basic, the token as the user", {"Authorization": _basic(token, "")}, ""),
        ("the Token scheme", {"Authorization": f"Token {token}"}, ""),
        ("a query parameter 'token'", {}, "token=" + quote(token, safe="")),
        ("a query parameter 'access_token'", {}, "access_token=" + quote(token, safe="")),
        ("a cookie", {"Cookie": "; ".join(cookies)}, ""),
    ]


def _wrong_tokens(
    owner: Account, neighbours: tuple[Account, Account], rng: random.Random
) -> list[tuple[str, str]]:
    """(what, token) that must not open ``owner``'s account, whatever carries them."""
    return [
        ("the token with its last characters changed", altered_tokens(owner.token, rng)[0][1]),
        ("a made-up token of its shape", made_up_token(owner.token, rng)),
        ("the token of the account opened just before", neighbours[0].token),
        ("the token of the account opened just after", neighbours[1].token),
    ]


def _scheme_probes(
    session: Session,
    owner: Account,
    neighbours: tuple[Account, Account],
    played: Document,
    own: tuple[Account, Document],
    rng: random.Random,
) -> list[Probe]:
    """The ``scheme`` family: on ``owner``'s endpoints, each carrier with a wrong token, and
    a bad Bearer header beside the owner's token in a query or a cookie (the letter); on the
    endpoints of ``own`` (an account and play of their own), its own token by each carrier
    (a reading)."""
    found: list[Probe] = []
    for end in _endpoints(session, owner, played):
        # each carrier with one wrong token, drawn: over the endpoints, each kind is sent
        for index, _ in enumerate(_carriers(owner.account_id, owner.token, rng)):
            label, wrong = rng.choice(_wrong_tokens(owner, neighbours, rng))
            what, headers, extra = _carriers(owner.account_id, wrong, rng)[index]
            found.append(_raw_probe(session, end, f"{label} by {what}", headers, extra))
        for what, headers, extra in _carriers(owner.account_id, owner.token, rng):
            if "Authorization" in headers:
                continue  # Basic and Token take the header Bearer would
            label, bad = rng.choice(_wrong_tokens(owner, neighbours, rng))
            beside = {**headers, "Authorization": f"Bearer {bad}"}
            found.append(
                _raw_probe(
                    session, end, f"{label} as Bearer, its own token by {what}", beside, extra
                )
            )
    account, own_play = own
    for end in _endpoints(session, account, own_play):
        for what, headers, extra in _carriers(account.account_id, account.token, rng):
            probe = _raw_probe(session, end, f"the account's own token by {what}", headers, extra)
            found.append(Probe(probe.what, probe.operation, probe.send, probe.request, True))
    return found


def _raw_probe(
    session: Session, end: Endpoint, what: str, headers: dict[str, str], extra: str
) -> Probe:
    url = _url(end.path, end.query, extra)
    request = {"method": end.method, "path": url, "headers": headers}
    return Probe(what, end.operation, _raw(session, end.method, url, headers, end.body), request)


def _path_variant(path: str, rng: random.Random) -> list[tuple[str, str]]:
    """(what, path) spellings of ``path`` a router may answer as ``path``."""
    slashes = [i for i, c in enumerate(path) if c == "/"]
    at = rng.choice(slashes)
    # a letter of the route's own words (not of an id): what a guard matching routes reads
    letters = [
        i
        for i, c in enumerate(path)
        if c.isalnum()
        and path[: i + 1].rsplit("/", 1)[-1] + path[i + 1 :].split("/", 1)[0] in ROUTE_WORDS
    ]
    where = rng.choice(letters)
    code = f"%{ord(path[where]):02X}"
    code = code.lower() if rng.random() < 0.5 else code
    return [
        ("a trailing slash", path + "/"),
        ("a doubled slash", path[:at] + "/" + path[at:]),
        (f"{path[where]!r} percent-encoded", path[:where] + code + path[where + 1 :]),
    ]


def _raw(session: Session, method: str, url: str, headers: dict[str, str], body: object) -> Any:
    adapter = session.adapter

    def send() -> RawAnswer:
        answer: RawAnswer = adapter.send_raw(method, url, headers, body)
        return answer

    return send


def _probes(
    session: Session,
    ways: str,
    owner: Account,
    neighbours: tuple[Account, Account],
    played: Document,
    own: tuple[Account, Document] | None,
    rng: random.Random,
) -> list[Probe]:
    found: list[Probe] = []
    request: dict[str, Any]
    if ways in ("token", "neighbour"):
        if ways == "token":
            tokens = altered_tokens(owner.token, rng)
        else:
            tokens = [
                ("of the account opened just before", neighbours[0].token),
                ("of the account opened just after", neighbours[1].token),
            ]
        for what, token in tokens:
            for operation, call in _calls(session, owner, played, token):
                request = {"operation": operation, "token": token}
                found.append(Probe(f"the token {what}", operation, call, request))
        if has_raw(session):  # the same tokens with the scheme spelled as HTTP also allows
            for end in _endpoints(session, owner, played):
                what, token = rng.choice(tokens)
                headers = _spelled_bearer(token, rng)
                spelled = repr(headers["Authorization"].split(token)[0])
                found.append(
                    _raw_probe(session, end, f"the token {what}, scheme {spelled}", headers, "")
                )
        return found
    if ways == "scheme":
        assert own is not None
        return _scheme_probes(session, owner, neighbours, played, own, rng)
    for end in _endpoints(session, owner, played):
        spellings = _path_variant(end.path, rng)
        # the path as the contract spells it, with a query parameter the contract does not
        # name (a guard matching its routes against the path and its query lets it through)
        spellings.append(("a query string", _with_query(end.path, end.query, rng)))
        for what, path in spellings:
            credentials: list[tuple[str, dict[str, str]]] = [
                ("no token", {}),
                ("the token of the account opened just before", _bearer(neighbours[0].token)),
                ("the token of the account opened just after", _bearer(neighbours[1].token)),
                (
                    "the token with its last characters changed",
                    _bearer(altered_tokens(owner.token, rng)[0][1]),
                ),
            ]
            label, headers = rng.choice(credentials)
            url = _url(path, end.query) if "?" not in path else path
            request = {"method": end.method, "path": url, "headers": headers}
            send = _raw(session, end.method, url, headers, end.body)
            found.append(
                Probe(f"the path spelled with {what}, {label}", end.operation, send, request)
            )
    return found


#: names of query parameters an app, a proxy or a link adds to a request, which a router
#: ignores (a cache-buster, an app version, a language, a campaign's tag)
QUERY_NAMES = ("_", "t", "ts", "cb", "v", "lang", "locale", "utm_source", "ref", "client")


def _with_query(path: str, query: str, rng: random.Random) -> str:
    """``path`` with a query parameter the contract does not name, drawn from ``rng``, beside
    its own ``query`` (before or after it)."""
    name = rng.choice(QUERY_NAMES)
    if rng.random() < 0.5:
        value = "".join(rng.choice(string.digits) for _ in range(rng.randint(1, 13)))
    else:
        value = "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(2, 8)))
    extra = f"{name}={value}"
    params = [extra, query] if rng.random() < 0.5 else [query, extra]
    return path + "?" + "&".join(p for p in params if p)


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _spelled_bearer(token: str, rng: random.Random) -> dict[str, str]:
    """``Authorization`` with ``token`` and the Bearer scheme spelled as HTTP also allows it
    (RFC 9110 11.1: the scheme is case-insensitive, one or more spaces may follow it), drawn
    from ``rng``, never ``Bearer`` and one space as the suite writes its own requests: a
    guard that matches the header as the suite writes it is met in a spelling it does not
    match, and a token that must not open the account must not open it spelled so either."""
    scheme = rng.choice(SCHEME_SPELLINGS)
    if rng.random() < 0.25:  # any mix of cases
        scheme = "".join(rng.choice((c.lower(), c.upper())) for c in scheme)
    spaces = " " * rng.choice((1, 1, 2))
    if f"{scheme}{spaces}" == "Bearer ":
        spaces = "  "
    return {"Authorization": f"{scheme}{spaces}{token}"}


#: the Bearer scheme as clients write it, which HTTP reads alike (RFC 9110 11.1)
SCHEME_SPELLINGS = ("Bearer", "bearer", "BEARER")


def let_in(answer: RawAnswer | ErrorReply | Document) -> bool:
    """Whether a probe's answer let it in: accepted, or showing the account all the same."""
    if isinstance(answer, ErrorReply):
        return False
    if not isinstance(answer, RawAnswer):
        return True  # a contract operation answered: accepted
    if 200 <= answer.status < 300:
        return True
    try:
        body = strict_json.loads(answer.body)
    except ValueError:
        return False
    return isinstance(body, dict) and bool(SHOWN_FIELDS & set(body))


def _answer(send: Callable[[], object]) -> RawAnswer | ErrorReply | Document:
    """A probe's answer: as written (``RawAnswer``), a refusal, or the document accepted."""
    try:
        answer = send()
    except ErrorReply as reply:
        return reply
    if isinstance(answer, RawAnswer):
        return answer
    return refused(lambda: answer)


def _shown(answer: RawAnswer | ErrorReply | Document) -> Any:
    if isinstance(answer, RawAnswer):
        text = answer.body[:600].decode("utf-8", "replace")
        return {"status": answer.status, "body": text}
    return reply_doc(answer)


def scenario_ways_in(
    session: Session, case: Case, reserve: Callable[[Evidence], None] | None = None
) -> Evidence | None:
    """The probes of ``case["ways"]`` on a play of a fresh account (module docstring), in an
    order drawn from ``case["seed"]``; then the account must be as it was. The probes a
    reading allows that were let in are handed to ``reserve`` (when given) as one evidence,
    once the letter is met."""
    game, stake, ways = case["game"], case["stake_cents"], case["ways"]
    rng = random.Random(f"{case['seed']}:{game}:{stake}:{ways}")
    judged = {**case, "requirement": REQUIREMENT[ways]}
    before = session.open(stake * 2)
    owner = session.open(stake * 6)
    after = session.open(stake * 2)
    played = session.play(owner, game, stake)
    own = None
    if ways == "scheme":
        # the owner's own token carried otherwise: on an account of its own, funded for the
        # plays those probes may buy, so what they may change is not the account judged
        mine = session.open(stake * 10)
        own = (mine, session.play(mine, game, stake))
    balance = session.balance(owner)
    probes = _probes(session, ways, owner, (before, after), played, own, rng)
    rng.shuffle(probes)
    allowed: list[tuple[Probe, RawAnswer | ErrorReply | Document]] = []
    for probe in probes:
        answer = _answer(probe.send)
        if not let_in(answer):
            continue
        whose = "a play" if probe.operation in ("reveal", "auto") else "an account"
        if probe.reading:
            allowed.append((probe, answer))
            continue
        return evidence(
            judged,
            "a refusal (a 4xx status) that shows nothing of the account",
            _shown(answer),
            f"{probe.operation} of {whose} with {probe.what} was let in",
            dict(probe.request),
        )
    found = _untouched(
        session,
        judged,
        owner,
        played,
        balance,
        f"calls refused ({ways} ways in) changed the account",
    )
    if found is None and allowed and reserve is not None:
        reserve(_allowed(judged, allowed))
    return found


def _allowed(
    case: Case, allowed: list[tuple[Probe, RawAnswer | ErrorReply | Document]]
) -> Evidence:
    """One evidence of the probes a reading allows that were let in (the first one shown)."""
    carriers = sorted({p.what.removeprefix("the account's own token by ") for p, _ in allowed})
    probe, answer = allowed[0]
    return evidence(
        case,
        "the token read from Authorization: Bearer only; carried otherwise, a call without one",
        _shown(answer),
        f"the account's own token was let in by {'; '.join(carriers)} "
        f"({len(allowed)} call(s), e.g. {probe.operation})",
        dict(probe.request),
    )
