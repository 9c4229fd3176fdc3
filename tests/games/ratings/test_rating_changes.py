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


# ---------------------------------------------------------------------------------------------
# A bot's rating on its profile, and a provisional rating explained where it moves


def test_a_bot_s_profile_shows_the_rating_the_lobby_and_watch_show() -> None:
    from games.lobby.forms import level_label
    from games.lobby.queries import watchable_matches
    from games.models import PlayerStats
    from games.play.bot_accounts import bot_user, ensure_bot_accounts

    ensure_bot_accounts()
    shark = bot_user("ruhd", "search")
    # Its statistics row as an older level measurement left it: the profile must not read the rating from it.
    PlayerStats.objects.create(user=shark, game="ruhd", played=3, won=2, lost=1, rating=1500.0, deviation=50.0)
    watched = make_match(creator=make_user("ada"), game="ruhd", seats=["bot:search"])
    (listed,) = [m for m in watchable_matches(make_user("viewer")) if m.pk == watched.pk]
    on_watch = listed.seat_ratings[1]
    assert level_label("ruhd", "search") == f"Shark ({on_watch})"  # the lobby's seat choice
    html = Client().get("/u/bot-ruhd-search/").content.decode()
    assert re.search(rf'<p class="stats-rating"><strong>{on_watch}</strong>', html), html
    assert "2 · 1 · 0" in html and "provisional-note" not in html


def test_a_provisional_rating_is_explained_in_the_result_box_and_on_the_profile() -> None:
    alice, bob = make_user("alice", display_name="Alice"), make_user("bob", display_name="Bob")
    match = played_and_resigned(alice, bob)
    assert all(r["provisional"] for r in Match.objects.get(pk=match.pk).result["ratings"])
    link = '<a href="/leaderboard/?game=gomori#provisional">How ratings work</a>'
    box = page(alice, f"/m/{match.pk}/")
    box = box[box.index('class="rating-changes"'):box.index("Replay this match move by move")]
    assert ("Provisional rating: it moves fast over the first games, until the site knows your level. " + link) in box
    spectator = Client().get(f"/m/{match.pk}/").content.decode()
    assert "until the site knows the player’s level. " + link in spectator
    assert "until the site knows your level. " + link in page(alice, "/u/alice/")
    assert "until the site knows Alice’s level. " + link in page(bob, "/u/alice/")
    leaderboard = Client().get("/leaderboard/?game=gomori").content.decode()
    assert 'id="provisional"' in leaderboard and "A provisional rating moves fast over the first games" in leaderboard


def test_an_established_rating_has_no_provisional_note() -> None:
    from games.models import PlayerStats

    alice, bob = make_user("alice", display_name="Alice"), make_user("bob", display_name="Bob")
    for person in (alice, bob):
        PlayerStats.objects.create(user=person, game="gomori", played=30, won=15, lost=15, rating=1600.0,
                                   deviation=60.0, rated_matches=30)
    match = played_and_resigned(alice, bob)
    assert not any(r["provisional"] for r in Match.objects.get(pk=match.pk).result["ratings"])
    assert "rating-changes" in page(alice, f"/m/{match.pk}/")
    assert "provisional-note" not in page(alice, f"/m/{match.pk}/") and "provisional-note" not in page(bob, "/u/alice/")
