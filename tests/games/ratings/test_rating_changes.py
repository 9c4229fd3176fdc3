"""What a match did to each rating: in the finished match's result box ("1500 → 1662, +162", provisional marked),
in the history of the person whose history it is ("+162"), and on the profile (rank, best win, longest streak)."""

from __future__ import annotations

import re
from typing import Any

import playing
import pytest
from django.test import Client
from factories import make_match, make_user

from games.engines import get_engine
from games.models import Match, PlayerResult
from games.play.decide import abort_allowed
from games.play.store import load

pytestmark = pytest.mark.django_db


def played_and_resigned(winner: Any, loser: Any, **kwargs: Any) -> Match:
    """A Gomori match between the two, played until both moved, then resigned by `loser`."""
    match = make_match(creator=winner, joiners=[loser], **kwargs)
    users = {0: winner, 1: loser}
    engine = get_engine("gomori")
    for _ in range(20):
        snap = load(match.pk)
        assert snap is not None
        if not abort_allowed(snap):
            break
        state = engine.load(snap.state)
        (seat,) = engine.must_act(state)
        playing.act(match_id=match.pk, user=users[seat], seat=seat, action=engine.legal_actions(state, seat)[0])
    return playing.resign(match_id=match.pk, user=loser)


def page(user: Any, url: str) -> str:
    client = Client()
    client.force_login(user)
    return client.get(url).content.decode()


def test_the_result_box_shows_each_player_s_change_and_marks_provisional_ratings() -> None:
    alice, bob = make_user("alice", display_name="Alice"), make_user("bob", display_name="Bob")
    match = played_and_resigned(alice, bob)
    ratings = {r["seat"]: r for r in Match.objects.get(pk=match.pk).result["ratings"]}
    results = {r.seat: r for r in PlayerResult.objects.filter(match=match)}
    assert {seat: (r["before"], r["after"]) for seat, r in ratings.items()} == {
        seat: (round(r.rating_before), round(r.rating_after)) for seat, r in results.items()}
    assert ratings[0]["after"] > 1500 > ratings[1]["after"] and ratings[0]["provisional"]
    html = page(alice, f"/m/{match.pk}/")
    box = html[html.index('class="rating-changes"'):]
    gain, loss = ratings[0]["after"] - 1500, 1500 - ratings[1]["after"]
    assert re.search(rf"Alice: 1500 → <strong>{ratings[0]['after']}</strong><abbr[^>]*>\?</abbr>, "
                     rf'<span class="rating-up">\+{gain}</span>', box)
    assert re.search(rf'Bob: 1500 → <strong>{ratings[1]["after"]}</strong>.*<span class="rating-down">-{loss}</span>',
                     box)
    # The history of each says what the match did to their own rating.
    assert re.search(rf'<span class="rating-change rating-up" title="Rating 1500 → {ratings[0]["after"]}">\+{gain}',
                     page(bob, "/u/alice/history/"))
    assert f'rating-down" title="Rating 1500 → {ratings[1]["after"]}">-{loss}' in page(alice, "/u/bob/history/")


def test_an_unrated_match_shows_no_change() -> None:
    alice, bob = make_user("alice"), make_user("bob")
    match = played_and_resigned(alice, bob, rated=False)
    assert "ratings" not in Match.objects.get(pk=match.pk).result
    assert "rating-changes" not in page(alice, f"/m/{match.pk}/")
    assert "rating-change " not in page(alice, "/u/alice/history/")


def test_the_profile_shows_rank_best_win_and_longest_streak() -> None:
    alice, bob, carol = (make_user(name, display_name=name.title()) for name in ("alice", "bob", "carol"))
    played_and_resigned(bob, carol)  # Bob goes up first
    played_and_resigned(alice, bob)
    played_and_resigned(alice, carol)
    html = page(carol, "/u/alice/")
    assert re.search(r"<dt>Rank</dt><dd><a [^>]*>#1</a>", html)
    assert re.search(r'<dt>Best win</dt><dd><a href="/u/bob/">Bob</a> <span class="muted">\(1[5-9]\d\d\)', html)
    assert "(longest 2)" in html
    assert re.search(r"<dt>Rank</dt><dd><a [^>]*>#3</a>", page(alice, "/u/carol/"))
