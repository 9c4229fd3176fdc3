"""What a feature's part of a person's notification socket is given and may do (the socket itself is put together
at the top, games.site.socket, from a registry of parts): the page it is on (Page), the socket's few shared means
(Socket), and the hooks a part fills (Part). Here, below every feature, so that each feature's socket.py fills it
without knowing the others: a part reads the page, never another part's state."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

Handler = Callable[[dict[str, Any]], Awaitable[None]]


@dataclass(frozen=True)
class Page:
    """The page a notification socket is on, from its query string: ?lobby=1 on the lobby, ?here=<match id> on a
    match's own page, and whatever else a part reads (?analysis=, ?tournament=, &code=)."""

    query: dict[str, list[str]]

    def param(self, name: str, limit: int | None = None) -> str:
        value = (self.query.get(name) or [""])[0]
        return value[:limit] if limit is not None else value

    def id_param(self, name: str) -> int | None:
        """A row's id, or None for anything else (an id of ten digits or more is no row's)."""
        raw = self.param(name)
        return int(raw) if raw.isdigit() and len(raw) < 10 else None

    @property
    def lobby(self) -> bool:
        return self.query.get("lobby") == ["1"]

    @property
    def here(self) -> int | None:
        """The match whose own page this is, if any: its table says its own news (its turn, its start)."""
        return self.id_param("here")


class Socket(Protocol):
    """The means a part shares with the others: its socket's scope, channel and sending."""

    scope: dict[str, Any]
    channel_name: str
    channel_layer: Any
    page: Page

    async def send(self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False) -> None:
        ...

    def csrf(self) -> str:
        """The page's CSRF secret (the cookie the socket came with), for the forms a part draws."""
        ...


class Part:
    """One feature's part of the notification socket. `hears` maps each layer message type the part handles
    ("challenges.changed") to its method's name; two parts may hear the same type, and each is handed it, in the
    registry's order. `ops` are the frames' "op"s the page sends it. Every hook is optional."""

    hears: ClassVar[dict[str, str]] = {}
    ops: ClassVar[tuple[str, ...]] = ()

    def __init__(self, socket: Socket) -> None:
        self.socket = socket
        self.groups: list[str] = []  # the layer's groups this part joined: the socket leaves them as it closes

    @property
    def user(self) -> Any:
        return self.socket.scope.get("user")

    @property
    def signed_in(self) -> bool:
        user = self.user
        return user is not None and user.is_authenticated

    async def send(self, html: str) -> None:
        await self.socket.send(text_data=html)

    async def join(self, group: str) -> None:
        await self.socket.channel_layer.group_add(group, self.socket.channel_name)
        self.groups.append(group)

    async def leave_groups(self) -> None:
        groups, self.groups = self.groups, []
        for group in groups:
            await self.socket.channel_layer.group_discard(group, self.socket.channel_name)

    def handlers(self) -> dict[str, Handler]:
        """What this part hears, bound, by message type."""
        return {kind: getattr(self, method) for kind, method in self.hears.items()}

    async def connect(self) -> None:
        """Before the socket is accepted: read the page, join the groups the person may hear."""

    async def accepted(self) -> None:
        """Once accepted: catch up with what changed while the page loaded."""

    async def receive(self, frame: dict[str, Any]) -> None:
        """A frame from the page whose "op" is one of `ops` (already read as a JSON object)."""

    async def resumed(self) -> None:
        """The channel layer is back after an outage (games.core.layers): read again what was heard from it."""

    async def disconnect(self) -> None:
        """The socket closed (its groups are left for it): stop timers, give up what belongs to the socket."""
