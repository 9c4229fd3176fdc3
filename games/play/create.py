"""New matches: created from the lobby (dealt at once when every seat is filled), imported from an exported file,
and the administrator's privacy switch. A rematch is made with the change that agrees it (games.play.store)."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts.models import User

from ..catalog import GAMES, clean_options
from ..engines import get_engine
from ..models import FinishedMatch, Match, Move, PlayerResult, Seat
from ..results import Termination
from .bot_accounts import bot_user
from .decide import decide_stats
from .finish import end_with_loser, finish
from .news import publish
from .snapshot import Change, ServiceError, Snapshot, State, Status
from .store import deal, load, write
from .sync import run_change


@dataclass(frozen=True)
class SeatSpec:
    """How the creator wants a seat filled: "open" (anyone from the lobby), "invite" (the link), or "bot"."""

    kind: str
    level: str = ""


def create_match(
    *,
    creator: User,
    game: str,
    players: int,
    seats: list[SeatSpec],
    options: dict[str, Any] | None = None,
    is_public: bool = True,
    rated: bool = True,
    seed: int | None = None,
    first_seat_bot: str = "",
    clock: dict[str, Any] | None = None,
) -> Match:
    """A new match with the creator in seat 0 and the other seats as asked; it starts once all are filled.

    With `first_seat_bot` (a bot level) a bot takes seat 0 instead and the creator watches: with bots in
    every other seat too, that is a bot-against-bot match."""
    if game not in GAMES:
        raise ServiceError("Choose one of the four games.")
    engine = get_engine(game)
    if not engine.min_players <= players <= engine.max_players:
        raise ServiceError(f"{engine.name} is for {engine.min_players} to {engine.max_players} players.")
    if len(seats) != players - 1:
        raise ServiceError("Say how each other seat is to be filled.")
    try:
        clean = clean_options(game, options or {})
    except ValueError as error:
        raise ServiceError(str(error)) from None
    if any(spec.kind not in {"open", "invite", "bot"} for spec in seats):
        raise ServiceError("A seat is open, by invitation, or a bot.")
    if creator.is_bot:
        raise ServiceError("Bots don't create matches.")
    with transaction.atomic():
        match = Match.objects.create(
            game=game, players=players, options=clean, seed=seed if seed is not None else secrets.randbits(48),
            is_public=is_public, rated=rated, created_by=creator, clock=clock or {},
        )
        now = timezone.now()
        first = bot_user(game, first_seat_bot) if first_seat_bot else creator
        Seat.objects.create(match=match, index=0, user=first, joined_at=now)
        for index, spec in enumerate(seats, start=1):
            user = bot_user(game, spec.level) if spec.kind == "bot" else None
            Seat.objects.create(match=match, index=index, user=user, joined_at=now if user else None,
                                invite_only=spec.kind == "invite")
        deal(match.pk)
        snap = load(match.pk)
        assert snap is not None
        transaction.on_commit(lambda: publish(snap))
    return Match.objects.get(pk=snap.id)


def create_table(*, game: str, people: list[User], bots: tuple[str, ...] = (), clock: dict[str, Any] | None = None,
                 rated: bool = True, is_public: bool = True) -> Match:
    """A match already full and dealt: these people (in a random order of seats) and bots of these levels after
    them, as quick pairing and an accepted challenge make it. It may run inside the caller's transaction (their
    claim on the seeks or the challenge): the match is announced after the outermost commit."""
    if game not in GAMES:
        raise ServiceError("Choose one of the four games.")
    engine = get_engine(game)
    players = len(people) + len(bots)
    if not engine.min_players <= players <= engine.max_players or not people:
        raise ServiceError(f"{engine.name} is for {engine.min_players} to {engine.max_players} players.")
    order = list(people)
    secrets.SystemRandom().shuffle(order)  # who plays first is left to chance
    with transaction.atomic():
        match = Match.objects.create(
            game=game, players=players, options=clean_options(game, {}), seed=secrets.randbits(48),
            is_public=is_public, rated=rated, created_by=order[0], clock=clock or {},
        )
        now = timezone.now()
        users = [*order, *(bot_user(game, level) for level in bots)]
        Seat.objects.bulk_create(Seat(match=match, index=index, user=user, joined_at=now)
                                 for index, user in enumerate(users))
        deal(match.pk)
        snap = load(match.pk)
        assert snap is not None
        transaction.on_commit(lambda: publish(snap))
    return match


@dataclass(frozen=True)
class Imported:
    """A match replayed from an exported file (games.history.replay checked every action), ready to be stored."""

    game: str
    players: int
    seed: int
    options: dict[str, Any]
    state: dict[str, Any]  # the replayed final position, dumped
    actions: list[tuple[int, Any]]  # (seat, action), in order
    users: list[Any]
    is_public: bool
    rated: bool
    creator: User
    started_at: datetime
    outcome: dict[str, Any] | None  # the engine's result, or None when the file records a loser
    loser: int | None
    reason: Termination


def store_imported(imported: Imported) -> Match:
    """Store an imported match finished: with the engine's outcome, or with the recorded loser."""
    now = timezone.now()
    moves = len(imported.actions)
    with transaction.atomic():
        match = Match.objects.create(
            game=imported.game, players=imported.players, options=imported.options, seed=imported.seed,
            status=Status.ACTIVE, state=imported.state, version=moves, move_count=moves,
            is_public=imported.is_public, rated=imported.rated, created_by=imported.creator,
            started_at=imported.started_at, turn_started_at=now,
        )
        Seat.objects.bulk_create(
            Seat(match=match, index=index, user=user, joined_at=now) for index, user in enumerate(imported.users)
        )
        Move.objects.bulk_create(
            Move(match=match, number=number, seat=seat, action=action)
            for number, (seat, action) in enumerate(imported.actions, start=1)
        )
        snap = load(match.pk)
        assert snap is not None
        if imported.outcome is not None:
            change = Change(snap, replace(snap, version=snap.version + 1))
            finish(change, imported.outcome, reason=Termination.NORMAL, now=now)
        else:
            assert imported.loser is not None
            change = end_with_loser(snap, imported.loser, reason=imported.reason)
        write(change, now)
    run_change(match.pk, decide_stats)  # its statistics, as any match's, once its end is written
    return Match.objects.get(pk=match.pk)


def decide_public(snap: Snapshot, state: State, *, is_public: bool) -> Change | None:
    """The privacy switch as a change of its own: a new version, so that a live copy of the match (who may watch
    it, who may sit without the link) learns of it as of any change; nothing to do when it is so already."""
    if snap.is_public == is_public:
        return None
    return Change(snap, replace(snap, version=snap.version + 1, is_public=is_public))


def set_public(*, match_id: int, is_public: bool) -> None:
    """An administrator makes a match public or private, through the version fence (a change decided on the
    match as it is, announced to its live pages); the history's copies of the flag follow, in the same
    transaction."""
    with transaction.atomic():
        run_change(match_id, decide_public, is_public=is_public)
        FinishedMatch.objects.filter(match_id=match_id).update(is_public=is_public)
        PlayerResult.objects.filter(match_id=match_id).update(is_public=is_public)
