"""The reference server never answers 5xx, whatever the path, id or query (issue 11).

Unknown paths and trailing slashes get the 404 error document (no redirect, no empty body);
ids and query numbers are parsed with bounds, so a block id with a 5 000-digit number or a
``start`` of 10**30 is a 4xx error document too. A hypothesis test throws random paths, ids
and queries at a live server.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
import requests
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reference._server import ServerThread
from reference._service import GameService

from ._live import SEED


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    service = GameService(tmp_path_factory.mktemp("hostile") / "ref.sqlite3", seed=SEED)
    with ServerThread(service) as server:
        yield server.url
    service.close()


def assert_error_document(response: requests.Response) -> None:
    assert response.status_code < 500, (response.status_code, response.text[:300])
    if response.status_code >= 400:
        assert response.headers["content-type"].startswith("application/json"), response.headers
        document = response.json()
        assert set(document) == {"error"}, document
        assert isinstance(document["error"]["code"], str)
        assert isinstance(document["error"]["message"], str)


@pytest.mark.parametrize(
    "path",
    [
        "/v1/implementation/",
        "/v1/blocks/",
        "/v1/accounts/",
        "/openapi.json/",
        "/v2/implementation",
        "/",
        "//v1/implementation",
    ],
)
def test_unknown_paths_and_trailing_slashes_get_the_404_document(url: str, path: str) -> None:
    response = requests.get(url + path, timeout=10, allow_redirects=False)
    assert response.status_code == 404, (response.status_code, response.text)
    assert response.json()["error"]["code"] == "not_found"


@pytest.mark.parametrize(
    "path",
    [
        "/v1/blocks/robots-100-" + "9" * 5000,
        "/v1/blocks/robots-100-" + "9" * 13,
        "/v1/blocks/robots-100-0001?start=" + "9" * 30,
        "/v1/blocks/robots-100-0001?start=1e5",
        "/v1/blocks/robots-100-0001?count=-1",
        "/v1/blocks/robots-100-0001?start=%00",
        "/v1/blocks?stake_cents=" + "1" * 5000,
        "/v1/blocks/%ff%fe",
        "/v1/accounts/" + "x" * 5000 + "/history?limit=1e999",
    ],
)
def test_huge_or_odd_ids_and_queries_are_4xx_documents(url: str, path: str) -> None:
    response = requests.get(url + path, timeout=10, allow_redirects=False)
    assert 400 <= response.status_code < 500, (response.status_code, response.text[:200])
    assert_error_document(response)


SEGMENTS = st.sampled_from(
    [
        "v1",
        "blocks",
        "accounts",
        "plays",
        "implementation",
        "evaluate",
        "history",
        "reveal",
        "auto",
        "robots-100-0001",
        "eldorado-750-0002",
        "",
        "..",
        "%00",
        "%ff",
        "9" * 40,
    ]
) | st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=30)
QUERY = st.dictionaries(
    st.sampled_from(["start", "count", "limit", "game", "stake_cents", "x"]),
    st.one_of(
        st.integers(min_value=-(10**40), max_value=10**40).map(str),
        st.sampled_from(["1e5", "NaN", "-0", "", "0x10", " 1", "１２"]),
        st.text(max_size=20),
    ),
    max_size=3,
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    method=st.sampled_from(["GET", "POST", "HEAD", "DELETE"]),
    segments=st.lists(SEGMENTS, min_size=1, max_size=5),
    query=QUERY,
    trailing=st.booleans(),
)
def test_no_path_id_or_query_gets_a_5xx(
    url: str, method: str, segments: list[str], query: dict[str, str], trailing: bool
) -> None:
    path = "/" + "/".join(requests.utils.quote(s, safe="%") for s in segments)
    path += "/" if trailing else ""
    response = requests.request(
        method, url + path, params=query, json={}, timeout=10, allow_redirects=False
    )
    if method == "HEAD":
        assert response.status_code < 500
    else:
        assert_error_document(response)


@pytest.mark.parametrize(
    "body",
    [
        b'{"game": "robots", "stake_cents": NaN, "tickets": ["x"]}',
        b'{"game": "robots", "stake_cents": 1e99999, "tickets": ["x"]}',
        b'{"game": "robots", "stake_cents": ' + b"9" * 5000 + b', "tickets": ["x"]}',
        b'{"game": "robots", "stake_cents": 100, "tickets": ' + b"[" * 100_000 + b"]}",
        b"\xef\xbb\xbf{}",
        b'{"game": "robots\xff"}',
    ],
)
def test_a_body_that_is_not_strict_json_is_400(url: str, body: bytes) -> None:
    response = requests.post(
        f"{url}/v1/evaluate", data=body, headers={"Content-Type": "application/json"}, timeout=10
    )
    assert response.status_code == 400, response.text[:300]
    assert response.json()["error"]["code"] == "malformed_request"


def test_a_client_gone_before_its_bodys_end_is_no_server_error(
    url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A POST whose connection closes before the ``Content-Length`` it announced: the server
    logged "Exception in ASGI application" and a traceback (``ClientDisconnect``); now it is
    a malformed request like any other (no one is left to read the 400), and nothing is done."""
    import socket
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    with caplog.at_level("ERROR"):
        with socket.create_connection((parts.hostname, parts.port), timeout=10) as sock:
            sock.sendall(
                b"POST /v1/accounts HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                b"Content-Length: 1000\r\n\r\n" + b'{"balance_cents":'
            )
        time.sleep(0.5)  # the server meets the close (its error, if any, logged meanwhile)
        response = requests.get(url + "/v1/implementation", timeout=10)  # after it, served
    assert response.status_code == 200
    errors = [r for r in caplog.records if r.levelname == "ERROR"]
    assert not errors, [r.getMessage() for r in errors]
