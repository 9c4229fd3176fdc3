"""Who is at a table: one row per open socket (a seat's, or a spectator's with seat NULL), outside the match row,
counting while its process is alive (games.play.liveness), so that rows left by a killed process stop counting by
themselves."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime, timedelta
from typing import Any

from django.db.models import OuterRef, Subquery
from django.utils import timezone

from .. import models
from ..models import Seat
from .liveness import process_key, pulse_if_due
from .snapshot import PRESENCE_OPENING_SECONDS, PRESENCE_STALE_SECONDS, Presence


def presence_of(match_id: int) -> dict[int, Presence]:
    """Each seat's presence now (two small queries)."""
    return attendance(match_id)[0]


Attendance = tuple[dict[int, Presence], int]


def attendance(match_id: int) -> Attendance:
    """Each seat's presence now, and how many spectators watch (two small queries)."""
    return attendances([match_id])[match_id]


def attendances(match_ids: Collection[int]) -> dict[int, Attendance]:
    """attendance() of several matches in the same two queries (a process's heartbeat over the tables it holds)."""
    now = timezone.now()
    fresh_after = now - timedelta(seconds=PRESENCE_STALE_SECONDS)
    ids = list(match_ids)
    seen: dict[int, dict[int, list[datetime]]] = {match_id: {} for match_id in ids}
    watchers = dict.fromkeys(ids, 0)
    pulse = models.Process.objects.filter(key=OuterRef("process")).values("last_seen")[:1]
    sockets = (models.Presence.objects.filter(match_id__in=ids).annotate(pulse=Subquery(pulse))
               .values_list("match_id", "seat", "last_seen", "pulse"))
    for match_id, seat, opened, alive in sockets:
        last_seen = max(opened, alive) if alive is not None else opened
        if seat is None:
            watchers[match_id] += last_seen > fresh_after
        else:
            seen[match_id].setdefault(seat, []).append(last_seen)
    out: dict[int, dict[int, Presence]] = {match_id: {} for match_id in ids}
    rows = (Seat.objects.filter(match_id__in=ids)
            .values_list("match_id", "index", "last_seen", "joined_at", "match__started_at"))
    for match_id, seat, left, joined, started in rows:
        out[match_id][seat] = seat_presence(seen[match_id].get(seat, []), left, joined, started)
    return {match_id: (out[match_id], watchers[match_id]) for match_id in ids}


def seat_presence(heartbeats: list[datetime], last_seen: datetime | None, joined_at: datetime | None,
                  started_at: datetime | None) -> Presence:
    """One seat's presence. A player who has never opened the match (seated by quick pairing, a challenge, a
    tournament, a rematch: no socket of theirs has written the seat's last_seen yet) is not away while their page
    opens: their wait counts from the start, after the opening's grace (PRESENCE_OPENING_SECONDS), not from when
    they sat down."""
    left_at = last_seen or joined_at
    opening_until = None
    if started_at is not None and last_seen is None:
        left_at = max(left_at, started_at) if left_at is not None else started_at
        opening_until = started_at + timedelta(seconds=PRESENCE_OPENING_SECONDS)
    return Presence(heartbeat=max(heartbeats, default=None), left_at=left_at, opening_until=opening_until)


def presence_open(*, match_id: int, seat: int | None, socket: str, read_back: bool = True) -> Attendance | None:
    """A socket opened on the match: a seat's (seat None: a spectator's, counted as watching); with the table's
    attendance after it (attendance()), so that opening is one trip from the event loop; without `read_back`,
    None (the caller knows what its opening changed). Each write commits on its own: a transaction over two
    tables could deadlock with one that locks them in the other order."""
    presence_open_many([(match_id, seat, socket)])
    return attendance(match_id) if read_back else None


def presence_open_many(opened: Sequence[tuple[int, int | None, str]]) -> None:
    """Sockets opened, each (match, seat or None, channel): their rows in one statement; each seat's last_seen in
    a statement of its own (one row each: locking several seat rows at once could deadlock with a commit's)."""
    now = timezone.now()
    pulse_if_due()
    process = process_key()
    models.Presence.objects.bulk_create(
        [models.Presence(socket=socket, match_id=match_id, seat=seat, last_seen=now, process=process)
         for match_id, seat, socket in opened],
        update_conflicts=True, unique_fields=["socket"], update_fields=["match", "seat", "last_seen", "process"],
    )
    for match_id, seat in sorted({(match_id, seat) for match_id, seat, _ in opened if seat is not None}):
        Seat.objects.filter(match_id=match_id, index=seat).update(last_seen=now)


def presence_close(*, match_id: int, seat: int | None, socket: str, read_back: bool = True) -> Attendance | None:
    """A socket closed; for a seat, the abandonment clock runs from now. The attendance after it, as opening."""
    models.Presence.objects.filter(socket=socket).delete()
    if seat is not None:
        Seat.objects.filter(match_id=match_id, index=seat).update(last_seen=timezone.now())
    return attendance(match_id) if read_back else None


def opened(known: Attendance, seat: int | None) -> Attendance:
    """The attendance after a socket opened, from the one before it (where no other process has sockets on the
    table): its seat here from now (as presence_open wrote), or one more spectator watching."""
    presence, watchers = known
    if seat is None:
        return presence, watchers + 1
    now = timezone.now()
    return {**presence, seat: seat_presence([now], now, None, None)}, watchers


def closed(known: Attendance) -> Attendance:
    """The attendance after a spectator's socket closed, from the one before it: one watcher fewer."""
    presence, watchers = known
    return presence, max(0, watchers - 1)


def shown_presence(presence: dict[int, Presence]) -> dict[int, tuple[Any, ...]]:
    """What the table shows of each seat's presence now (games.play.meta): here, joining, or away since when."""
    now = timezone.now()
    return {seat: ("joining",) if p.is_opening(now) else ("here",) if p.is_present(now) else ("away", p.last_seen)
            for seat, p in presence.items()}


def present_seats(presence: dict[int, Presence]) -> frozenset[int]:
    now = timezone.now()
    return frozenset(seat for seat, p in presence.items() if p.is_present(now))
