"""Friends, the reads: whom a person follows and who follows them, whether they block someone (what a block stops
is asked of games.blocks, below the features it stops), and each person's live status for a Friends panel: online
(a page of theirs is open), playing (at a clocked board, games.boards), away (their last page closed less than
AWAY_SECONDS ago), or nothing (offline, or hiding their status)."""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta

from django.db.models import Count, Exists, OuterRef, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from accounts.models import User

from ..models import Block, Board, Follow, OnlineSocket, Process
from ..play.snapshot import PRESENCE_STALE_SECONDS

AWAY_SECONDS = 300  # a person whose last page closed this recently is "away", then offline
ONLINE, PLAYING, AWAY, OFFLINE = "online", "playing", "away", "offline"
ORDER = {PLAYING: 0, ONLINE: 1, AWAY: 2}  # the panel's order: the busiest first


@dataclass(frozen=True)
class Status:
    """A person's live status as their followers see it; `away_until` (epoch seconds) when it ends by itself."""

    state: str
    match_id: int | None = None
    away_until: float | None = None

    def shown(self, now: float) -> bool:
        return self.state != OFFLINE and (self.away_until is None or now < self.away_until)


OFF = Status(OFFLINE)


@dataclass(frozen=True)
class Friend:
    """One followed person in a Friends panel, with what the panel says of them."""

    id: int
    username: str
    name: str
    status: Status


# ---------------------------------------------------------------------------------------------
# Following


def is_following(follower: User, followed: User) -> bool:
    return Follow.objects.filter(follower_id=follower.pk, followed_id=followed.pk).exists()


def following(user: User) -> list[User]:
    """The people this person follows, by name (the lists on their profile)."""
    ids = Follow.objects.filter(follower_id=user.pk).values("followed_id")
    return list(User.objects.filter(pk__in=ids, is_active=True).order_by("username"))


def followers(user: User) -> list[User]:
    ids = Follow.objects.filter(followed_id=user.pk).values("follower_id")
    return list(User.objects.filter(pk__in=ids, is_active=True).order_by("username"))


def followed_ids(user_id: int) -> list[int]:
    """Whom this person follows (one small query; none followed: an empty answer)."""
    return list(Follow.objects.filter(follower_id=user_id).values_list("followed_id", flat=True))


@dataclass(frozen=True)
class ProfileLine:
    """What a profile says of a person's following, and what its viewer may do about them."""

    follows_count: int
    followers_count: int
    following: bool  # the viewer follows them
    blocking: bool  # the viewer blocked them


def _follows_of(side: str) -> Coalesce:
    """How many follows have the outer person on this side (a subquery counting them)."""
    rows = Follow.objects.filter(**{side: OuterRef("pk")}).order_by().values(side).annotate(n=Count("pk"))
    return Coalesce(Subquery(rows.values("n")[:1]), 0)


def profile_line(person_id: int, viewer_id: int | None) -> ProfileLine:
    """The profile's line, in one query (a profile is a read page: its queries are counted, issue 47)."""
    none = -1  # no viewer: the Exists below match nobody
    row = User.objects.filter(pk=person_id).annotate(
        follows_count=_follows_of("follower_id"),
        followers_count=_follows_of("followed_id"),
        following=Exists(Follow.objects.filter(follower_id=viewer_id or none, followed_id=OuterRef("pk"))),
        blocking=Exists(Block.objects.filter(blocker_id=viewer_id or none, blocked_id=OuterRef("pk"))),
    ).values("follows_count", "followers_count", "following", "blocking").first()
    return ProfileLine(**row) if row else ProfileLine(0, 0, False, False)


# ---------------------------------------------------------------------------------------------
# Blocking


def is_blocking(blocker: User, blocked: User) -> bool:
    return Block.objects.filter(blocker_id=blocker.pk, blocked_id=blocked.pk).exists()


# ---------------------------------------------------------------------------------------------
# Live status


def statuses(user_ids: Iterable[int]) -> dict[int, Status]:
    """Each of these people's status now (two queries; none for nobody). A person hiding their status is offline."""
    ids = list(set(user_ids))
    if not ids:
        return {}
    now = timezone.now()
    fresh_after = now - timedelta(seconds=PRESENCE_STALE_SECONDS)
    pulse = Process.objects.filter(key=OuterRef("process")).values("last_seen")[:1]
    rows = (OnlineSocket.objects.filter(user_id__in=ids, user__hide_online=False, user__is_active=True)
            .annotate(pulse=Subquery(pulse)).values_list("user_id", "opened_at", "closed_at", "pulse"))
    online: set[int] = set()
    left: dict[int, float] = {}  # when each person's last page closed (or its process stopped), epoch seconds
    for user_id, opened, closed, alive in rows:
        seen = max(opened, alive) if alive is not None else opened
        if closed is None and seen > fresh_after:
            online.add(user_id)
        else:
            gone = closed if closed is not None else seen + timedelta(seconds=PRESENCE_STALE_SECONDS)
            left[user_id] = max(left.get(user_id, 0.0), gone.timestamp())
    cutoff = now.timestamp() - AWAY_SECONDS
    away = {user_id: at for user_id, at in left.items() if user_id not in online and at > cutoff}
    out: dict[int, Status] = {user_id: Status(ONLINE) for user_id in online}
    out.update({user_id: Status(AWAY, away_until=at + AWAY_SECONDS) for user_id, at in away.items()})
    if out:
        # Playing: at a clocked board now (correspondence matches bind no one, games.boards).
        for user_id, match_id in Board.objects.filter(user_id__in=list(online)).values_list("user_id", "match_id"):
            out[user_id] = Status(PLAYING, match_id=match_id)
    return {user_id: out.get(user_id, OFF) for user_id in ids}


def friends(user_id: int) -> dict[int, tuple[str, str]]:
    """Whom this person follows, with their usernames and names: {id: (username, name)} (one query; following
    nobody is an empty answer)."""
    rows = (Follow.objects.filter(follower_id=user_id, followed__is_active=True)
            .values_list("followed_id", "followed__username", "followed__display_name"))
    return {pk: (username, shown or username) for pk, username, shown in rows}


def shown_friends(people: dict[int, tuple[str, str]], status: dict[int, Status], now: float) -> list[Friend]:
    """The panel's lines: the followed people who are online, playing or away, the busiest first, then by name."""
    lines = [Friend(pk, username, name, status[pk]) for pk, (username, name) in people.items()
             if pk in status and status[pk].shown(now)]
    return sorted(lines, key=lambda f: (ORDER.get(f.status.state, 3), f.name.lower()))


def friends_panel(user_id: int) -> list[Friend]:
    """A person's Friends panel (one query for someone who follows nobody, three otherwise)."""
    people = friends(user_id)
    return shown_friends(people, statuses(people), time.time()) if people else []
