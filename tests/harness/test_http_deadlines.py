"""Every HTTP request ends by its deadline: slow headers, silent servers, endless bodies; an
endpoint that keeps timing out is not waited on again (the circuit breaker)."""

from __future__ import annotations

import datetime as dt
import ipaddress
import json
import socket
import ssl
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from harness import ConfigError, HttpAdapter, TargetTimeout
from harness._clients import Devices
from harness._transport import Breaker, endpoint
from tests.faulty.hostile_transport import (
    DESCRIBE,
    RawTarget,
    endless_http10,
    never_read,
    read_request,
    slow_headers,
)

TIMEOUT = 0.6
IN_TIME = 10.0  # the deadline of a call that must succeed: ample on a busy machine


def timed_out(call: Callable[[], object]) -> TargetTimeout:
    """The timeout ``call`` ends in. Each test's target would go on far past the deadline, so
    the call returns at all only if a deadline cut it (and it never returning is the hang
    guard's: pyproject.toml); what the message says shows which deadline it was. No test
    asserts a duration."""
    with pytest.raises(TargetTimeout) as info:
        call()
    return info.value


def adapter(url: str, timeout: float = TIMEOUT, **options: object) -> HttpAdapter:
    return HttpAdapter(url, timeout=timeout, backoff=0.01, **options)  # type: ignore[arg-type]


def test_headers_one_byte_at_a_time_are_cut_at_the_deadline() -> None:
    # each byte well inside the read timeout: only a total deadline can end this
    with RawTarget(slow_headers(0.1)) as url:
        fault = timed_out(adapter(url).describe)
    assert f"no complete answer within {TIMEOUT:g} s" in str(fault)


def test_the_same_headers_in_time_are_read() -> None:
    with RawTarget(slow_headers(0.001)) as url:
        assert adapter(url, IN_TIME, breaker_after=0).describe() == json.loads(DESCRIBE)


def test_a_server_that_never_reads_times_out() -> None:
    with RawTarget(never_read) as url:
        fault = timed_out(adapter(url).describe)
    assert "no complete answer" in str(fault)


def test_a_connection_never_accepted_times_out() -> None:
    target = RawTarget(never_read, accept=False)
    with target as url:
        timed_out(adapter(url).describe)
    assert target.connections == 0


def test_http10_without_length_that_never_ends_times_out() -> None:
    with RawTarget(endless_http10) as url:
        fault = timed_out(adapter(url).describe)
    assert "no complete answer" in str(fault) and "bytes of the body received" in str(fault)


def test_a_json_body_that_trickles_is_cut_at_the_deadline() -> None:
    body = json.dumps({"blocks": []}).encode()

    def trickle(conn: socket.socket, stop: threading.Event) -> None:
        read_request(conn)
        head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
        conn.sendall(head % len(body))
        for byte in body:  # under the floor's grace: only the total deadline cuts it
            if stop.wait(0.1):
                return
            conn.sendall(bytes([byte]))

    with RawTarget(trickle) as url:
        fault = timed_out(lambda: adapter(url).list_blocks("robots", 100))
    # the total deadline, or on a busy machine the floor once its grace is over: either cuts it
    assert "no complete answer within" in str(fault) or "below the floor" in str(fault)


def test_a_block_body_is_held_to_the_floor_not_to_the_deadline() -> None:
    """A stream may take longer than the deadline in all; only its headers must come in time."""
    header = {
        "format": "block/1",
        "game": "robots",
        "stake_cents": 100,
        "block_id": "b",
        "units": 5,
        "start": 0,
        "count": 5,
    }
    unit = b'{"index":0,"prize_cents":0,"ticket":"t"}\n'

    def paced(conn: socket.socket, stop: threading.Event) -> None:
        read_request(conn)
        conn.sendall(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\nConnection: close\r\n\r\n"
            + json.dumps(header).encode()
            + b"\n"
        )
        for _ in range(5):
            if stop.wait(0.25):
                return
            conn.sendall(unit)
        conn.close()

    assert TIMEOUT < 5 * 0.25  # the body takes longer than the deadline, by construction
    with RawTarget(paced) as url:
        lines = list(adapter(url, min_rate=1).read_block("b", 0, 5).lines())
    assert len(lines) == 5


def test_the_breaker_stops_waiting_on_an_endpoint_that_keeps_timing_out() -> None:
    with RawTarget(never_read) as url:
        target = adapter(url)
        first = timed_out(target.describe)
        timed_out(target.describe)
        fault = timed_out(target.describe)
        assert "not called" in str(fault) and str(first) in str(fault)  # not waited on
        assert "GET /v1/implementation" in str(fault)
        # another endpoint is still called (and waited on: cut at the deadline)
        other = timed_out(lambda: target.balance("a", "t"))
        assert "not called" not in str(other) and "no complete answer" in str(other)


def test_the_breaker_counts_timeouts_in_a_row() -> None:
    breaker = Breaker(2)
    breaker.timed_out("GET /x", "first")
    breaker.answered("GET /x")  # an answer in between: the count starts again
    breaker.timed_out("GET /x", "second")
    breaker.check("GET /x")
    breaker.timed_out("GET /x", "third")
    with pytest.raises(TargetTimeout, match="the first time: second"):
        breaker.check("GET /x")
    breaker.answered("GET /x")  # once open, it stays open
    with pytest.raises(TargetTimeout):
        breaker.check("GET /x")
    Breaker(0).check("GET /x")  # 0: never open


@pytest.mark.parametrize(
    ("method", "path", "key"),
    [
        ("GET", "/v1/implementation", "GET /v1/implementation"),
        ("GET", "/v1/blocks/robots-100-0001", "GET /v1/blocks/{block_id}"),
        ("POST", "/v1/accounts/a%2F1/plays", "POST /v1/accounts/{account_id}/plays"),
        ("POST", "/v1/plays/p-1/reveal", "POST /v1/plays/{play_id}/reveal"),
    ],
)
def test_endpoint_templates(method: str, path: str, key: str) -> None:
    assert endpoint(method, path) == key


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:99999", "http://:80", "http://127.0.0.1:0", "ftp://x", "http://"]
)
def test_an_impossible_url_is_a_config_error(url: str) -> None:
    with pytest.raises(ConfigError, match="target"):
        HttpAdapter(url)


def _self_signed(tmp_path: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and its key, as PEM files."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(1)
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_file, key_file


def test_over_tls_too_slow_headers_are_cut_at_the_deadline(tmp_path: Path) -> None:
    cert_file, key_file = _self_signed(tmp_path)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)

    def over_tls(delay_s: float) -> Callable[[socket.socket, threading.Event], None]:
        slow = slow_headers(delay_s)
        return lambda conn, stop: slow(context.wrap_socket(conn, server_side=True), stop)

    with RawTarget(over_tls(0.0001)) as url:  # TLS works, the certificate verified
        target = adapter(url.replace("http://", "https://"), IN_TIME, verify=str(cert_file))
        assert target.describe() == json.loads(DESCRIBE)
    with RawTarget(over_tls(0.1)) as url:
        target = adapter(url.replace("http://", "https://"), verify=str(cert_file))
        fault = timed_out(target.describe)
    assert "no complete answer within" in str(fault)


def test_through_an_http_proxy_too_slow_headers_are_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    with RawTarget(slow_headers(0.1)) as proxy:  # the proxy itself answers too slowly
        monkeypatch.setenv("HTTP_PROXY", proxy)
        monkeypatch.setenv("NO_PROXY", "")
        monkeypatch.delenv("no_proxy", raising=False)
        monkeypatch.delenv("http_proxy", raising=False)
        fault = timed_out(adapter("http://target.invalid:8080").describe)
    assert "no complete answer within" in str(fault)


def test_a_kept_alive_connection_outlives_the_deadlines_of_earlier_requests() -> None:
    """A deadline ends with its answer: it never shuts a pooled connection reused later."""
    target = RawTarget(slow_headers(0.0))
    with target as url:
        client = HttpAdapter(url, timeout=0.3, breaker_after=0)
        for _ in range(8):  # 8 x 0.1 s: well past the first requests' deadlines
            assert client.describe() == json.loads(DESCRIBE)
            time.sleep(0.1)
        client.close()
    # the requests of no account come from the run's few devices of no account, each on its
    # connection (harness._clients.Devices.TOOLS): 8 requests, each device's connection reused
    assert target.connections <= Devices.TOOLS
