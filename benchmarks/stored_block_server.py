"""A minimal HTTP API v1 target that serves one stored block file, for ``benchmarks/audit.py``.

It answers only what the block checks ask (contract 4, capability ``blocks``):
``GET /v1/implementation``, ``GET /v1/blocks?game=&stake_cents=`` and
``GET /v1/blocks/{block_id}?start=&count=``, the last as ``application/x-ndjson`` with the
file's own bytes (decompressed once, at start). The bytes exist before they are asked for, as
in any implementation that stores its blocks, so an HTTP audit against it measures the
harness's HTTP path, not a generator's speed (the reference server computes every unit it
sends: issue 4 says its blocks are never stored).

    python benchmarks/stored_block_server.py FILE [--host 127.0.0.1] [--port 8765]

It prints ``ready <url>`` once it listens. Standard library and numpy only.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import numpy as np

SEND_BYTES = 1 << 20  # a body is written a mebibyte at a time


class StoredBlock:
    """One block document in memory, with the offset of every line's start."""

    def __init__(self, path: Path) -> None:
        raw = path.read_bytes()
        self.data = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
        if not self.data.endswith(b"\n"):
            self.data += b"\n"
        ends = np.flatnonzero(np.frombuffer(self.data, np.uint8) == 10)
        self.starts = np.concatenate(([0], ends + 1)).astype(np.int64)  # line k starts here
        self.header_line = self.data[: int(self.starts[1])]
        self.header: dict[str, Any] = json.loads(self.header_line)
        self.count = len(self.starts) - 2  # unit lines (the last start is the end of the data)
        if self.count != self.header["count"] or self.header["start"] != 0:
            raise SystemExit(f"{path}: not a whole block ({self.count} unit lines)")

    def document(self, start: int | None, count: int | None) -> tuple[bytes, memoryview]:
        """(header line, unit lines) of the slice asked for; the stored header when whole."""
        first = 0 if start is None else start
        size = self.count - first if count is None else count
        if first < 0 or size < 0 or first + size > self.count:
            raise IndexError(
                f"the block holds units [0, {self.count}), not [{first}, {first + size})"
            )
        header = self.header_line
        if (first, size) != (0, self.count):
            header = json.dumps({**self.header, "start": first, "count": size}).encode() + b"\n"
        lo, hi = int(self.starts[first + 1]), int(self.starts[first + size + 1])
        return header, memoryview(self.data)[lo:hi]


def handler_for(block: StoredBlock) -> type[BaseHTTPRequestHandler]:
    game, stake, block_id = (
        block.header["game"],
        block.header["stake_cents"],
        block.header["block_id"],
    )

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive: every answer has a Content-Length

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _json(self, status: int, document: object) -> None:
            body = json.dumps(document).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _error(self, status: int, code: str, message: str) -> None:
            self._json(status, {"error": {"code": code, "message": message}})

        def do_GET(self) -> None:
            url = urlsplit(self.path)
            query = {k: v[-1] for k, v in parse_qs(url.query).items()}
            if url.path == "/v1/implementation":
                self._json(
                    200,
                    {
                        "name": "stored block",
                        "version": "0",
                        "games": {game: {"stakes_cents": [stake]}},
                        "capabilities": ["blocks"],
                    },
                )
            elif url.path == "/v1/blocks":
                match = query.get("game") == game and query.get("stake_cents") == str(stake)
                entry = {"block_id": block_id, "game": game, "stake_cents": stake}
                self._json(200, {"blocks": [{**entry, "units": block.count}] if match else []})
            elif url.path.startswith("/v1/blocks/"):
                if unquote(url.path.removeprefix("/v1/blocks/")) != block_id:
                    self._error(404, "unknown_block", f"this server holds {block_id!r} only")
                    return
                try:
                    start, count = (
                        None if query.get(k) is None else int(query[k]) for k in ("start", "count")
                    )
                    header, units = block.document(start, count)
                except (ValueError, IndexError) as exc:
                    self._error(404, "out_of_range", str(exc))
                    return
                self.send_response(200)
                self.send_header("Content-Type", "application/x-ndjson")
                self.send_header("Content-Length", str(len(header) + len(units)))
                self.end_headers()
                self.wfile.write(header)
                for at in range(0, len(units), SEND_BYTES):
                    self.wfile.write(units[at : at + SEND_BYTES])
            else:
                self._error(404, "not_found", f"no {url.path!r} here")

    return Handler


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path, help="a whole block, .jsonl or .jsonl.gz")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    args = parser.parse_args()
    block = StoredBlock(args.file)
    server = ThreadingHTTPServer((args.host, args.port), handler_for(block))
    server.daemon_threads = True
    print(f"ready http://{args.host}:{server.server_port}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    sys.exit(0)


if __name__ == "__main__":
    main()
