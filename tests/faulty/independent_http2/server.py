"""The vendor's HTTP API (contract section 4) on its own asyncio server.

``python -m tests.faulty.independent_http2.server --port 8766 --db /tmp/indie2.journal``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from .desk import Desk, Refusal, whole
from .journal import Journal
from .pages import PAGE_UNITS, Block, PageStore
from .wire import Answer, Request, error_answer, make_connection_handler

DEFAULT_PAGE = 10
LARGEST_PAGE = 100_000
MOST_TICKETS = 1000
BEARER = re.compile(r"\s*bearer\s+(\S+)\s*", re.IGNORECASE)

ROUTES: list[tuple[str, re.Pattern[str], str]] = [
    ("GET", re.compile(r"/v1/implementation"), "implementation"),
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


class Api:
    def __init__(self, desk: Desk) -> None:
        self.desk = desk

    async def handle(self, request: Request) -> Answer:
        url = urlsplit(request.target)
        method = "GET" if request.method == "HEAD" else request.method
        allowed = []
        for route_method, pattern, name in ROUTES:
            found = pattern.fullmatch(url.path)
            if found is None:
                continue
            if route_method != method:
                allowed.append(route_method)
                continue
            query = dict(parse_qsl(url.query, keep_blank_values=True))
            try:
                answer: Answer = await getattr(self, name)(
                    request, query, *(unquote(g) for g in found.groups())
                )
            except Refusal as refusal:
                extra = {"www-authenticate": "Bearer"} if refusal.status == 401 else {}
                return error_answer(refusal.status, refusal.code, refusal.message, **extra)
            return answer
        if allowed:
            return error_answer(
                405,
                "method_not_here",
                f"{request.method} is not served on {url.path}",
                allow=", ".join(allowed),
            )
        return error_answer(404, "no_such_endpoint", f"nothing is served at {url.path}")

    # -- reading a request ------------------------------------------------------------------

    @staticmethod
    def _json(request: Request) -> dict[str, Any]:
        def refuse_constant(name: str) -> None:
            raise Refusal(400, "body_not_json", f"{name} is not a JSON number")

        try:
            body = json.loads(request.body.decode("utf-8"), parse_constant=refuse_constant)
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
            raise Refusal(400, "body_not_json", f"the body is not JSON: {exc}") from exc
        if not isinstance(body, dict):
            raise Refusal(400, "body_not_object", "the body must be a JSON object")
        return body

    def _token(self, request: Request) -> str:
        given = request.headers.get("authorization")
        if given is None:
            raise Refusal(401, "token_required", "send Authorization: Bearer <your token>")
        found = BEARER.fullmatch(given)
        if found is None or not self.desk.known_token(found.group(1)):
            raise Refusal(401, "token_rejected", "this bearer token opens no account")
        return found.group(1)

    @staticmethod
    def _count(query: dict[str, str], name: str) -> int | None:
        text = query.get(name, "")
        if text == "":
            return None
        if not text.isascii() or not text.isdigit():
            raise Refusal(400, "query_not_a_count", f"{name}={text!r} is not a whole number")
        return int(text)

    # -- endpoints --------------------------------------------------------------------------

    async def implementation(self, request: Request, query: dict[str, str]) -> Answer:
        return Answer(200, self.desk.describe())

    async def evaluate(self, request: Request, query: dict[str, str]) -> Answer:
        body = self._json(request)
        tickets = body.get("tickets")
        if not isinstance(tickets, list) or not 1 <= len(tickets) <= MOST_TICKETS:
            raise Refusal(
                400, "tickets_not_a_batch", f"tickets: a list of 1 to {MOST_TICKETS} tickets"
            )
        return Answer(200, self.desk.evaluate(body.get("game"), body.get("stake_cents"), tickets))

    async def blocks(self, request: Request, query: dict[str, str]) -> Answer:
        game = query.get("game") or None
        stake = self._count(query, "stake_cents")
        return Answer(200, self.desk.list_blocks(game, stake))

    async def block(self, request: Request, query: dict[str, str], block_id: str) -> Answer:
        block = self.desk.block(block_id)
        start = self._count(query, "start") or 0
        count = self._count(query, "count")
        if count is None:
            count = block.units - start
        if start >= block.units or count < 1 or start + count > block.units:
            raise Refusal(
                400,
                "slice_outside_block",
                f"units {start} to {start + count - 1} are not all in a block of {block.units}",
            )
        first = await self.desk.pages.page(block, start // PAGE_UNITS)
        header = {**first.header, "start": start, "count": count, "served_by": "indie2"}
        return Answer(
            200,
            stream=self._stream(block, header, start, count),
            content_type="application/x-ndjson",
        )

    async def _stream(
        self, block: Block, header: dict[str, Any], start: int, count: int
    ) -> AsyncIterator[bytes]:
        yield json.dumps(header, separators=(",", ":")).encode() + b"\r\n"
        index, end = start, start + count
        while index < end:
            number = index // PAGE_UNITS
            page = await self.desk.pages.page(block, number)
            self.desk.pages.prefetch(block, number + 1)
            last = min(end, (number + 1) * PAGE_UNITS)
            lines = page.lines[index - number * PAGE_UNITS : last - number * PAGE_UNITS]
            for at in range(0, len(lines), 5000):
                # JSON Lines with CRLF ends: the '\r' is whitespace after each JSON value
                yield b"".join(line.rstrip(b"\r\n") + b"\r\n" for line in lines[at : at + 5000])
            index = last

    async def open_account(self, request: Request, query: dict[str, str]) -> Answer:
        balance = whole(self._json(request).get("balance_cents"))
        if balance is None or not 0 <= balance <= 2**53 - 1:
            raise Refusal(
                400, "balance_invalid", "balance_cents: a whole number of cents, 0 or more"
            )
        opened = self.desk.open_account(balance)
        where = {"location": f"/v1/accounts/{opened['account_id']}"}
        return Answer(201, opened, extra_headers=where)

    async def balance(self, request: Request, query: dict[str, str], account_id: str) -> Answer:
        account = self.desk.account(account_id, self._token(request))
        return Answer(
            200, {"balance_cents": account.balance_cents, "account_id": account.account_id}
        )

    async def buy(self, request: Request, query: dict[str, str], account_id: str) -> Answer:
        token = self._token(request)
        self.desk.account(account_id, token)
        body = self._json(request)
        return Answer(
            201,
            await self.desk.buy(account_id, token, body.get("game"), body.get("stake_cents")),
        )

    async def history(self, request: Request, query: dict[str, str], account_id: str) -> Answer:
        token = self._token(request)
        self.desk.account(account_id, token)
        limit = self._count(query, "limit")
        if limit is None:
            limit = DEFAULT_PAGE
        if not 1 <= limit <= LARGEST_PAGE:
            raise Refusal(400, "limit_out_of_range", f"limit: 1 to {LARGEST_PAGE}")
        return Answer(200, self.desk.history(account_id, token, limit))

    async def reveal(self, request: Request, query: dict[str, str], play_id: str) -> Answer:
        token = self._token(request)
        self.desk.play_of(play_id, token)
        button = whole(self._json(request).get("button"))
        if button is None:
            raise Refusal(400, "button_missing", "button: a whole number, 0 to 17")
        return Answer(200, self.desk.reveal(play_id, token, button))

    async def auto(self, request: Request, query: dict[str, str], play_id: str) -> Answer:
        return Answer(200, self.desk.auto(play_id, self._token(request)))


async def serve(host: str, port: int, db: Path, warm_up: bool, one_open_ticket: bool) -> None:
    journal = Journal(db)
    desk = Desk(journal, PageStore(db.with_name(db.name + ".pages")), one_open_ticket)
    if warm_up:
        for shelf in desk.shelves.values():
            block = shelf.on_sale()
            await desk.pages.page(block, shelf.next_index // PAGE_UNITS)
    api = Api(desk)
    server = await asyncio.start_server(
        make_connection_handler(api.handle), host, port, limit=32 * 1024, backlog=512
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    print(f"indie2 serving http://{host}:{port} (journal {db})", file=sys.stderr, flush=True)
    async with server:
        await stop.wait()
    journal.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.faulty.independent_http2.server")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8766)
    parser.add_argument("--db", type=Path, required=True, help="the journal file")
    parser.add_argument(
        "--no-warm-up",
        action="store_true",
        help="make no page of units at start (each is made when first needed)",
    )
    parser.add_argument(
        "--one-open-ticket",
        action="store_true",
        help="refuse a play (409) while the account has a robots ticket not fully shown",
    )
    options = parser.parse_args(argv)
    asyncio.run(
        serve(
            options.host,
            options.port,
            options.db,
            not options.no_warm_up,
            options.one_open_ticket,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
