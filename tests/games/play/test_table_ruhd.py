"""The Ruhd table over real sockets: whole games with a spectator and per-seat leak checks after every move, the
selection (choose, turn, place; choose, cover) with its per-cell points, and the score pad; plus the presenter
on its own (selections that no longer make sense, the rings of a scoring placement, the tile drawings)."""

from __future__ import annotations

import html as html_module
import json
import random
import re
from collections.abc import Callable
from typing import Any

import playing
import pytest
from channels.db import database_sync_to_async
from fragments import error_text, section

from games.engines import get_engine
from games.engines.ruhd import TILE_IDS
from games.models import Match
from games.play.create import SeatSpec, create_match
from games.presenters import ruhd as presenter

pytestmark = pytest.mark.django_db(transaction=True)

ENGINE = get_engine("ruhd")
NAMES = ["Alice", "Bob", "Carol", "Dave"]
TILE_CODE = re.compile(r"(?<![0-9A-Za-z])T\d\d(?![0-9])")


# ---------------------------------------------------------------------------------------------
# Helpers


def tile_markup(tile: dict[str, Any]) -> str:
    """A tile drawn by the table's own macro."""
    from django.template import engines

    template = engines["jinja2"].from_string('{% from "games/tables/ruhd.html" import tile_svg %}{{ tile_svg(tile) }}')
    return template.render({"tile": tile})


@database_sync_to_async
def load(match_id: int) -> Match:
    return Match.objects.get(pk=match_id)


def start(players: list[Any], *, seed: int) -> Match:
    """A started Ruhd match of these people, seats in the order given."""
    match = create_match(
        creator=players[0], game="ruhd", players=len(players), seats=[SeatSpec("open")] * (len(players) - 1), seed=seed
    )
    for user in players[1:]:
        playing.join(match_id=match.pk, user=user)
    return Match.objects.get(pk=match.pk)




def check_view(html: str, state: Any, seat: int | None) -> None:
    """This viewer's HTML names no tile beyond its view: the deck's order and the tiles set aside stay secret."""
    view = ENGINE.view(state, seat)
    shown = set(TILE_CODE.findall(html_module.unescape(html)))
    assert shown <= set(view["tiles"]), f"seat {seat} was shown {sorted(shown - set(view['tiles']))}"
    unseen = set(TILE_IDS) - set(view["tiles"])
    assert len(unseen) == view["deck"] + view["set_aside"]


def sent_values(html: str) -> list[dict[str, Any]]:
    """Every control's hx-vals, decoded."""
    return [json.loads(html_module.unescape(raw)) for raw in re.findall(r'hx-vals="([^"]*)"', html)]


def targets(html: str) -> dict[tuple[int, int], int]:
    """The legal cells the board offers for the selection: cell -> the points its badge shows (from the place
    controls, in order, and the badges beside them)."""
    board = section(html, "board")
    found = {}
    for raw, badge in re.findall(r'hx-vals="([^"]*)"><span class="visually-hidden">Place [^<]*</span>.*?'
                                 r'<span class="hint" aria-hidden="true">\+(\d+)</span>',
                                 board, re.S):
        action = json.loads(html_module.unescape(raw))["action"]
        assert action["type"] == "place"
        found[(action["at"][0], action["at"][1])] = int(badge)
    return found


async def drain(*communicators: Any) -> list[list[str]]:
    """Everything each socket received until it went quiet."""
    out = []
    for communicator in communicators:
        got = []
        while not await communicator.receive_nothing(timeout=0.2):
            got.append(await communicator.receive_from(timeout=5))
        out.append(got)
    return out


def frame(action: dict[str, Any]) -> str:
    return json.dumps({"action": action})


def ui_frame(ui: dict[str, Any]) -> str:
    return json.dumps({"ui": ui})


def expected_targets(view: dict[str, Any], tile: str, rotation: int) -> dict[tuple[int, int], int]:
    cells = view["legal_cells"][tile]
    return {(at[0], at[1]): view["cell_points"][tile][i][rotation] for i, at in enumerate(cells)}


# ---------------------------------------------------------------------------------------------
# Whole games


@pytest.mark.parametrize(("players", "seed"), [(2, 5), (4, 23)])
async def test_people_and_a_spectator_play_a_whole_game(
    ws_client: Callable[..., Any], make_user: Callable[..., Any], players: int, seed: int
) -> None:
    users = [await database_sync_to_async(make_user)(name.lower(), display_name=name) for name in NAMES[:players]]
    match = await database_sync_to_async(start)(users, seed=seed)
    sockets: dict[int | None, Any] = {}
    for seat, user in [(None, None), *enumerate(users)]:
        ok, _, sockets[seat] = await ws_client(match.pk, user)  # None: an anonymous spectator of the public match
        assert ok
    for viewer, received in zip(sockets, await drain(*sockets.values()), strict=True):
        state = ENGINE.load((await load(match.pk)).state)
        for html in received:
            check_view(html, state, viewer)
    rng = random.Random(seed)
    seen = {"turned": 0, "taken_back": 0, "cover": 0, "place": 0}
    updates: dict[int | None, str] = {}
    for _ in range(200):
        match = await load(match.pk)
        if match.status != Match.Status.ACTIVE:
            break
        state = ENGINE.load(match.state)
        seat = state.turn
        view = ENGINE.view(state, seat)
        me = sockets[seat]
        if state.phase == "place":
            # Choose a tile (a face-down one when there is one, now and then), turn it, check the badges.
            takeable = [t["tile"] for t in view["takeable"]]
            tile = rng.choice(takeable) if takeable and rng.random() < 0.4 else rng.choice(view["hand"])
            await me.send_to(text_data=ui_frame({"tile": tile, "rotation": 0}))
            html = await me.receive_from(timeout=5)
            assert targets(html) == expected_targets(view, tile, 0)
            assert 'data-hotkey="r"' in section(html, "hand")
            rotation = rng.randrange(4)
            if rotation:
                await me.send_to(text_data=ui_frame({"tile": tile, "rotation": rotation}))
                html = await me.receive_from(timeout=5)
                assert targets(html) == expected_targets(view, tile, rotation)
                seen["turned"] += 1
            for viewer, other in sockets.items():  # the selection is this socket's alone
                assert viewer == seat or await other.receive_nothing(timeout=0.02)
            cells = view["legal_cells"][tile]
            points = view["cell_points"][tile]
            best = max(range(len(cells)), key=lambda i: (points[i][rotation], rng.random()))
            action = {"type": "place", "tile": tile, "at": cells[best], "rotation": rotation}
            seen["taken_back"] += tile not in view["hand"]
        else:
            tile = rng.choice(view["hand"])
            if len(view["hand"]) > 1:
                await me.send_to(text_data=ui_frame({"tile": tile}))
                html = await me.receive_from(timeout=5)
            else:  # the only tile is chosen already
                html = updates[seat]
            covers = [v["action"] for v in sent_values(section(html, "board")) if "action" in v]
            assert covers and all(a["type"] == "cover" and a["tile"] == tile for a in covers)
            assert sorted(a["at"] for a in covers) == sorted(view["cover_cells"])
            action = rng.choice(covers)
        seen[action["type"]] += 1
        await me.send_to(text_data=frame(action))
        updates = {viewer: await sockets[viewer].receive_from(timeout=10) for viewer in sockets}
        after = await load(match.pk)
        assert after.version == match.version + 1, f"{action} was refused: {error_text(updates[seat])}"
        new_state = ENGINE.load(after.state)
        for viewer, html in updates.items():
            check_view(html, new_state, viewer)
            assert error_text(html).strip() == ""
            if viewer is not None and after.status == Match.Status.ACTIVE:
                assert ("Your turn." in html) == (viewer == new_state.turn)
            if action["type"] == "place":
                pad = section(html, "board")
                last = new_state.last_placement
                assert f'<span class="pad-total">+{last["points"]}</span>' in pad
                assert pad.count('<li class="rule rule-') == max(1, len(last["breakdown"]))
                assert f'<span class="placed-score" aria-hidden="true">+{last["points"]}</span>' in pad
                assert "You</strong> placed" in pad if viewer == seat else f"{NAMES[seat]}</strong> placed" in pad
        # Only the seat to act ever gets controls.
        for viewer, html in updates.items():
            controls = [v for v in sent_values(section(html, "board") + section(html, "hand")) if v]
            if viewer != new_state.turn or after.status != Match.Status.ACTIVE:
                assert controls == [], f"{viewer} got controls"
    match = await load(match.pk)
    assert match.status == Match.Status.FINISHED, f"not over after {match.move_count} moves"
    # Every tile of the deck went down once: placed from the open hand, or used to cover.
    assert seen["turned"] and seen["place"] - seen["taken_back"] + seen["cover"] == 5 * players, seen
    if players == 4:
        assert seen["taken_back"], seen
    state = ENGINE.load(match.state)
    assert match.result["scores"] == list(state.scores)
    for viewer, html in updates.items():
        assert "Game over" in section(html, "board")
        status = section(html, "status")
        winners = match.result["winners"]
        if match.result["draw"]:  # every seat shares the first place
            assert "A draw." in status
        elif viewer is not None and viewer in winners:
            assert "You won." in status or "shared first place." in status
        elif len(winners) == 1:
            assert f"{NAMES[winners[0]]} won." in status


# ---------------------------------------------------------------------------------------------
# The selection over the socket


async def test_selections_that_make_no_sense_are_dropped_and_spectators_have_none(
    ws_client: Callable[..., Any], alice: Any, bob: Any
) -> None:
    match = await database_sync_to_async(start)([alice, bob], seed=8)
    ok, _, first = await ws_client(match.pk, alice)
    ok2, _, second = await ws_client(match.pk, bob)
    ok3, _, watcher = await ws_client(match.pk)
    assert ok and ok2 and ok3
    await drain(first, second, watcher)
    state = ENGINE.load(match.state)
    view = ENGINE.view(state, 0)
    face_up = view["board"][0]["tile"]
    for nonsense in ({"tile": face_up}, {"tile": "T99"}, {"tile": 5}, {"rotation": 2}, {"tile": [1]}, "nope"):
        await first.send_to(text_data=json.dumps({"ui": nonsense}))
        html = await first.receive_from(timeout=5)
        assert targets(html) == {}
        assert "data-hotkey" not in html
    # A rotation out of range is taken modulo four; the prompt names the tile in hand.
    tile = view["hand"][2]
    await first.send_to(text_data=ui_frame({"tile": tile, "rotation": 7}))
    html = await first.receive_from(timeout=5)
    assert targets(html) == expected_targets(view, tile, 3)
    assert f"Turn {tile}" in section(html, "status")
    assert 'aria-pressed="true"' in section(html, "hand")
    # The seat not to act can't select; a spectator's selection is ignored without an answer.
    await second.send_to(text_data=ui_frame({"tile": tile, "rotation": 0}))
    assert targets(await second.receive_from(timeout=5)) == {}
    await watcher.send_to(text_data=ui_frame({"tile": tile, "rotation": 0}))
    assert await watcher.receive_nothing(timeout=0.3)
    # The selection is the socket's own: the others were told nothing.
    assert await second.receive_nothing(timeout=0.2)
    # Placing clears it; the cover step asks for a hand tile, then offers every face-up tile.
    cell = view["legal_cells"][tile][0]
    await first.send_to(text_data=frame({"type": "place", "tile": tile, "at": cell, "rotation": 3}))
    html = (await drain(first))[0][-1]
    assert "Now cover a face-up tile: choose a tile from the open hand" in section(html, "status")
    assert [v for v in sent_values(section(html, "board")) if v] == []
    await first.send_to(text_data=ui_frame({"tile": face_up}))
    assert [v for v in sent_values(section(await first.receive_from(timeout=5), "board")) if v] == []


# ---------------------------------------------------------------------------------------------
# The presenter on its own


def _play_until(predicate: Callable[[Any], bool], seeds: range) -> Any:
    """The first position, over greedy games from these seeds, that satisfies predicate."""
    for seed in seeds:
        state = ENGINE.new_game(2, seed=seed)
        while not ENGINE.is_over(state):
            if predicate(state):
                return state
            legal = ENGINE.legal_actions(state, state.turn)
            if state.phase == "place":
                view = ENGINE.view(state, state.turn)
                options = [(tile, i, r) for tile, cells in view["legal_cells"].items()
                           for i in range(len(cells)) for r in range(4)]
                best = max(options, key=lambda option: view["cell_points"][option[0]][option[1]][option[2]])
                tile, i, rotation = best
                action = {"type": "place", "tile": tile, "at": view["legal_cells"][tile][i], "rotation": rotation}
            else:
                action = legal[0]
            state = ENGINE.apply(state, state.turn, action)
    raise AssertionError("no such position")


def test_the_score_pad_explains_a_placement_and_rings_its_sides() -> None:
    state = _play_until(
        lambda s: s.phase == "cover" and any(item["rule"] == "pattern" for item in s.last_placement["breakdown"])
        and any(item["rule"] == "side" and item["points"] for item in s.last_placement["breakdown"]),
        range(1, 200),
    )
    last = state.last_placement
    table = presenter.present(ENGINE.view(state, None), None, {}, NAMES[:2])
    pad = table["pad"]
    assert pad["points"] == last["points"] == sum(rule["points"] for rule in pad["rules"])
    assert pad["who"] == NAMES[last["seat"]]
    kinds = [rule["kind"] for rule in pad["rules"]]
    assert kinds == [item["rule"] for item in last["breakdown"]]
    assert any(rule["label"].startswith("Pattern created: ") for rule in pad["rules"])
    cells = {}
    for row in table["rows"]:
        for cell in row:
            if cell["kind"] == "up":
                cells[cell["tile"]["id"]] = cell
    placed = cells[last["tile"]]
    assert "placed" in placed["classes"] and placed["score"] == last["points"]
    assert {ring["kind"] for ring in placed["tile"]["rings"]} == {"side", "pattern"}
    by_at = {tuple(entry["at"]): entry["tile"] for entry in ENGINE.view(state, None)["board"] if entry["face_up"]}
    for item in last["breakdown"]:
        if item["rule"] == "side" and item["points"]:
            neighbour = cells[by_at[tuple(item["neighbour"])]]
            assert any(ring["kind"] == "side" for ring in neighbour["tile"]["rings"])
        if item["rule"] == "pattern":
            for at in item["cells"]:
                if tuple(at) in by_at:
                    assert any(ring["kind"] == "pattern" for ring in cells[by_at[tuple(at)]]["tile"]["rings"])
    # The seat that placed reads "You".
    assert presenter.present(ENGINE.view(state, last["seat"]), last["seat"], {}, NAMES[:2])["pad"]["who"] == "You"


def test_tiles_are_drawn_with_number_and_shape_per_side_in_the_direction_they_face() -> None:
    printed = ["G4", "B2", "Y2", "R1"]
    assert presenter.facing(printed, 1) == ["R1", "G4", "B2", "Y2"]
    tile = presenter.drawn("T00", presenter.facing(printed, 1))
    side = r'<g class="side side-(\w+)">.*?class="num" x="[\d.]+" y="[\d.]+">(\d)</text><(\w+) class="mark"'
    sides = re.findall(side, tile_markup(tile))
    assert sides == [("red", "1", "polygon"), ("green", "4", "circle"), ("blue", "2", "polygon"),
                     ("yellow", "2", "polygon")]
    assert tile["label"] == "T00: up red 1 ◆, right green 4 ●, down blue 2 ■, left yellow 2 ▲"


def test_clean_ui_keeps_only_what_the_view_allows() -> None:
    state = ENGINE.new_game(2, seed=3)
    view = ENGINE.view(state, 0)
    tile = view["hand"][0]
    assert presenter.clean_ui(view, 0, {"tile": tile, "rotation": 5}) == {"tile": tile, "rotation": 1}
    assert presenter.clean_ui(view, 0, {"tile": tile, "rotation": True}) == {"tile": tile, "rotation": 0}
    assert presenter.clean_ui(view, 0, {"tile": view["board"][0]["tile"]}) == {}
    assert presenter.clean_ui(ENGINE.view(state, 1), 1, {"tile": tile}) == {}
    assert presenter.clean_ui(ENGINE.view(state, None), None, {"tile": tile}) == {}
    # A replay's view (no legal actions) shows no controls even for the seat to act.
    replay = presenter.present({**view, "legal": []}, 0, {"tile": tile, "rotation": 0}, NAMES[:2])
    assert replay["turner"] is None and not replay["acting"]
    assert all("hx" not in cell for row in replay["rows"] for cell in row)
    assert all("hx" not in item for item in replay["hand"])
