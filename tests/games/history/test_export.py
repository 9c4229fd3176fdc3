"""Export and import: a finished match as JSON, enough to replay it exactly; the admin's import replays
a file before storing it and refuses one whose actions don't replay."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import playing
import pytest
from factories import client_for
from history_helpers import SLUGS, fresh, play_random, start_match
from openings import play_openings

from games.engines import get_engine
from games.history import replay
from games.models import FinishedMatch, Match, Move, PlayerResult, PlayerStats

pytestmark = pytest.mark.django_db

OPTIONS = {"columbo": {"rounds": 1}}


def finished(game: str, users: list[Any], seed: int, **kwargs: Any) -> Match:
    match = start_match(game, users, seed=seed, options=OPTIONS.get(game), **kwargs)
    return play_random(match, users, random.Random(seed))


def exported(match: Match, user: Any = None) -> dict[str, Any]:
    response = client_for(user).get(f"/m/{match.pk}/export.json")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert f'filename="cardclub-{match.game}-{match.pk}.json"' in response["Content-Disposition"]
    return json.loads(response.content)


@pytest.fixture
def admin(make_user: Any) -> Any:
    return make_user("root", is_staff=True, is_superuser=True)


@pytest.mark.parametrize("game", SLUGS)
def test_the_export_replays_exactly_with_the_engine(game: str, alice: Any, bob: Any) -> None:
    match = finished(game, [alice, bob], seed=31)
    data = exported(match)
    assert data["format"] == "cardclub-match" and data["version"] == 1
    assert (data["game"], data["players"], data["seed"], data["options"]) == (game, 2, match.seed, match.options)
    assert [s["username"] for s in data["seats"]] == ["alice", "bob"]
    assert [a["number"] for a in data["actions"]] == list(range(1, match.move_count + 1))
    assert data["result"] == match.result
    engine = get_engine(game)
    state = engine.new_game(data["players"], seed=data["seed"], options=data["options"] or None)
    for entry in data["actions"]:
        state = engine.apply(state, entry["seat"], entry["action"])
    assert engine.dump(state) == match.state
    assert engine.is_over(state)


def test_only_finished_matches_the_viewer_may_see_are_exported(alice: Any, bob: Any, carol: Any) -> None:
    live = start_match("gomori", [alice, bob], seed=1)
    assert client_for(alice).get(f"/m/{live.pk}/export.json").status_code == 404
    private = finished("gomori", [alice, bob], seed=2, is_public=False)
    assert client_for(carol).get(f"/m/{private.pk}/export.json").status_code == 404
    assert client_for().get(f"/m/{private.pk}/export.json").status_code == 404
    assert exported(private, bob)["game"] == "gomori"
    assert exported(finished("gomori", [alice, bob], seed=3))["seed"] == 3  # public: anyone


@pytest.mark.parametrize("game", SLUGS)
def test_the_admin_imports_an_export_by_replaying_it(game: str, alice: Any, bob: Any, admin: Any) -> None:
    original = finished(game, [alice, bob], seed=41)
    data = exported(original)
    client = client_for(admin)
    assert "Import a match" in client.get("/admin/games/match/").content.decode()
    response = client.post("/admin/games/match/import/", {"text": json.dumps(data), "rated": "on"})
    assert response.status_code == 302
    copy_ = Match.objects.exclude(pk=original.pk).get()
    assert response["Location"] == f"/admin/games/match/{copy_.pk}/change/"
    assert (copy_.status, copy_.game, copy_.seed, copy_.options, copy_.state) == (
        Match.Status.FINISHED, game, original.seed, original.options, original.state)
    assert copy_.move_count == original.move_count and copy_.rated
    assert copy_.result["scores"] == original.result["scores"]
    assert copy_.result["winners"] == original.result["winners"]
    assert list(Move.objects.filter(match=copy_).order_by("number").values_list("seat", "action")) == list(
        Move.objects.filter(match=original).order_by("number").values_list("seat", "action"))
    assert [(s.user_id, s.final_score, s.place) for s in copy_.seats.order_by("index")] == [
        (s.user_id, s.final_score, s.place) for s in original.seats.order_by("index")]
    # Finished through the services: listed, and counted in the players' statistics.
    assert FinishedMatch.objects.filter(match=copy_).exists()
    assert PlayerResult.objects.filter(match=copy_).count() == 2
    assert PlayerStats.objects.get(user=alice, game=game).played == 2
    # The admin shows it with its moves and a replay link.
    page = client.get(f"/admin/games/match/{copy_.pk}/change/").content.decode()
    assert f'href="/m/{copy_.pk}/replay/"' in page


def test_an_import_whose_actions_do_not_replay_is_refused(alice: Any, bob: Any, admin: Any) -> None:
    original = finished("gomori", [alice, bob], seed=51)
    data = exported(original)
    tampered = copy.deepcopy(data)
    first = tampered["actions"][0]["action"]
    hand = get_engine("gomori").new_game(2, seed=original.seed).hands[1]
    first["card"] = hand[0]  # a red card, played by black
    response = client_for(admin).post("/admin/games/match/import/", {"text": json.dumps(tampered)})
    assert response.status_code == 200
    assert "Move 1 (seat 1) doesn&#x27;t replay" in response.content.decode()
    assert Match.objects.count() == 1


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(format="other"), "not a Card Club match file"),
        (lambda d: d.update(game="chess"), "Unknown game"),
        (lambda d: d.update(players=3), "exactly 2 players"),
        (lambda d: d.update(seed="x"), "seed must be a whole number"),
        (lambda d: d["seats"][1].update(username="nobody"), "No account has the username nobody"),
        (lambda d: d["seats"][1].update(username="alice"), "only one seat"),
        (lambda d: d.update(actions=d["actions"][:-3]), "don't finish the game"),
        (lambda d: d["actions"][2].update(seat=7), "Move 3 needs the seat"),
        (lambda d: d["result"].update(winners=[1 - d["result"]["winners"][0]] if d["result"]["winners"] else [0]),
         "different result"),
        (lambda d: d.update(options={"rounds": 3}), "can't be set up"),
    ],
)
def test_import_explains_what_is_wrong_and_stores_nothing(change: Any, message: str, alice: Any, bob: Any) -> None:
    original = finished("gomori", [alice, bob], seed=61)
    data = exported(original)
    change(data)
    with pytest.raises(replay.ReplayError, match=message):
        replay.import_match(data, creator=alice)
    assert Match.objects.count() == 1


def test_a_resigned_match_imports_with_its_resignation(alice: Any, bob: Any) -> None:
    match = start_match("gomori", [alice, bob], seed=71)
    engine = get_engine("gomori")
    state = engine.load(match.state)
    action = engine.legal_actions(state, 0)[0]
    playing.act(match_id=match.pk, user=alice, seat=0, action=action, expected_version=match.version)
    play_openings(match)  # Bob moves too: resigning is possible only once everyone has moved
    playing.resign(match_id=match.pk, user=bob)
    data = exported(fresh(match))
    imported = replay.import_match(data, creator=alice)
    assert (imported.status, imported.result["reason"], imported.result["loser"]) == (Match.Status.FINISHED,
                                                                                     "resign", 1)
    assert imported.result["winners"] == [0] and not imported.rated


def test_the_import_form_reads_an_uploaded_file(alice: Any, bob: Any, admin: Any) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile

    data = exported(finished("ruhd", [alice, bob], seed=81))
    upload = SimpleUploadedFile("match.json", json.dumps(data).encode(), content_type="application/json")
    response = client_for(admin).post("/admin/games/match/import/", {"file": upload})
    assert response.status_code == 302
    assert Match.objects.count() == 2
    garbage = SimpleUploadedFile("match.json", b"{not json", content_type="application/json")
    response = client_for(admin).post("/admin/games/match/import/", {"file": garbage})
    assert "This is not valid JSON." in response.content.decode()
    assert client_for(alice).get("/admin/games/match/import/").status_code == 302  # staff only


def test_the_match_admin_filters_searches_and_links_each_replay(alice: Any, bob: Any, carol: Any, admin: Any) -> None:
    done = finished("gomori", [alice, bob], seed=91)
    other = finished("ruhd", [carol, bob], seed=92)
    client = client_for(admin)
    page = client.get("/admin/games/match/", {"q": "alice"})
    html = page.content.decode()
    assert page.status_code == 200
    assert list(page.context["cl"].result_list) == [done]
    assert f'href="/m/{done.pk}/replay/"' in html
    by_game = client.get("/admin/games/match/", {"game__exact": "ruhd", "status__exact": "finished"})
    assert list(by_game.context["cl"].result_list) == [other]
    change = client.get(f"/admin/games/match/{done.pk}/change/").content.decode()
    assert "results and rating changes" in change.lower() and str(done.moves.first().action["card"]) in change
    stats_page = client.get("/admin/games/playerstats/", {"game__exact": "gomori"})
    assert stats_page.status_code == 200
    assert {row.user for row in stats_page.context["cl"].result_list} == {alice, bob}
    assert client.get("/admin/games/playerstats/add/").status_code == 403
