"""The notification socket's part in the analysis (games.notify.consumer): a replay page's socket (?analysis=<match
id>, &code= for a private match) follows that match's analysis as it runs (games.review.news), if the match is
finished and the person may watch it. Nothing of an analysis exists before its match finished."""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async

from . import news
from .queries import followable


class AnalysisFollow:
    """Needs: self.scope, self.channel_name, self.channel_layer."""

    scope: dict[str, Any]
    channel_name: str
    channel_layer: Any
    analysis: int | None = None

    async def analysis_connect(self, query: dict[str, list[str]]) -> None:
        """Join the match's analysis group when the person may follow it."""
        raw = (query.get("analysis") or [""])[0]
        if not raw.isdigit() or len(raw) >= 10:
            return
        match_id = int(raw)
        code = (query.get("code") or [""])[0][:64]
        allowed, key = await database_sync_to_async(followable)(match_id, self.scope.get("user"), code)
        if not allowed:
            return
        await self.channel_layer.group_add(news.analysis_group(match_id), self.channel_name)
        if news.is_local(self.channel_layer) and (key is None or key[0] != "done"):
            news.RELAY.watch(match_id, key)
        self.analysis = match_id

    async def analysis_disconnect(self) -> None:
        if self.analysis is None:
            return
        await self.channel_layer.group_discard(news.analysis_group(self.analysis), self.channel_name)
        if news.is_local(self.channel_layer):
            news.RELAY.unwatch(self.analysis)
