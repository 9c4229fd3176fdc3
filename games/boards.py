"""One person, one board: whether a person may be seated now, the one gate every road to a seat asks (quick
pairing, a challenge and its acceptance, a seat taken from the lobby or by invite, a rematch, a tournament's
pairing), and the claim that makes its answer hold.

The rule (lichess's, adapted):
- a person plays at most one clocked real-time match at a time (a turn limit or a clock per player); a match
  without a clock waits for nobody, and a correspondence match (days a move) runs at the pace of days, so neither
  binds anyone: a person keeps dozens of correspondence matches and still sits at one real-time board;
- bots play any number of matches at once: the site's own and programs (the Bot API) alike;
- a person who cannot play (suspended, deactivated) is seated nowhere;
- a tournament entrant seated elsewhere is not paired by the tournament until that match ends (its pairing asks
  `holders`); a quick-pairing seek or a challenge from someone at a clocked board is refused with the reason.

The answer holds because the claim is made in the transaction that seats: a Board row per person, keyed by the
person (games.models.Board). Two roads racing to seat one person both insert the same key: on PostgreSQL the
second waits for the first's commit and then fails on the key, on SQLite the writers are serialised already; the
loser's transaction rolls back with its match. One transaction may seat several tables (an arena's pairing), so two
roads can each hold a key the other is about to insert: PostgreSQL then ends one insert as a deadlock, and that road
is refused as if it had lost the race on the key (it did: the other road holds the person).
The board is released in the transaction that ends the match (a subscriber of the end, games/endings.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, OperationalError, transaction
from django.utils import timezone

from accounts.models import User

from .catalog import GAMES
from .models import Board, Match
from .play.clock import is_correspondence
from .play.snapshot import ServiceError, Snapshot


@dataclass(frozen=True)
class Held:
    """The clocked match a person plays now, named as the pages say it."""

    match_id: int
    where: str  # "a match of Ruhd", "Friday Arena"


@dataclass(frozen=True)
class Sitter:
    """What the rule needs to know of a person about to be seated."""

    name: str
    is_bot: bool
    is_active: bool
    held: Held | None


def refusal(sitter: Sitter, *, clocked: bool, match_id: int | None = None, own: bool = True) -> str | None:
    """Why this person may not be seated at this match now (None: they may). Pure: the table of cases is in
    tests/games/test_boards.py. `own`: said to the person themself ("You are ..."), else to someone else about
    them ("Bob is ...")."""
    if sitter.is_bot:
        return None
    if not sitter.is_active:
        return "Your account cannot play at the moment." if own else f"{sitter.name} cannot play at the moment."
    if not clocked or sitter.held is None or sitter.held.match_id == match_id:
        return None
    if own:
        return f"You are playing in {sitter.held.where}: you can sit down again when that match ends."
    return f"{sitter.name} is playing in {sitter.held.where}: try again when that match ends."


def is_clocked(clock: dict[str, Any] | None) -> bool:
    """Whether a match with this clock is a board: a real-time clock (days a move bind no one)."""
    return bool(clock) and not is_correspondence(clock)


# ---------------------------------------------------------------------------------------------
# Reads


def held_by(user_id: int) -> Held | None:
    """The clocked match this person plays now, if any (two small queries)."""
    board = Board.objects.filter(user_id=user_id).values_list("match_id", "match__game").first()
    if board is None:
        return None
    match_id, game = board
    return Held(match_id, _where(match_id, game))


def _where(match_id: int, game: str) -> str:
    tournament = (Match.objects.filter(pk=match_id, tournament_game__isnull=False)
                  .values_list("tournament_game__tournament__name", flat=True).first())
    if tournament:
        return tournament
    return f"a match of {GAMES[game].name}" if game in GAMES else "another match"


def sitter_of(user: Any, *, holds: bool = True) -> Sitter:
    """`holds`: whether they may hold a board at all (False when the caller knows they hold none: no query)."""
    # A program at any number of boards, unless suspended (then refused as a person is).
    many = bool(user.is_bot or (getattr(user, "program", False) and user.is_active))
    held = None if many or not holds else held_by(user.pk)
    return Sitter(name=user.name, is_bot=many, is_active=user.is_active, held=held)


def why_not(user: Any, *, clocked: bool = True, match_id: int | None = None, own: bool = True) -> str | None:
    """The gate asked for one person: why they may not be seated now, or None."""
    if user is None or not user.is_authenticated:
        return None
    return refusal(sitter_of(user), clocked=clocked, match_id=match_id, own=own)


def why_not_at(user: Any, match_id: int) -> str | None:
    """The gate asked for a seat at this match, its clock read here (a seat taken from the lobby or the match
    page): the reason is said before deciding, as the Join button's place says it; the claim at the start stays
    the final guard."""
    clock = Match.objects.filter(pk=match_id).values_list("clock", flat=True).first()
    return why_not(user, clocked=is_clocked(clock), match_id=match_id)


def holders(user_ids: Iterable[int]) -> set[int]:
    """Who of these people plays a clocked match now (a tournament's pairing passes them by until it ends)."""
    return set(Board.objects.filter(user_id__in=list(user_ids)).values_list("user_id", flat=True))


# ---------------------------------------------------------------------------------------------
# The claim and its release


def on_start(snap: Snapshot) -> None:
    """A match is dealt (in the transaction that writes it, games.play.events): its players sit down."""
    claim(snap.id, snap.clock, [seat.user_id for seat in snap.seats if seat.user_id is not None])


def claim(match_id: int, clock: dict[str, Any] | None, user_ids: Iterable[int]) -> None:
    """Seat these people at the match, in the caller's transaction: each person (not a bot) takes it as their
    board if it is clocked; ServiceError with the gate's reason if one of them may not sit now (the caller's
    transaction then rolls back, match and all). A seek they wait with elsewhere is passed by quick pairing
    while they play (games.pool.pairing asks `holders`)."""
    # In the key's order: two claims racing for the same people take their keys in one order and cannot deadlock
    # each other (a deadlock is still possible across an arena's several tables: caught below).
    people = list(User.objects.filter(pk__in=list(user_ids), is_bot=False).order_by("pk"))
    busy = holders(user.pk for user in people)  # one query; a board is named (two more) only for who holds one
    for user in people:
        sitter = sitter_of(user, holds=user.pk in busy)
        reason = refusal(sitter, clocked=is_clocked(clock), match_id=match_id, own=False)
        if reason:
            raise ServiceError(reason)
    people = [user for user in people if not user.program]  # a program plays many matches: no board of its own
    if not people or not is_clocked(clock):
        return
    now = timezone.now()
    try:
        with transaction.atomic():  # a savepoint: the key's failure leaves the caller's transaction usable
            Board.objects.bulk_create([Board(user_id=user.pk, match_id=match_id, since=now) for user in people])
    except (IntegrityError, OperationalError) as error:
        if isinstance(error, OperationalError) and not is_deadlock(error):
            raise
        # Seated elsewhere by another road at this very moment (its transaction committed first, or holds the key
        # this one waited for while waiting on a key of this one: PostgreSQL ended this insert to break the circle).
        busy = holders(user.pk for user in people)
        names = ", ".join(user.name for user in people if user.pk in busy) or "A player"
        raise ServiceError(f"{names} just sat down at another match.") from None


def is_deadlock(error: OperationalError) -> bool:
    """PostgreSQL's deadlock_detected (SQLSTATE 40P01), under Django's wrapper."""
    return getattr(error.__cause__, "sqlstate", None) == "40P01"


def release(snap: Snapshot) -> None:
    """The match ended (in the transaction that writes the end, games.play.events): its players are free."""
    Board.objects.filter(match_id=snap.id).delete()
