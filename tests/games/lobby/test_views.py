"""The views of games/lobby/views.py and games/site/match.py through Django's test client: the home page, the
lobby (/play/), create, join, leave, cancel and abandon, and the match page.

For each: what a signed-in person gets for the right method, what a signed-out one gets (the sign-in page,
nothing changed), the wrong method (405), bad input (a 4xx or a message on the lobby, never a 500), and the
CSRF check on its POST. The forms are posted as the lobby renders them, the way a browser would.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from html.parser import HTMLParser
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from factories import client_for, make_match, make_user

from games.engines import SLUGS, get_engine
from games.models import Match

pytestmark = pytest.mark.django_db

LOBBY = "/play/"


def page_text(response: Any) -> str:
    return html.unescape(response.content.decode())


def fresh(match: Match) -> Match:
    return Match.objects.get(pk=match.pk)


class FormReader(HTMLParser):
    """The fields a browser would submit for each form of a page, by the form's action: text and hidden
    inputs with their values, ticked checkboxes, and each select's selected (else first) option."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: dict[str, dict[str, str]] = {}
        self._form: dict[str, str] | None = None
        self._select: str | None = None
        self._first: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form":
            self._form = self.forms.setdefault(a.get("action", ""), {})
        elif self._form is None:
            return
        elif tag == "input" and a.get("name"):
            kind = a.get("type", "text")
            if kind in ("checkbox", "radio"):
                if "checked" in a:
                    self._form[a["name"]] = a.get("value", "on")
            elif kind not in ("submit", "button"):
                self._form[a["name"]] = a.get("value", "")
        elif tag == "select":
            self._select, self._first = a.get("name"), None
        elif tag == "option" and self._select:
            value = a.get("value", "")
            if self._first is None:
                self._first = value
                self._form.setdefault(self._select, value)
            if "selected" in a:
                self._form[self._select] = value

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._form = None
        elif tag == "select":
            self._select = None


def lobby_form(client: Client, action: str) -> dict[str, str]:
    """The fields of the lobby's form posting to `action`, as the lobby fills them in."""
    reader = FormReader()
    reader.feed(client.get(LOBBY).content.decode())
    assert action in reader.forms, f"the lobby has no form for {action}: {sorted(reader.forms)}"
    return reader.forms[action]


def csrf_token(client: Client) -> str:
    """The CSRF token the lobby's forms carry for this client."""
    fields = next(iter(lobby_form_fields(client).values()))
    return fields["csrfmiddlewaretoken"]


def lobby_form_fields(client: Client) -> dict[str, dict[str, str]]:
    reader = FormReader()
    reader.feed(client.get(LOBBY).content.decode())
    return {action: fields for action, fields in reader.forms.items() if "csrfmiddlewaretoken" in fields}


def refused_on_the_lobby(user: Any, url: str) -> Any:
    """POST to `url` as `user`: back on the lobby with an error message there (the views' answer to a request
    the services refuse); the lobby page it ends on."""
    response = client_for(user).post(url, follow=True)
    assert response.redirect_chain == [(LOBBY, 302)]
    assert 'class="message message-error"' in response.content.decode()
    return response


def sent_to_sign_in(response: Any, url: str) -> bool:
    """A redirect to the sign-in page that comes back to `url` afterwards."""
    return response.status_code == 302 and response.headers["Location"] == f"{reverse('login')}?next={url}"


# ---------------------------------------------------------------------------------------------------------
# the lobby


def test_the_home_page_names_every_game_and_answers_only_get() -> None:
    response = client_for().get("/")
    assert response.status_code == 200
    for slug in SLUGS:
        assert get_engine(slug).name in page_text(response), slug
    assert client_for(make_user()).post("/").status_code == 405


def test_the_lobby_shows_signed_out_visitors_the_open_matches() -> None:
    match = make_match(game="gomori", seats=["open"])
    response = Client().get(LOBBY)
    assert response.status_code == 200
    assert f'action="/m/{match.pk}/join/"' in response.content.decode()


def test_the_lobby_offers_a_signed_in_person_a_form_for_every_game() -> None:
    forms = lobby_form_fields(client_for(make_user()))
    for slug in SLUGS:
        assert reverse("create_match", args=[slug]) in forms, slug


def test_the_lobby_refreshes_its_lists_alone_for_htmx() -> None:
    """The lobby's polling asks with HX-Request and gets the lists, not a whole page."""
    match = make_match(game="gomori", seats=["open"])
    response = client_for(make_user()).get(LOBBY, headers={"HX-Request": "true"})
    body = response.content.decode()
    assert response.status_code == 200
    assert f"/m/{match.pk}/join/" in body
    assert "<html" not in body and "<form" in body


def test_the_lobby_answers_only_get() -> None:
    client = client_for(make_user())
    assert client.post(LOBBY).status_code == 405
    assert Client().post(LOBBY).status_code == 405


# ---------------------------------------------------------------------------------------------------------
# create


@pytest.mark.parametrize("slug", SLUGS)
def test_the_lobby_form_as_filled_in_creates_a_match(slug: str) -> None:
    user = make_user()
    client = client_for(user)
    url = reverse("create_match", args=[slug])
    response = client.post(url, lobby_form(client, url))
    match = Match.objects.get(game=slug)
    assert response.status_code == 302 and response.headers["Location"] == f"/m/{match.pk}/"
    assert match.seats.get(index=0).user == user


def test_create_with_an_open_seat_waits_in_the_lobby() -> None:
    client = client_for(make_user())
    url = reverse("create_match", args=["gomori"])
    response = client.post(url, {**lobby_form(client, url), "gomori-seat_1": "open"})
    match = Match.objects.get()
    assert response.status_code == 302 and match.status == Match.Status.WAITING
    assert f"/m/{match.pk}/join/" in client_for(make_user()).get(LOBBY).content.decode()


def test_create_needs_sign_in_and_makes_nothing() -> None:
    url = reverse("create_match", args=["gomori"])
    assert sent_to_sign_in(Client().post(url, {"gomori-players": "2"}), url)
    assert sent_to_sign_in(Client().get(url), url)
    assert not Match.objects.exists()


def test_create_is_a_post() -> None:
    assert client_for(make_user()).get(reverse("create_match", args=["gomori"])).status_code == 405


def test_create_for_an_unknown_game_is_404() -> None:
    assert client_for(make_user()).post("/play/new/chess/", {"chess-players": "2"}).status_code == 404


@pytest.mark.parametrize(("change", "error"), [
    ({"gomori-players": "9"}, "Select a valid choice"),
    ({"gomori-seat_1": "bot:no-such-level"}, "Select a valid choice"),
    ({"gomori-clock": "fischer", "gomori-clock_minutes": "0.01"}, "greater than or equal to 0.5"),
    ({"gomori-clock": "turn", "gomori-clock_turn": "many"}, "Enter a whole number"),
])
def test_bad_create_input_is_a_400_with_the_form_and_its_error(change: dict[str, str], error: str) -> None:
    client = client_for(make_user())
    url = reverse("create_match", args=["gomori"])
    response = client.post(url, {**lobby_form(client, url), **change})
    assert response.status_code == 400
    assert error in page_text(response)
    assert f'action="{url}"' in response.content.decode()  # the form again, to correct
    assert not Match.objects.exists()


def test_an_empty_create_post_is_a_400_not_a_500() -> None:
    response = client_for(make_user()).post(reverse("create_match", args=["columbo"]), {})
    assert response.status_code == 400 and "This field is required" in page_text(response)
    assert not Match.objects.exists()


# ---------------------------------------------------------------------------------------------------------
# join


def test_join_an_open_seat_starts_the_match_and_goes_to_it() -> None:
    match = make_match(game="gomori", seats=["open"])
    joiner = make_user()
    response = client_for(joiner).post(f"/m/{match.pk}/join/")
    assert response.status_code == 302 and response.headers["Location"] == f"/m/{match.pk}/"
    match = fresh(match)
    assert match.status == Match.Status.ACTIVE and match.seats.get(index=1).user == joiner


def test_join_an_invite_seat_needs_its_code() -> None:
    match = make_match(game="gomori", seats=["invite"])
    client = client_for(make_user())
    refused = client.post(f"/m/{match.pk}/join/", {"code": "not-the-code"}, follow=True)
    assert refused.redirect_chain == [(LOBBY, 302)]
    assert fresh(match).status == Match.Status.WAITING
    assert "invite" in page_text(refused).lower()
    assert client.post(f"/m/{match.pk}/join/", {"code": match.invite_code}).status_code == 302
    assert fresh(match).status == Match.Status.ACTIVE


# ---------------------------------------------------------------------------------------------------------
# leave


def test_leave_frees_the_seat_of_a_waiting_match() -> None:
    match = make_match(game="ruhd", seats=["open", "open"])
    joiner = make_user()
    client_for(joiner).post(f"/m/{match.pk}/join/")
    assert fresh(match).seats.filter(user=joiner).exists()
    response = client_for(joiner).post(f"/m/{match.pk}/leave/")
    assert response.status_code == 302 and response.headers["Location"] == LOBBY
    assert not fresh(match).seats.filter(user=joiner).exists()


# ---------------------------------------------------------------------------------------------------------
# cancel and abandon


@pytest.mark.parametrize(("action", "seat", "told"), [
    ("cancel", "open", "The match was cancelled."),  # still waiting for a player
    ("abandon", "bot:random", "The match was called off: it counts for nothing."),  # a bot's, nobody moved
])
def test_the_creator_calls_a_match_off_and_is_told_so(action: str, seat: str, told: str, settings: Any) -> None:
    settings.GAMES_BOT_DELAY = 0
    creator = make_user()
    match = make_match(creator=creator, game="gomori", seats=[seat])
    response = client_for(creator).post(f"/m/{match.pk}/{action}/", follow=True)
    assert response.redirect_chain == [(LOBBY, 302)]
    assert told in page_text(response)
    assert fresh(match).status == Match.Status.ABORTED


# ---------------------------------------------------------------------------------------------------------
# the match page


def test_the_match_page_of_a_waiting_public_match_offers_its_seat() -> None:
    match = make_match(game="gomori", seats=["open"])
    response = client_for(make_user()).get(f"/m/{match.pk}/")
    assert response.status_code == 200 and f'action="/m/{match.pk}/join/"' in response.content.decode()
    assert client_for().get(f"/m/{match.pk}/").status_code == 200


def test_a_private_match_is_a_404_to_strangers_and_open_to_its_players_and_its_link() -> None:
    creator = make_user()
    match = make_match(creator=creator, game="gomori", seats=["invite"], is_public=False)
    url = f"/m/{match.pk}/"
    assert client_for(make_user()).get(url).status_code == 404
    assert client_for().get(url).status_code == 404
    assert client_for(make_user()).get(url, {"code": "wrong"}).status_code == 404
    assert client_for(creator).get(url).status_code == 200
    invited = client_for(make_user()).get(url, {"code": match.invite_code})
    assert invited.status_code == 200 and f'action="/m/{match.pk}/join/"' in invited.content.decode()


def test_the_match_page_of_no_match_is_a_404_and_it_answers_only_get() -> None:
    assert client_for(make_user()).get("/m/999999/").status_code == 404
    match = make_match(game="gomori", seats=["open"])
    assert client_for(make_user()).get(f"/m/{match.pk}/", {"code": "x" * 10_000}).status_code == 200
    assert client_for(make_user()).post(f"/m/{match.pk}/").status_code == 405


# ---------------------------------------------------------------------------------------------------------
# every match action: what cannot be is a message, signed out is the sign-in page, a GET is 405


# (action, the other seat, started by a second player, who asks, a match id that does not exist)
REFUSED = [
    ("join", "open", False, "creator", False),  # a seat of one's own match
    ("join", "open", True, "stranger", False),  # no seat left
    ("join", "open", False, "stranger", True),
    ("leave", "open", False, "stranger", False),  # not one's match
    ("leave", "open", False, "creator", True),
    ("cancel", "open", False, "stranger", False),  # only the creator
    ("cancel", "open", True, "creator", False),  # no longer waiting
    ("cancel", "open", False, "creator", True),
    ("abandon", "open", True, "creator", False),  # against a person: resign at the table instead
    ("abandon", "bot:random", False, "stranger", False),  # not one's match
    ("abandon", "bot:random", False, "creator", True),
]


@pytest.mark.parametrize(("action", "seat", "started", "who", "unknown"), REFUSED)
def test_a_match_action_that_cannot_be_is_a_message_on_the_lobby_and_changes_nothing(
        action: str, seat: str, started: bool, who: str, unknown: bool, settings: Any) -> None:
    settings.GAMES_BOT_DELAY = 0
    creator = make_user()
    match = make_match(creator=creator, game="gomori", seats=[seat], joiners=[make_user()] if started else [])
    before = (fresh(match).status, sorted(match.seats.values_list("index", "user_id")))
    match_id = 999_999 if unknown else match.pk
    refused_on_the_lobby(creator if who == "creator" else make_user(), f"/m/{match_id}/{action}/")
    assert (fresh(match).status, sorted(match.seats.values_list("index", "user_id"))) == before


@pytest.mark.parametrize(("action", "seat"), [
    ("leave", "open"), ("cancel", "open"), ("abandon", "bot:random"),
])
def test_match_actions_need_sign_in_and_a_post(action: str, seat: str, settings: Any) -> None:
    """Signed out: the sign-in page, coming back here after; signed in, a GET: 405. Neither changes a thing."""
    settings.GAMES_BOT_DELAY = 0
    creator = make_user()
    match = make_match(creator=creator, game="gomori", seats=[seat])
    before = (match.status, sorted(match.seats.values_list("index", "user_id")))
    url = f"/m/{match.pk}/{action}/"
    assert sent_to_sign_in(Client().post(url), url)
    assert client_for(creator).get(url).status_code == 405
    assert client_for(make_user()).get(url).status_code == 405
    assert (fresh(match).status, sorted(match.seats.values_list("index", "user_id"))) == before


# ---------------------------------------------------------------------------------------------------------
# CSRF: every POST of these views needs the token the lobby's forms carry


def csrf_cases() -> list[tuple[str, Callable[[Any], tuple[str, dict[str, str]]]]]:
    """(view, how to post to it: the url and the data, given the signed-in creator of a waiting match)."""
    return [
        ("create", lambda match: (reverse("create_match", args=["gomori"]), {"gomori-players": "2",
                                                                             "gomori-seat_0": "me",
                                                                             "gomori-seat_1": "open"})),
        ("join", lambda match: (f"/m/{match.pk}/join/", {})),
        ("leave", lambda match: (f"/m/{match.pk}/leave/", {})),
        ("cancel", lambda match: (f"/m/{match.pk}/cancel/", {})),
        ("abandon", lambda match: (f"/m/{match.pk}/abandon/", {})),
    ]


@pytest.mark.parametrize(("view", "target"), csrf_cases(), ids=[name for name, _ in csrf_cases()])
def test_posts_without_the_csrf_token_are_refused(view: str, target: Callable[[Any], tuple[str, dict[str, str]]],
                                                  ) -> None:
    creator = make_user()
    match = make_match(creator=creator, game="ruhd", seats=["open", "open"])
    client = client_for(creator if view != "join" else make_user(), enforce_csrf_checks=True)
    url, data = target(match)
    before = (Match.objects.count(), fresh(match).status, sorted(match.seats.values_list("index", "user_id")))
    response = client.post(url, data)
    assert response.status_code == 403
    assert (Match.objects.count(), fresh(match).status, sorted(match.seats.values_list("index", "user_id"))) == before


def test_a_post_with_the_lobby_s_token_passes_the_csrf_check() -> None:
    """The other side of the test above: the same strict client, given the token, gets through."""
    creator = make_user()
    match = make_match(creator=creator, game="gomori", seats=["open"])
    client = client_for(creator, enforce_csrf_checks=True)
    response = client.post(f"/m/{match.pk}/cancel/", {"csrfmiddlewaretoken": csrf_token(client)})
    assert response.status_code == 302
    assert fresh(match).status == Match.Status.ABORTED
