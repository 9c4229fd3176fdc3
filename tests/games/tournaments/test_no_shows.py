"""No-shows, byes and places (games.tournaments: places.py, services/scoring.py `ranked`, display.py `podium`).

A table whose players never open it ends on the clock: the seat the game waits on runs out of time before a
first move, and the match is aborted (games.play.decide.decide_timeout, what the runner asks of a run-out
clock). An aborted match counts for nothing on its page, and so in the tournament: no line on any sheet, no
place earned, no meeting for the Swiss pairing; the absent player is paused. A Swiss bye is a result: its
2 points earn a place and the podium. The standings' ranks, the podium and the places stored at the end are one
reading, shared places written "=2" (the podium "=2nd")."""

from __future__ import annotations

import html
import io
import re
from datetime import timedelta
from typing import Any

import pytest
from django.core.management import call_command
from django.utils import timezone
from factories import client_for, make_user
from tournament_play import win

from games.models import Entrant, Match, PlayerStats, Tournament, TournamentBye, TournamentGame
from games.play.decide import decide_timeout
from games.play.snapshot import must_act_of, state_of
from games.play.store import load
from games.play.sync import run_change
from games.tournaments import display, services
from games.tournaments.places import Place, assign_places
from games.tournaments.services.pairing import _met

pytestmark = pytest.mark.django_db(transaction=True)


def player(username: str, name: str, rating: float) -> Any:
    user = make_user(username, display_name=name)
    PlayerStats.objects.create(user=user, game="gomori", rating=rating, deviation=80, rated_matches=20)
    return user


def no_show(match: Match) -> int:
    """Nobody at this table moves: the clock of the seat the game waits on runs out before its first move (the
    decider the runner calls for a run-out clock). The absent person's id."""
    snap = load(match.pk)
    assert snap is not None
    absent = snap.seats[sorted(must_act_of(snap, state_of(snap)))[0]].user_id
    assert absent is not None
    run_change(match.pk, decide_timeout, bot=None, now=timezone.now() + timedelta(seconds=31))
    match.refresh_from_db()
    assert match.status == Match.Status.ABORTED and match.result["why"] == "time"
    return absent


def round_match(t: Tournament, round_: int) -> Match:
    (game,) = TournamentGame.objects.filter(tournament=t, round=round_).select_related("match")
    return game.match


def page(t: Tournament, user: Any = None) -> str:
    return html.unescape(client_for(user).get(f"/tournaments/{t.pk}/").content.decode())


def _plain(fragment: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", fragment)).strip()


def ranks_text(body: str) -> str:
    """The standings as a person reads them: "1 Erin 2 · – Alan 0" (place, name, points per row)."""
    section = re.search(r'<section id="tournament-standings".*?</section>', body, re.S)
    assert section is not None
    rows = []
    for row in re.findall(r"<tr data-user=.*?</tr>", section.group(0), re.S):
        rank = re.search(r'<td class="number rank">(.*?)</td>', row, re.S)
        name = re.search(r'<a href="/u/[^"]+/">([^<]+)</a>', row)
        score = re.search(r'<td class="number score"><strong>(\d+)</strong>', row)
        assert rank and name and score, row
        rows.append(f"{_plain(rank.group(1))} {name.group(1)} {score.group(1)}")
    return " · ".join(rows)


def podium_text(body: str) -> str:
    """The podium as read: "1st Erin 2 points · =2nd Ben 0 points"; "" when there is none."""
    podium = re.search(r'<ol class="podium">.*?</ol>', body, re.S)
    if podium is None:
        return ""
    return " · ".join(_plain(item) for item in re.findall(r"<li .*?</li>", podium.group(0), re.S))


def sheets(t: Tournament) -> dict[str, list[tuple[str, int]]]:
    return {e.user.username: [(line["r"], line["p"]) for line in e.sheet]
            for e in Entrant.objects.filter(tournament=t).select_related("user")}


def stored_places(t: Tournament) -> dict[str, int | None]:
    return dict(Entrant.objects.filter(tournament=t).values_list("user__username", "place"))


def swiss_of_three(rounds: int) -> tuple[Tournament, Any, Any, Any]:
    """Alan (1800) and Mia (1600) sit at round 1's table; Erin (1400), the lowest, gets its bye."""
    t = services.create_tournament(creator=make_user("staff", is_staff=True), kind="swiss", game="gomori",
                                   clock_key="turn30", rounds=rounds, starts_at=timezone.now())
    alan, mia, erin = player("alan", "Alan", 1800), player("mia", "Mia", 1600), player("erin", "Erin", 1400)
    for user in (erin, alan, mia):
        services.join(tournament_id=t.pk, user=user)
    services.tick()
    t.refresh_from_db()
    assert t.round == 1 and t.clock["kind"] == "turn"
    assert list(TournamentBye.objects.filter(tournament=t).values_list("user_id", flat=True)) == [erin.pk]
    assert {s.user_id for s in round_match(t, 1).seats.all()} == {alan.pk, mia.pk}
    return t, alan, mia, erin


def test_a_swiss_of_three_whose_pairs_never_move_places_only_the_bye_and_crowns_it_alone() -> None:
    t, alan, mia, erin = swiss_of_three(rounds=2)
    absent = no_show(round_match(t, 1))
    # Round 1's abort is no game for either of them: no "Loss: 0 points", no meeting; the absent one is paused.
    assert sheets(t) == {"alan": [], "mia": [], "erin": [("b", 2)]}
    assert Entrant.objects.get(tournament=t, user_id=absent).paused
    assert _met(t) == {}
    # Round 2: the one who stayed meets Erin, and that table never moves either.
    t.refresh_from_db()
    assert t.round == 2
    present = mia.pk if absent == alan.pk else alan.pk
    assert {s.user_id for s in round_match(t, 2).seats.all()} == {present, erin.pk}
    no_show(round_match(t, 2))
    t.refresh_from_db()
    assert t.status == Tournament.Status.FINISHED

    assert sheets(t) == {"alan": [], "mia": [], "erin": [("b", 2)]}
    assert stored_places(t) == {"erin": 1, "alan": None, "mia": None}
    rows = display.standings(t)
    assert [(row.username, row.rank, row.score) for row in rows] == [("erin", "1", 2), ("alan", "", 0), ("mia", "", 0)]
    assert [row.username for row in display.podium(rows, t)] == ["erin"]
    body = page(t, mia)
    assert ranks_text(body) == "1 Erin 2 · – Alan 0 · – Mia 0"
    assert podium_text(body) == "1st Erin 2 points"
    assert "Loss" not in body and "No game was played" not in body
    assert "You were in it with no result (no game counted, no bye): no place ." in _plain(body)
    assert "You played in it: 2 points , place 1 ." in _plain(page(t, erin))
    # Rebuilt from the matches and byes: the same sheets and places.
    Entrant.objects.filter(tournament=t).update(score=0, sheet=[], place=None)
    call_command("rebuild_tournament", str(t.pk), stdout=io.StringIO())
    assert sheets(t) == {"alan": [], "mia": [], "erin": [("b", 2)]}
    assert stored_places(t) == {"erin": 1, "alan": None, "mia": None}


def test_a_swiss_no_show_then_a_game_the_bye_counts_for_the_podium_beside_the_winner() -> None:
    t, alan, mia, _erin = swiss_of_three(rounds=2)
    absent = no_show(round_match(t, 1))
    present = mia if absent == alan.pk else alan
    t.refresh_from_db()
    win(round_match(t, 2), present)  # round 2: the one who came beats Erin
    t.refresh_from_db()
    assert t.status == Tournament.Status.FINISHED
    absent_name = "alan" if absent == alan.pk else "mia"
    assert sheets(t) == {present.username: [("w", 2)], "erin": [("b", 2), ("l", 0)], absent_name: []}
    # Both on 2 points: Buchholz 2 each, Sonneborn-Berger 2 for the winner against 0 for Erin.
    assert stored_places(t) == {present.username: 1, "erin": 2, absent_name: None}
    body = page(t)
    who = present.display_name
    assert ranks_text(body) == f"1 {who} 2 · 2 Erin 2 · – {absent_name.title()} 0"
    assert podium_text(body) == f"1st {who} 2 points · 2nd Erin 2 points"


def test_an_arena_where_one_pairing_never_opens_places_the_others_with_shared_places() -> None:
    """Six join; three tables. Ann and Cat win theirs, equal on points and rating: they share the first place,
    the next place is 3rd. Eve and Fay's table never opens: neither has a place, and neither is on the podium."""
    t = services.create_tournament(creator=make_user("staff", is_staff=True), kind="arena", game="gomori",
                                   clock_key="turn30", minutes=30, starts_at=timezone.now())
    ratings = {"ann": 1500, "ben": 1500, "cat": 1500, "dan": 1450, "eve": 1400, "fay": 1400}
    people = {name: player(name, name.title(), rating) for name, rating in ratings.items()}
    for user in people.values():
        services.join(tournament_id=t.pk, user=user)
    services.tick()
    tables = {frozenset(s.user.username for s in m.seats.select_related("user"))
              for m in Match.objects.filter(tournament_game__tournament=t)}
    assert tables == {frozenset(("ann", "ben")), frozenset(("cat", "dan")), frozenset(("eve", "fay"))}
    # The time is up at once, so nobody is paired again; the three matches end and count (or not).
    Tournament.objects.filter(pk=t.pk).update(started_at=timezone.now() - timedelta(minutes=31))

    def at(name: str) -> Match:
        match = Entrant.objects.get(tournament=t, user=people[name]).match
        assert match is not None
        return match

    win(at("ann"), people["ann"])
    win(at("cat"), people["cat"])
    absent = no_show(at("eve"))
    services.tick()
    t.refresh_from_db()
    assert t.status == Tournament.Status.FINISHED

    assert sheets(t) == {"ann": [("w", 2)], "ben": [("l", 0)], "cat": [("w", 2)], "dan": [("l", 0)],
                         "eve": [], "fay": []}
    assert Entrant.objects.get(tournament=t, user_id=absent).paused
    assert stored_places(t) == {"ann": 1, "cat": 1, "ben": 3, "dan": 4, "eve": None, "fay": None}
    rows = display.standings(t)
    assert [(row.username, row.rank) for row in rows] == [
        ("ann", "=1"), ("cat", "=1"), ("ben", "3"), ("dan", "4"), ("eve", ""), ("fay", "")]
    assert [row.place.number for row in rows] == [stored_places(t)[row.username] for row in rows]
    body = page(t, people["cat"])
    assert ranks_text(body) == "=1 Ann 2 · =1 Cat 2 · 3 Ben 0 · 4 Dan 0 · – Eve 0 · – Fay 0"
    assert podium_text(body) == "=1st Ann 2 points · =1st Cat 2 points · 3rd Ben 0 points"
    assert "You played in it: 2 points , place =1 ." in _plain(body)
    profile = html.unescape(client_for().get("/u/cat/").content.decode())
    assert re.search(r'medal-1">=1</strong> <span class="muted">of 6', profile)
    assert re.search(r'medal-3">3</strong> <span class="muted">of 6',
                     html.unescape(client_for().get("/u/ben/").content.decode()))


def test_places_are_numbered_in_order_shared_by_equal_keys_and_none_without_a_result() -> None:
    found = assign_places([(-4,), (-2,), (-2,), (-1,), (0,), None, None])
    assert [p.label for p in found] == ["1", "=2", "=2", "4", "5", "", ""]
    assert [p.ordinal for p in found] == ["1st", "=2nd", "=2nd", "4th", "5th", "", ""]
    assert [p.on_podium for p in found] == [True, True, True, False, False, False, False]
    assert assign_places([]) == [] and assign_places([None]) == [Place(None)]
    with pytest.raises(ValueError):
        assign_places([None, (0,)])  # a result below no result: two readings of one standing
    with pytest.raises(ValueError):
        assign_places([(1,), (2,), (1,)])  # a tie split by another entrant
