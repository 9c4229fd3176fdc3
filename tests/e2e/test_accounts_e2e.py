"""In a real browser: sign up, upload a picture, see it in the header, sign out and back in."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
from PIL import Image, ImageDraw

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "e2e"
PASSWORD = "baize-and-brass-2024"


def portrait(path: Path) -> Path:
    """A 600x400 JPEG: felt green with a gold diamond in the middle, which should survive the centre crop."""
    image = Image.new("RGB", (600, 400), (31, 111, 74))
    ImageDraw.Draw(image).polygon([(300, 90), (410, 200), (300, 310), (190, 200)], fill=(244, 211, 94))
    out = io.BytesIO()
    image.save(out, format="JPEG", quality=92)
    path.write_bytes(out.getvalue())
    return path


def header_avatar(page: Any) -> Any:
    return page.locator(".site-header .me img.avatar")


def assert_loaded_at_256(page: Any) -> None:
    image = header_avatar(page)
    image.evaluate("img => img.decode()")  # resolves once the picture has loaded and decoded
    assert image.evaluate("img => img.naturalWidth") == 256
    assert image.evaluate("img => img.naturalHeight") == 256


def test_sign_up_upload_avatar_sign_out_and_in(page: Any, console_messages: list[str], tmp_path: Path) -> None:
    from django.contrib.auth import get_user_model

    # Sign up.
    page.goto("/accounts/signup/")
    page.get_by_label("Username").fill("lovelace")
    page.get_by_label("Display name").fill("Ada Lovelace")
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Password confirmation").fill(PASSWORD)
    page.get_by_role("button", name="Sign up").click()
    page.wait_for_url("**/play/")
    assert page.locator(".me-name").inner_text() == "Ada Lovelace"
    assert "Welcome to Card Club, Ada Lovelace!" in page.locator(".messages").inner_text()
    # Until an upload, the header shows the generated picture.
    assert "/u/lovelace/avatar.svg?v=" in header_avatar(page).get_attribute("src")

    # Upload a picture.
    page.get_by_role("link", name="Ada Lovelace").click()
    page.get_by_role("link", name="Edit profile").click()
    page.wait_for_url("**/accounts/profile/")
    page.get_by_label("New picture").set_input_files(str(portrait(tmp_path / "portrait.jpg")))
    page.get_by_role("button", name="Save", exact=True).click()
    page.wait_for_url("**/u/lovelace/")
    assert "Your profile is saved." in page.locator(".messages").inner_text()

    user = get_user_model().objects.get(username="lovelace")
    assert user.avatar, "the upload was not stored"
    assert header_avatar(page).get_attribute("src") == user.avatar.url
    assert_loaded_at_256(page)
    profile_picture = page.locator(".profile-head img.avatar")
    assert profile_picture.get_attribute("src") == user.avatar.url
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "profile-desktop.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(ARTIFACTS / "profile-phone.png"), full_page=True)
    page.set_viewport_size({"width": 1280, "height": 800})

    # Sign out.
    page.get_by_role("button", name="Sign out").click()
    page.wait_for_url(lambda url: urlparse(url).path == "/")
    assert "You have signed out" in page.locator(".messages").inner_text()
    page.screenshot(path=str(ARTIFACTS / "home-signed-out.png"), full_page=True)
    assert page.locator(".site-header .me").count() == 0
    assert page.get_by_role("link", name="Sign in").is_visible()

    # Sign in again: the uploaded picture is back in the header.
    page.get_by_role("link", name="Sign in").click()
    page.get_by_label("Username").fill("lovelace")
    page.get_by_label("Password").fill(PASSWORD)
    page.screenshot(path=str(ARTIFACTS / "login-desktop.png"), full_page=True)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/play/")
    assert header_avatar(page).get_attribute("src") == user.avatar.url
    assert_loaded_at_256(page)

    assert not [line for line in console_messages if "Content Security Policy" in line], console_messages
    assert not [line for line in console_messages if line.startswith("pageerror")], console_messages


def test_refused_upload_shows_the_error_beside_the_field(
    page: Any, console_messages: list[str], make_user: Any, tmp_path: Path
) -> None:
    make_user("turing", password=PASSWORD, display_name="Alan Turing")
    page.goto("/accounts/login/?next=/accounts/profile/")
    page.get_by_label("Username").fill("turing")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/accounts/profile/")

    fake = tmp_path / "holiday.png"
    fake.write_text("Just some text, not a picture at all.\n" * 10)
    page.get_by_label("New picture").set_input_files(str(fake))
    page.get_by_role("button", name="Save", exact=True).click()
    error = page.locator("#id_avatar_upload_error")
    assert "isn't a PNG, JPEG, WebP or GIF picture" in error.inner_text()
    assert page.get_by_label("New picture").get_attribute("aria-invalid") == "true"
    page.screenshot(path=str(ARTIFACTS / "profile-edit-error.png"), full_page=True)
    assert not [line for line in console_messages if "Content Security Policy" in line], console_messages


def test_five_failed_sign_ins_show_the_lockout_page(page: Any, console_messages: list[str]) -> None:
    """Through daphne (ASGI), axes sees the client address and locks it out after five failures."""
    page.goto("/")
    # Keyboard users first meet the skip link, shown on focus, which leads to the main content.
    page.keyboard.press("Tab")
    skip = page.locator(".skip-link")
    assert skip.evaluate("link => link === document.activeElement")
    box = skip.bounding_box()
    assert box is not None and box["y"] >= 0
    page.screenshot(path=str(ARTIFACTS / "skip-link-focused.png"))
    page.keyboard.press("Enter")
    assert page.evaluate("location.hash") == "#main"
    page.goto("/accounts/signup/")
    page.screenshot(path=str(ARTIFACTS / "signup-desktop.png"), full_page=True)
    page.goto("/accounts/login/")
    for attempt in range(5):
        page.get_by_label("Username").fill(f"nobody-{attempt}")
        page.get_by_label("Password").fill("wrong password")
        with page.expect_response(lambda response: response.url.endswith("/accounts/login/")) as response_info:
            page.get_by_role("button", name="Sign in").click()
        status = response_info.value.status
        if attempt < 4:
            assert status == 200
            assert "Please enter a correct username and password" in page.locator(".form-errors").inner_text()
    assert status == 429
    assert page.get_by_role("heading", name="Too many sign-in attempts").is_visible()
    assert "15 minutes" in page.locator("main").inner_text()
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(ARTIFACTS / "lockout-phone.png"), full_page=True)
    assert not [line for line in console_messages if "Content Security Policy" in line], console_messages


def test_admin_user_list_shows_picture_thumbnails(page: Any, console_messages: list[str], make_user: Any) -> None:
    make_user("boss", password=PASSWORD, is_staff=True, is_superuser=True)
    make_user("grace", display_name="Grace Hopper")
    page.goto("/admin/login/?next=/admin/accounts/user/")
    page.get_by_label("Username").fill("boss")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url("**/admin/accounts/user/")
    thumbnails = page.locator("#result_list img.avatar")
    assert thumbnails.count() >= 2
    for index in range(thumbnails.count()):
        thumbnails.nth(index).evaluate("img => img.decode()")
        assert thumbnails.nth(index).evaluate("img => img.naturalWidth") > 0
    page.locator('a[href="?is_bot__exact=1"]').click()  # the "By is bot: Yes" filter
    page.wait_for_url("**is_bot__exact=1")
    assert "grace" not in page.locator("#result_list").inner_text()
    page.screenshot(path=str(ARTIFACTS / "admin-users.png"), full_page=True)
    assert not [line for line in console_messages if "Content Security Policy" in line], console_messages
