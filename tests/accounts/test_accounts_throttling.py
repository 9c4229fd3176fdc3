"""Sign-in throttling (django-axes): five failures from one address, or for one username, lock it out."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import Any

import pytest
from django.conf import settings
from django.urls import reverse

pytestmark = pytest.mark.django_db


def attempt(client: Any, username: str, password: str, ip: str) -> Any:
    return client.post(reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=ip)


def is_lockout(response: Any) -> bool:
    return response.status_code == 429 and "Too many sign-in attempts" in response.content.decode()


def test_settings_lock_out_by_address_and_by_username_separately() -> None:
    assert settings.AXES_FAILURE_LIMIT == 5
    # Two separate criteria (a list of strings), not one combined [["ip_address", "username"]].
    assert settings.AXES_LOCKOUT_PARAMETERS == ["ip_address", "username"]
    assert settings.AXES_LOCKOUT_TEMPLATE == "registration/lockout.html"
    assert settings.AUTHENTICATION_BACKENDS[0].startswith("axes.backends.")
    assert settings.MIDDLEWARE[-1] == "axes.middleware.AxesMiddleware"


def test_five_failures_from_one_address_lock_it_out(client: Any, make_user: Callable[..., Any], password: str) -> None:
    make_user("victim")
    ip = "203.0.113.7"
    for n in range(4):
        response = attempt(client, f"guess-{n}", "wrong", ip)
        assert response.status_code == 200, n
        assert "Please enter a correct username" in html.unescape(response.content.decode())
    fifth = attempt(client, "guess-4", "wrong", ip)
    assert is_lockout(fifth)
    page = html.unescape(re.sub(r"<[^>]+>", "", fifth.content.decode()))
    assert "Please try again later: in 15 minutes." in page
    assert "after 5 failed attempts" in page
    assert 'href="/static/css/site.css"' in fifth.content.decode()  # a full page of the site, not a bare message

    # Even the right password for another account is refused from that address now...
    assert is_lockout(attempt(client, "victim", password, ip))
    # ...but that account still signs in from elsewhere.
    response = attempt(client, "victim", password, "198.51.100.20")
    assert response.status_code == 302


def test_five_failures_for_one_username_lock_it_out_from_any_address(
    client: Any, make_user: Callable[..., Any], password: str
) -> None:
    make_user("victim")
    make_user("bystander")
    for n in range(4):
        assert attempt(client, "victim", "wrong", f"192.0.2.{n + 1}").status_code == 200
    assert is_lockout(attempt(client, "victim", "wrong", "192.0.2.5"))

    # The right password from a fresh address is still refused for that username...
    assert is_lockout(attempt(client, "victim", password, "192.0.2.77"))
    # ...while other people at those addresses sign in as usual.
    response = attempt(client, "bystander", password, "192.0.2.1")
    assert response.status_code == 302


def test_a_success_before_the_limit_resets_the_count(client: Any, make_user: Callable[..., Any], password: str) -> None:
    make_user("forgetful")
    ip = "203.0.113.50"
    for _ in range(4):
        attempt(client, "forgetful", "wrong", ip)
    assert attempt(client, "forgetful", password, ip).status_code == 302
    client.logout()
    for _ in range(4):
        assert attempt(client, "forgetful", "wrong", ip).status_code == 200


def test_lockout_template_renders_with_djangos_login_view(client: Any) -> None:
    """The page is the configured template, rendered for LoginView's request (not axes' bare fallback)."""
    for n in range(5):
        response = attempt(client, "someone", f"wrong-{n}", "203.0.113.99")
    assert "registration/lockout.html" in [t.name for t in response.templates]
    assert reverse("password_reset") in response.content.decode()
