"""No two people hold look-alike names (accounts.names): a shown name or username is refused when another
person's shown name or username is the same once case, compatibility forms (fullwidth), invisible characters and
letters of other scripts drawn alike (Cyrillic, Greek) are set aside; forms say so, and the database's unique
keys refuse it too, even to two sign-ups racing."""

from __future__ import annotations

import html
import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError, connection, transaction
from django.test import Client
from django.urls import reverse

from accounts import forms as account_forms
from accounts.models import NameKey
from accounts.names import fill_name_keys, name_keys, same_name

User = get_user_model()
PASSWORD = "analytical-engine-1843"

LOOK_ALIKES = [
    ("Alice", "alice"),  # case
    ("Alice", "ALICE"),
    ("Alice", "\u0410lice"),  # Cyrillic capital A
    ("Alice", "Ali\u0441e"),  # Cyrillic small es
    ("Alice", "\uff21\uff4c\uff49\uff43\uff45"),  # fullwidth
    ("Alice", "A\u200blice"),  # a zero-width space
    ("Alice", "Alice\u3164"),  # a Hangul filler, which draws nothing
    ("Max", "\u041cax"),  # Cyrillic capital Em, whose small letter looks like no m
    ("Hello", "\u041dello"),  # Cyrillic capital En
    ("Nick", "\u039dick"),  # Greek capital Nu
    ("vick", "\u03bdick"),  # Greek small nu
    ("Kate", "\u039aate"),  # Greek capital Kappa
    ("Oscar", "\u039fscar"),  # Greek capital Omicron
    ("Zo\u00eb", "Zo\u0435\u0308"),  # Cyrillic e with a combining diaeresis
    ("Ana Lee", "Ana  Lee"),
]
DIFFERENT = [("Alice", "Alise"), ("Rob", "Tob"), ("Zo\u00eb", "Zoe"), ("Ana", "Anna"), ("Bob", "Bob2")]


@pytest.mark.parametrize(("name", "other"), LOOK_ALIKES)
def test_look_alikes_are_the_same_name(name: str, other: str) -> None:
    assert same_name(name, other)


@pytest.mark.parametrize(("name", "other"), DIFFERENT)
def test_different_names_stay_different(name: str, other: str) -> None:
    assert not same_name(name, other)


def test_a_very_long_expanding_name_has_keys_an_index_can_hold() -> None:
    keys = name_keys("\ufdfa" * 150)  # each expands to 18 letters
    assert keys and all(len(key) <= 120 for key in keys)
    assert name_keys("\ufdfa" * 150) != name_keys("\ufdfa" * 149)


# The forms


def signup(client: Client, username: str, display_name: str = "") -> Any:
    return client.post(reverse("signup"), {"username": username, "display_name": display_name, "email": "",
                                           "password1": PASSWORD, "password2": PASSWORD})


def refused(response: Any, name: str) -> bool:
    page = html.unescape(response.content.decode())
    return response.status_code == 200 and f"That name is taken: “{name}”" in page


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["ALICE", "\u0410lice", "\uff21\uff4c\uff49\uff43\uff45", "Ali\u0441e"])
def test_sign_up_refuses_a_display_name_like_another_s(client: Client, make_user: Callable[..., Any],
                                                      name: str) -> None:
    make_user("alice1", display_name="Alice")
    response = signup(client, "newcomer", name)
    assert refused(response, name)
    assert 'id="id_display_name_error"' in response.content.decode()
    assert not User.objects.filter(username="newcomer").exists()


@pytest.mark.django_db
def test_sign_up_refuses_a_bot_s_name(client: Client) -> None:
    from games.play.bot_accounts import bot_user

    bot = bot_user("gomori", "random")
    fake = bot.name.replace("o", "\u043e")  # Cyrillic o
    assert refused(signup(client, "newcomer", fake), fake)


@pytest.mark.django_db
def test_a_username_shown_as_a_name_and_a_shown_name_as_a_username(client: Client,
                                                                   make_user: Callable[..., Any]) -> None:
    make_user("grace")  # shown as "grace"
    make_user("q1", display_name="Queen")
    assert refused(signup(client, "newcomer", "Grace"), "Grace")
    response = signup(client, "queen", "Bee")
    assert refused(response, "queen") and 'id="id_username_error"' in response.content.decode()
    assert refused(signup(client, "gr\u0430ce"), "gr\u0430ce")  # a look-alike username, no display name
    assert signup(client, "bee", "Bee").status_code == 302


@pytest.mark.django_db
def test_the_profile_refuses_a_taken_name_and_allows_one_s_own(client: Client,
                                                              make_user: Callable[..., Any]) -> None:
    make_user("alice1", display_name="Alice")
    bob = make_user("bob", display_name="Bobby")
    client.force_login(bob)
    response = client.post(reverse("profile_edit"), {"display_name": "\u0410lice", "email": ""})
    assert refused(response, "\u0410lice")
    assert User.objects.get(pk=bob.pk).display_name == "Bobby"
    assert client.post(reverse("profile_edit"), {"display_name": "BOBBY", "email": ""}).status_code == 302
    # A name let go is free again (the username stays held: it is the profile's address).
    assert client.post(reverse("profile_edit"), {"display_name": "Robert", "email": ""}).status_code == 302
    assert signup(Client(), "newcomer", "Bobby").status_code == 302
    assert refused(signup(Client(), "newcomer2", "Bob"), "Bob")


@pytest.mark.django_db
def test_clearing_the_display_name_shows_a_username_that_must_be_free(client: Client,
                                                                     make_user: Callable[..., Any]) -> None:
    dora = make_user("dora", display_name="Explorer")
    NameKey.objects.filter(user=dora).delete()  # an account from before names were compared
    make_user("x1", display_name="Dora")
    client.force_login(dora)
    response = client.post(reverse("profile_edit"), {"display_name": "", "email": ""})
    assert refused(response, "dora")


# The database


@pytest.mark.django_db
def test_the_database_refuses_a_look_alike_whatever_the_forms(make_user: Callable[..., Any]) -> None:
    make_user("alice1", display_name="Alice")
    with pytest.raises(IntegrityError), transaction.atomic():
        make_user("other", display_name="\u0410LICE")
    with pytest.raises(IntegrityError), transaction.atomic():
        make_user("\u0430lice")  # the username shown as the name
    assert not User.objects.filter(username__in=["other", "\u0430lice"]).exists()
    user = make_user("other", display_name="Other")
    user.display_name = "alic\u0435"
    with pytest.raises(IntegrityError), transaction.atomic():
        user.save()
    assert set(NameKey.objects.filter(user=user).values_list("key", flat=True)) == name_keys("Other", "other")


@pytest.mark.django_db
def test_saves_that_touch_no_name_write_no_keys(make_user: Callable[..., Any]) -> None:
    from django.test.utils import CaptureQueriesContext

    user = User.objects.get(pk=make_user("ada", display_name="Ada").pk)
    with CaptureQueriesContext(connection) as queries:
        user.save(update_fields=["last_login"])
        user.email = "ada@example.com"
        user.save()
    assert queries.captured_queries and not [q for q in queries.captured_queries if "namekey" in q["sql"]]


@pytest.mark.django_db
def test_existing_shared_names_go_to_the_earlier_account(make_user: Callable[..., Any]) -> None:
    first, second = make_user("first", display_name="Sam"), make_user("second", display_name="Tom")
    NameKey.objects.all().delete()
    # As the migration finds them: two accounts already shown as "Sam", oldest first.
    fill_name_keys([(first.pk, "first", "Sam"), (second.pk, "second", "SAM")], NameKey, "default")
    assert set(NameKey.objects.filter(user=first).values_list("key", flat=True)) == name_keys("Sam", "first")
    assert set(NameKey.objects.filter(user=second).values_list("key", flat=True)) == name_keys("second")


# The race


@pytest.mark.django_db(transaction=True)
def test_two_sign_ups_racing_for_look_alike_names_cannot_both_win(monkeypatch: pytest.MonkeyPatch) -> None:
    both_checked = threading.Barrier(2, timeout=20)
    original = account_forms.SignUpForm.clean

    def clean_then_wait(form: Any) -> Any:
        cleaned = original(form)
        both_checked.wait()  # each form has found the name free: now both save
        return cleaned

    monkeypatch.setattr(account_forms.SignUpForm, "clean", clean_then_wait)
    responses: dict[str, Any] = {}

    def sign_up(username: str, name: str) -> None:
        try:
            responses[username] = signup(Client(), username, name)
        finally:
            connection.close()

    threads = [threading.Thread(target=sign_up, args=args) for args in (("one", "Alice"), ("two", "\u0410lice"))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    statuses = sorted(response.status_code for response in responses.values())
    assert statuses == [200, 302]
    loser = next(response for response in responses.values() if response.status_code == 200)
    assert "That name is taken" in html.unescape(loser.content.decode())
    assert User.objects.filter(username__in=["one", "two"]).count() == 1
