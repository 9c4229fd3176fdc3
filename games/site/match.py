"""The match page: the table as its viewer may see it (games.play), drawn with the fragments its socket then keeps
fresh, with the gate's reason for a seat it would refuse (games.boards) and its tournament (games.tournaments)."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_http_methods

from ..boards import is_clocked, why_not
from ..play.access import code_matches
from ..play.display import page_fragments, page_view, seat_notice, seat_notice_html, table_context
from ..play.meta import table_meta
from ..play.presence import attendance
from ..play.snapshot import Status, engine_of
from ..play.store import load
from ..tournaments.queries import of_match


@require_http_methods(["GET"])
def match_page(request: HttpRequest, match_id: int) -> HttpResponse:
    snap = load(match_id)
    if snap is None:
        raise Http404("No such match.")
    code = request.GET.get("code", "")[:64]
    held = snap.seat_of(request.user.pk if request.user.is_authenticated else None)
    seat = held.index if held is not None and not held.is_bot else None
    if not snap.may_watch(request.user.pk, code):
        raise Http404("No such match.")
    has_code = code_matches(code, snap.invite_code)
    view = None
    if snap.state is not None:
        engine = engine_of(snap)
        view = page_view(engine.view(engine.load(snap.state), seat))
    presence, watchers = attendance(snap.id)
    zone = request.user.time_zone if request.user.is_authenticated else ""  # a correspondence match's due times
    context = table_context(table_meta(snap, presence, watchers), view, seat, zone=zone)
    context["ws_url"] += f"?code={code}" if code else ""
    can_join = (
        snap.status == Status.WAITING
        and seat is None
        and any(s.player is None and (not s.invite_only or has_code) for s in snap.seats)
    )
    # The gate's reason takes the place of a "Take a seat" it would refuse (games.boards).
    join_refusal = (why_not(request.user, clocked=is_clocked(snap.clock), match_id=snap.id) or "") if can_join else ""
    # A person whose seat a bot plays since they left is told so, and may take it back.
    notice = seat_notice_html(seat_notice(snap, held.index if held is not None else None))
    # Sounds and the turn's notification do something only for a player of a match still to be played: a spectator
    # has no turn, and a finished match no cue to come (the page hides them when its match ends: js/site.js).
    tools = seat is not None and snap.status in (Status.WAITING, Status.ACTIVE)
    context.update({"match": snap, "code": code, "can_join": can_join, "join_refusal": join_refusal,
                    "table_tools": tools,
                    "seat_notice": mark_safe(notice),
                    "fragments": page_fragments(context), "tournament": of_match(snap.id)})
    return render(request, "games/match.html", context)
