"""Quick pairing, the service: a person sits down to wait in a pool (a Seek row), gets up again, or is seated.

Pairing is one decision in one place, `pair_pool`: in one transaction it takes the pool's lock (PostgreSQL: a
transaction-level advisory lock on the pool's key, so two processes decide a pool one after the other, each
seeing what the other seated; SQLite: the IMMEDIATE transaction already serialises every writer), claims the
waiting seeks with SELECT ... FOR UPDATE SKIP LOCKED (a seek being withdrawn at that moment is passed by),
asks the pure rules (games.pool.matchmaking) which tables to make, creates them full and dealt, and marks the
seeks paired. A person waits in one pool at a time (a unique index over waiting seeks), so no two decisions can
seat one person twice. No lock lives in memory: any process may decide any pool.

After the commit each seated person's pages go to the new match (a frame on their notification sockets) and the
lobbies redraw the grid's counts. Who triggers a decision: a seek arriving, and the socket that made a seek at
the moments its range widens (games.pool.socket); `now` is injectable for the rules' clock.
"""

from __future__ import annotations

import logging
import zlib
from dataclasses import dataclass
from datetime import datetime, timedelta

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

import games.bots
from accounts.models import User

from .. import boards
from ..blocks import kept_apart
from ..core.locks import advisory_xact_lock
from ..models import Match, Seat, Seek
from ..notify.goto import send_to_match
from ..play.create import create_table
from ..play.news import LOBBY_GROUP
from ..play.snapshot import ServiceError
from ..ratings.read import rating_of
from . import matchmaking
from .pools import POOLS, Pool

CORRESPONDENCE_POOLS = frozenset(key for key, pool in POOLS.items() if pool.correspondence)

log = logging.getLogger(__name__)

QUICK_CHANGED = {"type": "quick.changed"}
# A waiting seek whose socket has not touched it for this long is dead (its process was killed): ignored, removed.
SEEK_STALE_SECONDS = 45
SEEK_HEARTBEAT_SECONDS = 15
# A correspondence seek waits this long with no page open (its person told by email when their move is due):
# nobody waits days at a screen for a match played over days. Withdrawn by a second click or a seek elsewhere.
CORRESPONDENCE_SEEK_DAYS = 7
# The most seekers one decision looks at (the longest waiting): the rules are quadratic in a pool's size.
DECISION_LIMIT = 200
_LOCK_NAMESPACE = 0x5EE4  # the advisory locks' first key: pools, apart from any other advisory lock


def fresh(now: datetime) -> Q:
    """The seeks still waiting: a real-time seek while the socket that made it keeps it fresh, a correspondence one
    for CORRESPONDENCE_SEEK_DAYS (the one rule of which seeks count, for the pairing and the grid)."""
    return (Q(seen_at__gte=now - timedelta(seconds=SEEK_STALE_SECONDS))
            | Q(pool__in=CORRESPONDENCE_POOLS, seen_at__gte=now - timedelta(days=CORRESPONDENCE_SEEK_DAYS)))


def level_near(game: str, rating: float) -> str:
    """The bot level offered to a person who waited alone: the one whose measured rating (bench/bot_ratings.py)
    is nearest theirs (games.bots.level_near, the one place that decides it)."""
    return games.bots.level_near(game, rating)


def last_opponents(user: User, game: str) -> list[int]:
    """The people this person sat with in their latest match of the game (two queries)."""
    latest = (Seat.objects.filter(user=user, match__game=game).exclude(match__status=Match.Status.WAITING)
              .order_by("-match__created_at").values_list("match_id", flat=True).first())
    if latest is None:
        return []
    return list(Seat.objects.filter(match_id=latest, user__is_bot=False).exclude(user=user)
                .values_list("user_id", flat=True))


def pool_of(key: str) -> Pool:
    pool = POOLS.get(key)
    if pool is None:
        raise ServiceError("There is no such pool.")
    return pool


@dataclass(frozen=True)
class Seated:
    """What a seek came to: still waiting (match None), or the match it was seated at."""

    seek_id: int | None
    match: Match | None


def seek(user: User, key: str, *, socket: str = "", now: datetime | None = None) -> Seated:
    """Sit down to wait in a pool (leaving any other pool), then try the pool at once."""
    pool = pool_of(key)
    if user.is_bot or not user.is_active:
        raise ServiceError("Only people may wait for a table.")
    if user.program:  # lichess's rule: programs play challenges, never quick pairing (README, the Bot API)
        raise ServiceError("Bots play by challenge only: quick pairing is for people.")
    reason = boards.why_not(user, clocked=boards.is_clocked(pool.clock))
    if reason:
        raise ServiceError(reason)
    now = now or timezone.now()
    rating, opponents = rating_of(user, pool.game), last_opponents(user, pool.game)
    try:
        with transaction.atomic():
            Seek.objects.filter(user=user, match__isnull=True).delete()
            # A correspondence seek belongs to no socket: closing the lobby leaves it waiting.
            row = Seek.objects.create(user=user, pool=key, game=pool.game, rating=rating, last_opponents=opponents,
                                      created_at=now, seen_at=now, socket="" if pool.correspondence else socket)
    except IntegrityError:  # a seek of theirs was made at the same moment elsewhere: that one stands
        raise ServiceError("You are already waiting for a table.") from None
    announce_pools()
    for match in pair_pool(key, now=now):
        if Seat.objects.filter(match=match, user=user).exists():
            return Seated(None, match)
    return Seated(row.pk, None)


def withdraw(user: User | None = None, *, socket: str = "") -> int:
    """Get up from waiting (the second click, or the socket that made the seek closed): the seeks withdrawn.

    A seek being paired at this moment is locked by that decision: the delete waits for it, then finds it
    paired and leaves it (the person's pages go to their match)."""
    seeks = Seek.objects.filter(match__isnull=True)
    if user is not None:
        seeks = seeks.filter(user=user)
    if socket:
        seeks = seeks.filter(socket=socket)
    if user is None and not socket:
        return 0
    deleted, _ = seeks.delete()
    if deleted:
        announce_pools()
    return deleted


def touch(socket: str, now: datetime | None = None) -> int:
    """The socket that made a seek is still there (its heartbeat)."""
    return Seek.objects.filter(socket=socket, match__isnull=True).update(seen_at=now or timezone.now())


def _lock_pool(key: str) -> None:
    """Serialise the decisions about one pool: a transaction-level lock in the database, released at commit."""
    advisory_xact_lock(_LOCK_NAMESPACE, zlib.crc32(key.encode()) >> 1)


def _seeker(row: Seek, apart: set[frozenset[int]] | None = None) -> matchmaking.Seeker:
    """The rules' view of a seek; `apart`: the pairs of people kept apart by a block (games.social)."""
    avoid = frozenset(other for pair in apart or () if row.user_id in pair for other in pair if other != row.user_id)
    return matchmaking.Seeker(row.pk, row.user_id, row.rating, row.created_at, frozenset(row.last_opponents or ()),
                              avoid)


def pair_pool(key: str, *, now: datetime | None = None) -> list[Match]:
    """The pairing decision for one pool: every table that can be filled now is made; the matches made."""
    pool = pool_of(key)
    now = now or timezone.now()
    made: list[tuple[Match, list[int]]] = []
    with transaction.atomic():
        _lock_pool(key)
        waiting = Seek.objects.filter(pool=key, match__isnull=True)
        waiting.exclude(fresh(now)).delete()
        rows = {row.pk: row for row in waiting.select_for_update(skip_locked=True, of=("self",))
                .select_related("user").order_by("created_at", "pk")[:DECISION_LIMIT]}
        if boards.is_clocked(pool.clock):  # a seek of someone seated elsewhere since waits for that match's end
            busy = boards.holders(row.user_id for row in rows.values())
            rows = {pk: row for pk, row in rows.items() if row.user_id not in busy}
        # The blocks among them, read only when a table could be made (one query).
        apart = kept_apart(row.user_id for row in rows.values()) if len(rows) >= pool.players else set()
        for table in matchmaking.tables([_seeker(row, apart) for row in rows.values()], pool.players, now):
            people = [rows[seeker.id].user for seeker in table]
            try:
                with transaction.atomic():  # a savepoint: a table the gate refuses is not made, the others are
                    match = create_table(game=pool.game, people=people, clock=pool.clock)
                    _seat(match, [seeker.id for seeker in table], [p.pk for p in people], now)
            except ServiceError:  # one of them was seated by another road at this moment: they wait on
                log.info("pool %s: a table was refused by the gate", key)
                continue
            made.append((match, [p.pk for p in people]))
    if made:
        for match, user_ids in made:
            send_to_match(match, user_ids)
        announce_pools()
    return [match for match, _ in made]


def _seat(match: Match, seek_ids: list[int], user_ids: list[int], now: datetime) -> None:
    """Mark the claimed seeks paired, keeping one paired row per person and game (the latest)."""
    claimed = Seek.objects.filter(pk__in=seek_ids, match__isnull=True).update(match=match, paired_at=now)
    if claimed != len(seek_ids):  # cannot happen under the lock and the row claims: never seat anyone twice
        raise RuntimeError(f"pairing lost {len(seek_ids) - claimed} claimed seeks")
    Seek.objects.filter(user_id__in=user_ids, game=match.game, match__isnull=False).exclude(match=match).delete()


def start_now(user: User, key: str, *, bots: bool, now: datetime | None = None) -> Match:
    """The offer after waiting alone: a table now, with whoever else waits in the pool (up to its size) and, with
    `bots`, bots near the person's rating in the empty seats; without, a smaller table of the people waiting.

    The same claim as pair_pool: the pool's lock, the seeks claimed under it."""
    pool = pool_of(key)
    now = now or timezone.now()
    with transaction.atomic():
        _lock_pool(key)
        mine = Seek.objects.select_for_update().filter(user=user, pool=key, match__isnull=True).first()
        if mine is None:
            raise ServiceError("You are not waiting in this pool any more.")
        if (now - mine.created_at).total_seconds() < matchmaking.ALONE_OFFER_AFTER:
            raise ServiceError("Wait a little longer: a table may still fill.")
        others = list(Seek.objects.select_for_update(skip_locked=True, of=("self",)).select_related("user")
                      .filter(fresh(now), pool=key, match__isnull=True)
                      .exclude(pk=mine.pk).order_by("created_at", "pk")[:pool.players - 1])
        people = [user, *(row.user for row in others)]
        empty = pool.players - len(people) if bots else 0
        if len(people) + empty < pool.min_players:
            raise ServiceError("Nobody else is waiting: play a bot instead.")
        level = level_near(pool.game, mine.rating)
        match = create_table(game=pool.game, people=people, bots=(level,) * empty, clock=pool.clock)
        _seat(match, [mine.pk, *(row.pk for row in others)], [p.pk for p in people], now)
    send_to_match(match, [p.pk for p in people])
    announce_pools()
    return match


# ---------------------------------------------------------------------------------------------
# News, after the commit


def announce_pools() -> None:
    """The grid's counts changed: every lobby redraws it."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(LOBBY_GROUP, QUICK_CHANGED)
    except Exception:
        log.exception("could not announce the pools")
