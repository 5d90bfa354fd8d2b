"""Targets that attack the harness's memory: each answer must be refused within its limit
(docs/http-api.md, "Bounded answers"), never parsed into gigabytes.

``serve_payload(name, endpoints)`` serves the reference over HTTP API v1 with the answers of
``endpoints`` (method, path template) replaced by the payload ``name`` of ``PAYLOADS``, sent
gzip-encoded when the payload says so (``with serve_payload(...) as url``). The payloads are
the classes of the issue (29): a small gzip body inflating to megabytes of ``{"x":[{},{},...]}``,
nesting far deeper than any document of the contract, one huge string, a huge number of keys;
``size_mib`` scales each (the benchmark uses the issue's 24 MiB; the tests less).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass

from starlette.requests import Request
from starlette.responses import Response

from .hostile_transport import serve_broken
from .http_bridge import Serving

MIB = 1024 * 1024


def _gzip(data: bytes) -> bytes:
    squeezer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    return squeezer.compress(data) + squeezer.flush()


def empty_objects(size: int) -> bytes:
    """``{"x":[{},{},...]}`` of about ``size`` bytes: 24 bytes of memory per byte parsed."""
    return b'{"x":[' + b"{}," * (size // 3) + b"{}]}"


def deep(size: int) -> bytes:
    """``[[[...]]]`` nested ``size / 2`` levels."""
    return b"[" * (size // 2) + b"]" * (size // 2)


def huge_string(size: int) -> bytes:
    """A describe document whose name is ``size`` bytes long."""
    return b'{"name":"' + b"n" * size + b'","version":"1","games":{},"capabilities":[]}'


def many_keys(size: int) -> bytes:
    """``{"k0":0,"k1":0,...}`` of about ``size`` bytes: a distinct key every 8 bytes."""
    count = size // 10
    return b"{" + b",".join(b'"k%d":0' % n for n in range(count)) + b"}"


@dataclass(frozen=True)
class Payload:
    build: Callable[[int], bytes]
    gzip: bool


PAYLOADS: dict[str, Payload] = {
    "gzip bomb of empty objects": Payload(empty_objects, gzip=True),
    "empty objects": Payload(empty_objects, gzip=False),
    "deep nesting, gzip": Payload(deep, gzip=True),
    "huge string, gzip": Payload(huge_string, gzip=True),
    "many keys, gzip": Payload(many_keys, gzip=True),
}


def body_of(name: str, size: int) -> tuple[bytes, dict[str, str]]:
    """The payload's bytes as sent, and its headers."""
    payload = PAYLOADS[name]
    data = payload.build(size)
    if payload.gzip:
        return _gzip(data), {"Content-Encoding": "gzip"}
    return data, {}


def serve_payload(
    name: str, endpoints: tuple[tuple[str, str], ...], size_mib: float = 24.0, status: int = 200
) -> Serving:
    """The reference over HTTP API v1, ``endpoints`` answering the payload ``name``."""
    body, headers = body_of(name, int(size_mib * MIB))

    async def hostile(request: Request) -> Response:
        await request.body()
        return Response(body, status_code=status, media_type="application/json", headers=headers)

    return serve_broken({endpoint: hostile for endpoint in endpoints}, name=f"memory:{name}")
