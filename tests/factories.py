"""Plain functions that make users, matches and browsers for tests: make_user(...), make_match(...),
client_for(user).

Functions rather than fixtures so any test, fixture or helper module can call them with the arguments it
needs; they need the database (a `db` fixture or a django_db mark on the test). The conftests wrap them as
fixtures where tests take them that way (tests/conftest.py: make_user; tests/games/conftest.py: the
started Gomori matches). Importable as `factories` from every test folder: pytest puts tests/ on sys.path for
tests/conftest.py.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from typing import Any

# The password every factory-made user gets unless told otherwise: long and uncommon, so validators accept it.
PASSWORD = "felt-and-cards-42"
# The seed of the matches made here unless told otherwise (tests/games' own modules use the same value).
SEED = 20240611

_counter = itertools.count(1)


def make_user(username: str | None = None, *, password: str | None = PASSWORD, **fields: Any) -> Any:
    """A saved user: make_user(), make_user("ada", display_name="Ada"), make_user(password=None) for one who
    cannot sign in with a password. Every keyword is a User field; the username defaults to a fresh
    "player-N", the password to PASSWORD."""
    from django.contrib.auth import get_user_model

    user = get_user_model()(username=username or f"player-{next(_counter)}", **fields)
    if password is None:
        user.set_unusable_password()
    else:
        user.set_password(password)
    user.save()
    return user


def seat_spec(seat: Any) -> Any:
    """A SeatSpec from its short form: "open", "invite", "bot:<level>" (or a SeatSpec as it is)."""
    from games.play.create import SeatSpec

    if isinstance(seat, SeatSpec):
        return seat
    if seat.startswith("bot:"):
        return SeatSpec("bot", seat[4:])
    return SeatSpec(seat)


def make_match(*, creator: Any = None, game: str = "gomori", seats: Sequence[Any] = ("open",),
               seed: int = SEED, joiners: Iterable[Any] = (), **options: Any) -> Any:
    """A match made as the lobby makes it (create_match): the creator (a new user if None) in seat 0,
    the other seats as `seats` says, then each of `joiners` taking the next free seat with the invite code.
    Other keywords go to create_match (is_public, rated, options, clock, first_seat_bot, players). Returns the
    match as the last step left it: waiting for players, or started once every seat is filled."""
    import playing

    from games.play.create import create_match

    match = create_match(
        creator=creator if creator is not None else make_user(), game=game,
        players=options.pop("players", 1 + len(seats)), seats=[seat_spec(s) for s in seats], seed=seed, **options,
    )
    for user in joiners:
        match = playing.join(match_id=match.pk, user=user, invite_code=match.invite_code)
    return match


def client_for(user: Any = None, **kwargs: Any) -> Any:
    """A test browser (django.test.Client; keywords go to it, e.g. enforce_csrf_checks=True), signed in as
    `user`, or anonymous for None."""
    from django.test import Client

    client = Client(**kwargs)
    if user is not None:
        client.force_login(user)
    return client


_finished_seeds = itertools.count(700)


def finished_match(users: Sequence[Any], winner: int, at: Any) -> Any:
    """A finished Gomori match of these users that `winner` (a seat) won at `at`, counted as a real end counts it:
    listed in the history, its statistics and ratings recorded, the rating changes in its result box."""
    from datetime import timedelta

    from games.models import FinishedMatch, Match, Seat
    from games.ratings import stats

    match = Match.objects.create(
        game="gomori", players=len(users), seed=next(_finished_seeds), status=Match.Status.FINISHED, options={},
        version=1, started_at=at - timedelta(minutes=5), finished_at=at,
        result={"scores": [0] * len(users), "winners": [winner], "draw": False, "reason": "normal"},
    )
    for index, user in enumerate(users):
        Seat.objects.create(match=match, index=index, user=user, joined_at=match.started_at, final_score=0,
                            place=1 if index == winner else 2)
    FinishedMatch.objects.create(match_id=match.pk, game=match.game, finished_at=at, is_public=True, with_bots=False)
    changes = stats.record_finished(match)
    Match.objects.filter(pk=match.pk).update(result={**match.result, "ratings": changes})
    match.refresh_from_db()
    return match
