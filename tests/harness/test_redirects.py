"""Redirects the HTTP adapter follows (``harness._redirects``, row ``redirects``): to the
target's own origin and under its base URL only, 307/308 for any method, 301/302/303 for a GET;
each counted for one reservation."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from harness import HttpAdapter, ProtocolViolation
from harness._redirects import MAX_HOPS, Redirects, redirected
from tests.faulty._base import reference_adapter
from tests.faulty.wire_variants import WireServer

BASE = "http://127.0.0.1:8080"


@pytest.mark.parametrize(
    ("method", "status", "location", "expected"),
    [
        ("POST", 307, "/v1/accounts/", ("/v1/accounts/", {})),
        ("POST", 308, f"{BASE}/v1/accounts/", ("/v1/accounts/", {})),
        (
            "GET",
            301,
            "/v1/blocks/?game=robots&stake_cents=100",
            ("/v1/blocks/", {"game": "robots", "stake_cents": "100"}),
        ),
        ("GET", 302, "history/", ("/v1/accounts/a/history/", {})),  # relative to the request
        ("GET", 303, "HTTP://127.0.0.1:8080/v1/x", ("/v1/x", {})),  # the same origin, spelt so
        ("POST", 301, "/v1/accounts/", None),  # would become a GET
        ("POST", 303, "/v1/plays/p/", None),
        ("GET", 307, "http://127.0.0.1:8081/v1/accounts/a/history", None),  # another port
        ("GET", 307, "https://127.0.0.1:8080/v1/accounts/a/history", None),  # another scheme
        ("GET", 307, "http://169.254.169.254/latest/meta-data/", None),  # the lab's network
        ("GET", 307, "//evil.example/v1/x", None),
        ("GET", 307, None, None),
        ("GET", 304, "/v1/x", None),
    ],
)
def test_which_redirects_are_followed(
    method: str, status: int, location: str | None, expected: object
) -> None:
    assert redirected(BASE, method, "/v1/accounts/a/history", status, location) == expected


def test_a_redirect_outside_the_base_urls_path_is_not_followed() -> None:
    base = f"{BASE}/lottery/api"
    assert redirected(base, "GET", "/v1/blocks", 307, "/lottery/api/v1/blocks/") == (
        "/v1/blocks/",
        {},
    )
    assert redirected(base, "GET", "/v1/blocks", 307, "/admin/v1/blocks/") is None


def test_the_reservation_names_each_endpoint_and_status() -> None:
    redirects = Redirects()
    assert redirects.reservations() == []
    redirects.followed("POST /v1/accounts", 307)
    redirects.followed("POST /v1/accounts", 307)
    (reservation,) = redirects.reservations()
    assert reservation["basis"] == "redirects" and reservation["requirements"] == []
    assert "POST /v1/accounts answered 307 (2 times)" in reservation["message"]


def test_a_slash_redirect_is_followed_and_reserved() -> None:
    with WireServer(reference_adapter(name="slash"), slash_redirect=307) as url:
        adapter = HttpAdapter(url, timeout=10)
        try:
            assert adapter.describe()["name"]
            account = adapter.open_account(500)
            assert adapter.balance(account["account_id"], account["token"])["balance_cents"] == 500
        finally:
            adapter.close()
    (reservation,) = adapter.wire_reservations()
    assert reservation["basis"] == "redirects"
    assert "POST /v1/accounts answered 307 (1 times)" in reservation["message"]


class _Loop(BaseHTTPRequestHandler):
    """Every request answered 307 to ``/v1/loop``, or to another origin under ``/v1/away``."""

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        away = self.path.startswith("/v1/away")
        self.send_response(307)
        self.send_header("Location", "http://127.0.0.2:9/v1/x" if away else "/v1/loop")
        self.send_header("Content-Length", "0")
        self.end_headers()


@pytest.mark.parametrize("path", ["/v1/implementation", "/v1/away"])
def test_a_loop_or_a_redirect_elsewhere_ends_as_the_answer_it_is(path: str) -> None:
    """Redirected round and round, the redirect after ``MAX_HOPS`` is the answer; redirected
    to another origin, that one: no document of the contract (*error*), nothing followed
    there, nothing hangs."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Loop)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    adapter = HttpAdapter(f"http://127.0.0.1:{server.server_address[1]}", timeout=10)
    try:
        with pytest.raises(ProtocolViolation, match="got 307"):
            adapter._call("GET", path, "implementation")
        made = adapter.redirects.reservations()
        if path == "/v1/away":
            assert made == []
        else:
            assert f"answered 307 ({MAX_HOPS} times)" in made[0]["message"], made
    finally:
        adapter.close()
        server.shutdown()
        server.server_close()
