"""No "Join" for a person the gate (games.boards) refuses: the lobby and the match page show the reason in its
place, and a join posted anyway is refused with the same words before anything is decided."""

from __future__ import annotations

import html
from typing import Any

import pytest
from factories import client_for, make_match, make_user

from games.models import Match
from games.play.create import create_table

pytestmark = pytest.mark.django_db

CLOCK = {"kind": "turn", "seconds": 60}
REASON = "You are playing in a match of Gomori: you can sit down again when that match ends."


def busy_person() -> Any:
    """Someone at a clocked board: a quick pairing's match of Gomori in progress."""
    person = make_user("busy", display_name="Busy")
    create_table(game="gomori", people=[person, make_user("rival")], clock=CLOCK)
    return person


def text(response: Any) -> str:
    return html.unescape(response.content.decode())


def test_the_lobby_shows_the_reason_instead_of_join_to_a_person_at_a_clocked_board() -> None:
    waiting = make_match(creator=make_user("host"), game="gomori", seats=("open",), clock=CLOCK)
    page = text(client_for(busy_person()).get("/play/"))
    assert REASON in page
    assert f"/m/{waiting.pk}/join/" not in page
    # Someone free sees the Join.
    page = text(client_for(make_user("free")).get("/play/"))
    assert f"/m/{waiting.pk}/join/" in page and REASON not in page


def test_a_match_without_a_clock_binds_nobody_so_join_stays() -> None:
    waiting = make_match(creator=make_user("host"), game="gomori", seats=("open",))
    page = text(client_for(busy_person()).get("/play/"))
    assert f"/m/{waiting.pk}/join/" in page


def test_the_match_page_shows_the_reason_instead_of_take_a_seat() -> None:
    waiting = make_match(creator=make_user("host"), game="gomori", seats=("open",), clock=CLOCK)
    page = text(client_for(busy_person()).get(f"/m/{waiting.pk}/"))
    assert REASON in page and "Take a seat" not in page
    page = text(client_for(make_user("free")).get(f"/m/{waiting.pk}/"))
    assert "Take a seat" in page and REASON not in page


def test_a_join_posted_anyway_is_refused_with_the_reason() -> None:
    waiting = make_match(creator=make_user("host"), game="gomori", seats=("open",), clock=CLOCK)
    response = client_for(busy_person()).post(f"/m/{waiting.pk}/join/", follow=True)
    assert response.redirect_chain == [("/play/", 302)]
    assert REASON in text(response)
    match = Match.objects.get(pk=waiting.pk)
    assert match.status == Match.Status.WAITING
    assert not match.seats.filter(user__username="busy").exists()


def test_a_join_that_fills_the_match_sends_the_others_pages_to_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every road that seats people sends their open pages to the match: the creator, who may be on another
    page, goes to it; the joiner's own page goes there by the redirect."""
    import games.notify.goto as goto

    sent: list[tuple[int, list[int]]] = []
    monkeypatch.setattr(goto, "send_to_match", lambda match, user_ids: sent.append((match.pk, list(user_ids))))
    host, guest = make_user("host"), make_user("guest")
    waiting = make_match(creator=host, game="gomori", seats=("open",), clock=CLOCK)
    response = client_for(guest).post(f"/m/{waiting.pk}/join/")
    assert response.status_code == 302 and response.headers["Location"] == f"/m/{waiting.pk}/"
    assert sent == [(waiting.pk, [host.pk])]
    # A seat taken that leaves the match waiting moves nobody.
    sent.clear()
    three = make_match(creator=host, game="ruhd", seats=("open", "open"))
    client_for(guest).post(f"/m/{three.pk}/join/")
    assert sent == []
