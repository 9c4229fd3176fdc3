"""The gallery of drawn avatars: chosen at sign-up and in the profile, refused when unknown, replacing an upload and
replaced by one, and served at the one avatar URL every page uses, whose version changes with the choice."""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from accounts import avatars, gallery
from accounts.models import User

pytestmark = pytest.mark.django_db

SVG = "{http://www.w3.org/2000/svg}"
PASSWORD = "analytical-engine-1843"


def signup(client: Any, **overrides: str) -> Any:
    data = {"username": "ada", "display_name": "Ada Lovelace", "email": "", "password1": PASSWORD,
            "password2": PASSWORD}
    data.update(overrides)
    return client.post(reverse("signup"), data)


def edit(client: Any, **data: Any) -> Any:
    """Post the profile form as a browser does: the name and email as they are, plus what is given."""
    return client.post(reverse("profile_edit"), {"display_name": "Ada Lovelace", "email": "", **data})


@pytest.fixture
def ada(make_user: Callable[..., Any], client: Any) -> Any:
    user = make_user("ada", display_name="Ada Lovelace")
    client.force_login(user)
    return user


def served(client: Any, user: Any) -> Any:
    response = client.get(user.avatar_url)
    assert response.status_code == 200
    assert response["Content-Type"] == "image/svg+xml; charset=utf-8"
    return response


def radios(page: str) -> dict[str, str]:
    """The picker's radios: value -> the text of the label that names it (every radio must have one)."""
    found = {}
    for tag in re.findall(r'<input type="radio" name="avatar_choice"[^>]*>', page):
        value = re.search(r'value="([^"]*)"', tag).group(1)  # type: ignore[union-attr]
        ident = re.search(r'id="([^"]+)"', tag).group(1)  # type: ignore[union-attr]
        label = re.search(rf'<label class="avatar-choice" for="{ident}">(.*?)</label>', page, re.S)
        assert label is not None, f"radio {value!r} has no label"
        found[value] = " ".join(re.sub(r"<[^>]+>", " ", html.unescape(label.group(1))).split())
    return found


def checked(page: str) -> list[str]:
    return re.findall(r'<input type="radio" name="avatar_choice" value="([^"]*)"[^>]*checked', page)


# The gallery itself.


def test_the_gallery_offers_twelve_to_sixteen_pictures_each_served_as_svg(client: Any) -> None:
    keys = [avatar.key for avatar in gallery.GALLERY]
    assert 12 <= len(keys) <= 16 and len(set(keys)) == len(keys)
    assert "" not in keys and "upload" not in keys  # the picker's other two values
    assert all(len(key) <= User._meta.get_field("avatar_choice").max_length for key in keys)  # type: ignore[union-attr]
    drawings = set()
    for avatar in gallery.GALLERY:
        response = client.get(gallery.url(avatar))
        assert response.status_code == 200, avatar.key
        assert response["Content-Type"] == "image/svg+xml; charset=utf-8"
        assert "max-age=604800" in response["Cache-Control"] and "public" in response["Cache-Control"]
        root = ET.fromstring(response.content)
        assert root.tag == f"{SVG}svg" and root.get("aria-label") == avatar.label
        drawings.add(response.content)
    assert len(drawings) == len(keys)  # no two alike
    assert client.get(reverse("gallery_avatar", args=["unicorn"])).status_code == 404


# Sign-up.


def test_sign_up_offers_the_picker_with_the_initials_chosen(client: Any) -> None:
    page = client.get(reverse("signup")).content.decode()
    offered = radios(page)
    assert list(offered) == ["", *(avatar.key for avatar in gallery.GALLERY)]
    assert offered[""] == "Your initials" and offered["fox"] == "Fox"
    assert checked(page) == [""]
    assert '<legend>Picture <span class="optional">(optional)</span></legend>' in page
    for avatar in gallery.GALLERY:
        assert f'src="{gallery.url(avatar)}"' in page


def test_sign_up_with_a_gallery_picture_saves_it_and_the_avatar_url_serves_it(client: Any) -> None:
    response = signup(client, avatar_choice="fox")
    assert response.status_code == 302
    user = User.objects.get(username="ada")
    assert user.avatar_choice == "fox" and not user.avatar
    assert user.avatar_url.startswith("/u/ada/avatar.svg?v=")
    body = served(client, user).content.decode()
    assert body == gallery.render(gallery.BY_KEY["fox"], label="Ada Lovelace")
    assert ET.fromstring(body).find(f"{SVG}text") is None  # a fox, not initials
    # Every page's header shows it.
    assert f'src="{html.escape(user.avatar_url)}"' in client.get(reverse("profile", args=["ada"])).content.decode()


def test_sign_up_without_a_choice_keeps_the_initials(client: Any) -> None:
    assert signup(client).status_code == 302
    user = User.objects.get(username="ada")
    assert user.avatar_choice == ""
    assert ET.fromstring(served(client, user).content).find(f"{SVG}text").text == "AL"  # type: ignore[union-attr]


@pytest.mark.parametrize("key", ["unicorn", "upload", "FOX", "x" * 300])
def test_sign_up_with_an_unknown_picture_is_refused_beside_the_picker(client: Any, key: str) -> None:
    response = signup(client, avatar_choice=key)
    assert response.status_code == 200
    assert not User.objects.filter(username="ada").exists()
    page = html.unescape(response.content.decode())
    error = re.search(r'<ul class="errorlist" id="id_avatar_choice_error">(.*?)</ul>', page, re.S)
    assert error is not None and f"There is no picture “{key}” to choose" in error.group(1)
    assert 'aria-describedby="id_avatar_choice_helptext id_avatar_choice_error"' in page


# The profile's settings.


def test_the_profile_says_which_picture_is_current(client: Any, ada: Any) -> None:
    page = client.get(reverse("profile_edit")).content.decode()
    assert "A picture drawn from your name." in page
    assert checked(page) == [""] and "Your initials current" in radios(page)[""]
    assert "upload" not in radios(page)  # nothing uploaded to keep
    # The initials' picture is this person's own, drawn in the page (the avatar URL may serve a choice).
    assert avatars.svg_data_url(avatars.name_avatar(ada)) in page

    edit(client, avatar_choice="owl")
    page = client.get(reverse("profile_edit")).content.decode()
    assert "The owl from the gallery." in page
    assert checked(page) == ["owl"] and radios(page)["owl"] == "Owl current"
    assert radios(page)[""] == "Your initials"


def test_choosing_a_picture_saves_it_and_changes_the_avatar_url_version(client: Any, ada: Any) -> None:
    before = ada.avatar_url
    first = served(client, ada)

    response = edit(client, avatar_choice="owl")
    assert response.status_code == 302
    ada.refresh_from_db()
    assert ada.avatar_choice == "owl"
    after = ada.avatar_url
    # The same address with a new version: pages link the new picture, and caches keep no stale one.
    assert after.split("?")[0] == before.split("?")[0] and after != before
    second = served(client, ada)
    assert second.content.decode() == gallery.render(gallery.BY_KEY["owl"], label="Ada Lovelace")
    assert second["ETag"] != first["ETag"]
    assert client.get(after, headers={"If-None-Match": first["ETag"]}).status_code == 200

    # Another picture, another version; back to the initials, back to the first version.
    edit(client, avatar_choice="moon")
    ada.refresh_from_db()
    assert ada.avatar_url not in (before, after)
    edit(client, avatar_choice="")
    ada.refresh_from_db()
    assert (ada.avatar_choice, ada.avatar_url) == ("", before)


@pytest.mark.parametrize("key", ["unicorn", "upload", "<b>", " owl"])
def test_an_unknown_picture_is_refused_with_a_clear_error(client: Any, ada: Any, key: str) -> None:
    edit(client, avatar_choice="moon")
    response = edit(client, avatar_choice=key)
    assert response.status_code == 200
    page = html.unescape(response.content.decode())
    assert f"There is no picture “{key}” to choose; pick one of the pictures shown." in page
    assert "<b>" not in response.content.decode()  # the key is escaped
    ada.refresh_from_db()
    assert ada.avatar_choice == "moon"


def test_a_post_without_the_picker_leaves_the_picture_alone(client: Any, ada: Any) -> None:
    edit(client, avatar_choice="cat")
    assert edit(client, display_name="Ada King").status_code == 302
    ada.refresh_from_db()
    assert (ada.display_name, ada.avatar_choice) == ("Ada King", "cat")


def test_choosing_a_picture_replaces_an_upload(
    client: Any, ada: Any, crafted: dict[str, Callable[..., bytes]], django_capture_on_commit_callbacks: Any
) -> None:
    edit(client, avatar_upload=SimpleUploadedFile("me.png", crafted["image"](100, 100), "image/png"))
    ada.refresh_from_db()
    assert ada.avatar
    path = Path(ada.avatar.path)
    page = client.get(reverse("profile_edit")).content.decode()
    assert "Your uploaded picture." in page and checked(page) == ["upload"]
    assert radios(page)["upload"] == "Your upload current"

    with django_capture_on_commit_callbacks(execute=True):
        assert edit(client, avatar_choice="heart").status_code == 302
    ada.refresh_from_db()
    assert not ada.avatar and ada.avatar_choice == "heart"
    assert not path.exists()
    assert ada.avatar_url.startswith("/u/ada/avatar.svg?v=")
    assert served(client, ada).content.decode() == gallery.render(gallery.BY_KEY["heart"], label="Ada Lovelace")


def test_keeping_the_upload_changes_nothing(client: Any, ada: Any, crafted: dict[str, Callable[..., bytes]]) -> None:
    edit(client, avatar_upload=SimpleUploadedFile("me.png", crafted["image"](100, 100), "image/png"))
    ada.refresh_from_db()
    stored = ada.avatar.name
    assert edit(client, avatar_choice="upload", display_name="Ada K").status_code == 302
    ada.refresh_from_db()
    assert (ada.avatar.name, ada.avatar_choice, ada.display_name) == (stored, "", "Ada K")


def test_uploading_replaces_a_choice(client: Any, ada: Any, crafted: dict[str, Callable[..., bytes]]) -> None:
    edit(client, avatar_choice="club")
    ada.refresh_from_db()
    chosen = ada.avatar_url
    # The browser posts the checked radio (the current choice) beside the file.
    response = edit(client, avatar_choice="club",
                    avatar_upload=SimpleUploadedFile("me.png", crafted["image"](100, 100), "image/png"))
    assert response.status_code == 302
    ada.refresh_from_db()
    assert ada.avatar and ada.avatar_choice == ""
    assert ada.avatar_url == ada.avatar.url != chosen


def test_uploading_while_picking_another_picture_is_refused(
    client: Any, ada: Any, crafted: dict[str, Callable[..., bytes]]
) -> None:
    edit(client, avatar_choice="club")
    response = edit(client, avatar_choice="spade",
                    avatar_upload=SimpleUploadedFile("me.png", crafted["image"](100, 100), "image/png"))
    assert response.status_code == 200
    assert "Upload a new picture or choose one above, not both." in html.unescape(response.content.decode())
    ada.refresh_from_db()
    assert not ada.avatar and ada.avatar_choice == "club"


def test_a_retired_key_falls_back_to_the_name_picture(client: Any, make_user: Callable[..., Any]) -> None:
    retired = make_user("hopper", display_name="Grace Brewster Hopper")
    User.objects.filter(pk=retired.pk).update(avatar_choice="retired")
    retired.refresh_from_db()
    assert ET.fromstring(served(client, retired).content).find(f"{SVG}text").text == "GH"  # type: ignore[union-attr]
    assert avatars.generated_avatar_version(retired) == avatars._version("hopper", "Grace Brewster Hopper", False, "")


def test_the_service_refuses_a_key_the_gallery_lacks(make_user: Callable[..., Any]) -> None:
    user = make_user("linus")
    with pytest.raises(ValueError, match="no gallery picture"):
        avatars.choose_avatar(user, "unicorn")
    avatars.choose_avatar(user, "sun")
    user.refresh_from_db()
    assert user.avatar_choice == "sun"
