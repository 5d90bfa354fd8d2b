"""Schemathesis drives the live reference server from the project's own OpenAPI document.

Every answer must be documented: no 5xx, no status, content type or body outside the schema.
Two passes per operation: as a stranger (random ids, random or no token) and as an account's
owner (its real id, token and plays substituted), so the deep paths of each operation run too.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from reference._server import ServerThread, openapi_bytes
from reference._service import GameService

from ._live import SEED

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]
EXAMPLES = 20


class Owner:
    """An account with plays of both games, whose ids replace the generated ones."""

    def __init__(self, url: str) -> None:
        opened = requests.post(f"{url}/v1/accounts", json={"balance_cents": 5_000}, timeout=10)
        self.account_id: str = opened.json()["account_id"]
        self.headers = {"Authorization": f"Bearer {opened.json()['token']}"}
        plays = [
            requests.post(
                f"{url}/v1/accounts/{self.account_id}/plays",
                json={"game": game, "stake_cents": 100},
                headers=self.headers,
                timeout=10,
            ).json()["play_id"]
            for game in ("robots", "robots", "eldorado")
        ]
        self.plays = itertools.cycle(plays)


@pytest.fixture(scope="module")
def live_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    service = GameService(tmp_path_factory.mktemp("schemathesis") / "ref.sqlite3", seed=SEED)
    with ServerThread(service) as server:
        yield server.url
    service.close()


@pytest.fixture(scope="module")
def owner(live_url: str) -> Owner:
    return Owner(live_url)


# the shipped document (the server serves these very bytes: test_server checks it)
schema = schemathesis.openapi.from_dict(json.loads(openapi_bytes()))


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
)
def test_as_a_stranger(case: Any, live_url: str) -> None:
    case.call_and_validate(base_url=live_url, checks=CHECKS, timeout=30)


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
)
def test_as_the_owner(case: Any, live_url: str, owner: Owner) -> None:
    parameters = case.path_parameters or {}
    if "account_id" in parameters:
        parameters["account_id"] = owner.account_id
    if "play_id" in parameters:
        parameters["play_id"] = next(owner.plays)
    case.call_and_validate(base_url=live_url, checks=CHECKS, headers=owner.headers, timeout=30)


def test_the_document_is_loadable_and_complete(tmp_path: Path) -> None:
    service = GameService(tmp_path / "ref.sqlite3", seed=SEED)
    with ServerThread(service) as server:
        loaded = schemathesis.openapi.from_url(f"{server.url}/openapi.json")
        operations = list(loaded.get_all_operations())
    service.close()
    assert len(operations) == 10
    assert all(type(result).__name__ == "Ok" for result in operations)
