"""The error pages are the site's (its header and navigation, a plain reason, the way home), with debug off as in
production; under /api/ every answer is JSON. The 503 of a database that is away: tests/games/test_faults.py."""

from __future__ import annotations

from typing import Any

import pytest
from django.template import loader
from django.test import Client
from factories import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _production(settings: Any) -> None:
    settings.DEBUG = False
    settings.ROOT_URLCONF = "error_urls"


def site_page(html: str) -> None:
    """The site's frame: its header with the brand and the main navigation, and a way home."""
    assert '<header class="site-header">' in html and 'class="brand" href="/"' in html
    assert '<nav class="main-nav" aria-label="Main">' in html and 'href="/play/"' in html
    assert 'href="/leaderboard/"' in html
    assert '<a class="button" href="/">Home</a>' in html
    assert "Traceback" not in html and "a bug" not in html and "for the log" not in html


@pytest.mark.parametrize(("address", "reason"), [
    ("/u/nobody/", "There is no page at this address"),  # get_object_or_404's own words are not shown
    ("/m/99999/", "No such match."),  # the view's sentence
    ("/no/such/place/", "There is no page at this address"),
])
def test_a_wrong_address_is_a_page_of_the_site(address: str, reason: str) -> None:
    response = Client().get(address)
    assert response.status_code == 404
    html = response.content.decode()
    site_page(html)
    assert "<title>Page not found · Card Club</title>" in html and reason in html
    assert "matches the given query" not in html and "Sign in" in html


def test_a_wrong_address_keeps_the_signed_in_header() -> None:
    client = Client()
    client.force_login(make_user("wanderer", display_name="Wanderer"))
    html = client.get("/m/99999/").content.decode()
    site_page(html)
    assert "Wanderer" in html and 'href="/games/"' in html and "Sign out" in html


def test_a_forbidden_page_says_so_and_asks_a_stranger_to_sign_in() -> None:
    response = Client().get("/test-errors/forbidden/")
    assert response.status_code == 403
    html = response.content.decode()
    site_page(html)
    assert "Not allowed" in html and "not open to you" in html and "sign in first" in html


def test_a_bad_request_is_a_page_of_the_site_without_the_logs_words() -> None:
    response = Client().get("/test-errors/suspicious/")
    assert response.status_code == 400
    html = response.content.decode()
    site_page(html)
    assert "Bad request" in html and "could not understand" in html


def test_a_form_sent_without_its_csrf_check_is_a_page_that_says_why() -> None:
    client = Client(enforce_csrf_checks=True)
    # No cookie at all: the browser refuses it.
    response = client.post("/accounts/login/", {"username": "x", "password": "y"})
    assert response.status_code == 403
    html = response.content.decode()
    site_page(html)
    assert "The form could not be sent" in html and "Allow cookies" in html
    # A cookie, but a page from before it changed (a sign-in in another tab).
    client.get("/accounts/login/")
    response = client.post("/accounts/login/", {"username": "x", "password": "y",
                                                 "csrfmiddlewaretoken": "x" * 32})
    assert response.status_code == 403
    html = response.content.decode()
    site_page(html)
    assert "out of date" in html and "reload the page" in html


def test_a_server_error_is_the_sites_500_page() -> None:
    response = Client(raise_request_exception=False).get("/test-errors/broken/")
    assert response.status_code == 500
    html = response.content.decode()
    site_page(html)
    assert "<title>Something went wrong · Card Club</title>" in html and "The fault is ours" in html


def test_the_500_page_needs_no_request_and_no_database(django_assert_num_queries: Any) -> None:
    with django_assert_num_queries(0):
        html = loader.get_template("500.html").render()  # as django.views.defaults.server_error draws it
    site_page(html)


@pytest.mark.parametrize("method", ["get", "post", "put", "patch", "delete", "options"])
def test_every_answer_under_the_api_is_json_whatever_the_method(method: str) -> None:
    client = Client(enforce_csrf_checks=True, raise_request_exception=False)  # a program sends no CSRF token
    for address in ("/api/v1/nothing", "/api/v1/", "/api/v1", "/api/v2/matches", "/api/v1/matches/abc/move"):
        response = getattr(client, method)(address)
        assert response.status_code == 404, (method, address, response)
        assert response["Content-Type"] == "application/json", (method, address)
        assert response.json()["error"] == "No such address: see /api/ for the list."
    response = getattr(client, method)("/api/v1/account/")
    assert response.status_code == 404 and "drop the trailing slash" in response.json()["error"]
    if method != "get":  # a known address, the wrong method
        for address in ("/api/v1/account", "/api/v1/stream/events", "/api/v1/matches/1/stream"):
            response = getattr(client, method)(address)
            assert response.status_code == 405, (method, address, response)
            assert response["Content-Type"] == "application/json" and response["Allow"] == "GET"
            assert response.json()["error"] == "Use GET here."
    # A bug under /api/ is JSON too.
    response = getattr(client, method)("/api/v1/test-errors/broken")
    assert response.status_code == 500 and response["Content-Type"] == "application/json"
    assert "went wrong" in response.json()["error"]


def test_a_form_post_to_the_api_page_is_refused_in_json() -> None:
    response = Client(enforce_csrf_checks=True).post("/api/")
    assert response.status_code == 403 and response["Content-Type"] == "application/json"
    assert response.json()["error"]
