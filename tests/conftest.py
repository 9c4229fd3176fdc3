"""Fixtures shared by every test package: the user factory (tests/factories.py), its password, and a temporary
media folder."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from factories import PASSWORD
from factories import make_user as _make_user


@pytest.fixture(autouse=True, scope="session")
def _fast_password_hashing() -> Iterator[None]:
    """MD5 instead of a million PBKDF2 rounds: creating a user costs microseconds, not half a second.

    Only this test process; a live server subprocess (the e2e tests) keeps the real hasher.
    """
    from django.test import override_settings

    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        yield


@pytest.fixture
def media_root(settings: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Uploads (avatars) go to a temporary folder for this test, never to the project's media/.

    Not autouse here, because Hypothesis refuses function-scoped fixtures on its tests; packages that
    store files make it autouse in their own conftest.
    """
    media = tmp_path_factory.mktemp("media")
    settings.MEDIA_ROOT = media
    yield media


@pytest.fixture
def password() -> str:
    return PASSWORD


@pytest.fixture
def make_user(db: None) -> Callable[..., Any]:
    """factories.make_user as a fixture, the database opened for it: make_user(), make_user("ada",
    display_name="Ada"), make_user(password=None) for unusable."""
    return _make_user
