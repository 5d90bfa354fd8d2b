"""Hostile inputs, in one place: strings, a target, block files, case files, configs, waivers.

Each is what an attacker (or a careless vendor) would hand a lab: markup, mathtext, terminal
escapes and invalid XML in every string a target chooses; a block file cut or corrupted; case
files tampered with (wrong types, missing keys, unknown scenario, ``python:os:system``, huge
numbers, deep nesting); config and waiver files that are not UTF-8, too deep, a YAML bomb or an
impossible date. tests/harness/test_hostile.py runs each and asserts bounded time, the right
verdict and exit code, no traceback, and well-formed, escaped reports.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from harness._errors import ErrorReply

from ._base import Delegating, reference_adapter

Document = dict[str, Any]

# -- strings -----------------------------------------------------------------------------------

#: One string carrying everything a format could take for its own: HTML, mathtext, Markdown
#: table and code fences, terminal escapes, characters XML forbids, a CDATA end, a lone
#: surrogate, a bidi override, mentions and links.
HOSTILE = (
    '<script>alert("x")</script><img src=x onerror=alert(1)> $x^2$ $$\\alpha$$ | a | b | '
    "```  ` \x1b[31mRED\x1b[0m \x00\x07\x08\r ]]> \ud800 &amp; @here #1 [l](http://e.x) \u202e"
)
#: The same with 100 kB of text after it.
LONG = HOSTILE + " " + "x" * 100_000
MARKUP = ("<script>", "<img", "\x1b[", "\x00", "\ud800", "\u202e")  # must never appear raw

# -- a target whose every string is hostile ----------------------------------------------------


class _RenamedStream:
    """A block stream whose header carries the hostile block id."""

    def __init__(self, inner: Any, block_id: str) -> None:
        self.inner = inner
        self.header: Document = {**inner.header, "block_id": block_id}
        self.header_bytes = (json.dumps(self.header, separators=(",", ":")) + "\n").encode()

    def lines(self) -> Iterator[bytes]:
        yield from self.inner.lines()

    def close(self) -> None:
        self.inner.close()


class HostileAdapter(Delegating):
    """The reference, but every string the target chooses is hostile: its name and version
    (within the 256 characters describe allows), its block ids, its error messages (100 kB);
    and it breaks robots 4.6 (prize + 1 on every win) and adds a non-finite number to each
    result, so failures carry the strings into every report."""

    BLOCK_PREFIX = "blk " + HOSTILE + " "

    def __init__(self) -> None:
        super().__init__(reference_adapter(name="hostile"), "python:tests.faulty.hostile:hostile")

    def describe(self) -> Document:
        return {**self.inner.describe(), "name": HOSTILE, "version": "2 " + HOSTILE}

    def list_blocks(self, game: str, stake_cents: int) -> list[Document]:
        blocks = self.inner.list_blocks(game, stake_cents)
        return [{**b, "block_id": self.BLOCK_PREFIX + b["block_id"]} for b in blocks]

    def read_block(self, block_id: str, start: int | None = None, count: int | None = None) -> Any:
        if not block_id.startswith(self.BLOCK_PREFIX):
            raise ErrorReply(404, "unknown_block", LONG)
        inner = self.inner.read_block(block_id.removeprefix(self.BLOCK_PREFIX), start, count)
        return _RenamedStream(inner, block_id)

    def evaluate(self, game: str, stake_cents: int, tickets: Sequence[str]) -> list[Document]:
        results = self.inner.evaluate(game, stake_cents, tickets)
        out = []
        for result in results:
            if "error" in result:
                out.append({"error": {"code": result["error"]["code"], "message": LONG}})
            elif game == "robots" and result["prize_cents"] > 0:
                out.append({**result, "prize_cents": result["prize_cents"] + 1, "x": HOSTILE})
            else:
                out.append({**result, "score": float("inf")})
        return out

    def history(self, account_id: str, token: str | None, limit: int | None = None) -> Document:
        try:
            return super().history(account_id, token, limit)
        except ErrorReply as exc:
            raise ErrorReply(exc.status, exc.code, LONG) from None


def hostile() -> HostileAdapter:
    """``python:tests.faulty.hostile:hostile``."""
    return HostileAdapter()


class UnsendableToken(Delegating):
    """The reference, but the account's token is not Latin-1 (an emoji, a euro sign): no HTTP
    header can carry it, so no play endpoint can be called with it."""

    TOKEN = "tök€n-🎰"

    def __init__(self) -> None:
        super().__init__(reference_adapter(name="token"), "python:tests.faulty.hostile:token")

    def open_account(self, balance_cents: int) -> Document:
        return {**self.inner.open_account(balance_cents), "token": self.TOKEN}


# -- block files -------------------------------------------------------------------------------


def block_files(good: Path, folder: Path) -> dict[str, Path]:
    """Damaged copies of ``good`` (a small ``.jsonl.gz`` block slice) in ``folder``, by name."""
    data = good.read_bytes()
    plain = gzip.decompress(data)
    lines = plain.split(b"\n")
    made = {
        "truncated.jsonl.gz": data[: len(data) // 2],
        "corrupt.jsonl.gz": data[:3000] + bytes(200) + data[3200:],
        "invalid_utf8.jsonl": b"\n".join(
            [*lines[:5], b'{"index":5,"ticket":"\xff\xfe"}', *lines[6:]]
        ),
        "long_line.jsonl": b"\n".join(
            [*lines[:5], b'{"x":"' + b"a" * (10 << 20) + b'"}', *lines[6:]]
        ),
        "header_array.jsonl": b"\n".join([b"[1, 2, 3]", *lines[1:]]),
        "header_nan.jsonl": b"\n".join(
            [lines[0].replace(b'"units":', b'"units":NaN,"u":'), *lines[1:]]
        ),
        "header_deep.jsonl": b"\n".join([b"[" * 100_000, *lines[1:]]),
        "empty.jsonl.gz": b"",
    }
    paths = {}
    for name, content in made.items():
        path = folder / name
        path.write_bytes(content)
        paths[name] = path
    return paths


#: Block files a block check must *fail* (exit 1), and the requirement they fail.
FAILING_FILES = {
    "truncated.jsonl.gz": "robots.2.unit_sequence",
    "corrupt.jsonl.gz": "robots.2.unit_sequence",
    "invalid_utf8.jsonl": "blocks.contract3.unit_lines",
    "long_line.jsonl": "blocks.contract3.unit_lines",
}
#: Files with no usable header: nothing says which rules apply, so audit-block exits 2.
UNUSABLE_FILES = ("header_array.jsonl", "header_nan.jsonl", "header_deep.jsonl", "empty.jsonl.gz")

# -- case files --------------------------------------------------------------------------------

X2_TICKET = "OHPSCTQD|C D2+P S S C S D T S P H O C S T D C C"


def valid_case() -> Document:
    """A case the reference passes (exit 0 against python:reference)."""
    return {
        "format": "instantcert-case/1",
        "check_id": "robots_rules.x2",
        "requirements": ["robots.4.6.x2"],
        "message": "x",
        "target": "python:reference",
        "seed": 1,
        "profile": "quick",
        "settings": {},
        "evidence": {
            "input": {
                "kind": "evaluate",
                "game": "robots",
                "stake_cents": 100,
                "ticket": X2_TICKET,
            },
            "expected": None,
            "got": None,
            "request": None,
            "note": "",
        },
    }


def _with_input(**fields: Any) -> Document:
    case = valid_case()
    case["evidence"]["input"] = {**case["evidence"]["input"], **fields}
    return case


def _without(*keys: str) -> Document:
    case = valid_case()
    for key in keys:
        case["evidence"]["input"].pop(key)
    return case


MARKER = Path("/tmp/instantcert-hostile-marker")  # written if the module below were imported


def tampered_cases() -> dict[str, bytes]:
    """Case files a replay must refuse with exit 2 and one line, by name."""
    docs: dict[str, Any] = {
        "stake_is_text": _with_input(stake_cents="100"),
        "ticket_is_number": _with_input(ticket=5),
        "seed_is_text": {**valid_case(), "seed": "x"},
        "requirements_is_text": {**valid_case(), "requirements": "robots.4.6.x2"},
        "no_evidence": {k: v for k, v in valid_case().items() if k != "evidence"},
        "no_ticket": _without("ticket"),
        "no_kind": _without("kind"),
        "unknown_kind": _with_input(kind="rm -rf /"),
        "unknown_scenario": {
            **valid_case(),
            "evidence": {"input": {"kind": "play", "scenario": "x"}},
        },
        "unknown_relation": _with_input(kind="metamorphic", relation="nope", seed=1),
        "os_system_target": {**valid_case(), "target": "python:os:system"},
        "marker_target": {**valid_case(), "target": "python:tests.faulty.hostile_payload:factory"},
        # a case reads nothing the command line did not name (issue 29 item 2)
        "environ_file_target": {**valid_case(), "target": "file:/proc/self/environ"},
        "metadata_url_target": {**valid_case(), "target": "http://169.254.169.254"},
        "huge_stake": _with_input(stake_cents=10**400),
        "huge_index": {
            **valid_case(),
            "evidence": {
                "input": {
                    "kind": "block_unit",
                    "game": "robots",
                    "stake_cents": 100,
                    "block_id": "robots-100-0001",
                    "index": 10**30,
                }
            },
        },
        "thread_bomb": {
            **valid_case(),
            "evidence": {
                "input": {
                    "kind": "play",
                    "scenario": "concurrent",
                    "pairs": [["robots", 100]],
                    "threads": 10**6,
                    "plays_per_thread": 10**6,
                }
            },
        },
        "unknown_top_key": {**valid_case(), "exec": "python:os:system"},
        "not_an_object": [valid_case()],
        "wrong_format": {**valid_case(), "format": "instantcert-case/999"},
        "unsold_stake": _with_input(stake_cents=7),
    }
    raw = {name: json.dumps(doc).encode() for name, doc in docs.items()}
    text = json.dumps(valid_case())
    raw.update(
        {
            "overflow_float": text.replace('"stake_cents": 100', '"stake_cents": 1e99999').encode(),
            "nan": text.replace('"stake_cents": 100', '"stake_cents": NaN').encode(),
            "deep_nesting": text.replace(
                '"expected": null', '"expected": ' + "[" * 100_000
            ).encode(),
            "huge_int_digits": text.replace('"seed": 1', '"seed": ' + "9" * 5000).encode(),
            "bom": b"\xef\xbb\xbf" + text.encode(),
            "invalid_utf8": text.encode().replace(b"robots_rules", b"robots\xff\xfe"),
            "not_json": b"{'format': 'instantcert-case/1'",
            "empty": b"",
            "oversized": text.replace(
                '"message": "x"', '"message": "' + "x" * (17 << 20) + '"'
            ).encode(),
        }
    )
    return raw


# -- config and waiver files -------------------------------------------------------------------

_BOMB = (
    'a: &a ["x","x","x","x","x","x","x","x","x"]\n'
    "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
    "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
    "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
    "settings: {alpha: *d}\n"
)

HOSTILE_CONFIGS: dict[str, bytes] = {
    "invalid_utf8": b'profile: "qu\xffick"\n',
    "deep_nesting": b"settings: " + b"[" * 100_000 + b"\n",
    "deep_mapping": b"".join(b"  " * n + b"k:\n" for n in range(200)),
    "yaml_bomb": _BOMB.encode(),
    "wrong_type": b"seed: [1, 2]\n",
    "seed_float": b"seed: .inf\n",
    "timeout_nan": b"timeout_s: .nan\n",
    "not_a_mapping": b"- profile\n- quick\n",
    "unknown_key": b"profle: full\n",
    "python_object": b"profile: !!python/object/apply:os.system ['echo hi']\n",
    "impossible_date": b"seed: 2026-02-30\n",
    "huge": b"# " + b"x" * (2 << 20) + b"\n",
    "tab_indent": b"settings:\n\talpha: 0.1\n",
    "settings_list": b"settings: [alpha]\n",
    "games_nested": b"games: [[robots]]\n",
    "stakes_text": b"stakes: {robots: [one]}\n",
}

_W = "waivers:\n  - requirement: {rid}\n    reason: {reason}\n    expires: {expires}\n"


def _waiver(rid: str = "robots.4.6.x2", reason: str = "r", expires: str = "2027-01-01") -> bytes:
    return _W.format(rid=rid, reason=reason, expires=expires).encode()


HOSTILE_WAIVERS: dict[str, bytes] = {
    "impossible_date": _waiver(expires="2026-02-30"),
    "date_text": _waiver(expires="'soon'"),
    "requirement_list": _waiver(rid="[robots.4.6.x2]"),
    "invalid_utf8": _waiver(reason="r").replace(b"reason: r", b"reason: \xff"),
    "yaml_bomb": _BOMB.replace("settings: {alpha: *d}", "waivers: *d").encode(),
    "deep_nesting": b"waivers: " + b"[" * 100_000 + b"\n",
    "not_a_list": b"waivers: 5\n",
    "reason_missing": b"waivers:\n  - requirement: robots.4.6.x2\n    expires: 2027-01-01\n",
    "twice": (
        b"waivers:\n  - {requirement: robots.4.6.x2, reason: r, expires: 2027-01-01}\n"
        b"  - {requirement: robots.4.6.x2, reason: r, expires: 2027-01-01}\n"
    ),
}


# -- HTTP answers that are JSON to Python but not to RFC 8259 ------------------------------------

#: ``/v1/evaluate`` answers whose numbers or nesting strict JSON refuses, by name.
NON_STRICT_ANSWERS: dict[str, bytes] = {
    "overflow": b'{"results": [{"prize_cents": 1e99999, "wins": []}]}',
    "nan": b'{"results": [{"prize_cents": NaN, "wins": []}]}',
    "infinity": b'{"results": [{"prize_cents": -Infinity, "wins": []}]}',
    "huge_int": b'{"results": [{"prize_cents": ' + b"9" * 5000 + b', "wins": []}]}',
    "deep": b'{"results": [{"prize_cents": 0, "wins": ' + b"[" * 100_000 + b"]}]}",
}


def serve_non_strict(name: str) -> Any:
    """The reference over HTTP, but ``POST /v1/evaluate`` answers ``NON_STRICT_ANSWERS[name]``."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Mount, Route

    from .http_bridge import Serving, create_app

    body = NON_STRICT_ANSWERS[name]

    async def answer(request: Request) -> Response:
        await request.body()
        return Response(body, media_type="application/json")

    adapter = reference_adapter(name=f"non-strict:{name}")
    app = Starlette(
        routes=[
            Route("/v1/evaluate", answer, methods=["POST"]),
            Mount("/", app=create_app(adapter)),
        ]
    )
    return Serving(app, on_close=adapter.close)
