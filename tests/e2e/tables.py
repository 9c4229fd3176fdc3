"""Tables in the middle of a game for the real-browser tests: two people's seats played by the reference bots
through the services (no clicking), then one of them signed in to look at the result."""

from __future__ import annotations

import random
from typing import Any

import playing

from games.engines import get_engine
from games.models import Match
from games.play.create import SeatSpec, create_match
from games.play.store import load

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
# A laptop's screen: the smallest desktop the table keeps the turn on the first screen of (test_table_layout_e2e).
LAPTOP = {"width": 1280, "height": 800}


def people(count: int, start: int = 0) -> list[Any]:
    from django.contrib.auth import get_user_model

    User = get_user_model()
    return [User.objects.create_user(username=f"p{i}", password="x", display_name=f"Player {i + 1}")
            for i in range(start, start + count)]


def long_named_people(count: int, start: int = 0) -> list[Any]:
    """Like people(), each with a display name as long as the site allows (User.display_name's max_length, which
    the sign-up and profile forms keep too), of wide letters and digits: "WWWW…W 6899"."""
    from django.contrib.auth import get_user_model

    User = get_user_model()
    longest = User._meta.get_field("display_name").max_length
    users = []
    for i in range(start, start + count):
        number = f" {6899 + i}"
        users.append(User.objects.create_user(username=f"p{i}", password="x",
                                              display_name="W" * (longest - len(number)) + number))
    return users


def mid_game(game: str, users: list[Any], *, moves: int, seed: int = 1, options: dict[str, Any] | None = None,
             until: Any = None) -> Match:
    """A match between these people, at least `moves` moves in, at a moment when seat 0 is to act (and, with
    `until`, when until(seat 0's view) holds)."""
    match = create_match(creator=users[0], game=game, players=len(users),
                                  seats=[SeatSpec("open")] * (len(users) - 1), options=options or {}, seed=seed)
    for user in users[1:]:
        playing.join(match_id=match.pk, user=user)
    engine = get_engine(game)
    bots = __import__(f"games.bots.{game}", fromlist=["BOTS"]).BOTS
    rng = random.Random(seed)
    played = 0
    while True:
        snap = load(match.pk)
        assert snap is not None
        state = engine.load(snap.state)
        if engine.is_over(state):
            raise AssertionError(f"the {game} match ended before the wanted position")
        must = engine.must_act(state) or engine.to_act(state)
        if 0 in must and played >= moves and (until is None or until(engine.view(state, 0))):
            return Match.objects.get(pk=match.pk)
        seat = 0 if 0 in must else must[0]
        action, _ = bots["reference"](engine.view(state, seat), engine.legal_actions(state, seat), rng)
        if action is None:
            action = engine.legal_actions(state, seat)[0]
        playing.act(match_id=match.pk, user=users[seat], seat=seat, action=action)
        played += 1


def signed_in(browser: Any, base_url: str, user: Any, viewport: dict[str, int]) -> Any:
    """A new tab whose browser is signed in as this user (a session made on the server's database)."""
    from django.test import Client

    client = Client()
    client.force_login(user)
    context = browser.new_context(base_url=base_url, viewport=viewport)
    context.set_default_timeout(20_000)
    context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": base_url}])
    return context.new_page()


def finished(game: str, users: list[Any], *, seed: int = 1, options: dict[str, Any] | None = None) -> Match:
    """A match between these people played to its end by the reference bots (Columbo in one round), rated: its
    end shows the final scores and the rating changes."""
    if game == "columbo":
        options = {"rounds": 1, **(options or {})}
    match = create_match(creator=users[0], game=game, players=len(users),
                         seats=[SeatSpec("open")] * (len(users) - 1), options=options or {}, seed=seed)
    for user in users[1:]:
        playing.join(match_id=match.pk, user=user)
    engine = get_engine(game)
    bots = __import__(f"games.bots.{game}", fromlist=["BOTS"]).BOTS
    rng = random.Random(seed)
    for _ in range(5000):
        snap = load(match.pk)
        assert snap is not None
        state = engine.load(snap.state)
        if engine.is_over(state):
            return Match.objects.get(pk=match.pk)
        seat = (engine.must_act(state) or engine.to_act(state))[0]
        legal = engine.legal_actions(state, seat)
        action, _ = bots["reference"](engine.view(state, seat), legal, rng)
        playing.act(match_id=match.pk, user=users[seat], seat=seat, action=action if action is not None else legal[0])
    raise AssertionError(f"the {game} match did not end")
