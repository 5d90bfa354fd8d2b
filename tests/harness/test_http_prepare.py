"""The HTTP adapter builds a plain request itself (``_plain_request``) rather than through
``PreparedRequest.prepare`` at each request: the request must be the one ``prepare`` makes,
byte for byte (URL, headers and their order as ``okhttp_ordered`` sets it, body), and
anything not plain goes through ``prepare`` as before."""

from __future__ import annotations

from urllib.parse import quote

import pytest
import requests

from harness import HttpAdapter
from harness._http_adapter import okhttp_ordered

BASES = [
    "http://127.0.0.1:8080",
    "http://127.0.0.1:8080/",
    "http://LOCALHOST:80/api",
    "https://example.com/a b/c",
    "http://[::1]:9000",
    "http://user:secret@127.0.0.1:8080",
    "http://127.0.0.1:8080/x/../y",
]
IDS = ["acc-1", "p_2.x~y", "a b", "a/b", "..", ".", "%61", "é€", "a?b#c", "a\r\nb", "-", ""]
QUERIES: list[dict[str, str]] = [{}, {"limit": "5"}, {"start": "0", "count": "10"}, {"a b": "c&d"}]


def full(
    adapter: HttpAdapter,
    method: str,
    path: str,
    body: object,
    query: dict[str, str],
    token: str | None,
) -> requests.PreparedRequest:
    headers = dict(adapter._headers)
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    data = None
    if body is not None:
        data = requests.compat.json.dumps(body, separators=(",", ":")).encode()
        headers["Content-Type"] = "application/json; charset=utf-8"
    prepared = requests.PreparedRequest()
    prepared.prepare(
        method=method, url=adapter.base_url + path, headers=headers, data=data, params=query
    )
    okhttp_ordered(prepared, adapter._host)
    return prepared


@pytest.mark.parametrize("base", BASES)
def test_each_request_is_the_one_prepare_makes(base: str) -> None:
    adapter = HttpAdapter(base)
    for ident in IDS:
        for path in (f"/v1/accounts/{quote(ident, safe='')}/plays", "/v1/evaluate", "/v1/blocks"):
            for method, body in (("GET", None), ("POST", {"game": "robots", "n": 1}), ("POST", {})):
                for query in QUERIES:
                    for token in (None, "tok-1", " lead", "x\r\ny", "é"):
                        try:
                            want = full(adapter, method, path, body, query, token)
                        except requests.exceptions.InvalidHeader:
                            with pytest.raises(requests.exceptions.InvalidHeader):
                                adapter._prepare(method, path, body, query, token)
                            continue
                        got = adapter._prepare(method, path, body, query, token)
                        assert got.url == want.url
                        assert list(got.headers.items()) == list(want.headers.items())
                        assert got.body == want.body
                        assert got.method == want.method


def test_a_plain_request_skips_prepare() -> None:
    adapter = HttpAdapter("http://127.0.0.1:8080")
    assert adapter._url_prefix == "http://127.0.0.1:8080"
    assert HttpAdapter("http://u:p@127.0.0.1:8080")._url_prefix is None
