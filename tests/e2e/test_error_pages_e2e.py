"""In a real browser, with debug off as in production: a wrong address is a page of the site (its header and
navigation, the reason, the way home), on a desktop and on a phone."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "e2e"
# Production's error pages: Django's debug pages otherwise. Plain HTTP, as behind a TLS proxy.
SERVER_ENV = {"DJANGO_DEBUG": "false", "DJANGO_HTTPS": "false"}


def test_a_wrong_address_is_a_page_of_the_site_on_a_desktop_and_a_phone(page: Any) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for name, viewport in (("desktop", {"width": 1280, "height": 800}), ("phone", {"width": 390, "height": 844})):
        page.set_viewport_size(viewport)
        response = page.goto("/u/nobody/")
        assert response is not None and response.status == 404
        assert page.title() == "Page not found · Card Club"
        assert page.locator(".site-header .brand").is_visible()
        assert page.get_by_role("navigation", name="Main").get_by_role("link", name="Play").is_visible()
        assert page.get_by_role("heading", level=1).inner_text() == "Page not found"
        assert page.get_by_text("There is no page at this address").is_visible()
        # The site's stylesheet is there (a panel on the felt), and nothing runs off a phone's screen.
        assert page.locator(".error-page").evaluate("e => getComputedStyle(e).borderRadius") != "0px"
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        page.screenshot(path=str(ARTIFACTS / f"error-404-{name}.png"), full_page=True)
    page.get_by_role("link", name="Home").click()
    page.wait_for_url(lambda url: urlsplit(url).path == "/")
