"""An analysis's news to the replay pages that watch it: their notification sockets join the match's analysis
group (games.site.socket.NotifyConsumer, only for a finished match the person may watch), and each change of
the job (queued, each step of progress, done, failed) reaches them as the analysis section, an htmx fragment
swapped by its id.

Two roads, by the channel layer:
- Redis (any deployment of several processes): the worker publishes each change to the group itself.
- The in-memory layer (``./dev run``, one server process): the worker's messages can't leave its own process,
  so each server process relays instead: while its sockets watch analyses not done yet, it reads those jobs'
  rows (one query every RELAY_SECONDS for all of them) and publishes what changed to its own groups.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.template.loader import render_to_string

from ..models import AnalysisJob, Match
from . import display

log = logging.getLogger(__name__)

RELAY_SECONDS = 0.5
Key = tuple[str, int, int]  # a job's state, done, total: what the section shows while it changes


def analysis_group(match_id: int) -> str:
    return f"analysis-{match_id}"


def section_html(match: Match, job: AnalysisJob | None) -> str:
    """The analysis section as every watcher of the match gets it (no step, no "Analyse" button)."""
    names = display.names_of(match)
    panel = display.panel(match, job, names)
    return render_to_string("games/_analysis.html", {"analysis": panel, "oob": True})


def message(match_id: int) -> dict[str, Any] | None:
    """The group message for the job's state now (a notify.html event), or None without a match."""
    match = Match.objects.filter(pk=match_id).first()
    if match is None or match.status != Match.Status.FINISHED:
        return None
    job = AnalysisJob.objects.filter(match_id=match_id).first()
    return {"type": "notify.html", "html": section_html(match, job)}


def is_local(layer: Any) -> bool:
    """Whether the channel layer reaches only this process (the in-memory layer)."""
    return isinstance(layer, InMemoryChannelLayer)


def publish(match_id: int) -> None:
    """From sync code (the worker, a view): send the job's state to the match's group. A lost message costs only
    a late bar: the page shows the stored state on its next load."""
    layer = get_channel_layer()
    if layer is None or is_local(layer):
        return  # nobody listens in this process: the servers' relays carry the change
    try:
        event = message(match_id)
        if event is not None:
            async_to_sync(layer.group_send)(analysis_group(match_id), event)
    except Exception:
        log.exception("could not announce the analysis of match %s", match_id)


# ---------------------------------------------------------------------------------------------------------
# The relay (in-memory layer only)


def job_keys(match_ids: list[int]) -> dict[int, Key]:
    rows = AnalysisJob.objects.filter(match_id__in=match_ids).values_list("match_id", "state", "done", "total")
    return {match_id: (state, done, total) for match_id, state, done, total in rows}


class Relay:
    """This process's watch over the analyses its sockets follow (see the module docstring)."""

    def __init__(self) -> None:
        self.watchers: dict[int, int] = {}
        self.seen: dict[int, Key | None] = {}
        self.task: asyncio.Task[None] | None = None

    def watch(self, match_id: int, key: Key | None) -> None:
        self.watchers[match_id] = self.watchers.get(match_id, 0) + 1
        self.seen.setdefault(match_id, key)
        if self.task is None or self.task.done():
            self.task = asyncio.ensure_future(self._loop())

    def unwatch(self, match_id: int) -> None:
        left = self.watchers.get(match_id, 0) - 1
        if left > 0:
            self.watchers[match_id] = left
        else:
            self.watchers.pop(match_id, None)
            self.seen.pop(match_id, None)

    async def _loop(self) -> None:
        layer = get_channel_layer()
        while self.watchers:
            await asyncio.sleep(RELAY_SECONDS)
            ids = list(self.watchers)
            if not ids:
                break
            try:
                keys = await database_sync_to_async(job_keys)(ids)
            except Exception:
                log.exception("the analysis relay could not read the jobs")
                continue
            for match_id in ids:
                key = keys.get(match_id)
                if match_id not in self.watchers or key == self.seen.get(match_id):
                    continue
                self.seen[match_id] = key
                with contextlib.suppress(Exception):
                    event = await database_sync_to_async(message)(match_id)
                    if event is not None:
                        await layer.group_send(analysis_group(match_id), event)
                if key is not None and key[0] == AnalysisJob.State.DONE:
                    # Stored for good: nothing more to watch (a failed one may be asked for again).
                    self.watchers.pop(match_id, None)
                    self.seen.pop(match_id, None)


RELAY = Relay()
