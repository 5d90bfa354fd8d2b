"""The vendor's HTTP front: the standard library's threading HTTP/1.1 server.

``python -m tests.faulty.independent_http.server --port N --db FILE`` serves until SIGTERM or
Ctrl+C. The database and its block files (``FILE.blocks/``) survive a restart.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import signal
import sys
import traceback
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from .ledger import BALANCE_CEILING, Refused, Ticket
from .shelf import STAKES
from .vendor import SYMBOL_NAMES, Vendor

BODY_LIMIT = 2 << 20
IDLE_S = 2.0  # a kept-alive connection idle this long is closed, as nginx's keepalive_timeout
WORK_S = 120.0  # while a request is read or answered
GZIP_FROM = 1024  # answers this long or longer are gzipped for a client that accepts it
HISTORY_PAGE = 20
HISTORY_MOST = 1000
TICKETS_MOST = 1000

_DIGITS = re.compile(r"[0-9]{1,18}")
_WALLET = re.compile(r"[1-9][0-9]{0,17}")
_ULID = re.compile(r"[0-9A-HJKMNP-TV-Z]{26}")
_BEARER = re.compile(r"[Bb][Ee][Aa][Rr][Ee][Rr] +([\x21-\x7e]+) *")

ROUTES: list[tuple[str, re.Pattern[str], str]] = [
    ("GET", re.compile(r"/v1/implementation"), "describe"),
    ("POST", re.compile(r"/v1/evaluate"), "evaluate"),
    ("GET", re.compile(r"/v1/blocks"), "blocks"),
    ("GET", re.compile(r"/v1/blocks/([^/]+)"), "block"),
    ("POST", re.compile(r"/v1/accounts"), "open_account"),
    ("GET", re.compile(r"/v1/accounts/([^/]+)"), "balance"),
    ("POST", re.compile(r"/v1/accounts/([^/]+)/plays"), "buy"),
    ("GET", re.compile(r"/v1/accounts/([^/]+)/history"), "history"),
    ("POST", re.compile(r"/v1/plays/([^/]+)/reveal"), "reveal"),
    ("POST", re.compile(r"/v1/plays/([^/]+)/auto"), "auto"),
]


def bad(message: str) -> Refused:
    return Refused(400, "bad_request", message)


def _strict_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def whole_number(value: object, what: str) -> int:
    if type(value) is not int:
        raise bad(f"{what} must be a whole number of cents or an index, got {value!r}")
    return value


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "IndieLotto/2.3"
    vendor: Vendor
    history_most: int = HISTORY_MOST

    # every method goes through one router, so an unexpected one is a 405, never a 501
    def do_GET(self) -> None:
        self.dispatch()

    do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = do_GET

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def setup(self) -> None:
        super().setup()
        self.connection.settimeout(IDLE_S)

    def handle_one_request(self) -> None:
        """One request; the connection then waits IDLE_S for the next before it is closed."""
        super().handle_one_request()
        if not self.close_connection:
            self.connection.settimeout(IDLE_S)

    # -- replies ----------------------------------------------------------------------------

    def reply(self, status: int, document: object, extra: dict[str, str] | None = None) -> None:
        body = json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False).encode() + b"\n"
        zipped = len(body) >= GZIP_FROM and "gzip" in self.headers.get("Accept-Encoding", "")
        if zipped:
            body = gzip.compress(body, compresslevel=5)
        self.send_response(status)
        self.send_header("content-type", "application/json;charset=UTF-8")
        self.send_header("content-length", str(len(body)))
        self.send_header("cache-control", "no-store")
        self.send_header("vary", "Accept-Encoding")
        if zipped:
            self.send_header("content-encoding", "gzip")
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def refuse(self, refusal: Refused, extra: dict[str, str] | None = None) -> None:
        self.reply(
            refusal.status, {"error": {"code": refusal.code, "message": refusal.message}}, extra
        )

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """The standard library's own refusals (bad request line, 414, 431...) as our JSON."""
        if code == 501:
            code = 405
        self.close_connection = True
        words = message or self.responses.get(code, ("error",))[0]
        self.refuse(Refused(code, "bad_http", f"the HTTP request was refused: {words}"))

    # -- reading the request ----------------------------------------------------------------

    def read_body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            return self._read_chunked()
        length_text = self.headers.get("Content-Length", "0").strip() or "0"
        if not length_text.isascii() or not length_text.isdigit():
            self.close_connection = True
            raise bad("content-length is not a number")
        length = int(length_text)
        if length > BODY_LIMIT:
            self.close_connection = True
            raise Refused(413, "body_too_big", f"a request body is at most {BODY_LIMIT} bytes")
        return self.rfile.read(length)

    def _read_chunked(self) -> bytes:
        parts: list[bytes] = []
        total = 0
        while True:
            size_line = self.rfile.readline(1024).split(b";")[0].strip()
            try:
                size = int(size_line, 16)
            except ValueError:
                self.close_connection = True
                raise bad("a chunk size is not hexadecimal") from None
            if size == 0:
                while self.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                    pass
                return b"".join(parts)
            total += size
            if total > BODY_LIMIT:
                self.close_connection = True
                raise Refused(413, "body_too_big", f"a request body is at most {BODY_LIMIT} bytes")
            parts.append(self.rfile.read(size))
            self.rfile.readline(16)

    def json_object(self) -> dict[str, Any]:
        try:
            value = json.loads(self._body, parse_constant=_strict_constant)
        except (ValueError, RecursionError, UnicodeDecodeError):
            raise bad("the body is not JSON") from None
        if not isinstance(value, dict):
            raise bad("the body must be a JSON object")
        return value

    def query(self) -> dict[str, str]:
        found: dict[str, str] = {}
        for name, value in parse_qsl(urlsplit(self.path).query, keep_blank_values=True):
            if name in found:
                raise bad(f"query parameter {name!r} given twice")
            if value == "":
                raise bad(f"query parameter {name!r} has no value")
            found[name] = value
        return found

    def query_number(self, query: dict[str, str], name: str) -> int | None:
        if name not in query:
            return None
        if _DIGITS.fullmatch(query[name]) is None:
            raise bad(f"{name} must be written with 1 to 18 digits")
        return int(query[name])

    def token_wallet(self) -> int:
        """The wallet of the request's token: an ``Authorization: Bearer`` header, or (RFC 6750
        2.3) an ``access_token`` query parameter; both at once is refused (RFC 6750 3.1)."""
        values = self.headers.get_all("Authorization") or []
        given = [v for k, v in parse_qsl(urlsplit(self.path).query) if k == "access_token"]
        in_query = given[0] if len(given) == 1 else None
        if values and in_query is not None:
            raise Refused(400, "bad_request", "un seul jeton par requête, s'il vous plaît")
        match = _BEARER.fullmatch(values[0]) if len(values) == 1 else None
        token = match[1] if match is not None else in_query if not values else None
        wallet = None if token is None else self.vendor.ledger.wallet_of(token)
        if wallet is None:
            raise Refused(401, "not_authenticated", "jeton absent ou inconnu : « Bearer <clé> »")
        return wallet

    def own_wallet(self, text: str) -> int:
        wallet = self.token_wallet()
        if _WALLET.fullmatch(text) is None:
            raise Refused(404, "no_such_thing", "portefeuille inconnu")
        if int(text) != wallet:
            if self.vendor.ledger.wallet_exists(int(text)):
                raise Refused(403, "forbidden", "ce portefeuille n'est pas à vous")
            raise Refused(404, "no_such_thing", "portefeuille inconnu")
        return wallet

    def own_ticket(self, text: str) -> Ticket:
        wallet = self.token_wallet()
        ticket = self.vendor.ledger.ticket(text) if _ULID.fullmatch(text) else None
        if ticket is None:
            raise Refused(404, "no_such_thing", "ticket inconnu")
        if ticket.wallet_id != wallet:
            raise Refused(403, "forbidden", "ce ticket n'est pas à vous")
        return ticket

    def game_and_stake(self, body: dict[str, Any]) -> tuple[str, int]:
        game = body.get("game")
        if not isinstance(game, str):
            raise bad("game must be a string")
        stake = whole_number(body.get("stake_cents"), "stake_cents")
        if game not in STAKES:
            raise Refused(422, "unknown_game", f"we do not run a game called {game!r}")
        if stake not in STAKES[game]:
            raise Refused(422, "stake_not_offered", f"{game} is not sold at {stake} cents")
        return game, stake

    # -- routing ----------------------------------------------------------------------------

    def route_path(self) -> str:
        """The path as the router reads it: percent-decoded, slashes merged, no trailing slash
        (as many frameworks do); the token is checked the same whichever spelling came."""
        path = re.sub(r"/{2,}", "/", unquote(urlsplit(self.path).path, errors="strict"))
        return path.rstrip("/") or "/"

    def dispatch(self) -> None:
        try:
            self.connection.settimeout(WORK_S)
            self._body = self.read_body() if self.command in ("POST", "PUT", "PATCH") else b""
            path = self.route_path()
            allowed = []
            for method, pattern, action in ROUTES:
                match = pattern.fullmatch(path)
                if match is None:
                    continue
                if method == self.command:
                    handler: Callable[..., None] = getattr(self, action)
                    handler(*match.groups())
                    return
                allowed.append(method)
            if allowed:
                refusal = Refused(405, "wrong_method", f"use {', '.join(allowed)} here")
                self.refuse(refusal, {"allow": ", ".join(allowed)})
            else:
                self.refuse(Refused(404, "no_such_thing", "cette adresse n'existe pas"))
        except Refused as refusal:
            extra = {"www-authenticate": "Bearer"} if refusal.status == 401 else None
            self.refuse(refusal, extra)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        except UnicodeDecodeError:
            self.refuse(Refused(404, "no_such_thing", "cette adresse n'existe pas"))
        except Exception:
            traceback.print_exc(file=sys.stderr)
            self.close_connection = True
            self.refuse(Refused(500, "server_fault", "erreur interne, réessayez plus tard"))

    # -- endpoints --------------------------------------------------------------------------

    def describe(self) -> None:
        self.reply(200, self.vendor.describe())

    def evaluate(self) -> None:
        body = self.json_object()
        game, stake = self.game_and_stake(body)
        tickets = body.get("tickets")
        if not isinstance(tickets, list) or not 1 <= len(tickets) <= TICKETS_MOST:
            raise bad(f"tickets must be a list of 1 to {TICKETS_MOST} tickets")
        self.reply(
            200, {"results": self.vendor.evaluate(game, stake, tickets), "count": len(tickets)}
        )

    def blocks(self) -> None:
        query = self.query()
        game = query.get("game")
        if game is not None and game not in STAKES:
            raise Refused(422, "unknown_game", f"we do not run a game called {game!r}")
        stake = self.query_number(query, "stake_cents")
        self.reply(200, {"blocks": self.vendor.listing(game, stake)})

    def block(self, name: str) -> None:
        query = self.query()
        start = self.query_number(query, "start")
        count = self.query_number(query, "count")
        block = self.vendor.listed_block(name)
        if block is None:
            raise Refused(404, "no_such_thing", f"no block {name[:80]!r} is issued")
        first = min(start or 0, block.units)
        size = block.units - first if count is None else min(count, block.units - first)
        header = dict(block.header)
        header.update(start=first, count=size, served_by=self.vendor.name)
        self.send_response(200)
        self.send_header("content-type", "application/x-ndjson; charset=utf-8")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        self._chunk(json.dumps(header, sort_keys=True).encode() + b"\n")
        for piece in block.slice_bytes(first, size):
            self._chunk(piece)
        self.wfile.write(b"0\r\n\r\n")

    def _chunk(self, data: bytes) -> None:
        if data:
            self.wfile.write(b"%x\r\n" % len(data))
            self.wfile.write(data)
            self.wfile.write(b"\r\n")

    def open_account(self) -> None:
        body = self.json_object()
        cents = whole_number(body.get("balance_cents"), "balance_cents")
        if not 0 <= cents <= BALANCE_CEILING:
            raise bad(f"balance_cents must be 0 to {BALANCE_CEILING}")
        wallet, token = self.vendor.ledger.open_wallet(cents)
        self.reply(
            201,
            {"account_id": str(wallet), "token": token, "balance_cents": cents, "currency": "EUR"},
            {"location": f"/v1/accounts/{wallet}"},
        )

    def balance(self, text: str) -> None:
        wallet = self.own_wallet(text)
        cents = self.vendor.ledger.cents(wallet)
        self.reply(200, {"account_id": str(wallet), "balance_cents": cents, "currency": "EUR"})

    def buy(self, text: str) -> None:
        wallet = self.own_wallet(text)
        game, stake = self.game_and_stake(self.json_object())
        ticket, balance = self.vendor.buy(wallet, game, stake)
        answer = {
            "play_id": ticket.ulid,
            "game": game,
            "stake_cents": stake,
            "block_id": ticket.block_name,
            "index": ticket.unit,
            "balance_cents": balance,
            "created_at": ticket.bought_at,
        }
        self.reply(201, answer)

    def history(self, text: str) -> None:
        wallet = self.own_wallet(text)
        limit = self.query_number(self.query(), "limit")
        most = self.history_most
        if limit is not None and not 1 <= limit <= most:
            raise bad(f"limit must be 1 to {most}")
        page = limit or min(HISTORY_PAGE, most)
        plays = [
            {
                "play_id": t.ulid,
                "game": t.game,
                "stake_cents": t.stake,
                "block_id": t.block_name,
                "index": t.unit,
                "ticket": t.body,
                "prize_cents": t.prize,
                "created_at": t.bought_at,
                "finished": t.finished,
            }
            for t in self.vendor.ledger.recent(wallet, page)
        ]
        self.reply(200, {"plays": plays, "limit": page})

    def reveal(self, text: str) -> None:
        ticket = self.own_ticket(text)
        button = whole_number(self.json_object().get("button"), "button")
        if not 0 <= button < 18:
            raise bad("button must be 0 to 17")
        shown = self.vendor.reveal(ticket.ulid, button)
        answer = {
            "button": shown.button,
            "symbol": shown.letter,
            "symbol_name": SYMBOL_NAMES[shown.letter],
            "x2": shown.x2,
            "plus_one": shown.more > 0,
            "left_under_button": shown.more,
        }
        self.reply(200, answer)

    def auto(self, text: str) -> None:
        ticket = self.vendor.auto(self.own_ticket(text).ulid)
        result = self.vendor.wins(ticket)
        answer = {"play_id": ticket.ulid, "ticket": ticket.body, "game": ticket.game, **result}
        answer["wins"] = list(reversed(answer["wins"]))  # a set: any order
        self.reply(200, answer)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 64


def _stop(*_: object) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--db", type=Path, default=Path("indie-lotto.sqlite3"))
    parser.add_argument(
        "--no-warm-up",
        action="store_true",
        help="make each block when it is first needed, not the first ones at start",
    )
    parser.add_argument(
        "--history-most",
        type=int,
        default=HISTORY_MOST,
        help=f"the largest history limit taken, 400 beyond (default {HISTORY_MOST})",
    )
    options = parser.parse_args(argv)
    if options.history_most < 1:
        parser.error("--history-most must be 1 or more")
    Handler.vendor = Vendor(options.db)
    Handler.history_most = options.history_most
    if not options.no_warm_up:
        Handler.vendor.warm_up()
    try:
        server = Server((options.host, options.port), Handler)
    except OSError as exc:
        print(f"cannot listen on {options.host}:{options.port}: {exc}", file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, _stop)
    print(f"indie-lotto listening on http://{options.host}:{options.port}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
