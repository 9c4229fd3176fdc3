"""Every state change of a match, one function each.

Each function runs in one transaction with the match row locked (select_for_update) and, where a
move depends on what the player saw, checks the expected version, so two racing changes never both
apply. Broadcasting happens in transaction.on_commit, never before the change is durable.
"""

from __future__ import annotations

import copy
import importlib
import logging
import random
import secrets
import threading
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from . import stats
from .catalog import GAMES, clean_options
from .engines import IllegalAction, get_engine
from .models import Match, Move, Seat

log = logging.getLogger(__name__)

# A seat counts as present while a socket is open for it and its heartbeat is recent.
PRESENCE_STALE_SECONDS = 45


class ServiceError(Exception):
    """A request the site refuses, with a sentence for the person who made it."""


class MatchMovedOn(ServiceError):
    """The action was meant for an older position: someone else's action came first."""

    def __init__(
        self, message: str = "The game moved on before your action arrived; here is the current position."
    ) -> None:
        super().__init__(message)


@dataclass(frozen=True)
class SeatSpec:
    """How the creator wants a seat filled: "open" (anyone from the lobby), "invite" (the link), or "bot"."""

    kind: str
    level: str = ""


# ---------------------------------------------------------------------------------------------
# Small shared pieces


def _lock(match_id: int) -> Match:
    _forget_warm(match_id)  # a change that takes the slow path makes this process's copy worthless
    try:
        return Match.objects.select_for_update().get(pk=match_id)
    except Match.DoesNotExist:
        raise ServiceError("There is no such match.") from None


def seats_of(match: Match) -> list[Seat]:
    """The match's seats with their users, read once per service call and kept on the instance:
    the move, the bot schedule and the broadcast after commit all use the same list."""
    cached = match.__dict__.get("_seats_cache")
    if cached is None:
        cached = list(match.seats.select_related("user").order_by("index"))
        match.__dict__["_seats_cache"] = cached
    return cached


def _engine(match: Match) -> Any:
    return get_engine(match.game)


def _state(match: Match) -> Any:
    return _engine(match).load(match.state)


def _on_commit_broadcast(match_id: int, match: Match | None = None) -> None:
    """Broadcast after commit; pass the saved match to spare the broadcast a reload."""
    from .broadcast import broadcast_match

    transaction.on_commit(lambda: broadcast_match(match_id, match))


def bots_module(slug: str) -> Any:
    return importlib.import_module(f"games.bots.{slug}")


def bot_user(slug: str, level: str) -> Any:
    from django.contrib.auth import get_user_model

    from .bots_accounts import bot_username, ensure_bot_accounts

    user_model = get_user_model()
    try:
        return user_model.objects.get(username=bot_username(slug, level), is_bot=True)
    except user_model.DoesNotExist:
        ensure_bot_accounts()
        try:
            return user_model.objects.get(username=bot_username(slug, level), is_bot=True)
        except user_model.DoesNotExist:
            raise ServiceError(f"There is no {level} bot for {GAMES[slug].name}.") from None


def seat_of(match: Match, user: Any) -> Seat | None:
    """The seat a person holds in a match (people hold at most one; bots may hold several)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    return match.seats.filter(user=user).order_by("index").first()


# ---------------------------------------------------------------------------------------------
# Creating and starting


def create_match(
    *,
    creator: Any,
    game: str,
    players: int,
    seats: list[SeatSpec],
    options: dict[str, Any] | None = None,
    is_public: bool = True,
    rated: bool = True,
    seed: int | None = None,
    first_seat_bot: str = "",
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
    for spec in seats:
        if spec.kind not in {"open", "invite", "bot"}:
            raise ServiceError("A seat is open, by invitation, or a bot.")
    if creator.is_bot:
        raise ServiceError("Bots don't create matches.")
    with transaction.atomic():
        match = Match.objects.create(
            game=game,
            players=players,
            options=clean,
            seed=seed if seed is not None else secrets.randbits(48),
            is_public=is_public,
            rated=rated,
            created_by=creator,
        )
        now = timezone.now()
        first = bot_user(game, first_seat_bot) if first_seat_bot else creator
        Seat.objects.create(match=match, index=0, user=first, joined_at=now)
        for index, spec in enumerate(seats, start=1):
            user = bot_user(game, spec.level) if spec.kind == "bot" else None
            Seat.objects.create(
                match=match,
                index=index,
                user=user,
                joined_at=now if user else None,
                invite_only=spec.kind == "invite",
            )
        match = _lock(match.pk)
        _start_if_full(match)
        _on_commit_broadcast(match.pk)
    return match


def join_match(*, match_id: int, user: Any, invite_code: str | None = None, seat_index: int | None = None) -> Match:
    """Take a free seat: an open one from the lobby, or an invite-only one with the invite code."""
    if not user.is_authenticated:
        raise ServiceError("Sign in to take a seat.")
    with transaction.atomic():
        match = _lock(match_id)
        if match.status != Match.Status.WAITING:
            raise ServiceError("This match is no longer waiting for players.")
        seats = seats_of(match)
        if any(seat.user_id == user.pk for seat in seats):
            raise ServiceError("You already have a seat in this match.")
        has_code = invite_code is not None and secrets.compare_digest(str(invite_code), match.invite_code)
        if not match.is_public and not has_code:
            raise ServiceError("This match is private: you need its invite link.")
        free = [seat for seat in seats if seat.user_id is None and (has_code or not seat.invite_only)]
        if seat_index is not None:
            free = [seat for seat in free if seat.index == seat_index]
        if not free:
            raise ServiceError("There is no free seat for you in this match.")
        seat = free[0]
        seat.user = user
        seat.joined_at = timezone.now()
        seat.save(update_fields=["user", "joined_at"])
        _start_if_full(match)
        _on_commit_broadcast(match.pk)
    return match


def leave_match(*, match_id: int, user: Any) -> Match:
    """Give up a seat before the match starts; the creator leaving cancels the match."""
    with transaction.atomic():
        match = _lock(match_id)
        if match.status != Match.Status.WAITING:
            raise ServiceError("The match has started: resign instead.")
        seat = seat_of(match, user)
        if seat is None:
            raise ServiceError("You have no seat in this match.")
        if seat.index == 0:
            match.status = Match.Status.ABORTED
            match.finished_at = timezone.now()
            match.result = {"reason": "cancelled", "scores": [], "winners": [], "draw": False}
            match.save(update_fields=["status", "finished_at", "result", "updated_at"])
        else:
            seat.user = None
            seat.joined_at = None
            seat.save(update_fields=["user", "joined_at"])
        _on_commit_broadcast(match.pk)
    return match


def _start_if_full(match: Match) -> None:
    """Deal the game once every seat has a player (called under the lock)."""
    if match.status != Match.Status.WAITING or match.seats.filter(user__isnull=True).exists():
        return
    engine = _engine(match)
    state = engine.new_game(match.players, seed=match.seed, options=match.options)
    now = timezone.now()
    match.status = Match.Status.ACTIVE
    match.started_at = now
    match.turn_started_at = now
    match.state = engine.dump(state)
    match.version = 0
    _schedule_bots(match, state)
    match.save()


# ---------------------------------------------------------------------------------------------
# Playing


def _prepare_action(match: Match, seat: int, action: Any, now: Any) -> Any:
    """Fill in what the server decides, never the browser: Columbo solo's elapsed seconds on a tap."""
    if match.game == "columbo" and match.players == 1 and isinstance(action, dict) and action.get("type") == "tap":
        action = {key: value for key, value in action.items() if key != "seconds"}
        started = match.started_at or now
        action["seconds"] = max(0, int((now - started).total_seconds()))
    return action


# What a move changes on the match row (finishing included); the rest of the row stays as it is.
_MOVE_FIELDS = ["version", "state", "turn_started_at", "rematch_votes", "bot_due_at", "status", "finished_at",
                "result", "updated_at"]


def _apply(match: Match, state: Any, seat: int, action: Any, note: str = "") -> Any:
    """Apply one checked action under the lock: append the move, save the state, finish if over."""
    engine = _engine(match)
    now = timezone.now()
    action = _prepare_action(match, seat, action, now)
    new_state = engine.apply(state, seat, action)  # raises IllegalAction, state untouched
    match.version += 1
    Move.objects.create(match=match, number=match.version, seat=seat, action=action, note=note[:200])
    match.state = engine.dump(new_state)
    match.turn_started_at = now
    match.rematch_votes = []
    if engine.is_over(new_state):
        _finish(match, engine.result(new_state), reason="normal", now=now)
    else:
        _schedule_bots(match, new_state)
    match.save(update_fields=_MOVE_FIELDS)
    _on_commit_broadcast(match.pk, match)
    return new_state


def act(*, match_id: int, user: Any, seat: int, action: Any, expected_version: int | None = None) -> Match:
    """A person's action for their seat, checked by the engine against the current state."""
    warm = _take_warm(match_id)
    if warm is not None:
        done = _act_warm(warm, user, seat, action, expected_version)
        if done is not None:
            return done
    with transaction.atomic():
        match = _lock(match_id)
        if match.status != Match.Status.ACTIVE:
            raise ServiceError("This match is not in progress.")
        _check_holder(match, user, seat)
        if expected_version is not None and expected_version != match.version:
            raise MatchMovedOn()
        state = _state(match)
        _apply(match, state, seat, action)
    if match.status == Match.Status.ACTIVE:
        _keep_warm(match)
    return match


def _check_holder(match: Match, user: Any, seat: int) -> None:
    holder = next((s for s in seats_of(match) if s.index == seat), None)
    if holder is None or holder.user is None or holder.user_id != getattr(user, "pk", None) or holder.user.is_bot:
        raise ServiceError("You can only act for your own seat.")


# ---------------------------------------------------------------------------------------------
# The move fast path
#
# A process keeps the active matches it last moved (row, seats, state), each with the updated_at it
# wrote. The next move is checked against that copy and written with one UPDATE guarded by the id,
# version and updated_at, plus one INSERT of the move: the row lock and the reads of the slow path are
# saved. Every other change saves the row (updated_at moves on) and presence touches it, so a copy that
# another process or request made stale fails the guard, and the move takes the slow path, which
# decides it against the database as before. The database stays the only source of truth.

_WARM_LIMIT = 2048
_warm: dict[int, Match] = {}
_warm_lock = threading.Lock()


def _forget_warm(match_id: int) -> None:
    with _warm_lock:
        _warm.pop(match_id, None)


def _take_warm(match_id: int) -> Match | None:
    """This process's copy of a match, taken out so that no other thread uses it meanwhile."""
    with _warm_lock:
        return _warm.pop(match_id, None)


def _keep_warm(match: Match) -> None:
    if "_seats_cache" not in match.__dict__:
        return
    with _warm_lock:
        if len(_warm) >= _WARM_LIMIT:
            _warm.pop(next(iter(_warm)))
        _warm[match.pk] = match


def _act_warm(match: Match, user: Any, seat: int, action: Any, expected_version: int | None) -> Match | None:
    """The move on this process's copy of the match; None when the slow path must decide it."""
    engine = _engine(match)
    if match.status != Match.Status.ACTIVE:
        return None
    try:
        _check_holder(match, user, seat)
    except ServiceError:
        return None  # refused only by the database's word
    if expected_version is not None and expected_version != match.version:
        return None  # the slow path tells "moved on" from a stale copy
    now = timezone.now()
    prepared = _prepare_action(match, seat, action, now)
    try:
        new_state = engine.apply(_state(match), seat, prepared)
    except IllegalAction:
        return None  # a refusal from a possibly stale copy: the slow path gives the database's answer
    if engine.is_over(new_state):
        return None  # finishing (results, stats) is the slow path's
    # A copy of the row, not Match(...): a new instance would work out field defaults (an invite code from
    # the system's randomness) for nothing.
    changed = copy.copy(match)
    changed.version, changed.state, changed.turn_started_at = match.version + 1, engine.dump(new_state), now
    changed.rematch_votes, changed.bot_due_at, changed.updated_at = [], None, now
    _schedule_bots(changed, new_state)
    with transaction.atomic():
        if not _write_move(match, changed, seat, prepared):
            return None
        for name in _MOVE_COLUMNS:
            setattr(match, name, getattr(changed, name))
        _on_commit_broadcast(match.pk, match)
    _keep_warm(match)
    return match


def _write_move(before: Match, after: Match, seat: int, action: Any) -> bool:
    """UPDATE the row if it is still the one this process wrote, and INSERT the move; False if it is not.

    Plain SQL with the fields' own conversions: the ORM's query building cost more than the writes."""
    from django.db import connection

    ops = connection.ops
    fields = _MATCH_FIELDS
    sets = ", ".join(f"{ops.quote_name(fields[name].column)} = %s" for name in _MOVE_COLUMNS)
    guard = f"{ops.quote_name('id')} = %s AND version = %s AND status = %s AND updated_at = %s"
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {ops.quote_name(Match._meta.db_table)} SET {sets} WHERE {guard}",
            [*(fields[name].get_db_prep_save(getattr(after, name), connection) for name in _MOVE_COLUMNS),
             before.pk, before.version, Match.Status.ACTIVE,
             fields["updated_at"].get_db_prep_save(before.updated_at, connection)],
        )
        if cursor.rowcount != 1:
            return False
        move = _MOVE_FIELDS_BY_NAME
        cursor.execute(
            f"INSERT INTO {ops.quote_name(Move._meta.db_table)} (match_id, number, seat, action, note, created_at) "
            "VALUES (%s, %s, %s, %s, %s, %s)",
            [before.pk, after.version, seat, move["action"].get_db_prep_save(action, connection), "",
             move["created_at"].get_db_prep_save(after.updated_at, connection)],
        )
    return True


# What a move changes in the match row (the fast path writes exactly these).
_MOVE_COLUMNS = ("version", "state", "turn_started_at", "rematch_votes", "bot_due_at", "updated_at")
_MATCH_FIELDS = {f.name: f for f in Match._meta.concrete_fields}
_MOVE_FIELDS_BY_NAME = {f.name: f for f in Move._meta.concrete_fields}


def resign(*, match_id: int, user: Any) -> Match:
    """Give up: the others win. Always possible while the match is on."""
    with transaction.atomic():
        match = _lock(match_id)
        if match.status != Match.Status.ACTIVE:
            raise ServiceError("This match is not in progress.")
        seat = seat_of(match, user)
        if seat is None:
            raise ServiceError("You have no seat in this match.")
        _end_with_loser(match, seat.index, reason="resign")
        _on_commit_broadcast(match.pk)
    return match


def claim_abandoned(*, match_id: int, user: Any, absent_seat: int, take_over_with_bot: bool = False) -> Match:
    """When a seated person has been away 60 s while the game waits on them: claim the win or seat a bot."""
    with transaction.atomic():
        match = _lock(match_id)
        if match.status != Match.Status.ACTIVE:
            raise ServiceError("This match is not in progress.")
        claimant = seat_of(match, user)
        if claimant is None:
            raise ServiceError("Only players of this match can claim it.")
        absent = match.seats.filter(index=absent_seat).select_related("user").first()
        if absent is None or absent.index == claimant.index or absent.user is None or absent.user.is_bot:
            raise ServiceError("That seat can't be claimed.")
        engine = _engine(match)
        state = _state(match)
        if absent_seat not in engine.must_act(state):
            raise ServiceError("The game is not waiting on that player.")
        remaining = away_seconds_left(absent, waiting_since=match.turn_started_at)
        if remaining > 0:
            raise ServiceError(f"{absent.user.name} may still come back: you can claim in {remaining} s.")
        if take_over_with_bot:
            levels = list(bots_module(match.game).BOTS)
            level = "reference" if "reference" in levels else levels[-1]
            absent.user = bot_user(match.game, level)
            absent.save(update_fields=["user"])
            match.__dict__.pop("_seats_cache", None)
            substituted = [*(match.result or {}).get("substituted", []), absent_seat]
            match.result = {**(match.result or {}), "substituted": substituted}
            _schedule_bots(match, state)
            match.save()
        else:
            _end_with_loser(match, absent_seat, reason="abandon")
        _on_commit_broadcast(match.pk)
    return match


def offer_rematch(*, match_id: int, user: Any) -> Match | None:
    """Ask for a rematch; once every person in the match has asked, it is created: same players, seats rotated."""
    with transaction.atomic():
        match = _lock(match_id)
        if match.status != Match.Status.FINISHED:
            raise ServiceError("A rematch can be asked for once the match is over.")
        if match.rematch_id:
            return match.rematch
        seats = seats_of(match)
        seat = next((s for s in seats if s.user_id == getattr(user, "pk", None)), None)
        if seat is None:
            raise ServiceError("Only players of this match can ask for a rematch.")
        votes = set(match.rematch_votes) | {seat.index}
        match.rematch_votes = sorted(votes)
        humans = {s.index for s in seats if s.user and not s.user.is_bot}
        if not humans <= votes:
            match.save(update_fields=["rematch_votes", "updated_at"])
            _on_commit_broadcast(match.pk)
            return None
        rematch = Match.objects.create(
            game=match.game,
            players=match.players,
            options=match.options,
            seed=secrets.randbits(48),
            is_public=match.is_public,
            rated=match.rated,
            created_by=user,
        )
        now = timezone.now()
        n = match.players
        for old in seats:
            Seat.objects.create(match=rematch, index=(old.index + 1) % n, user=old.user, joined_at=now)
        match.rematch = rematch
        match.save(update_fields=["rematch_votes", "rematch", "updated_at"])
        rematch = _lock(rematch.pk)
        _start_if_full(rematch)
        _on_commit_broadcast(match.pk)
        _on_commit_broadcast(rematch.pk)
    return rematch


# ---------------------------------------------------------------------------------------------
# Finishing


def _places(scores: list[int], winners: list[int], lower_is_better: bool) -> list[int]:
    """1 for the winners, then by score (ties share a place)."""
    places = [0] * len(scores)
    others = [i for i in range(len(scores)) if i not in winners]
    for i in winners:
        places[i] = 1
    others.sort(key=lambda i: scores[i], reverse=not lower_is_better)
    place = len(winners) + 1
    for rank, i in enumerate(others):
        if rank > 0 and scores[i] != scores[others[rank - 1]]:
            place = len(winners) + 1 + rank
        places[i] = place
    return places


def _finish(match: Match, result: dict[str, Any], *, reason: str, now: Any) -> None:
    """Close the match with its result (under the lock); record seat scores and places; stats follow."""
    info = GAMES[match.game]
    scores = list(result.get("scores", []))
    winners = list(result.get("winners", []))
    match.status = Match.Status.FINISHED
    match.finished_at = now
    match.bot_due_at = None
    match.result = {**(match.result or {}), **result, "reason": reason}
    places = _places(scores, winners, info.lower_is_better) if scores else [1] * match.players
    for seat in seats_of(match):
        seat.final_score = scores[seat.index] if scores else None
        seat.place = places[seat.index]
        seat.save(update_fields=["final_score", "place"])
    stats.record_finished(match)


def _end_with_loser(match: Match, loser: int, *, reason: str) -> None:
    engine = _engine(match)
    scores = engine.scores(_state(match))
    winners = [i for i in range(match.players) if i != loser]
    result = {"scores": scores, "winners": winners, "draw": False, "loser": loser}
    _finish(match, result, reason=reason, now=timezone.now())
    match.save()


# ---------------------------------------------------------------------------------------------
# Bots


def _bot_levels(match: Match) -> dict[int, str]:
    return {s.index: s.user.bot_level for s in seats_of(match) if s.user and s.user.is_bot}


def _reaction_delay(game: str, level: str) -> float:
    delays = getattr(bots_module(game), "REACTION_DELAY", {})
    return float(delays.get(level, settings.GAMES_BOT_DELAY))


def _schedule_bots(match: Match, state: Any) -> None:
    """Set when a bot seat should next be asked (a short human-like pause); None when no bot is to act."""
    engine = _engine(match)
    bots = _bot_levels(match)
    if not bots or engine.is_over(state):
        match.bot_due_at = None
        return
    now = match.turn_started_at or timezone.now()
    must = set(engine.must_act(state))
    due = []
    for seat in engine.to_act(state):
        if seat not in bots:
            continue
        due.append(now + timedelta(seconds=_bot_delay(match, engine, state, seat, bots[seat], seat in must)))
    match.bot_due_at = min(due) if due else None


def _bot_delay(match: Match, engine: Any, state: Any, seat: int, level: str, must: bool) -> float:
    """How long a bot seat waits: a short pause for its turn (longer where its bots ask for patience,
    e.g. to leave a person time for a card action), its level's reaction time for an optional move."""
    if not must:
        return _reaction_delay(match.game, level)
    delay = settings.GAMES_BOT_DELAY
    patience = getattr(bots_module(match.game), "patience", None)
    if patience is not None:
        humans_waiting = any(i not in _bot_levels(match) for i in range(match.players))
        if humans_waiting:
            delay = max(delay, patience(engine.view(state, seat)))
    return delay


def due_bot_matches(limit: int = 50) -> list[tuple[int, int]]:
    """(match id, version) of active matches whose bots are due to act."""
    rows = Match.objects.filter(status=Match.Status.ACTIVE, bot_due_at__lte=timezone.now()).order_by("bot_due_at")
    return list(rows.values_list("id", "version")[:limit])


def play_bot_turn(*, match_id: int, expected_version: int) -> bool:
    """Let the due bot seats act once. Harmless when another process got there first (version check)."""
    with transaction.atomic():
        match = _lock(match_id)
        if match.status != Match.Status.ACTIVE or match.version != expected_version or match.bot_due_at is None:
            return False
        now = timezone.now()
        if match.bot_due_at > now:
            return False
        engine = _engine(match)
        state = _state(match)
        bots = _bot_levels(match)
        must = set(engine.must_act(state))
        started = match.turn_started_at or now
        candidates = sorted(
            (seat for seat in engine.to_act(state) if seat in bots), key=lambda seat: (seat not in must, seat)
        )
        later = []
        for seat in candidates:
            level = bots[seat]
            delay = _bot_delay(match, engine, state, seat, level, seat in must)
            if started + timedelta(seconds=delay) > now:
                later.append(started + timedelta(seconds=delay))
                continue
            bot = bots_module(match.game).BOTS[level]
            rng = random.Random(f"{match.seed}:{match.version}:{seat}")
            view = engine.view(state, seat)
            legal = engine.legal_actions(state, seat)
            try:
                action, reason = bot(view, legal, rng)
            except Exception:  # a bot bug must not stop the match: fall back to a random legal action
                log.exception("bot %s failed in match %s", level, match.pk)
                action, reason = (rng.choice(legal), "plays at random") if legal else (None, "")
            if action is None:
                continue
            try:
                _apply(match, state, seat, action, note=reason)
            except IllegalAction as error:
                log.error("bot %s chose an illegal action in match %s: %s", level, match.pk, error)
                if not legal:
                    continue
                _apply(match, state, seat, rng.choice(legal), note="plays at random")
            return True
        match.bot_due_at = min(later) if later else None
        match.save(update_fields=["bot_due_at"])
        return False


# ---------------------------------------------------------------------------------------------
# Presence


def away_seconds_left(seat: Seat, waiting_since: Any = None) -> int:
    """Seconds before an absent player's seat may be claimed; 0 once it may; the full wait if present.

    The clock runs while the player is away *and* the game waits on them: from the later of their last
    sign of life and waiting_since (the match's turn_started_at), so a player who left during the
    opponent's long turn still gets the full wait once it is their turn.
    """
    wait = settings.GAMES_ABANDON_SECONDS
    if is_present(seat):
        return wait
    since = max((t for t in (seat.last_seen or seat.joined_at, waiting_since) if t is not None), default=None)
    if since is None:
        return 0
    elapsed = (timezone.now() - since).total_seconds()
    return max(0, int(wait - elapsed + 0.999))


def is_present(seat: Seat) -> bool:
    if seat.user is not None and seat.user.is_bot:
        return True
    if seat.connections <= 0 or seat.last_seen is None:
        return False
    return (timezone.now() - seat.last_seen).total_seconds() < PRESENCE_STALE_SECONDS


def _touch(*match_ids: int) -> None:
    """Presence or a player changed: no process's warm copy of these matches (and their seats) may be used
    any more (updated_at moves on, so the copies fail their guard)."""
    for match_id in match_ids:
        _forget_warm(match_id)
    Match.objects.filter(pk__in=match_ids).update(updated_at=timezone.now())


def player_changed(*, user_id: int) -> None:
    """A player's name or picture changed: their matches that are on show it at once, and no process's warm
    copy (which holds the seats' users) draws the old one again."""
    live = (Match.Status.WAITING, Match.Status.ACTIVE)
    ids = list(Match.objects.filter(status__in=live, seats__user_id=user_id).values_list("pk", flat=True).distinct())
    if ids:
        _touch(*ids)
    for match_id in ids:
        _on_commit_broadcast(match_id)


def seat_connected(*, match_id: int, seat: int) -> None:
    """A socket opened for this seat (the consumer then broadcasts the new presence itself)."""
    from django.db.models import F

    with transaction.atomic():
        Seat.objects.filter(match_id=match_id, index=seat).update(
            connections=F("connections") + 1, last_seen=timezone.now()
        )
        _touch(match_id)


def seat_disconnected(*, match_id: int, seat: int) -> None:
    """A socket for this seat closed; the abandonment clock runs from now (see away_seconds_left)."""
    from django.db.models import Case, F, Value, When

    with transaction.atomic():
        Seat.objects.filter(match_id=match_id, index=seat).update(
            connections=Case(When(connections__gt=0, then=F("connections") - 1), default=Value(0)),
            last_seen=timezone.now(),
        )
        _touch(match_id)


def seat_heartbeat(*, match_id: int, seat: int) -> None:
    """A seat's socket is still there (every 15 s). Like any presence change it moves the row's updated_at
    on, so other processes' warm copies fail their guard; this process's own copy, if nothing else changed
    the row since that copy was written, is brought up to date instead of dropped: otherwise the first move
    after each beat (one every 7.5 s in a two-player match) would take the slow path."""
    now = timezone.now()
    warm = _take_warm(match_id)
    with transaction.atomic():
        Seat.objects.filter(match_id=match_id, index=seat).update(last_seen=now)
        # Compare-and-set: the copy is kept only if the row is still the one it wrote.
        kept = warm is not None and Match.objects.filter(
            pk=match_id, version=warm.version, status=warm.status, updated_at=warm.updated_at
        ).update(updated_at=now) == 1
        if not kept:
            Match.objects.filter(pk=match_id).update(updated_at=now)
    if warm is None or not kept:
        return
    for held in seats_of(warm):
        if held.index == seat:
            held.last_seen = now
    warm.updated_at = now
    _keep_warm(warm)
