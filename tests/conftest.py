"""Fixtures shared by every test package: a user factory, its password, and a temporary media folder."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

# The password every factory-made user gets unless told otherwise: long and uncommon, so validators accept it.
PASSWORD = "felt-and-cards-42"

_counter = itertools.count(1)


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
    """Create users: make_user(), make_user("ada", display_name="Ada"), make_user(password=None) for unusable.

    Every keyword is a User field; username defaults to a fresh "player-N", the password to PASSWORD.
    """
    from django.contrib.auth import get_user_model

    user_model = get_user_model()

    def make(username: str | None = None, *, password: str | None = PASSWORD, **fields: Any) -> Any:
        username = username or f"player-{next(_counter)}"
        user = user_model(username=username, **fields)
        if password is None:
            user.set_unusable_password()
        else:
            user.set_password(password)
        user.save()
        return user

    return make
