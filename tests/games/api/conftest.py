"""A daphne of the API tests' own (one per module), on the test database, and the bots' owner."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from factories import make_user
from servers import Daphne, server_env


def api_env(**extra: str) -> dict[str, str]:
    # A burst small enough to reach in a test; keep-alives often, so the streams' checks run within the tests.
    return server_env(**{"GAMES_API_BURST": "40", "GAMES_API_RATE": "4", "GAMES_API_KEEPALIVE": "0.5", **extra})


@pytest.fixture(scope="module")
def server(request: pytest.FixtureRequest, django_db_setup: Any, django_db_blocker: Any,
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daphne]:
    """A module's own daphne; the module's API_ENV (a dict) adds to its environment."""
    with django_db_blocker.unblock():
        env = api_env(**getattr(request.module, "API_ENV", {}))
    daphne = Daphne(env, Path(tmp_path_factory.mktemp("api")) / "daphne.log")
    yield daphne
    daphne.stop()


@pytest.fixture
def owner() -> Any:
    return make_user("owner", display_name="Owner")
