"""The real SMTP server (tests/mail_server.py) the mail tests send to, and people who opted in."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from mail_server import SmtpServer

SITE = "https://cards.example.org"


@pytest.fixture
def smtp(settings: Any) -> Iterator[SmtpServer]:
    logging.getLogger("mail.log").setLevel(logging.WARNING)  # aiosmtpd's every command, otherwise
    with SmtpServer() as server:
        for name, value in server.settings().items():
            setattr(settings, name, value)
        settings.SITE_URL = SITE
        settings.NOTIFY_MAIL_GATHER_SECONDS = 0  # tests that gather say so
        yield server


@pytest.fixture
def subscriber(make_user: Callable[..., Any]) -> Callable[..., Any]:
    """subscriber("ana", kinds=[...]): a person with a verified address who opted in to these kinds (all four by
    default)."""
    def make(username: str, *, kinds: list[str] | None = None, verified: bool = True, **fields: Any) -> Any:
        email = f"{username}@example.org"
        return make_user(username, display_name=username.capitalize(), email=email,
                         email_verified=email if verified else "",
                         mail_kinds=["turn", "challenge", "tournament", "analysis"] if kinds is None else kinds,
                         **fields)
    return make
