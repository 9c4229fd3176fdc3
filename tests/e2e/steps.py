"""Steps a person takes in the browser, shared by the real-browser tests."""

from __future__ import annotations

from typing import Any

PASSWORD = "baize-and-brass-2024"


def sign_up(page: Any, username: str, display_name: str, password: str = PASSWORD) -> None:
    """Create an account through the sign-up form; the site then opens the lobby."""
    page.goto("/accounts/signup/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Display name").fill(display_name)
    page.get_by_label("Password", exact=True).fill(password)
    page.get_by_label("Password confirmation").fill(password)
    page.get_by_role("button", name="Sign up").click()
    page.wait_for_url("**/play/")


def page_problems(*tabs: Any) -> list[str]:
    """A list that fills with the tabs' script errors and Content Security Policy refusals as they happen."""
    problems: list[str] = []
    for tab in tabs:
        tab.on("pageerror", lambda error: problems.append(str(error)))
        tab.on("console", lambda message: problems.append(message.text)
               if "Content Security Policy" in message.text else None)
    return problems


def resign_by_clicks(tab: Any) -> None:
    """Open the table's "Resign" and confirm. A table drawn again as a socket (re)connects (a player's presence)
    closes the open confirmation under the click: open it again, as a person would."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for attempt in range(5):
        try:
            tab.locator("details.resign summary").last.click(timeout=5_000)
            tab.get_by_role("button", name="Yes, resign").click(timeout=3_000)
            return
        except PlaywrightTimeout:
            if attempt == 4:
                raise
