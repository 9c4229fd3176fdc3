"""In a real browser, on a desktop and a phone: sign up choosing a gallery picture, see it in the header and on the
profile, then pick another in the profile's settings with the keyboard and see the header follow."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from steps import PASSWORD
from tables import DESKTOP, PHONE

from accounts import gallery

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "e2e"
NARROW_PHONE = {"width": 360, "height": 760}


def header_avatar(page: Any) -> Any:
    return page.locator(".site-header .me img.avatar")


def drawing(page: Any, src: str) -> str:
    """The SVG the browser is given at this address."""
    response = page.request.get(src)
    assert response.status == 200 and response.headers["content-type"] == "image/svg+xml; charset=utf-8"
    return str(response.text())


def loaded(image: Any) -> None:
    image.evaluate("img => img.decode()")  # resolves once the picture has loaded and decoded
    assert image.evaluate("img => img.naturalWidth") == 256


def fits(page: Any) -> None:
    """Nothing is wider than the screen: the page never scrolls sideways."""
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), "the page scrolls sideways"


def shots(page: Any, name: str, screen: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.locator(".avatar-picker").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / f"{name}-{screen}.png"), full_page=True)
    if screen == "phone":
        page.set_viewport_size(NARROW_PHONE)
        fits(page)
        page.screenshot(path=str(ARTIFACTS / f"{name}-phone-360.png"), full_page=True)
        page.set_viewport_size(PHONE)


@pytest.mark.parametrize("screen", ["desktop", "phone"])
def test_sign_up_with_a_gallery_picture_then_change_it_in_the_settings(page: Any, screen: str) -> None:
    page.set_viewport_size(DESKTOP if screen == "desktop" else PHONE)
    username = f"lovelace_{screen}"
    page.goto("/accounts/signup/")
    picker = page.get_by_role("group", name="Picture (optional)")
    choices = picker.get_by_role("radio")
    assert choices.count() == 1 + len(gallery.GALLERY)
    assert picker.get_by_role("radio", name="Your initials").is_checked()
    fits(page)
    # Every picture shows (loaded, not a broken image) and the grid keeps to the panel.
    for image in picker.locator("img").all():
        loaded(image)
    shots(page, "avatar-gallery-signup", screen)

    page.get_by_label("Username").fill(username)
    page.get_by_label("Display name").fill(f"Ada {screen}")
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Password confirmation").fill(PASSWORD)
    page.locator("label.avatar-choice", has_text="Fox").click()  # a tap on the picture
    assert picker.get_by_role("radio", name="Fox").is_checked()
    assert not picker.get_by_role("radio", name="Your initials").is_checked()
    page.get_by_role("button", name="Sign up").click()
    page.wait_for_url("**/play/")

    user = get_user_model().objects.get(username=username)
    assert user.avatar_choice == "fox"
    fox = gallery.render(gallery.BY_KEY["fox"], label=f"Ada {screen}")
    src = header_avatar(page).get_attribute("src")
    assert src == user.avatar_url and src.startswith(f"/u/{username}/avatar.svg?v=")
    loaded(header_avatar(page))
    assert drawing(page, src) == fox
    page.goto(f"/u/{username}/")
    assert page.locator(".profile-head img.avatar").get_attribute("src") == src

    # The settings: the fox is marked current; the keyboard moves to the next picture (the owl) and saves it.
    page.goto("/accounts/profile/")
    assert "The fox from the gallery." in page.locator(".avatar-current").inner_text()
    fox_choice = page.locator("label.avatar-choice", has_text="Fox")
    assert "current" in fox_choice.inner_text().lower()
    assert picker.get_by_role("radio", name="Fox current").is_checked()
    shots(page, "avatar-gallery-settings", screen)
    picker.get_by_role("radio", name="Fox current").focus()
    page.keyboard.press("ArrowRight")
    owl = picker.get_by_role("radio", name="Owl")
    assert owl.is_checked() and owl.evaluate("radio => radio === document.activeElement")
    # The focused picture is ringed in the site's focus colour (gold), so a keyboard user sees where they are.
    owl_tile = page.locator("label.avatar-choice", has_text="Owl")
    assert owl_tile.evaluate("tile => getComputedStyle(tile).outlineStyle") == "solid"
    assert owl_tile.evaluate("tile => getComputedStyle(tile).outlineColor") == "rgb(244, 211, 94)"
    page.screenshot(path=str(ARTIFACTS / f"avatar-gallery-focus-{screen}.png"))
    page.keyboard.press("Enter")  # submits the form, as Enter on a radio does
    page.wait_for_url(f"**/u/{username}/")
    assert "Your profile is saved." in page.locator(".messages").inner_text()

    user.refresh_from_db()
    assert user.avatar_choice == "owl"
    new_src = header_avatar(page).get_attribute("src")
    assert new_src == user.avatar_url and new_src != src
    assert new_src.split("?")[0] == src.split("?")[0]  # the same address, a new version
    loaded(header_avatar(page))
    assert drawing(page, new_src) == gallery.render(gallery.BY_KEY["owl"], label=f"Ada {screen}")
    assert page.locator(".profile-head img.avatar").get_attribute("src") == new_src
