"""The lobby's first screen: the quick-pairing grid as a person sees it (each pool's button, who waits there, the
offer after waiting alone), read in two queries and drawn by Jinja2 (templates/jinja2/games/quick.html): a card
per game of the real-time pools, then the correspondence row (a card per game, a button per days a move). The
lobby page draws it, and the lobby socket again whenever a pool's count changes."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count
from django.utils import timezone
from django.utils.safestring import SafeString, mark_safe

from accounts.models import Viewer

from .. import boards
from ..catalog import GAMES
from ..core.jinja import render_block
from ..models import Seek
from ..play.bot_accounts import LEVEL_TITLES
from . import matchmaking
from .pairing import fresh, level_near
from .pools import POOLS, Pool

TEMPLATE = "games/quick.html"


@dataclass(frozen=True)
class PoolButton:
    key: str
    clock_label: str
    others: int  # people waiting here besides this person
    mine: bool  # this person waits here
    offer: bool  # they waited long enough: a bot (or a smaller table) is offered
    bot_title: str  # the level offered, "Regular"
    smaller: int  # the people waiting here with this person, when a smaller table can start (else 0)
    bots_fill: int  # the bots a table started now would take
    may_shrink: bool
    refused: bool = False  # the gate refuses this person a clocked table now (the grid says why)
    why_alone: str = ""  # with the offer: why no table was made, as it is (nobody else here, or nobody near)
    short_label: str = ""  # in the correspondence row, whose heading says "a move": "3 days"


@dataclass(frozen=True)
class GameRow:
    slug: str
    name: str
    players_text: str
    buttons: list[PoolButton]


@dataclass(frozen=True)
class Waiting:
    pool: str
    since: datetime
    rating: float


def waiting_counts(now: datetime) -> dict[str, int]:
    """People waiting per pool (one query)."""
    rows = (Seek.objects.filter(fresh(now), match__isnull=True).order_by()
            .values_list("pool").annotate(n=Count("id")))
    return {pool: n for pool, n in rows}


def my_seek(user: Viewer) -> Waiting | None:
    if not user.is_authenticated:
        return None
    row = Seek.objects.filter(user_id=user.pk, match__isnull=True).values_list("pool", "created_at", "rating").first()
    return Waiting(*row) if row else None


def others_waiting(user: Viewer, key: str, now: datetime) -> list[matchmaking.Seeker]:
    """The other people waiting in this pool now, as the rules see them (one query)."""
    # Only asked for a person waiting here (signed in): the 0 is for the type of an anonymous viewer's pk.
    rows = (Seek.objects.filter(fresh(now), pool=key, match__isnull=True).exclude(user_id=user.pk or 0)
            .values_list("id", "user_id", "rating", "created_at"))
    return [matchmaking.Seeker(id=i, user_id=u, rating=r, since=t) for i, u, r, t in rows]


def why_alone(pool: Pool, mine: Waiting, others: list[matchmaking.Seeker], now: datetime) -> str:
    """Why a person who waited long enough has no table, in words that are true: nobody else waits in the pool,
    those who wait are too far from their rating, or they are too few for a full table."""
    if not others:
        return "Nobody else is waiting in this pool right now."
    me = matchmaking.Seeker(id=0, user_id=0, rating=mine.rating, since=mine.since)
    if not any(matchmaking.compatible(me, other, now) for other in others):
        return "Nobody near your rating yet."
    if 1 + len(others) < pool.players:
        return "Not enough players for a full table yet."
    return "Nobody waiting here can be seated with you yet."


def _button(user: Viewer, pool: Pool, counts: dict[str, int], mine: Waiting | None, now: datetime,
            busy: str | None) -> PoolButton:
    here = mine is not None and mine.pool == pool.key
    others = counts.get(pool.key, 0) - (1 if here else 0)
    offer = here and mine is not None and (now - mine.since).total_seconds() >= matchmaking.ALONE_OFFER_AFTER
    together = 1 + max(0, others)
    reason = ""
    if offer and mine is not None:
        # Only the pool the person waits in, once the offer is due, costs a query for who else waits.
        reason = why_alone(pool, mine, others_waiting(user, pool.key, now) if others > 0 else [], now)
    return PoolButton(
        key=pool.key, clock_label=pool.clock_label, others=max(0, others), mine=here, offer=offer,
        bot_title=LEVEL_TITLES.get(level_near(pool.game, mine.rating), "") if offer and mine else "",
        smaller=together if offer and pool.may_shrink and pool.min_players <= together < pool.players else 0,
        bots_fill=pool.players - min(together, pool.players), may_shrink=pool.may_shrink, why_alone=reason,
        refused=bool(busy) and boards.is_clocked(pool.clock) and not here,
        short_label=pool.clock_label.removesuffix(" a move"),
    )


def grid(user: Viewer, now: datetime | None = None, busy: str | None = None, *,
         correspondence: bool = False) -> list[GameRow]:
    """A card per game: its real-time pools (and the untimed one), or with `correspondence` its days-a-move
    pools (the grid's row of its own)."""
    now = now or timezone.now()
    return _rows(user, waiting_counts(now), my_seek(user), now, busy, correspondence=correspondence)


def _rows(user: Viewer, counts: dict[str, int], mine: Waiting | None, now: datetime, busy: str | None, *,
          correspondence: bool) -> list[GameRow]:
    rows = []
    for slug, info in GAMES.items():
        pools = [pool for pool in POOLS.values() if pool.game == slug and pool.correspondence == correspondence]
        rows.append(GameRow(slug=slug, name=info.name, players_text=pools[0].players_text,
                            buttons=[_button(user, pool, counts, mine, now, busy) for pool in pools]))
    return rows


def quick_html(user: Viewer, now: datetime | None = None, *, error: str = "",
               sitter: boards.Sitter | None = None) -> SafeString:
    """The grid (#quick), for the lobby page and its socket. A person the gate refuses a clocked table (at a
    clocked board now) is told why, and those pools' buttons are off (games.boards). `sitter`: the person's board
    as the page read it already for its lists (else read here, as the socket draws the grid alone)."""
    busy = None
    if user.is_authenticated:
        busy = boards.refusal(sitter, clocked=True) if sitter is not None else boards.why_not(user)
    now = now or timezone.now()
    counts, mine = waiting_counts(now), my_seek(user)
    return mark_safe(render_block(TEMPLATE, "quick", {
        "rows": _rows(user, counts, mine, now, busy, correspondence=False),
        "corr_rows": _rows(user, counts, mine, now, busy, correspondence=True),
        "signed_in": user.is_authenticated, "busy": busy, "error": error,
    }))
