"""The live match's shared types, in a leaf module that imports nothing of games.play: the chat's line, which the
chat, the live match and the hub all pass around (lila's round/actorApi: the messages every file of the module
uses)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Line:
    """A chat line as it is shown and relayed between processes."""

    id: int
    user_id: int
    name: str
    text: str
    room: str
