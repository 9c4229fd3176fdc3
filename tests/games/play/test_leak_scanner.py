"""Leak scanner: whole seeded matches of every game, each viewer's every socket frame (and the match page's HTML
at a few points) checked against the hidden part of the engine's state at that moment (tests/games/leaks.py).

Per game, three kinds of match, each with spectators: two (or three) people, a person against bots, and bots
only (whose reasons the spectators are shown). Everything moves one change at a time: a person's move through
their socket or through playing.act, a bot's through playing.bot_turn (the live timers and the bot runner
are switched off), and after each change every socket must get exactly one update, which is then scanned
against the database's state. People also click around (selections sent as `ui` frames, taken from the page's
own controls), and each answer is scanned too.

LEAK_MATCHES sets the number of matches (spread evenly over the 4 games x 3 kinds; default 204);
LEAK_MATCHES=1000 runs a thousand.
"""

from __future__ import annotations

import asyncio
import dataclasses
import html as html_module
import json
import math
import os
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import playing
import pytest
from channels.db import database_sync_to_async
from django.test import Client
from leaks import Knowledge, Scan, SocketPage, clean_page, faces, hidden_places, problems, view_places

from games.catalog import GAMES
from games.core.jinja import card_face
from games.engines import SLUGS, get_engine
from games.models import Match, Move
from games.play import scheduler
from games.play.create import SeatSpec, create_match
from games.play.owner import LiveMatch
from games.presenters import card

pytestmark = pytest.mark.django_db(transaction=True)

KINDS = ("people", "person-bots", "bots")
MATCHES = int(os.environ.get("LEAK_MATCHES", "204"))
PER_CASE = max(1, math.ceil(MATCHES / (len(SLUGS) * len(KINDS))))
# Moves per match: Gomori and Ruhd to the end; Columbo (2 rounds) and Rummy (hundreds of moves) up to a cap.
MOVE_CAP = {"gomori": 80, "columbo": 45, "ruhd": 80, "rummy": 40}
OPTIONS: dict[str, dict[str, Any] | None] = {"columbo": {"rounds": 2}}
UI_CHANCE = 0.2  # how often a person clicks a control of their page that only changes their selection
HX_UI = re.compile(r'hx-vals="(\{(?:&quot;|&#34;)ui(?:&quot;|&#34;):.*?\})"')
TOTALS: dict[str, Any] = {"matches": 0, "moves": 0, "finished": 0, "scan": Scan()}


def players_of(game: str, number: int) -> int:
    """Two players, or three every other match where the game allows it."""
    return 3 if game in ("columbo", "ruhd") and number % 2 else 2


@dataclass
class Viewer:
    """One socket on the match: a seat's person, or a spectator (seat None)."""

    name: str
    seat: int | None
    socket: Any
    client: Client
    user: Any = None
    page: SocketPage = field(default_factory=SocketPage)


@dataclass
class Run:
    game: str
    match_id: int
    engine: Any
    users: dict[int, Any]  # person seats -> user
    viewers: list[Viewer]
    rng: random.Random
    scan: Scan
    bots_only: bool
    version: int = 0
    state: Any = None
    status: str = ""
    known: dict[int | None, Knowledge] = field(default_factory=dict)  # per seat, at this version


@pytest.fixture
def controlled_bots(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Bots move only when the test asks (playing.bot_turn), and at once: no live timers, no bot runner,
    no pause, no reaction time, no patience."""
    settings.GAMES_BOT_DELAY = 0
    for slug in SLUGS:
        monkeypatch.setitem(GAMES, slug, dataclasses.replace(GAMES[slug], reaction_delay={}, patience=None))
    monkeypatch.setattr(LiveMatch, "schedule_bot", lambda self: None)
    monkeypatch.setattr(scheduler, "ensure_running", lambda: None)


def logged_in(user: Any) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


@database_sync_to_async
def reload(run: Run) -> None:
    match = Match.objects.get(pk=run.match_id)
    run.version, run.status = match.version, match.status
    run.state = run.engine.load(match.state)
    run.known = {}


@database_sync_to_async
def latest_move(match_id: int) -> tuple[int, str] | None:
    move = Move.objects.filter(match_id=match_id).order_by("-number").first()
    return (move.seat, move.note) if move is not None else None


def check(run: Run, viewer: Viewer, html: str, what: str, latest_reason: tuple[int, str] | None = None) -> None:
    know = run.known.get(viewer.seat)
    if know is None:
        know = run.known[viewer.seat] = Knowledge(run.game, run.state, run.engine.view(run.state, viewer.seat),
                                                  viewer.seat)
    found = problems(run.game, html, run.state, None, viewer.seat, know=know, latest_reason=latest_reason,
                     scan=run.scan)
    assert not found, (
        f"{run.game} match {run.match_id} v{run.version}, {viewer.name} (seat {viewer.seat}), {what}:\n  "
        + "\n  ".join(found)
    )


async def receive_updates(run: Run, count: dict[int, int]) -> list[tuple[Viewer, str]]:
    """Each socket's expected updates: (viewer, what its page shows after each)."""
    pages = []
    for index, viewer in enumerate(run.viewers):
        for _ in range(count.get(index, 0)):
            pages.append((viewer, await receive(viewer)))
    return pages


async def receive(viewer: Viewer) -> str:
    """The socket's next message; what its page shows then."""
    output = await viewer.socket.receive_output(timeout=10)
    assert output["type"] == "websocket.send", f"{viewer.name}: {output}"
    return viewer.page.apply(output["text"])


async def statistics_written(run: Run) -> list[tuple[Viewer, str]]:
    """A finished match's statistics follow its end in a change of their own: waited for, and what it redrew on
    each page (the rating changes in the result box, where the match was rated) collected to be scanned."""
    for _ in range(500):
        if not await database_sync_to_async(Match.objects.filter(pk=run.match_id, stats_due=True).exists)():
            break
        await asyncio.sleep(0.01)
    else:
        raise AssertionError(f"match {run.match_id}: its statistics were never written")
    pages = []
    for viewer in run.viewers:
        while not await viewer.socket.receive_nothing(timeout=0.05):
            pages.append((viewer, await receive(viewer)))
    return pages


def check_updates(run: Run, pages: list[tuple[Viewer, str]], what: str,
                  reason: tuple[int, str] | None = None) -> None:
    for viewer, page in pages:
        run.scan.frames += 1
        check(run, viewer, page, what, reason)


async def check_pages(run: Run, what: str) -> None:
    """The match page as each viewer's browser would load it now."""
    for viewer in run.viewers:
        response = await database_sync_to_async(viewer.client.get)(f"/m/{run.match_id}/")
        assert response.status_code == 200
        run.scan.pages += 1
        check(run, viewer, clean_page(response.content.decode()), f"{what} (match page)")


async def click_around(run: Run) -> None:
    """A person clicks a control of their page that changes only their selection; the answer is scanned."""
    people = [v for v in run.viewers if v.seat is not None]
    if not people or run.rng.random() > UI_CHANCE:
        return
    viewer = run.rng.choice(people)
    controls = HX_UI.findall(viewer.page.html())
    if not controls:
        return
    frame = html_module.unescape(run.rng.choice(controls))
    await viewer.socket.send_to(text_data=frame)
    page = await receive(viewer)
    run.scan.frames += 1
    run.scan.ui_frames += 1
    check(run, viewer, page, f"after the selection {frame}")


async def step(run: Run) -> bool:
    """One change of the match by whoever may act; False if nobody could."""
    engine, state = run.engine, run.state
    must = set(engine.must_act(state))
    seats = engine.to_act(state)
    run.rng.shuffle(seats)
    seats.sort(key=lambda s: s not in must and run.rng.random() < 0.7)
    asked_bots = False
    for seat in seats:
        if seat not in run.users:
            if asked_bots:
                continue
            asked_bots = True
            if await database_sync_to_async(playing.bot_turn)(match_id=run.match_id,
                                                                     expected_version=run.version):
                return True
            continue
        legal = engine.legal_actions(state, seat)
        if not legal:
            continue
        action = run.rng.choice(legal)
        socket = next((v.socket for v in run.viewers if v.seat == seat), None)
        if socket is not None and run.rng.random() < 0.7:
            await socket.send_to(text_data=json.dumps({"action": action, "version": run.version}))
        else:
            await database_sync_to_async(playing.act)(match_id=run.match_id, user=run.users[seat], seat=seat,
                                                       action=action, expected_version=run.version)
        return True
    return False


async def play_match(
    game: str, kind: str, number: int, ws_client: Callable[..., Any], people: list[Any], watcher: Any,
    scan: Scan,
) -> None:
    engine = get_engine(game)
    players = players_of(game, number)
    levels = GAMES[game].levels
    level = levels[number % len(levels)]
    seed = 1000 * SLUGS.index(game) + 10 * number + KINDS.index(kind)
    if kind == "people":
        match = await database_sync_to_async(create_match)(
            creator=people[0], game=game, players=players, seats=[SeatSpec("open")] * (players - 1), seed=seed,
            options=OPTIONS.get(game))
        for person in people[1:players]:
            match = await database_sync_to_async(playing.join)(match_id=match.pk, user=person)
        users = dict(enumerate(people[:players]))
    elif kind == "person-bots":
        match = await database_sync_to_async(create_match)(
            creator=people[0], game=game, players=players,
            seats=[SeatSpec("bot", levels[(number + i) % len(levels)]) for i in range(players - 1)], seed=seed,
            options=OPTIONS.get(game))
        users = {0: people[0]}
    else:
        match = await database_sync_to_async(create_match)(
            creator=watcher, game=game, players=players, first_seat_bot=level,
            seats=[SeatSpec("bot", levels[(number + i + 1) % len(levels)]) for i in range(players - 1)],
            seed=seed, options=OPTIONS.get(game))
        users = {}
    assert match.status == Match.Status.ACTIVE
    # A signed-in spectator (an anonymous one every other match), then each person's socket.
    spectators = [("spectator", watcher)] if number % 2 == 0 else [("anonymous", None)]
    if kind == "bots":
        spectators = [("spectator", watcher), ("anonymous", None)]
    viewers: list[Viewer] = []
    run = Run(game, match.pk, engine, users, viewers, random.Random(seed), scan, bots_only=kind == "bots")
    await reload(run)
    for name, user in [*spectators, *((f"seat {s}", u) for s, u in users.items())]:
        ok, _, socket = await ws_client(match.pk, user, paced=False)
        assert ok
        seat = next((s for s, u in users.items() if u is user), None) if user is not None else None
        client = await database_sync_to_async(logged_in)(user)
        viewers.append(Viewer(name, seat, socket, client, user))
        # The new socket gets the page; the others hear of whoever came (a seat taken, one more watching).
        expected = {len(viewers) - 1: 1}
        expected.update({index: 1 for index in range(len(viewers) - 1)})
        check_updates(run, await receive_updates(run, expected), f"{name} connecting")
    await check_pages(run, "at the start")

    moves = 0
    cap = MOVE_CAP[game]
    while run.status == Match.Status.ACTIVE and moves < cap:
        await click_around(run)
        before = run.version
        assert await step(run), f"{game} match {match.pk}: nobody could act at v{run.version}"
        pages = await receive_updates(run, {index: 1 for index in range(len(viewers))})
        await reload(run)
        steps = 1
        if run.status == Match.Status.FINISHED:
            pages += await statistics_written(run)
            await reload(run)
            steps = 2  # the end, then its statistics in a change of their own (games.play.decide.decide_stats)
        assert run.version == before + steps, f"{game} match {match.pk}: v{before} -> v{run.version} in one step"
        moves += 1
        reason = await latest_move(match.pk) if run.bots_only else None
        check_updates(run, pages, f"after move {moves}", reason)
        if moves == cap // 2:
            await check_pages(run, f"after move {moves}")
    await check_pages(run, f"after move {moves}, {run.status}")
    for viewer in viewers:  # exactly one update a change: nothing more is on its way
        assert await viewer.socket.receive_nothing(timeout=0.02), f"{viewer.name} got more updates than changes"
    for viewer in reversed(viewers):
        await viewer.socket.disconnect()
    TOTALS["matches"] += 1
    TOTALS["moves"] += moves
    TOTALS["finished"] += run.status == Match.Status.FINISHED


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("game", SLUGS)
async def test_no_viewer_is_sent_what_it_may_not_see(
    game: str, kind: str, ws_client: Callable[..., Any], make_user: Callable[..., Any], controlled_bots: None,
) -> None:
    people = [await database_sync_to_async(make_user)(name, display_name=name.title())
              for name in ("alice", "bob", "dave")]
    watcher = await database_sync_to_async(make_user)("carol", display_name="Carol")
    scan = Scan()
    matches_before, moves_before = TOTALS["matches"], TOTALS["moves"]
    for number in range(PER_CASE):
        await play_match(game, kind, number, ws_client, people, watcher, scan)
    played = TOTALS["matches"] - matches_before
    assert played == PER_CASE
    assert scan.frames > played * 5 and scan.pages >= played * 3 and scan.hidden_checked > 0
    assert scan.faces_checked > 0
    if kind == "bots":
        assert scan.reasons > 0, "no bot reason reached a spectator: the scan would not cover them"
    if kind != "bots":
        assert scan.ui_frames > 0
    print(f"\n{game}/{kind}: {played} matches, {TOTALS['moves'] - moves_before} moves, {scan.summary()}")


# ---------------------------------------------------------------------------------------------
# The scanner itself: it finds what it is meant to find


def face(code: str) -> str:
    return str(card_face(card(code)))


def test_the_scanner_finds_a_hidden_card_by_place() -> None:
    """Gomori: an opponent's card drawn or named is found; Rummy: a second face of a code whose other copy is
    hidden is found, one face is not; Columbo: a stock card named outside the log, or shown in a slot."""
    gomori = get_engine("gomori")
    state = gomori.new_game(2, seed=3)
    view = gomori.view(state, 0)
    theirs = state.hands[1][0]
    assert problems("gomori", '<section id="board"></section>', state, view, 0) == []
    assert problems("gomori", f'<section id="board">{face(theirs)}</section>', state, view, 0)
    from games.engines.base import card_name

    assert problems("gomori", f'<section id="status"><p>{card_name(theirs)}</p></section>', state, view, 0)
    mine = f'<section id="hand">{face(state.hands[0][0])}</section>'
    assert problems("gomori", mine, state, view, 0) == []
    assert problems("gomori", mine, state, gomori.view(state, None), None)  # a spectator has no hand

    rummy = get_engine("rummy")
    state = rummy.new_game(2, seed=5)
    view = rummy.view(state, 0)
    mine = state.hands[0][0]
    hidden = hidden_places("rummy", state, view)
    assert view_places("rummy", view)[mine] >= 1
    html = f'<section id="hand">{face(mine)}</section>'
    assert problems("rummy", html, state, view, 0) == []
    if hidden[mine]:  # the other copy is in the stock or the other hand: a second face is a leak
        assert problems("rummy", html + f'<section id="board">{face(mine)}</section>', state, view, 0)
    other = next(code for code in state.hands[1] if view_places("rummy", view)[code] == 0)
    assert problems("rummy", f'<section id="board"><p class="rm-freed">{card_name(other)}</p></section>',
                    state, view, 0)

    columbo = get_engine("columbo")
    state = columbo.new_game(2, seed=1)
    view = columbo.view(state, None)
    stock_top = state.stock[-1]
    assert problems("columbo", f'<section id="status">the {card_name(stock_top)}</section>', state, view, None)
    slot = f'<div data-at="1-2" class="cb-slot">{face(state.hands[1][2])}</div>'
    assert problems("columbo", slot, state, view, None)
    assert faces(slot) == {state.hands[1][2]: 1}

    ruhd = get_engine("ruhd")
    state = ruhd.new_game(2, seed=1)
    view = ruhd.view(state, None)
    from games.engines.ruhd import TILE_IDS

    deck_tile = TILE_IDS[state.deck[0]]
    assert problems("ruhd", f"<section id=\"log\"><li>{deck_tile}</li></section>", state, view, None)
    assert problems("ruhd", "<section id=\"log\"><li>nothing</li></section>", state, view, None) == []


@pytest.mark.parametrize("game", SLUGS)
async def test_a_leak_planted_in_the_live_core_is_found(
    game: str, ws_client: Callable[..., Any], make_user: Callable[..., Any], controlled_bots: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every socket of the match is drawn from seat 0's view (Ruhd, whose seats all see the same: with the
    deck's next tile in the open hand), planted in the live core's render cache: the bug the scanner is for,
    the first frame of a socket that may not see it gives it away."""
    from games.engines.ruhd import TILE_IDS, TILES
    from games.play.display import RenderCache, page_view
    from games.play.snapshot import engine_of

    def leaky(self: Any, seat: int | None) -> dict[str, Any] | None:
        if self.state is None:
            return None
        engine = engine_of(self.snap)
        if game != "ruhd":
            return page_view(engine.view(self.state, 0))
        view = engine.view(self.state, seat)
        if self.state.deck:
            tile = TILE_IDS[self.state.deck[0]]
            view["hand"] = [*view["hand"], tile]
            view["tiles"] = {**view["tiles"], tile: list(TILES[tile])}
        return page_view(view)

    monkeypatch.setattr(RenderCache, "view", leaky)
    people = [await database_sync_to_async(make_user)(name) for name in ("alice", "bob", "dave")]
    watcher = await database_sync_to_async(make_user)("carol")
    found = r"(?s)(spectator|anonymous|seat \d) \(seat (None|\d)\), [^\n]*:\n.*(hidden|shows)"
    with pytest.raises(AssertionError, match=found):
        await play_match(game, "people", 0, ws_client, people, watcher, Scan())


def test_the_scanner_reads_a_bots_reasons() -> None:
    """A reason naming a card hidden from the spectator (a Gomori hand card) is found in #players."""
    gomori = get_engine("gomori")
    state = gomori.new_game(2, seed=3)
    view = gomori.view(state, None)
    from games.engines.base import card_name

    hidden = card_name(state.hands[1][0])
    players = (f'<section id="players"><span class="player-reasons" title="Why">keeps the {hidden} for later'
               f"</span></section>")
    assert any("reasons" in problem for problem in problems("gomori", players, state, view, None))
    assert problems("gomori", players.replace(hidden, "best card"), state, view, None) == []
    assert problems("gomori", "<p></p>", state, view, None, latest_reason=(1, f"plays the {hidden}"))
