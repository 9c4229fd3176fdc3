"""Public profile pages and editing one's own profile."""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_public_profile_shows_picture_name_and_joined_date(client: Any, make_user: Callable[..., Any]) -> None:
    user = make_user("ada", display_name="Ada Lovelace")
    response = client.get("/u/ada/")
    assert response.status_code == 200
    page = html.unescape(response.content.decode())
    assert "<h1" in page and "Ada Lovelace</h1>" in page
    assert "@ada" in page
    assert f'Joined <time datetime="{user.date_joined.isoformat()}">{user.date_joined:%-d %B %Y}</time>' in page
    assert f'src="{user.avatar_url}"' in page
    assert "Edit profile" not in page  # not signed in
    assert "accounts/profile.html" in [t.name for t in response.templates]


def test_profile_has_a_block_for_game_statistics(rf: Any, make_user: Callable[..., Any]) -> None:
    """The games app fills {% block profile_stats %}; a template extending the profile page shows it in place."""
    from django.contrib.auth.models import AnonymousUser
    from django.template import engines

    child = engines["django"].from_string(
        '{% extends "accounts/profile.html" %}'
        '{% block profile_stats %}<section id="stats">Won 3</section>{% endblock %}'
    )
    request = rf.get("/u/ada/")
    request.user = AnonymousUser()
    page = child.render({"profile_user": make_user("ada")}, request)
    assert page.index('<section id="stats">Won 3</section>') > page.index("@ada")


def test_own_profile_links_to_edit(client: Any, make_user: Callable[..., Any]) -> None:
    user = make_user("ada")
    other = make_user("grace")
    client.force_login(user)
    assert reverse("profile_edit") in client.get(user.get_absolute_url()).content.decode()
    assert "Edit profile" not in client.get(other.get_absolute_url()).content.decode()


def test_bot_profile_is_marked(client: Any, make_user: Callable[..., Any]) -> None:
    make_user("bot-x", password=None, display_name="X Rookie (bot)", is_bot=True)
    assert '<span class="badge">Bot</span>' in client.get("/u/bot-x/").content.decode()


def test_unknown_and_inactive_profiles_are_404(client: Any, make_user: Callable[..., Any]) -> None:
    make_user("gone", is_active=False)
    assert client.get("/u/nobody/").status_code == 404
    assert client.get("/u/gone/").status_code == 404


def test_display_name_is_escaped_on_the_profile(client: Any, make_user: Callable[..., Any]) -> None:
    make_user("eve", display_name="<script>alert(1)</script>")
    page = client.get("/u/eve/").content.decode()
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_edit_needs_sign_in(client: Any) -> None:
    response = client.get(reverse("profile_edit"))
    assert response.status_code == 302
    assert response.headers["Location"] == f"{reverse('login')}?next={reverse('profile_edit')}"


def test_edit_page_has_accessible_fields(client: Any, make_user: Callable[..., Any]) -> None:
    client.force_login(make_user("ada", display_name="Ada"))
    page = client.get(reverse("profile_edit")).content.decode()
    for name in ("display_name", "email", "avatar_upload"):
        assert f'<label for="id_{name}">' in page
    assert 'enctype="multipart/form-data"' in page
    assert 'accept="image/png,image/jpeg,image/webp,image/gif"' in page
    assert 'value="Ada"' in page


def test_edit_display_name_and_email(client: Any, make_user: Callable[..., Any]) -> None:
    user = make_user("ada", display_name="Ada")
    client.force_login(user)
    response = client.post(reverse("profile_edit"), {"display_name": "Countess Ada", "email": "ada@example.com"})
    assert response.status_code == 302
    assert response.headers["Location"] == "/u/ada/"
    user.refresh_from_db()
    assert (user.display_name, user.email) == ("Countess Ada", "ada@example.com")
    page = html.unescape(client.get("/u/ada/").content.decode())
    assert "Your profile is saved." in page
    assert "Countess Ada" in page


def test_failed_edit_keeps_the_saved_name_in_the_header(
    client: Any, make_user: Callable[..., Any], crafted: dict[str, Callable[..., bytes]]
) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile

    user = make_user("ada", display_name="Ada")
    client.force_login(user)
    response = client.post(
        reverse("profile_edit"),
        {
            "display_name": "Not Saved",
            "email": "",
            "avatar_upload": SimpleUploadedFile("x.png", b"not a picture", "image/png"),
        },
    )
    assert response.status_code == 200
    header = response.content.decode().split("</header>", 1)[0]
    assert '<span class="me-name" title="Ada">Ada</span>' in header
    user.refresh_from_db()
    assert user.display_name == "Ada"


def test_invalid_email_is_refused_beside_the_field(client: Any, make_user: Callable[..., Any]) -> None:
    client.force_login(make_user())
    response = client.post(reverse("profile_edit"), {"display_name": "", "email": "not-an-address"})
    page = response.content.decode()
    assert response.status_code == 200
    assert 'id="id_email_error"' in page
    assert 'aria-invalid="true"' in page
