"""A tiny HTTP/1.1 server for the transport's tests: ``behaviour(target, method, path)``
answers (status, document), or (status, document, headers), or drops the connection without a
word (None); every request is logged, and the connections it accepted counted."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

Answer = tuple[int, object] | tuple[int, object, dict[str, str]] | None
Behaviour = Callable[["Target", str, str], Answer]


class Target:
    def __init__(self, behaviour: Behaviour) -> None:
        self.log: list[str] = []
        self.state: dict[str, object] = {}
        self.connections = 0  # connections accepted
        target = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                pass

            def setup(self) -> None:
                super().setup()
                target.connections += 1

            def _any(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                target.log.append(f"{self.command} {self.path}")
                answer = behaviour(target, self.command, self.path)
                if answer is None:
                    self.close_connection = True
                    return
                status, document, *more = answer
                body = json.dumps(document).encode()
                self.send_response(status)
                for name, value in (more[0] if more else {}).items():
                    self.send_header(name, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = _any

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()

    def count(self, request: str) -> int:
        return sum(line.startswith(request) for line in self.log)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
