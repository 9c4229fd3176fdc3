"""The notification socket's part in the analysis (one of games.site.socket's parts): a replay page's socket
(?analysis=<match id>, &code= for a private match) follows that match's analysis as it runs (games.review.news), if
the match is finished and the person may watch it. Nothing of an analysis exists before its match finished."""

from __future__ import annotations

from channels.db import database_sync_to_async

from ..notify.parts import Part
from . import news
from .queries import followable


class AnalysisFollow(Part):
    """Its progress reaches the page as a fragment for the person's pages ("notify.html": games.notify.socket)."""

    analysis: int | None = None

    async def connect(self) -> None:
        """Join the match's analysis group when the person may follow it."""
        match_id = self.socket.page.id_param("analysis")
        if match_id is None:
            return
        code = self.socket.page.param("code", 64)
        allowed, key = await database_sync_to_async(followable)(match_id, self.user, code)
        if not allowed:
            return
        await self.join(news.analysis_group(match_id))
        if news.is_local(self.socket.channel_layer) and (key is None or key[0] != "done"):
            news.RELAY.watch(match_id, key)
        self.analysis = match_id

    async def disconnect(self) -> None:
        if self.analysis is not None and news.is_local(self.socket.channel_layer):
            news.RELAY.unwatch(self.analysis)
