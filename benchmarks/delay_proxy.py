"""A local HTTP proxy that adds a fixed delay to every request, for ``benchmarks/commands.py``.

It stands for a target far away on the network: each request waits ``--delay-ms`` (default 20)
before it is forwarded to ``UPSTREAM`` (e.g. ``instantcert serve``), then the answer streams
back unchanged (status, headers, body; chunked bodies stay chunked, so a streamed block stays
streamed). Connections are kept alive on both sides, one upstream connection per client
connection, as a real network path would carry them. Both sides' sockets send at once
(``TCP_NODELAY``, as the harness's and uvicorn's do): otherwise Nagle's algorithm holds an
answer's body until the client acknowledges its headers, and the client's delayed ACK adds
about 40 ms to every request, twice the delay this proxy stands for.

    python benchmarks/delay_proxy.py http://127.0.0.1:8080 [--port 8090] [--delay-ms 20]

It prints ``ready <url>`` once it listens. Standard library only.
"""

from __future__ import annotations

import argparse
import http.client
import socket
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

HOP_BY_HOP = {
    "connection",
    "keep-alive",
    "proxy-connection",
    "transfer-encoding",
    "te",
    "trailer",
    "upgrade",
}
READ_BYTES = 1 << 16


class _NoDelayConnection(http.client.HTTPConnection):
    def connect(self) -> None:
        super().connect()
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class DelayingHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    upstream_host = "127.0.0.1"
    upstream_port = 8080
    delay = 0.02

    def log_message(self, format: str, *args: object) -> None:  # quiet: a benchmark tool
        pass

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def _upstream(self) -> http.client.HTTPConnection:
        connection: http.client.HTTPConnection | None = getattr(self, "_connection", None)
        if connection is None:
            connection = _NoDelayConnection(self.upstream_host, self.upstream_port, timeout=300)
            self._connection = connection
        return connection

    def _forward(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
        time.sleep(self.delay)  # the added latency, once per request
        upstream = self._upstream()
        try:
            upstream.request(self.command, self.path, body=body, headers=headers)
            response = upstream.getresponse()
        except (OSError, http.client.HTTPException):
            upstream.close()  # a stale kept-alive connection: one fresh try
            upstream.request(self.command, self.path, body=body, headers=headers)
            response = upstream.getresponse()
        bodiless = response.status in (204, 304) or self.command == "HEAD"
        chunked = response.getheader("Content-Length") is None and not bodiless
        self.send_response(response.status, response.reason)
        for key, value in response.getheaders():
            if key.lower() not in HOP_BY_HOP:
                self.send_header(key, value)
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        while not bodiless:
            data = response.read1(READ_BYTES) if chunked else response.read(READ_BYTES)
            if not data:
                break
            if chunked:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            else:
                self.wfile.write(data)
        if chunked:
            self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = _forward


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("upstream", help="the target's base URL, e.g. http://127.0.0.1:8080")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8090)
    parser.add_argument("--delay-ms", type=float, default=20.0)
    args = parser.parse_args()
    target = urlsplit(args.upstream)
    if target.scheme != "http" or not target.hostname:
        parser.error(f"upstream {args.upstream!r}: expected http://host:port")
    DelayingHandler.upstream_host = target.hostname
    DelayingHandler.upstream_port = target.port or 80
    DelayingHandler.delay = args.delay_ms / 1000
    server = ThreadingHTTPServer((args.host, args.port), DelayingHandler)
    server.daemon_threads = True
    print(f"ready http://{args.host}:{server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        sys.stdout.flush()


if __name__ == "__main__":
    main()
