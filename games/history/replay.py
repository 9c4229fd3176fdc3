"""Replaying recorded matches: the state after any move, the export file, and the admin's import.

A match is fully recorded by its game, options, seed and action list (ENGINES.md, "Determinism"), so
any past position is the engine replayed from the seed, and an exported file can be checked by
replaying it before it is stored.
"""

from __future__ import annotations

import datetime as dt
from collections import deque
from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

from django.contrib.auth import get_user_model
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from accounts.models import User

from ..catalog import GAMES
from ..engines import IllegalAction, get_engine
from ..engines.base import is_int
from ..models import Match, Move, Seat
from ..play.create import Imported, store_imported
from ..results import Termination

EXPORT_FORMAT = "cardclub-match"
EXPORT_VERSION = 1
MAX_IMPORT_ACTIONS = 20_000


class ReplayError(ValueError):
    """A recorded or imported action list that the engine refuses; the message says where and why."""


class RecordedMove(NamedTuple):
    """What a replay reads of a move, as plain values: building a Move for each of a match's 171 moves was the
    replay page's largest cost in the ORM (issue 47)."""

    number: int
    seat: int
    action: Any
    note: str


def recorded_moves(match: Match) -> list[RecordedMove]:
    """The match's moves in order (one query)."""
    rows = Move.objects.filter(match_id=match.pk).order_by("number").values_list("number", "seat", "action", "note")
    return [RecordedMove(*row) for row in rows]


def initial_state(game: str, players: int, seed: int, options: dict[str, Any] | None) -> Any:
    """The dealt game before any move, exactly as the match began."""
    return get_engine(game).new_game(players, seed=seed, options=options or None)


def replay(game: str, players: int, seed: int, options: dict[str, Any] | None,
           actions: Sequence[tuple[int, Any]]) -> Iterator[Any]:
    """Every state of a game: the deal, then the state after each (seat, action); ReplayError on a refusal."""
    engine = get_engine(game)
    state = initial_state(game, players, seed, options)
    yield state
    for number, (seat, action) in enumerate(actions, start=1):
        try:
            state = engine.apply(state, seat, action)
        except IllegalAction as error:
            raise ReplayError(f"Move {number} (seat {seat + 1}) doesn't replay: {error}") from None
        yield state


def state_after(match: Match, moves: Sequence[RecordedMove], number: int) -> Any:
    """The match's state after its first `number` moves (0: the deal)."""
    actions = [(move.seat, move.action) for move in moves[:number]]
    return deque(replay(match.game, match.players, match.seed, match.options, actions), maxlen=1)[0]


def states_around(match: Match, moves: Sequence[RecordedMove], number: int) -> tuple[Any, Any]:
    """The match's state before and after its move `number` (before is None for the deal, number 0)."""
    actions = [(move.seat, move.action) for move in moves[:number]]
    last_two = deque(replay(match.game, match.players, match.seed, match.options, actions), maxlen=2)
    return (last_two[0] if number else None), last_two[-1]


def replayed_dumps(match: Match) -> list[dict[str, Any]]:
    """engine.dump() of the state after each recorded move, in order (for checks and tests)."""
    engine = get_engine(match.game)
    actions = [(move.seat, move.action) for move in recorded_moves(match)]
    states = replay(match.game, match.players, match.seed, match.options, actions)
    next(states)
    return [engine.dump(state) for state in states]


# ---------------------------------------------------------------------------------------------
# Export


def export_data(match: Match, seats: Sequence[Seat], moves: Sequence[Move]) -> dict[str, Any]:
    """Everything needed to replay the match exactly: game, options, seed, players, every action."""
    return {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "id": match.pk,
        "game": match.game,
        "players": match.players,
        "options": match.options,
        "seed": match.seed,
        "rated": match.rated,
        "is_public": match.is_public,
        "started_at": match.started_at.isoformat() if match.started_at else None,
        "finished_at": match.finished_at.isoformat() if match.finished_at else None,
        "seats": [
            {
                "seat": seat.index,
                "username": seat.user.username if seat.user else None,
                "name": seat.user.name if seat.user else None,
                "bot": bool(seat.user and seat.user.is_bot),
                "bot_level": seat.user.bot_level if seat.user and seat.user.is_bot else None,
            }
            for seat in seats
        ],
        "actions": [{"number": move.number, "seat": move.seat, "action": move.action} for move in moves],
        "result": match.result,
    }


# ---------------------------------------------------------------------------------------------
# Import


def _check_header(data: Any) -> tuple[str, int, int, dict[str, Any]]:
    if not isinstance(data, dict) or data.get("format") != EXPORT_FORMAT:
        raise ReplayError(f'This is not a Card Club match file (its "format" must be "{EXPORT_FORMAT}").')
    if data.get("version") != EXPORT_VERSION:
        raise ReplayError(f"This file is version {data.get('version')!r}; this site reads version {EXPORT_VERSION}.")
    game = data.get("game")
    if game not in GAMES:
        raise ReplayError(f"Unknown game {game!r}: the games are {', '.join(GAMES)}.")
    engine = get_engine(game)
    players, seed, options = data.get("players"), data.get("seed"), data.get("options") or {}
    if not is_int(players) or not engine.min_players <= players <= engine.max_players:
        if engine.min_players == engine.max_players:
            raise ReplayError(f"{engine.name} is for exactly {engine.min_players} players.")
        raise ReplayError(f"{engine.name} is for {engine.min_players} to {engine.max_players} players.")
    if not is_int(seed):
        raise ReplayError("The seed must be a whole number.")
    if not isinstance(options, dict):
        raise ReplayError("The options must be an object.")
    return game, players, seed, options


def _check_seats(data: dict[str, Any], players: int) -> list[Any]:
    seats = data.get("seats")
    if not isinstance(seats, list) or len(seats) != players:
        raise ReplayError(f"The file must list exactly {players} seats.")
    usernames = []
    for index, seat in enumerate(seats):
        if not isinstance(seat, dict) or seat.get("seat", index) != index or not isinstance(seat.get("username"), str):
            raise ReplayError(f"Seat {index + 1} needs the username of its player.")
        usernames.append(seat["username"])
    users = {user.username: user for user in get_user_model().objects.filter(username__in=usernames)}
    missing = sorted({name for name in usernames if name not in users})
    if missing:
        raise ReplayError(f"No account has the username {', '.join(missing)}: create it first.")
    people = [name for name in usernames if not users[name].is_bot]
    if len(people) != len(set(people)):
        raise ReplayError("A person can hold only one seat in a match.")
    if not people:
        raise ReplayError("At least one seat must be a person.")
    return [users[name] for name in usernames]


def _check_actions(data: dict[str, Any], players: int) -> list[tuple[int, Any]]:
    actions = data.get("actions")
    if not isinstance(actions, list) or len(actions) > MAX_IMPORT_ACTIONS:
        raise ReplayError(f'"actions" must be a list of at most {MAX_IMPORT_ACTIONS} moves.')
    checked = []
    for number, entry in enumerate(actions, start=1):
        if not isinstance(entry, dict) or not is_int(entry.get("seat")) or not 0 <= entry["seat"] < players:
            raise ReplayError(f"Move {number} needs the seat (0 to {players - 1}) that made it.")
        if entry.get("number", number) != number:
            raise ReplayError(f"The moves must be numbered 1, 2, 3, … in order (move {number} is not).")
        checked.append((entry["seat"], entry.get("action")))
    return checked


def _started_at(data: dict[str, Any], now: dt.datetime) -> dt.datetime:
    """When the imported match began: its recorded length before now (finished now, for rating order)."""
    started = parse_datetime(str(data.get("started_at") or ""))
    finished = parse_datetime(str(data.get("finished_at") or ""))
    if started and finished and finished >= started:
        return now - (finished - started)
    return now


def import_match(data: Any, *, creator: User, rated: bool = False) -> Match:
    """Store an exported match after replaying it: ReplayError, and nothing stored, unless it replays.

    The match is finished now (so ratings take it in the order they see it); a file whose actions
    stop short of the end imports only if it records a resignation or abandonment by one seat.
    """
    game, players, seed, options = _check_header(data)
    users = _check_seats(data, players)
    actions = _check_actions(data, players)
    engine = get_engine(game)
    try:
        final = deque(replay(game, players, seed, options, actions), maxlen=1)[0]
    except ReplayError:
        raise
    except Exception as error:  # the file is untrusted: a refused option or a malformed value stops here
        raise ReplayError(f"The game can't be set up from this file: {error}") from None
    recorded = data.get("result") if isinstance(data.get("result"), dict) else {}
    loser = recorded.get("loser")
    if engine.is_over(final):
        outcome = engine.result(final)
        if recorded.get("scores") not in (None, outcome["scores"]) or (
            "winners" in recorded and sorted(recorded["winners"]) != sorted(outcome["winners"])
        ):
            raise ReplayError("The actions replay to a different result from the one in the file.")
    elif recorded.get("reason") in ("resign", "abandon") and is_int(loser) and 0 <= loser < players:
        outcome = None
    else:
        raise ReplayError("The actions don't finish the game, and the file records no resignation.")

    return store_imported(Imported(
        game=game, players=players, seed=seed, options=options, state=engine.dump(final), actions=actions,
        users=users, is_public=bool(data.get("is_public", True)), rated=rated, creator=creator,
        started_at=_started_at(data, timezone.now()), outcome=outcome, loser=loser,
        # The recorded reason counts only for a game that stops short (checked above: resign or abandon).
        reason=Termination.NORMAL if outcome is not None else Termination(recorded["reason"]),
    ))
