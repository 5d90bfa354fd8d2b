"""Nothing in a request says "harness" unless the lab asks (docs/http-api.md, "Nothing says
'harness'"): a run's requests come from its players' devices (``harness._clients``: OkHttp,
Dalvik's agent, URLSession, drawn from the run's seed), a lab names its traffic by the config
or ``certify --user-agent``, and no header, path, query or body of a run names the harness."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from harness import ConfigError, HttpAdapter, open_target
from harness._cli import main as cli_main
from harness._clients import OKHTTP_ORDER, URLSESSION_ORDER
from harness._config import build_config
from harness._http_adapter import DEFAULT_USER_AGENT
from tests.faulty._base import reference_adapter
from tests.faulty.certify import SEED, TEST_SETTINGS
from tests.faulty.http_bridge import Serving, create_app

#: handed to an xdist worker first (tests/conftest.py): five tests, whole runs over HTTP (30 s)
pytestmark = pytest.mark.early

LABELS = re.compile(rb"instantcert|harness|certif|conformance|probe", re.IGNORECASE)
REQUIREMENTS = (
    "robots.4.6.x2",
    "robots.4.1.stake_debited",
    "blocks.contract3.header",
    "protocol.refusals.status",
    "security.tokens.required",
)


#: the headers OkHttp sends (its BridgeInterceptor's, and an app's Authorization; a cookie jar's
#: Cookie): no Accept, which a gateway can single out (http_acceptless_traffic_wins_queued)
OKHTTP_HEADERS = {
    b"host",
    b"connection",
    b"accept-encoding",
    b"user-agent",
    b"authorization",
    b"content-type",
    b"content-length",
    b"cookie",
}


#: the orders OkHttp writes them in: the app's Authorization first, then its BridgeInterceptor's
OKHTTP_ORDERS = [
    (*auth, *body, b"host", b"connection", b"accept-encoding", *cookie, b"user-agent")
    for auth in ((), (b"authorization",))
    for body in ((), (b"content-type", b"content-length"))
    for cookie in ((), (b"cookie",))
]


#: the headers URLSession sends: OkHttp's, and Accept, Accept-Language
URLSESSION_HEADERS = {*OKHTTP_HEADERS, b"accept", b"accept-language"}
AGENTS = {
    "okhttp": re.compile(rb"okhttp/4\.\d+\.\d+"),
    "dalvik": re.compile(rb"Dalvik/2\.1\.0 \(Linux; U; Android \d+; [\w -]+ Build/[\w.]+\)"),
    "urlsession": re.compile(rb"\w+/\d+ CFNetwork/[\d.]+ Darwin/[\d.]+"),
}


def _family(agent: bytes) -> str:
    return next(name for name, form in AGENTS.items() if form.fullmatch(agent))


def _in_order(names: tuple[bytes, ...], order: tuple[str, ...]) -> bool:
    """``names`` are the request's own headers, then the client's in ``order``."""
    known = [n.decode() for n in names if n.decode() in order]
    first_known = next((i for i, n in enumerate(names) if n.decode() in order), len(names))
    return known == sorted(known, key=order.index) and all(
        n.decode() in order for n in names[first_known:]
    )


def _connection(scope: dict[str, Any], send: Any) -> tuple[object, ...]:
    """The connection a request came on: its client's address and port, and the server's
    transport object (uvicorn's request cycle holds it), since a port the kernel hands out
    again once a closed connection's is free would make two connections one."""
    transport = getattr(getattr(send, "__self__", None), "transport", None)
    return (*scope["client"], id(transport))


class Recording:
    """The reference over HTTP, every request's line, headers and body kept."""

    def __init__(self) -> None:
        self.adapter = reference_adapter(name="user-agent")
        self.app = create_app(self.adapter)
        self.requests: list[bytes] = []
        self.tokens_by_connection: dict[object, set[bytes | None]] = {}
        self.accepted_by_connection: dict[object, set[bytes | None]] = {}  # answered 2xx

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        head = [scope["method"].encode(), scope["raw_path"], scope["query_string"]]
        head += [name + b": " + value for name, value in scope["headers"]]
        token = dict(scope["headers"]).get(b"authorization")
        connection = _connection(scope, send)
        self.tokens_by_connection.setdefault(connection, set()).add(token)
        body = bytearray()

        async def watched(message: Any) -> None:
            if message["type"] == "http.response.start" and 200 <= message["status"] < 300:
                self.accepted_by_connection.setdefault(connection, set()).add(token)
            await send(message)

        async def recorded() -> Any:
            message = await receive()
            body.extend(message.get("body", b""))
            return message

        await self.app(scope, recorded, watched)
        self.requests.append(b"\n".join([*head, bytes(body)]))

    def header_names(self) -> set[bytes]:
        return {
            line.partition(b": ")[0].lower()
            for request in self.requests
            for line in request.split(b"\n")[3:-1]
        }

    @staticmethod
    def order(request: bytes) -> tuple[bytes, ...]:
        return tuple(line.partition(b": ")[0].lower() for line in request.split(b"\n")[3:-1])

    def user_agents(self) -> set[bytes]:
        return {
            line.partition(b": ")[2]
            for request in self.requests
            for line in request.split(b"\n")
            if line.lower().startswith(b"user-agent: ")
        }


@pytest.fixture
def recording() -> Any:
    target = Recording()
    with Serving(target, on_close=target.adapter.close) as url:
        target.url = url  # type: ignore[attr-defined]
        yield target


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """One run with the default User-Agent, recorded: what it sent is read by each test below
    (one certify, not one a test: each took about 20 s)."""
    target = Recording()
    with Serving(target, on_close=target.adapter.close) as url:
        assert _certify(url, tmp_path_factory.mktemp("default-user-agent")) == 0
    return target


def _certify(
    url: str, tmp_path: Path, *extra: str, requirements: tuple[str, ...] = REQUIREMENTS
) -> int:
    config = tmp_path / "config.yaml"
    config.write_text(json.dumps({"settings": TEST_SETTINGS}))
    argv = ["certify", "--target", url, "--profile", "quick", "--seed", str(SEED)]
    argv += ["--config", str(config), "--out", str(tmp_path / "out"), *extra]
    for rid in requirements:
        argv += ["--requirement", rid]
    return cli_main(argv)


def test_nothing_a_run_sends_names_the_harness(recorded: Any) -> None:
    recording = recorded
    assert len(recording.requests) > 50
    labelled = [r[:300] for r in recording.requests if LABELS.search(r)]
    assert not labelled
    assert recording.header_names() <= URLSESSION_HEADERS, recording.header_names()
    families: dict[str, set[bytes]] = {}
    for request in recording.requests:
        lines = request.split(b"\n")[3:-1]
        agent = next(
            v for n, _, v in (x.partition(b": ") for x in lines) if n.lower() == b"user-agent"
        )
        family = _family(agent)
        families.setdefault(family, set()).add(agent)
        names = recording.order(request)
        if family == "urlsession":
            assert _in_order(names, URLSESSION_ORDER), (agent, names)
        else:
            assert set(names) <= OKHTTP_HEADERS and names in set(OKHTTP_ORDERS), (agent, names)
            assert _in_order(names, OKHTTP_ORDER)
    # a population of clients, not one: each family, several versions
    assert set(families) == set(AGENTS), families
    assert sum(len(agents) for agents in families.values()) >= 6, families


def test_no_connection_carries_two_accounts(recorded: Any) -> None:
    """As on a phone, one account a connection: a gateway that took connections carrying
    several accounts' plays for a harness's (a fifth red team's open class) sees none (a
    request refused, without the account's token or with another, comes on the connections of
    the account it names: a twelfth red team's vendor checked the token once per connection,
    http_token_checked_once_per_connection); and an account's requests still share kept-alive
    connections (not one connection a request)."""
    recording = recorded
    per_connection = recording.accepted_by_connection
    assert not [t for t in per_connection.values() if len(t - {None}) > 1]
    tokens = {t for seen in per_connection.values() for t in seen if t is not None}
    assert len(tokens) > 10
    assert len(recording.tokens_by_connection) < len(recording.requests) / 2
    # a token-less or foreign-token request met a connection a good token had opened
    assert [t for t in recording.tokens_by_connection.values() if len(t) > 1]


def test_certify_user_agent_names_the_traffic(recording: Any, tmp_path: Path) -> None:
    # evaluate, blocks, accounts and plays: every kind of request carries it (every request
    # of the default run carries the default: test_nothing_a_run_sends_names_the_harness)
    named = ("robots.4.6.x2", "blocks.contract3.header", "robots.4.1.stake_debited")
    code = _certify(
        recording.url,
        tmp_path,
        "--user-agent",
        "ACME-lab-certification/2.0",
        requirements=named,
    )
    assert code == 0
    assert recording.user_agents() == {b"ACME-lab-certification/2.0"}


def test_the_config_key_and_its_bounds(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("user_agent: curl/8.5.0\n")
    assert build_config(config, {}).user_agent == "curl/8.5.0"
    assert build_config(config, {"user_agent": "x/1"}).user_agent == "x/1"  # the flag wins
    for bad in ("", "a\r\nX-Injected: 1", "é", " padded", "x" * 257, 7):
        config.write_text(json.dumps({"user_agent": bad}))
        with pytest.raises(ConfigError, match="user_agent must be 1 to 256 printable ASCII"):
            build_config(config, {})


def test_open_target_passes_the_user_agent() -> None:
    adapter = open_target("http://127.0.0.1:9", user_agent="lab/1")
    assert isinstance(adapter, HttpAdapter)
    assert adapter.session.headers["User-Agent"] == "lab/1"
    assert {adapter.devices.client(n).user_agent for n in range(12)} == {"lab/1"}
    default = HttpAdapter("http://127.0.0.1:9")
    assert default.session.headers["User-Agent"] == DEFAULT_USER_AGENT
    assert "python-requests" not in json.dumps(dict(default.session.headers))
