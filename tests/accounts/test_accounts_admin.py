"""The user admin: list with search, filters and picture thumbnails; safe avatar uploads; createsuperuser."""

from __future__ import annotations

import html
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.urls import reverse
from PIL import Image

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client_for(client: Any, make_user: Callable[..., Any]) -> Any:
    client.force_login(make_user("boss", is_staff=True, is_superuser=True))
    return client


def test_user_list_search_and_bot_filter(admin_client_for: Any, make_user: Callable[..., Any]) -> None:
    make_user("ada", display_name="Ada Lovelace")
    make_user("bot-demo", password=None, display_name="Demo Bot", is_bot=True, bot_game="demo", bot_level="random")
    url = reverse("admin:accounts_user_changelist")

    page = admin_client_for.get(url).content.decode()
    assert 'class="avatar"' in page and "/u/ada/avatar.svg?v=" in page

    found = admin_client_for.get(url, {"q": "Lovelace"}).content.decode()
    assert "/u/ada/avatar.svg" in found and "bot-demo" not in found

    bots = admin_client_for.get(url, {"is_bot__exact": "1"}).content.decode()
    assert "bot-demo" in bots and ">ada<" not in bots
    assert "By is bot" in html.unescape(page)


def test_change_page_shows_preview_and_bot_fields(admin_client_for: Any, make_user: Callable[..., Any]) -> None:
    user = make_user("ada")
    page = admin_client_for.get(reverse("admin:accounts_user_change", args=[user.pk])).content.decode()
    assert "generated picture" in page
    for field in ("display_name", "avatar", "is_bot", "bot_game", "bot_level"):
        assert f'name="{field}"' in page


def _change_form_data(user: Any) -> dict[str, Any]:
    return {
        "username": user.username,
        "display_name": user.display_name,
        "email": user.email,
        "first_name": "",
        "last_name": "",
        "is_active": "on",
        "bot_game": "",
        "bot_level": "",
        "date_joined_0": user.date_joined.strftime("%Y-%m-%d"),
        "date_joined_1": user.date_joined.strftime("%H:%M:%S"),
    }


def test_admin_upload_is_checked_and_re_encoded(
    admin_client_for: Any, make_user: Callable[..., Any], crafted: dict[str, Callable[..., bytes]]
) -> None:
    user = make_user("ada")
    url = reverse("admin:accounts_user_change", args=[user.pk])

    refused = admin_client_for.post(
        url, {**_change_form_data(user), "avatar": SimpleUploadedFile("bomb.png", crafted["png_bomb"](), "image/png")}
    )
    assert refused.status_code == 200
    assert "far too large" in html.unescape(refused.content.decode())

    accepted = admin_client_for.post(
        url,
        {**_change_form_data(user), "avatar": SimpleUploadedFile("me.png", crafted["image"](600, 400), "image/png")},
    )
    assert accepted.status_code == 302
    user.refresh_from_db()
    assert user.avatar.name.endswith(".webp")
    stored = Path(user.avatar.path)
    with Image.open(stored) as image:
        assert image.size == (256, 256)

    # Clearing it in the admin deletes the file too.
    cleared = admin_client_for.post(url, {**_change_form_data(user), "avatar-clear": "on"})
    assert cleared.status_code == 302
    user.refresh_from_db()
    assert not user.avatar
    assert not stored.exists()


def test_createsuperuser_works(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", "a-long-admin-password-9")
    call_command("createsuperuser", interactive=False, username="root", email="root@example.com", verbosity=0)
    user = get_user_model().objects.get(username="root")
    assert user.is_superuser and user.is_staff
    assert user.check_password("a-long-admin-password-9")


def test_add_user_form_has_display_name(admin_client_for: Any) -> None:
    page = admin_client_for.get(reverse("admin:accounts_user_add")).content.decode()
    assert 'name="display_name"' in page and 'name="password1"' in page
