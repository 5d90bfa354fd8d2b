"""A small HTTP/1.1 server on asyncio streams: one request a connection, every answer sent
with ``CONNECTION: close`` (header names in capitals), a JSON answer sized by
``CONTENT-LENGTH``, a block stream neither sized nor chunked but ended by closing the
connection (RFC 9112 6.3, rule 8).
"""

from __future__ import annotations

import asyncio
import json
import traceback
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from email.utils import formatdate
from typing import Any

HEAD_LIMIT = 32 * 1024
BODY_LIMIT = 8 * 1024 * 1024
READ_TIMEOUT_S = 15.0


@dataclass
class Request:
    method: str
    target: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Answer:
    status: int
    document: Any = None
    stream: AsyncIterator[bytes] | None = None
    content_type: str = "application/json"
    extra_headers: dict[str, str] = field(default_factory=dict)


def error_answer(status: int, code: str, message: str, **headers: str) -> Answer:
    return Answer(status, {"error": {"message": message, "code": code}}, extra_headers=headers)


class BadRequest(Exception):
    pass


async def _read_request(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> Request:
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.LimitOverrunError as exc:
        raise BadRequest("the request's head is too long") from exc
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
        raise BadRequest(f"not an HTTP/1.x request line: {lines[0][:80]!r}")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if not line:
            continue
        name, colon, value = line.partition(":")
        if not colon or not name or name != name.strip():
            raise BadRequest(f"a header line without a name: {line[:80]!r}")
        key = name.lower()
        headers[key] = f"{headers[key]}, {value.strip()}" if key in headers else value.strip()
    if headers.get("expect", "").lower() == "100-continue":
        writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        await writer.drain()
    body = b""
    if "chunked" in headers.get("transfer-encoding", "").lower():
        body = await _read_chunked(reader)
    elif "content-length" in headers:
        text = headers["content-length"]
        if not text.isdigit():
            raise BadRequest(f"CONTENT-LENGTH {text!r} is not a number")
        size = int(text)
        if size > BODY_LIMIT:
            raise BadRequest(f"a body of {size} bytes; at most {BODY_LIMIT} are read")
        body = await reader.readexactly(size)
    return Request(parts[0], parts[1], headers, body)


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    body = bytearray()
    while True:
        size_line = (await reader.readuntil(b"\r\n")).split(b";")[0].strip()
        try:
            size = int(size_line, 16)
        except ValueError as exc:
            raise BadRequest("a chunk size that is not hexadecimal") from exc
        if size == 0:
            while (await reader.readuntil(b"\r\n")) != b"\r\n":
                pass
            return bytes(body)
        body += await reader.readexactly(size)
        await reader.readexactly(2)
        if len(body) > BODY_LIMIT:
            raise BadRequest(f"a body over {BODY_LIMIT} bytes")


def _head(status: int, headers: dict[str, str]) -> bytes:
    lines = [f"HTTP/1.1 {status} "]  # an empty reason phrase (RFC 9112 4)
    lines += [f"{name.upper()}: {value}" for name, value in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def _takes_gzip(headers: dict[str, str]) -> bool:
    """gzip named acceptable (without a q=0), or no Accept-Encoding at all (RFC 9110 12.5.3)."""
    if "accept-encoding" not in headers:
        return True
    for item in headers["accept-encoding"].split(","):
        name, _, params = item.strip().partition(";")
        if name.strip().lower() in ("gzip", "x-gzip", "*"):
            return params.replace(" ", "").lower() not in ("q=0", "q=0.0", "q=0.00", "q=0.000")
    return False


Handler = Callable[[Request], Awaitable[Answer]]


def make_connection_handler(
    handle: Handler,
) -> Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]:
    async def serve_one(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head_only, asked = False, dict[str, str]()
        try:
            try:
                request = await asyncio.wait_for(_read_request(reader, writer), READ_TIMEOUT_S)
                head_only, asked = request.method == "HEAD", request.headers
                answer = await handle(request)
            except BadRequest as exc:
                answer = error_answer(400, "unreadable_http", str(exc))
            except (TimeoutError, asyncio.IncompleteReadError, ConnectionError):
                return
            except Exception as exc:  # a bug of the vendor: said so, the server stays up
                traceback.print_exc()
                answer = Answer(500, {"error": {"message": repr(exc), "code": "vendor_fault"}})
            headers = {
                "date": formatdate(usegmt=True),
                "server": "indie2/2",
                "connection": "close",
                "content-type": answer.content_type,
                **answer.extra_headers,
            }
            if answer.stream is None:
                body = json.dumps(answer.document, separators=(",", ":")).encode()
                headers["content-length"] = str(len(body))
                writer.write(_head(answer.status, headers) + (b"" if head_only else body))
                await writer.drain()
            else:
                squeeze = None
                if _takes_gzip(asked):
                    headers["content-encoding"] = "gzip"
                    squeeze = zlib.compressobj(1, zlib.DEFLATED, 31)
                writer.write(_head(answer.status, headers))
                if not head_only:
                    async for piece in answer.stream:
                        writer.write(piece if squeeze is None else squeeze.compress(piece))
                        await writer.drain()
                    if squeeze is not None:
                        writer.write(squeeze.flush())
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            try:
                writer.close()
                await writer.wait_closed()
            except (ConnectionError, OSError):
                pass

    return serve_one
