"""Replays: the engine replayed from the seed equals the live states move for move; the replay page
renders any move from the live table's templates without a socket, and never reveals a hidden card of
a match still being played."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import playing
import pytest
from factories import client_for
from history_helpers import SLUGS, fresh, play_random, start_match

from games.engines import get_engine
from games.engines.base import JOKERS, RANKS, SUITS, card_name
from games.history import replay
from games.models import Match
from games.play.create import SeatSpec, create_match

pytestmark = pytest.mark.django_db

OPTIONS = {"columbo": {"rounds": 1}}
CARD_CODES = frozenset([r + s for r in RANKS for s in SUITS] + list(JOKERS))


def played(game: str, users: list[Any], seed: int) -> tuple[Match, list[dict[str, Any]]]:
    """A random game through the services, with the stored state after every move."""
    stored: list[dict[str, Any]] = []
    match = start_match(game, users, seed=seed, options=OPTIONS.get(game))
    match = play_random(match, users, random.Random(seed), on_move=lambda m: stored.append(m.state))
    return match, stored


@pytest.mark.parametrize("game", SLUGS)
def test_the_replay_equals_the_live_states_move_for_move(game: str, alice: Any, bob: Any) -> None:
    match, stored = played(game, [alice, bob], seed=101)
    assert match.status == Match.Status.FINISHED
    assert len(stored) == match.move_count
    assert replay.replayed_dumps(match) == stored
    engine = get_engine(game)
    moves = replay.recorded_moves(match)
    for number in sorted({0, 1, len(moves) // 2, len(moves)}):
        expected = engine.new_game(2, seed=match.seed, options=match.options or None) if number == 0 else None
        state = replay.state_after(match, moves, number)
        assert engine.dump(state) == (engine.dump(expected) if number == 0 else stored[number - 1])


@pytest.mark.parametrize("game", SLUGS)
def test_the_replay_page_renders_every_perspective_from_the_table_templates(game: str, alice: Any, bob: Any,
                                                                            carol: Any) -> None:
    match, _ = played(game, [alice, bob], seed=202)
    total = match.move_count
    client = client_for(carol)  # not a player: a finished match hides nothing any more
    for number in (0, 1, total // 2, total):
        for seat in ("all", "table", "0", "1"):
            response = client.get(f"/m/{match.pk}/replay/", {"move": number, "seat": seat})
            assert response.status_code == 200
            html = response.content.decode()
            assert f"<strong>{number}</strong> / {total}" in html
            assert "/ws/m/" not in html  # a replay opens no match socket (the header's cues socket is not one)
            assert 'id="players"' in html and 'id="log"' in html
            assert response.context["panels"]
            assert len(response.context["panels"]) == (2 if seat == "all" else 1)
    last = client.get(f"/m/{match.pk}/replay/").content.decode()
    assert f"<strong>{total}</strong> / {total}" in last  # it opens on the final position
    assert 'class="outcome"' in last


def test_every_hand_is_shown_once_the_match_is_over(alice: Any, bob: Any, carol: Any) -> None:
    match, _ = played("gomori", [alice, bob], seed=303)
    engine = get_engine("gomori")
    state = replay.state_after(match, replay.recorded_moves(match), 4)
    html = client_for(carol).get(f"/m/{match.pk}/replay/?move=4&seat=all").content.decode()
    for seat in (0, 1):
        for code in engine.view(state, seat)["hand"]:
            assert f'title="{card_name(code)}"' in html
    only_bob = client_for(carol).get(f"/m/{match.pk}/replay/?move=4&seat=1").content.decode()
    for code in engine.view(state, 0)["hand"]:
        assert f'title="{card_name(code)}"' not in only_bob.split('id="log"')[0]


def test_the_replay_page_keeps_to_the_strict_csp(alice: Any, bob: Any) -> None:
    match, _ = played("gomori", [alice, bob], seed=404)
    html = client_for(alice).get(f"/m/{match.pk}/replay/?move=3").content.decode()
    assert re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html) is None, "no inline script"
    assert " style=" not in html, "no inline style attribute"
    assert "/static/js/replay.js" in html
    assert 'data-replay-step="back"' in html and 'data-replay-step="forward"' in html
    assert 'type="range"' in html


def test_an_htmx_step_answers_with_the_replay_fragment_only(alice: Any, bob: Any) -> None:
    match, _ = played("gomori", [alice, bob], seed=505)
    response = client_for(alice).get(f"/m/{match.pk}/replay/?move=2&seat=all", headers={"HX-Request": "true"})
    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith('<div id="replay"')
    assert "<html" not in html


def test_move_numbers_outside_the_match_are_clamped(alice: Any, bob: Any) -> None:
    match, _ = played("gomori", [alice, bob], seed=606)
    client = client_for(alice)
    assert client.get(f"/m/{match.pk}/replay/?move=-4").context["number"] == 0
    assert client.get(f"/m/{match.pk}/replay/?move=99999").context["number"] == match.move_count
    assert client.get(f"/m/{match.pk}/replay/?move=abc").context["number"] == match.move_count


def test_matches_without_moves_or_hidden_from_the_viewer_have_no_replay(alice: Any, bob: Any, carol: Any) -> None:
    waiting = create_match(creator=alice, game="gomori", players=2, seats=[SeatSpec("open")])
    assert client_for(alice).get(f"/m/{waiting.pk}/replay/").status_code == 404
    private = start_match("gomori", [alice, bob], seed=7, is_public=False)
    assert client_for(carol).get(f"/m/{private.pk}/replay/").status_code == 404
    assert client_for().get(f"/m/{private.pk}/replay/").status_code == 404
    assert client_for(bob).get(f"/m/{private.pk}/replay/").status_code == 200
    assert client_for(carol).get(f"/m/{private.pk}/replay/?code={private.invite_code}").status_code == 200
    assert client_for().get("/m/999999/replay/").status_code == 404


# ---------------------------------------------------------------------------------------------
# An unfinished match: only one's own view, or the spectators'


def codes_in(value: Any) -> set[str]:
    """Every card code a view mentions anywhere (values and log texts alike)."""
    text = json.dumps(value)
    return {code for code in re.findall(r"\b(?:10|[2-9AJQK])[CDHS]\b|\bX[RB]\b", text) if code in CARD_CODES}


def reveals(html: str, code: str) -> bool:
    """Whether the page shows this card: its name as people read it, or its code as a token."""
    return card_name(code) in html or re.search(rf"(?<![A-Za-z0-9]){re.escape(code)}(?![A-Za-z0-9])", html) is not None


def half_played(game: str, users: list[Any], seed: int, moves: int) -> Match:
    """A match stopped after some random moves (never a Columbo tap, which may end it), still in progress."""
    engine = get_engine(game)
    match = start_match(game, users, seed=seed)
    rng = random.Random(seed)
    for _ in range(moves):
        match = fresh(match)
        state = engine.load(match.state)
        seat = (engine.must_act(state) or engine.to_act(state))[0]
        legal = engine.legal_actions(state, seat)
        action = rng.choice([a for a in legal if a.get("type") != "tap"] or legal)
        playing.act(match_id=match.pk, user=users[seat], seat=seat, action=action, expected_version=match.version)
    match = fresh(match)
    assert match.status == Match.Status.ACTIVE
    return match


@pytest.mark.parametrize("game", ["gomori", "columbo", "rummy"])
def test_the_replay_of_a_match_in_progress_never_shows_a_hidden_card(game: str, alice: Any, bob: Any,
                                                                     carol: Any) -> None:
    match = half_played(game, [alice, bob], seed=808, moves=6)
    engine = get_engine(game)
    moves = replay.recorded_moves(match)
    checked = 0
    for number in range(len(moves) + 1):
        state = replay.state_after(match, moves, number)
        mine, theirs, public = (codes_in(engine.view(state, seat)) for seat in (0, 1, None))
        secret_from_me = theirs - mine
        secret_from_all = (mine | theirs) - public
        # Alice asks for Bob's view and for every hand: she still gets only her own.
        for query in ({"seat": "1"}, {"seat": "all"}, {}):
            response = client_for(alice).get(f"/m/{match.pk}/replay/", {"move": number, **query})
            assert response.status_code == 200
            assert [panel.seat for panel in response.context["panels"]] == [0]
            html = response.content.decode()
            assert not [code for code in secret_from_me if reveals(html, code)]
        for viewer in (carol, None):
            response = client_for(viewer).get(f"/m/{match.pk}/replay/", {"move": number, "seat": "all"})
            assert [panel.seat for panel in response.context["panels"]] == [None]
            html = response.content.decode()
            assert not [code for code in secret_from_all if reveals(html, code)]
        checked += len(secret_from_me) + len(secret_from_all)
    assert checked > 0, "the test saw hidden cards to look for"
    # And no export while it is being played: the seed alone would reveal every card.
    assert client_for(alice).get(f"/m/{match.pk}/export.json").status_code == 404


# ---------------------------------------------------------------------------------------------
# The replay's words: "you" only for the viewer's own seat, sentences joined as sentences


YOU = re.compile(r"\b(?:you|your|yours)\b", re.IGNORECASE)


def replay_words(client: Any, match: Match, number: int, seat: str) -> str:
    """The replay's own part of the page at that step and perspective (no site header, no analysis section)."""
    response = client.get(f"/m/{match.pk}/replay/", {"move": number, "seat": seat}, headers={"HX-Request": "true"})
    assert response.status_code == 200
    return response.content.decode().split('<section id="analysis"')[0]


@pytest.mark.parametrize("game", SLUGS)
def test_a_replay_seen_from_another_s_seat_names_its_player_instead_of_you(game: str, alice: Any, bob: Any,
                                                                          carol: Any) -> None:
    match, _ = played(game, [alice, bob], seed=909)
    seen_you = False
    for number in range(match.move_count + 1):
        # Carol, who did not play, and Alice looking at Bob's seat: Bob is named, nobody is "you".
        for client in (client_for(carol), client_for(alice)):
            words = replay_words(client, match, number, "1")
            assert not YOU.search(words), (number, YOU.search(words), words[max(0, YOU.search(words).start() - 300):]
                                           [:400] if YOU.search(words) else "")
        # Alice's own seat is hers: "you" there (the log says what she did in her own words).
        seen_you = seen_you or bool(YOU.search(replay_words(client_for(alice), match, number, "0")))
    assert seen_you


def test_a_replay_step_of_several_entries_reads_as_sentences(alice: Any, bob: Any) -> None:
    match, _ = played("columbo", [alice, bob], seed=303)  # its last move ends the round and the match
    response = client_for(alice).get(f"/m/{match.pk}/replay/")
    status = response.content.decode().split('class="status replay-status"')[1].split("</section>")[0]
    assert "Round 1 is over" in status and "The match is over" in status
    assert ".;" not in status and ". Round 1 is over" in status, status
    assert "Round 1 (the last)" in response.content.decode()


def test_sentences_end_each_entry_with_its_full_stop_and_join_them_with_a_space() -> None:
    from django.utils.safestring import mark_safe

    from games.play.wording import sentences

    assert sentences([mark_safe("<strong>Ana</strong> turned it face-down."), mark_safe("The deck is empty"),
                      mark_safe("<strong>you</strong> win!")]) == (
        "<strong>Ana</strong> turned it face-down. The deck is empty. <strong>you</strong> win!")
    once = sentences([mark_safe("Ana played the 4♥ <strong>again</strong>")])
    assert once == "Ana played the 4♥ <strong>again</strong>."
    assert sentences([]) == ""
