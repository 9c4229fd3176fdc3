"""The rules pages: one per game with its sections and examples drawn by the tables' own pieces, the bare panel
a table opens beside itself, the index, and the links to them from the footer, the lobby, the table and the
replay. The examples' captions state facts; the engine-made examples are checked against them here."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from games.catalog import GAMES
from games.engines import SLUGS

pytestmark = pytest.mark.django_db

HEADINGS = ("Goal", "Setup", "A turn", "Special cases", "Scoring", "End of the game")
# What each game's examples must contain: the classes its table draws its cards, tiles and highlights with.
DRAWN = {
    "gomori": ('class="gomori-cell', 'class="card', "card-back", "gomori-cell target", "last-play", "gathered",
               "flipped"),
    "columbo": ('class="cb-grid"', 'class="card', "card-back", "cb-mark-looked", "cb-mark-exchanged",
                "cb-mark-slapped", "cb-mark-dealt", 'class="cb-results"'),
    "ruhd": ('class="ruhd-tile"', "ruhd-cell placed", 'class="ruhd-pad"', "ring-pattern", 'class="tile-back"',
             "ruhd-hand-tiles"),
    "rummy": ('class="rm-pack', 'class="card', "card-joker", "rm-caption", 'class="rm-meter"', "rm-added"),
}


def ids_in(html: str) -> list[str]:
    return re.findall(r'\bid="([^"]+)"', html)


@pytest.mark.parametrize("game", SLUGS)
def test_each_rules_page_has_the_sections_and_examples_drawn_as_at_the_table(game: str) -> None:
    response = Client().get(f"/rules/{game}/")
    assert response.status_code == 200
    html = response.content.decode()
    assert html.startswith("<!doctype html>")
    for heading in HEADINGS:
        assert re.search(rf"<h2 id=\"rules-[a-z]+\">{heading}</h2>", html), heading
    for piece in DRAWN[game]:
        assert piece in html, piece
    assert 'href="/static/css/tables.css"' in html
    if game != "gomori":  # Gomori's field is drawn by tables.css alone
        assert f'href="/static/css/{game}.css"' in html
    # A rules page sends nothing: no control of the table came along with its pieces.
    assert "ws-send" not in html and "hx-vals" not in html and "ws-connect" not in html.split("</header>", 1)[1]
    ids = ids_in(html)
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("game", SLUGS)
def test_the_panel_is_the_rules_alone_with_ids_that_cannot_meet_the_tables(game: str) -> None:
    response = Client().get(f"/rules/{game}/", {"panel": "1"})
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" not in html and "<body" not in html and "site-header" not in html
    assert html.startswith(f'<div class="rules rules-{game} match-{game}">')
    for heading in HEADINGS:  # under the panel's own h2
        assert re.search(rf"<h3 id=\"rules-[a-z]+\">{heading}</h3>", html), heading
    assert "ws-send" not in html and "hx-vals" not in html
    assert all(i.startswith("rules-") for i in ids_in(html))


@pytest.mark.parametrize("path", ["/rules/chess/", "/rules/chess/?panel=1", "/rules/Gomori/"])
def test_an_unknown_game_has_no_rules(path: str) -> None:
    assert Client().get(path).status_code == 404


def test_the_index_lists_the_four_games_and_the_footer_leads_to_it() -> None:
    html = Client().get("/rules/").content.decode()
    for game in SLUGS:
        assert f'href="/rules/{game}/"' in html
    home = Client().get("/").content.decode()
    assert '<a href="/rules/">Rules</a>' in home


def test_the_lobby_links_the_rules_of_each_game() -> None:
    html = Client().get("/play/").content.decode()
    for game in SLUGS:
        assert f'href="/rules/{game}/"' in html


def test_the_table_has_a_rules_button_opening_the_panel_and_the_replay_links_the_rules(
    gomori_match: Any, alice: Any
) -> None:
    client = Client()
    client.force_login(alice)
    html = client.get(f"/m/{gomori_match.pk}/").content.decode()
    button = re.search(r'<button[^>]*class="rules-button"[^>]*>\?</button>', html)
    assert button is not None
    assert 'hx-get="/rules/gomori/?panel=1"' in button.group(0) and 'aria-controls="rules-panel"' in button.group(0)
    assert '<dialog id="rules-panel"' in html and "data-rules-close" in html
    assert 'src="/static/js/rules.js"' in html
    # The panel lies outside the match's socket element: nothing in it can be sent over the socket.
    assert html.index('<dialog id="rules-panel"') > html.index('id="log"')
    replay = client.get(f"/m/{gomori_match.pk}/replay/").content.decode()
    assert 'href="/rules/gomori/"' in replay


def cells(rows: list[list[dict[str, Any]]], cls: str) -> set[tuple[int, int]]:
    return {(c["at"][0], c["at"][1]) for row in rows for c in row if cls in c["classes"].split()}


def test_gomori_examples_show_what_the_captions_say() -> None:
    ex = GAMES["gomori"].rules_examples()
    five, jack, ace = ex["placing"]
    # The 5♣: empty cells, the face-down card at (1, 1) and the 5♥ at (0, 0), not the 9♠, J♥, 2♣ or 8♦.
    assert {(0, 0), (1, 1)} <= cells(five["rows"], "target")
    assert not {(0, 3), (2, 2), (3, 0), (3, 3)} & cells(five["rows"], "target")
    # The J♣ also on the J♥ and the 2♣; an ace on all 16 cells.
    assert {(0, 0), (0, 3), (3, 3)} & cells(jack["rows"], "target") == set()
    assert {(2, 2), (3, 0), (1, 1)} <= cells(jack["rows"], "target")
    assert ace["count"] == 16
    gather = ex["gather"]
    assert [c["name"] for c in gather["gathered"]] == ["3♣", "9♣", "6♥", "K♣"]
    assert cells(gather["after"], "gathered") == {(0, 1), (1, 1), (3, 1)}
    assert ex["jack"]["flipped"] == ["8♥", "10♦", "3♠"] and ex["jack"]["plays_again"]
    assert ex["queen"]["flipped"] == ["8♥", "10♦"]
    assert ex["king"]["flipped"] == ["2♥"]
    for example in (*ex["placing"],):
        assert all("hx" not in c for row in example["rows"] for c in row)


def test_the_ruhd_worked_example_scores_ten_as_the_original_rules_explain() -> None:
    pad = GAMES["ruhd"].rules_examples()["ten"]["pad"]
    assert pad["points"] == 10
    assert sorted((rule["kind"], rule["points"]) for rule in pad["rules"]) == [
        ("pattern", 2), ("pattern", 2), ("pattern", 2), ("side", 1), ("side", 3)]
    labels = " / ".join(rule["label"] for rule in pad["rules"])
    for words in ("red 1 ◆ against green 2 ●", "green 3 ● against green 3 ●", "reds ◆ facing left",
                  "1s facing left", "greens ● facing up"):
        assert words in labels
    assert GAMES["ruhd"].rules_examples()["one_side"]["pad"]["rules"][0]["kind"] == "one_side"


def test_the_rummy_and_columbo_figures_add_up() -> None:
    ex = GAMES["rummy"].rules_examples()
    assert ex["first"]["total"] == 44 and ex["first"]["enough"]
    assert ex["short"]["total"] == 36 and not ex["short"]["enough"]
    assert ex["left_total"] == 40
    assert [p["title"] for p in ex["runs"]][1:3] == ["Run of spades, A to 3", "Run of diamonds, Q to A"]
    results = GAMES["columbo"].rules_examples()
    good = results["good_tap"]["results"]["rows"]
    assert (good[0]["points"], good[0]["penalty"], good[0]["leading"]) == (3, 0, True)
    bad = results["bad_tap"]["results"]["rows"]
    assert (bad[0]["points"], bad[0]["penalty"], bad[0]["total"], bad[1]["total"]) == (10, 25, 35, 22)
