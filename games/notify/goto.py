"""The one road that sends a person's open pages to a match they were just seated at (quick pairing, an accepted
challenge, a tournament's pairing): a frame on their notification sockets, in any process, which site.js follows."""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.template.loader import render_to_string

from accounts.sessions import notices_group

from ..models import Match
from ..play.clock import is_correspondence
from ..play.snapshot import Snapshot, Status

log = logging.getLogger(__name__)


def go_html(match: Match) -> str:
    """The frame that moves a page to its new match (site.js follows #notify-go's data-go)."""
    return render_to_string("games/notify/_go.html", {"url": match.get_absolute_url()})


def send_to_match(match: Match, user_ids: list[int]) -> None:
    """Every open page of these people goes to the match (their notification sockets, in any process), but the
    match's own page (it shows the start live: the socket passes the frame by, games.notify.socket). A
    correspondence match leaves the pages at another match's table where they are: one may be a real-time match
    its player is in the middle of (days a move bind no one, games.boards)."""
    layer = get_channel_layer()
    if layer is None:
        return
    html = go_html(match)
    event = {"type": "notify.html", "html": html, "match": match.pk, "spare_tables": is_correspondence(match.clock)}
    for user_id in user_ids:
        try:
            async_to_sync(layer.group_send)(notices_group(user_id), event)
        except Exception:  # the match stands; their lobby lists it under "Your matches"
            log.exception("could not send %s to match %s", user_id, match.pk)


def send_the_others(snap: Snapshot, *, joiner: int) -> None:
    """A seat taken from the lobby (or at sign-in) that filled the match: the others seated at it, who may be on
    other pages meanwhile, are sent to it as every road that seats people sends them; the joiner's own page goes
    there by the redirect that answers them."""
    if snap.status != Status.ACTIVE:
        return
    others = [seat.user_id for seat in snap.seats if seat.is_person and seat.user_id is not None
              and seat.user_id != joiner]
    if others:
        send_to_match(Match.objects.only("id", "clock").get(pk=snap.id), others)
