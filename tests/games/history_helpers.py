"""Helpers shared by the history, replay, stats and export tests: playing real matches through the
services, and generating thousands of finished matches in bulk."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable, Sequence
from typing import Any

import playing
from django.core.management import call_command
from django.utils import timezone

from games.catalog import GAMES
from games.engines import get_engine
from games.models import FinishedMatch, Match, PlayerResult, PlayerStats, Seat
from games.play.create import SeatSpec, create_match

SLUGS = ("gomori", "columbo", "ruhd", "rummy")


def fresh(match: Match) -> Match:
    return Match.objects.get(pk=match.pk)


def start_match(game: str, users: Sequence[Any], *, seed: int, rated: bool = True, is_public: bool = True,
                options: dict[str, Any] | None = None) -> Match:
    """A started match between these people (users[0] creates it), seats in the given order."""
    match = create_match(
        creator=users[0], game=game, players=len(users), seats=[SeatSpec("invite")] * (len(users) - 1),
        seed=seed, rated=rated, is_public=is_public, options=options,
    )
    for index, user in enumerate(users[1:], start=1):
        playing.join(match_id=match.pk, user=user, invite_code=match.invite_code, seat_index=index)
    return fresh(match)


def play_random(match: Match, users: Sequence[Any], rng: random.Random, *,
                on_move: Callable[[Match], None] | None = None, max_moves: int = 5000) -> Match:
    """Random legal actions by the seats to act (through playing.act) until the match is over.

    Several seats may act at once (Columbo's slap windows): any of them may be picked, as in a real race.
    """
    engine = get_engine(match.game)
    for _ in range(max_moves):
        match = fresh(match)
        if match.status != Match.Status.ACTIVE:
            return match
        state = engine.load(match.state)
        seats = engine.must_act(state) or engine.to_act(state)
        choices = [(seat, action) for seat in seats for action in engine.legal_actions(state, seat)]
        if not choices:
            choices = [(seat, action) for seat in engine.to_act(state) for action in engine.legal_actions(state, seat)]
        seat, action = rng.choice(choices)
        playing.act(match_id=match.pk, user=users[seat], seat=seat, action=action, expected_version=match.version)
        if on_move is not None:
            on_move(fresh(match))
    raise AssertionError(f"{match} did not finish in {max_moves} moves")


def bulk_finished_matches(count: int, people: Sequence[Any], bots: Sequence[Any], *, seed: int = 1,
                          start: dt.datetime | None = None) -> list[Match]:
    """`count` finished matches made with bulk_create (no moves), one minute apart, newest last.

    A fixed pattern decides each match's game, players, privacy, bots and winner, so tests can count
    what a filter should return. Their results and statistics are then rebuilt like real ones.
    """
    rng = random.Random(seed)
    start = start or timezone.now() - dt.timedelta(minutes=count + 10)
    games = ["gomori", "rummy", "columbo", "ruhd"]
    matches = []
    plans = []
    for i in range(count):
        game = games[i % len(games)]
        with_bot = i % 3 == 0
        first, second = rng.sample(list(people), 2)
        other = rng.choice(list(bots)) if with_bot else second
        finished = start + dt.timedelta(minutes=i)
        draw = i % 10 == 9
        winner = None if draw else rng.randrange(2)
        scores = [rng.randrange(0, 30), rng.randrange(0, 30)]
        if draw:
            scores[1] = scores[0]
        moves = 20 + i % 30
        matches.append(Match(
            game=game, players=2, seed=i, status=Match.Status.FINISHED, options={},
            # The version counts every change (the join that started it, then each move); move_count the moves.
            is_public=i % 7 != 0, rated=i % 5 != 0, version=moves + 1, move_count=moves,
            started_at=finished - dt.timedelta(minutes=5), finished_at=finished,
            result={"scores": scores, "winners": [] if draw else [winner], "draw": draw, "reason": "normal"},
        ))
        plans.append((first, other, winner, scores))
    matches = Match.objects.bulk_create(matches, batch_size=1000)
    seats = []
    for match, (first, other, winner, scores) in zip(matches, plans, strict=True):
        for index, user in enumerate((first, other)):
            place = 1 if winner is None or winner == index else 2
            seats.append(Seat(match=match, index=index, user=user, final_score=scores[index], place=place,
                              joined_at=match.started_at))
    Seat.objects.bulk_create(seats, batch_size=2000)
    call_command("rebuild_stats", verbosity=0)
    return matches


def play_with_bots(game: str, person: Any, levels: Sequence[str], *, seed: int, rng: random.Random,
                   rated: bool = True, options: dict[str, Any] | None = None, max_moves: int = 5000) -> Match:
    """A match of `person` (seat 0) against bot accounts, played to the end entirely by bots.

    The bot seats act through playing.bot_turn; the person's seat acts through playing.act with
    the game's strongest bot choosing, so every move takes the site's real road. Needs bots that act at
    once (GAMES_BOT_DELAY=0, no reaction delay, no patience: see test_stats.instant_bots).
    """
    bots = GAMES[game].bots
    choose = bots[list(bots)[-1]]
    match = create_match(
        creator=person, game=game, players=len(levels) + 1, seats=[SeatSpec("bot", level) for level in levels],
        seed=seed, rated=rated, options=options,
    )
    engine = get_engine(game)
    for _ in range(max_moves):
        match = fresh(match)
        if match.status != Match.Status.ACTIVE:
            return match
        state = engine.load(match.state)
        if 0 not in engine.must_act(state) and playing.bot_turn(match_id=match.pk,
                                                                     expected_version=match.version):
            continue
        if 0 not in engine.to_act(state):
            raise AssertionError(f"{match}: no bot is due and the person may not act")
        legal = engine.legal_actions(state, 0)
        action, _reason = choose(engine.view(state, 0), legal, rng)
        if action is None:
            action = rng.choice(legal)
        playing.act(match_id=match.pk, user=person, seat=0, action=action, expected_version=match.version)
    raise AssertionError(f"{match} did not finish in {max_moves} moves")


def snapshot() -> dict[str, Any]:
    """Every statistics, result and listing row, without their ids."""

    def rows(model: Any, key: Callable[[Any], Any]) -> dict[Any, dict[str, Any]]:
        fields = [f.attname for f in model._meta.concrete_fields if f.attname != "id"]
        return {key(obj): {f: getattr(obj, f) for f in fields} for obj in model.objects.all()}

    return {
        "stats": rows(PlayerStats, lambda r: (r.user_id, r.game)),
        "results": rows(PlayerResult, lambda r: (r.match_id, r.seat)),
        "listings": rows(FinishedMatch, lambda r: r.match_id),
    }
