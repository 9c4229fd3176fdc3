"""Where signing in, up and out lead: a `next` that is a path on this site is followed (query string and all);
anything else (not a path, another host, a scheme, backslashes, control characters, encoded slashes) is
ignored for the usual landing page, never a server error and never another site."""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

import pytest
from django.test import Client
from django.urls import reverse

from accounts.redirects import is_local_path

pytestmark = pytest.mark.django_db

GOOD = "/m/12/?code=abc"
BAD = [
    "nowhere",
    "//evil.example/x",
    "https://evil.example/",
    "/\\evil.example",
    "javascript:alert(1)",
    "%2F%2Fevil.example",
    "/%2F/evil.example",
    "/\t/evil.example",
    "///evil.example",
    "http:/evil.example",
]


def signed_in(make_user: Callable[..., Any]) -> Client:
    client = Client()
    client.force_login(make_user())
    return client


def sign_up(client: Client, target: str) -> Any:
    data = {"username": "ada", "display_name": "", "email": "", "password1": "analytical-engine-1843",
            "password2": "analytical-engine-1843", "next": target}
    return client.post(reverse("signup"), data)


def sign_in(client: Client, make_user: Callable[..., Any], password: str, target: str) -> Any:
    make_user("grace")
    return client.post(reverse("login"), {"username": "grace", "password": password, "next": target})


def sign_out(client: Client, make_user: Callable[..., Any], target: str) -> Any:
    client.force_login(make_user())
    return client.post(reverse("logout"), {"next": target})


@pytest.mark.parametrize("target", BAD)
def test_a_bad_next_is_ignored_on_sign_up(client: Client, target: str) -> None:
    response = sign_up(client, target)
    assert response.status_code == 302 and response.headers["Location"] == reverse("play")
    assert client.session["_auth_user_id"]  # the account was made and signed in


@pytest.mark.parametrize("target", BAD)
def test_a_bad_next_is_ignored_on_sign_in(client: Client, make_user: Callable[..., Any], password: str,
                                         target: str) -> None:
    response = sign_in(client, make_user, password, target)
    assert response.status_code == 302 and response.headers["Location"] == reverse("play")


@pytest.mark.parametrize("target", BAD)
def test_a_bad_next_is_ignored_on_sign_out(client: Client, make_user: Callable[..., Any], target: str) -> None:
    response = sign_out(client, make_user, target)
    assert response.status_code == 302 and response.headers["Location"] == reverse("home")


def test_a_local_next_with_its_query_string_is_followed_by_all_three(
    client: Client, make_user: Callable[..., Any], password: str
) -> None:
    assert sign_up(client, GOOD).headers["Location"] == GOOD
    client.logout()
    assert sign_in(client, make_user, password, GOOD).headers["Location"] == GOOD
    assert sign_out(client, make_user, GOOD).headers["Location"] == GOOD


@pytest.mark.parametrize("target", BAD)
def test_the_forms_carry_no_bad_next(client: Client, target: str) -> None:
    for name in ("login", "signup"):
        page = client.get(reverse(name), {"next": target}).content.decode()
        assert 'name="next" value=""' in page, name
        assert "evil.example" not in html.unescape(page) and "nowhere" not in page


def test_the_sign_in_and_sign_up_pages_hand_a_good_next_to_each_other(client: Client) -> None:
    login = client.get(reverse("login"), {"next": GOOD}).content.decode()
    signup = client.get(reverse("signup"), {"next": GOOD}).content.decode()
    for page, other in ((login, "signup"), (signup, "login")):
        assert f'name="next" value="{html.escape(GOOD)}"' in page
        assert f'href="{reverse(other)}?next={quote(GOOD, safe="/")}"' in page


def test_a_signed_in_visitor_of_sign_up_goes_on_to_a_good_next(make_user: Callable[..., Any]) -> None:
    client = signed_in(make_user)
    assert client.get(reverse("signup"), {"next": GOOD}).headers["Location"] == GOOD
    assert client.get(reverse("signup"), {"next": "nowhere"}).headers["Location"] == reverse("play")


@pytest.mark.parametrize("target", ["/", "/history/?player=ada&page=2", "/u/%C3%A9/", "/m/12/#chat"])
def test_plain_local_paths_are_local(target: str) -> None:
    assert is_local_path(target)
