"""The tour's Ruhd table of three: a person (seat 0) and two Regular bots, seed 39, ending 10 / 16 / 16 (the bots
tie for first, the person is last), every move through the site's services.

The person's moves are chosen at random from a generator of their own; the bots' are the site's (games.play.bots:
seeded by the match's seed and move count, so the bot runner of a live server, if it moves first, makes the same
ones). The person's last placement is the game's last action, and no placement there lifts them off the last
place (found by a search over seeds of exactly this play), so a test may leave it to a person's click.
"""

from __future__ import annotations

import random
import time
from typing import Any

import playing

from games.engines import get_engine
from games.models import Match
from games.play.create import SeatSpec, create_match

SEED = 39
FINAL_SCORES = [10, 16, 16]
ENGINE = get_engine("ruhd")


def create(person: Any) -> Match:
    return create_match(creator=person, game="ruhd", players=3,
                        seats=[SeatSpec("bot", "reference"), SeatSpec("bot", "reference")], seed=SEED)


def play(match: Match, person: Any, *, leave_last: bool, timeout: float = 60.0) -> Match:
    """Play the match on: to its end, or (leave_last) to the person's last placement, which ends the game."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        match = Match.objects.get(pk=match.pk)
        if match.status != Match.Status.ACTIVE:
            return match
        state = ENGINE.load(match.state)
        seat = ENGINE.to_act(state)[0]
        if seat != 0:
            # A live server's runner may get there first: the same move, and this one is refused by the version.
            if not playing.bot_turn(match_id=match.pk, expected_version=match.version):
                time.sleep(0.05)
            continue
        legal = ENGINE.legal_actions(state, 0)
        last = all(ENGINE.is_over(ENGINE.apply(state, 0, action)) for action in legal)
        if last and leave_last:
            return match
        action = legal[0] if last else random.Random(f"person:{SEED}:{match.move_count}").choice(legal)
        playing.act(match_id=match.pk, user=person, seat=0, action=action, expected_version=match.version)
    raise AssertionError(f"{match} did not reach the wanted moment in {timeout} s")
