"""Signing up, in and out, and both password flows, through the real URLs and Django's own auth views."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.urls import reverse

pytestmark = pytest.mark.django_db

User = get_user_model()
NEW_PASSWORD = "green-baize-table-77"


def signup_data(**overrides: str) -> dict[str, str]:
    data = {
        "username": "ada",
        "display_name": "Ada Lovelace",
        "email": "",
        "password1": "analytical-engine-1843",
        "password2": "analytical-engine-1843",
    }
    data.update(overrides)
    return data


def text(response: Any) -> str:
    return html.unescape(response.content.decode())


# Sign up


def test_signup_page_has_labelled_fields(client: Any) -> None:
    page = client.get(reverse("signup")).content.decode()
    for name in ("username", "display_name", "email", "password1", "password2"):
        assert f'<label for="id_{name}">' in page
    assert 'autocomplete="new-password"' in page


def test_signup_creates_the_account_signs_in_and_goes_to_play(client: Any) -> None:
    response = client.post(reverse("signup"), signup_data())
    assert response.status_code == 302
    assert response.headers["Location"] == reverse("play")
    user = User.objects.get(username="ada")
    assert user.display_name == "Ada Lovelace"
    assert user.email == ""
    assert user.check_password("analytical-engine-1843")
    assert client.session["_auth_user_id"] == str(user.pk)
    page = text(client.get(reverse("play")))
    assert "Welcome to Card Club, Ada Lovelace!" in page
    assert "Ada Lovelace" in page and "Sign out" in page


def test_signup_with_email_and_without_display_name(client: Any) -> None:
    client.post(reverse("signup"), signup_data(display_name="", email="ada@example.com"))
    user = User.objects.get(username="ada")
    assert user.email == "ada@example.com"
    assert user.name == "ada"


def test_signup_refuses_mismatched_passwords(client: Any) -> None:
    response = client.post(reverse("signup"), signup_data(password2="something-else-entirely"))
    assert response.status_code == 200
    assert "didn’t match" in text(response)
    assert 'id="id_password2_error"' in response.content.decode()
    assert not User.objects.filter(username="ada").exists()


def test_signup_refuses_weak_password(client: Any) -> None:
    response = client.post(reverse("signup"), signup_data(password1="12345678", password2="12345678"))
    assert response.status_code == 200
    assert "too common" in text(response)


def test_signup_refuses_a_taken_username_whatever_its_case(client: Any, make_user: Callable[..., Any]) -> None:
    make_user("Ada")
    response = client.post(reverse("signup"), signup_data(username="ada"))
    assert response.status_code == 200
    assert "already exists" in text(response)


def test_signup_refuses_invisible_characters_in_display_name(client: Any) -> None:
    response = client.post(reverse("signup"), signup_data(display_name="Ada\u202eecalevoL"))
    assert response.status_code == 200
    assert "letters, digits, spaces and punctuation" in text(response)


def test_signup_tidies_display_name_spaces(client: Any) -> None:
    client.post(reverse("signup"), signup_data(display_name="  Ada    Lovelace "))
    assert User.objects.get(username="ada").display_name == "Ada Lovelace"


def test_signup_follows_a_safe_next_and_ignores_an_unsafe_one(client: Any) -> None:
    response = client.post(reverse("signup") + "?next=/history/", {**signup_data(), "next": "/history/"})
    assert response.headers["Location"] == "/history/"
    client.logout()
    response = client.post(reverse("signup"), {**signup_data(username="bob", display_name="Bob"), "next": "https://evil.example/"})
    assert response.headers["Location"] == reverse("play")


def test_signed_in_people_are_sent_on_from_signup(client: Any, make_user: Callable[..., Any]) -> None:
    client.force_login(make_user())
    assert client.get(reverse("signup")).headers["Location"] == reverse("play")


# Sign in and out


def test_login_page(client: Any) -> None:
    page = client.get(reverse("login")).content.decode()
    assert '<label for="id_username">' in page and '<label for="id_password">' in page
    assert reverse("password_reset") in page and reverse("signup") in page


def test_sign_in_goes_to_play(client: Any, make_user: Callable[..., Any], password: str) -> None:
    user = make_user("grace", display_name="Grace")
    response = client.post(reverse("login"), {"username": "grace", "password": password})
    assert response.status_code == 302
    assert response.headers["Location"] == reverse("play")
    assert client.session["_auth_user_id"] == str(user.pk)


def test_sign_in_with_next(client: Any, make_user: Callable[..., Any], password: str) -> None:
    make_user("grace")
    response = client.post(reverse("login"), {"username": "grace", "password": password, "next": "/history/"})
    assert response.headers["Location"] == "/history/"


def test_wrong_password_says_so_on_the_form(client: Any, make_user: Callable[..., Any]) -> None:
    make_user("grace")
    response = client.post(reverse("login"), {"username": "grace", "password": "nope"})
    assert response.status_code == 200
    assert "Please enter a correct username and password" in text(response)
    assert 'role="alert"' in response.content.decode()


def test_sign_out_is_a_post_and_says_goodbye(client: Any, make_user: Callable[..., Any]) -> None:
    client.force_login(make_user())
    assert client.get(reverse("logout")).status_code == 405
    response = client.post(reverse("logout"))
    assert response.status_code == 302
    assert response.headers["Location"] == reverse("home")
    assert "_auth_user_id" not in client.session
    page = text(client.get(reverse("home")))
    assert "You have signed out" in page
    assert "Sign in" in page


def test_header_shows_avatar_and_name(client: Any, make_user: Callable[..., Any]) -> None:
    user = make_user("grace", display_name="Grace <Hopper>")
    client.force_login(user)
    page = client.get(reverse("home")).content.decode()
    assert f'<img class="avatar avatar-sm" src="{html.escape(user.avatar_url)}"' in page
    assert "Grace &lt;Hopper&gt;" in page
    for name in ("play", "history", "leaderboard"):
        assert f'href="{reverse(name)}"' in page


# Password change


def test_password_change_needs_sign_in(client: Any) -> None:
    response = client.get(reverse("password_change"))
    assert response.status_code == 302
    assert response.headers["Location"].startswith(reverse("login"))


def test_password_change(client: Any, make_user: Callable[..., Any], password: str) -> None:
    user = make_user()
    client.force_login(user)
    response = client.post(
        reverse("password_change"),
        {"old_password": password, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert response.status_code == 302
    assert response.headers["Location"] == reverse("password_change_done")
    assert "Password changed" in text(client.get(reverse("password_change_done")))  # still signed in
    user.refresh_from_db()
    assert user.check_password(NEW_PASSWORD)


def test_password_change_with_wrong_old_password(client: Any, make_user: Callable[..., Any]) -> None:
    client.force_login(make_user())
    response = client.post(
        reverse("password_change"),
        {"old_password": "not-it", "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert response.status_code == 200
    assert "Your old password was entered incorrectly" in text(response)


# Password reset


def test_password_reset_by_email(client: Any, make_user: Callable[..., Any]) -> None:
    user = make_user("grace", display_name="Grace", email="grace@example.com")
    response = client.post(reverse("password_reset"), {"email": "grace@example.com"})
    assert response.headers["Location"] == reverse("password_reset_done")
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.subject == "Reset your Card Club password"
    assert message.to == ["grace@example.com"]
    assert "Hello Grace," in message.body
    link = re.search(r"https?://\S+/accounts/reset/\S+/", message.body)
    assert link, message.body

    path = link.group(0).split("testserver", 1)[1]
    response = client.get(path)  # Django swaps the token for a session key and redirects
    assert response.status_code == 302
    set_password_url = response.headers["Location"]
    page = text(client.get(set_password_url))
    assert "Choose a new password" in page

    response = client.post(set_password_url, {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})
    assert response.headers["Location"] == reverse("password_reset_complete")
    assert "Your new password is set" in text(client.get(reverse("password_reset_complete")))
    user.refresh_from_db()
    assert user.check_password(NEW_PASSWORD)

    # The link works once.
    assert "doesn't work any more" in text(client.get(path, follow=True))


def test_password_reset_for_unknown_address_sends_nothing_and_tells_nothing(client: Any) -> None:
    response = client.post(reverse("password_reset"), {"email": "nobody@example.com"}, follow=True)
    assert "Check your email" in text(response)
    assert mail.outbox == []
