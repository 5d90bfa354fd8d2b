"""Schemathesis drives the live reference server from the project's own OpenAPI document.

Every check Schemathesis has (issue 29 item 7), on requests the document allows and on requests
it forbids: every answer documented (no 5xx, no status, content type or body outside the
schema), every request the document allows accepted (a stake the game does not sell, a slice
past the block, ``100.0`` for an integer are said so in the document), every request it forbids
refused (an empty or repeated query parameter, an integer past its maximum). Two passes per
operation: as a stranger (random ids, random or no token) and as an account's owner (its real
id, token and plays substituted), so the deep paths of each operation run too. The fast tier
draws a few examples per operation; ``--run-slow`` runs ``st run`` itself, every phase
(examples, coverage, fuzzing, stateful) and every check, as a lab would.
"""

from __future__ import annotations

import itertools
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis import GenerationMode
from schemathesis.checks import CHECKS, load_all_checks

from reference._server import ServerThread, openapi_bytes
from reference._service import GameService

from ._live import SEED

EXAMPLES = 10  # per operation and pass: the fast tier stays well under a minute
MORE = ("--max-examples", "50", "--no-color")  # the slow tier's st run


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
schema.config.generation.update(modes=list(GenerationMode))  # allowed and forbidden requests


def test_every_check_runs() -> None:
    """No check is left out: all registered ones but the response-time limit (off unless a
    limit is given; timing is no test's business) are enabled for every operation."""
    load_all_checks()
    names = set(CHECKS.get_all_names()) - {"max_response_time"}
    assert {"negative_data_rejection", "positive_data_acceptance", "use_after_free"} <= names
    for name in names:
        assert schema.config.checks.get_by_name(name=name).enabled, name


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
)
def test_as_a_stranger(case: Any, live_url: str) -> None:
    case.call_and_validate(base_url=live_url, timeout=30)  # every check enabled


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
    case.call_and_validate(base_url=live_url, headers=owner.headers, timeout=30)


def test_the_document_is_loadable_and_complete(tmp_path: Path) -> None:
    service = GameService(tmp_path / "ref.sqlite3", seed=SEED)
    with ServerThread(service) as server:
        loaded = schemathesis.openapi.from_url(f"{server.url}/openapi.json")
        operations = list(loaded.get_all_operations())
    service.close()
    assert len(operations) == 10
    assert all(type(result).__name__ == "Ok" for result in operations)


@pytest.mark.slow
def test_st_run_every_phase_and_check(tmp_path: Path) -> None:
    """The whole Schemathesis CLI run a lab would make against ``instantcert serve``: every
    phase, every check, positive and negative data, as a stranger."""
    import shutil
    import subprocess

    st = shutil.which("st") or str(Path(sys.executable).with_name("st"))
    service = GameService(tmp_path / "ref.sqlite3", seed=SEED)
    with ServerThread(service) as server:
        done = subprocess.run(
            [st, "run", f"{server.url}/openapi.json", "--checks", "all", "--seed", "1", *MORE],
            capture_output=True,
            text=True,
            timeout=1800,
            check=False,
        )
    service.close()
    assert done.returncode == 0, done.stdout[-6000:]
