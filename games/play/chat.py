"""A match's chat: two rooms (the seated players', the spectators'), text only, muting per person, and lines
an administrator can hide; a person is never shown the lines of someone they blocked (games.social), as if muted
everywhere. Lines travel over the table's own socket (ChatSocket, the part of games.play.socket
that chats); a hidden line is taken off every page at once through the channel layer."""

from __future__ import annotations

import time
import unicodedata
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from typing import Any, Protocol

import orjson
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import IntegerField, Value

from accounts.models import User
from accounts.sessions import user_group

from ..models import Block, ChatMessage, ChatMute
from .display import render_fragment
from .frames import Unreadable, int_field
from .news import match_group
from .snapshot import ServiceError, Snapshot
from .types import Line

MAX_LENGTH = 300
HISTORY = 50  # the lines a page opens with
# A person may send BURST lines at once, then one every 1 / RATE seconds (across all their sockets).
BURST = 5
RATE = 0.5


def clean_text(raw: Any) -> str:
    """The line as it is stored: a string of 1 to 300 printable characters; ServiceError otherwise."""
    if not isinstance(raw, str):
        raise ServiceError("A chat line is text.")
    # Control characters (other than spaces) have no place in a one-line message.
    text = "".join(ch for ch in raw if unicodedata.category(ch)[0] != "C" or ch == " ").strip()
    if not text:
        raise ServiceError("Write something first.")
    if len(text) > MAX_LENGTH:
        raise ServiceError(f"A chat line has at most {MAX_LENGTH} characters.")
    return text


class Throttle:
    """One token bucket per person, for this process (a person's sockets on one match share a process when
    the proxy hashes the match's address; elsewhere the bound is per process, still small)."""

    def __init__(self) -> None:
        self.buckets: dict[int, tuple[float, float]] = {}

    def take(self, user_id: int) -> bool:
        now = time.monotonic()
        tokens, then = self.buckets.get(user_id, (float(BURST), now))
        tokens = min(float(BURST), tokens + (now - then) * RATE)
        if tokens < 1:
            self.buckets[user_id] = (tokens, now)
            return False
        self.buckets[user_id] = (tokens - 1, now)
        return True


throttle = Throttle()


class TooFast(ServiceError):
    """A person saying lines faster than the throttle lets them (the Bot API answers 429)."""


def checked(snap: Snapshot, room: str, user_id: int, raw: Any) -> str:
    """The text of a line this person may say in this room of the match now, whatever brings it (the table's
    socket, the Bot API); ServiceError saying why not."""
    if room == "players" and not seats_two_people(snap):
        raise ServiceError("There is nobody at this table to talk to.")
    text = clean_text(raw)
    if not throttle.take(user_id):
        raise TooFast("You are sending messages too fast: wait a moment.")
    return text


def post(*, match_id: int, user: User, room: str, text: str) -> Line:
    message = ChatMessage.objects.create(match_id=match_id, user=user, room=room, text=text)
    return Line(message.pk, user.pk, user.name, message.text, room)


def say(snap: Snapshot, user: User, raw: Any) -> Line:
    """A line said in the players' room from sync code, away from the table's socket (the Bot API): checked as the
    socket's, stored, and after the commit told to every process holding the match (their live copies show it as
    one said there, games.play.owner) and to the API's streams, the match's group being theirs too."""
    line = post(match_id=snap.id, user=user, room="players", text=checked(snap, "players", user.pk, raw))
    # From no process's channel: every copy shows it.
    message = {"type": "match.chat", "id": snap.id, "from": "api", "line": orjson.dumps(line).decode()}
    transaction.on_commit(partial(async_to_sync(get_channel_layer().group_send), match_group(snap.id), message))
    return line


def recent(*, match_id: int, room: str, muted: frozenset[int]) -> list[Line]:
    """The room's last lines, oldest first, without hidden ones and those of people this viewer muted."""
    # The columns a line shows, not the whole user: ordering wide rows costs Django a hash of every column.
    rows = (ChatMessage.objects.filter(match_id=match_id, room=room, hidden=False).exclude(user_id__in=muted)
            .order_by("-id").values_list("id", "user_id", "user__display_name", "user__username", "text")[:HISTORY])
    return [Line(pk, user_id, shown or username, text, room) for pk, user_id, shown, username, text in reversed(rows)]


class KeptLines:
    """A live match's chat rooms' last lines (recent), read once and kept with the lines said since, so that an
    opening page's chat panel costs no query; `said` counts the lines said and hidden, so that a read overtaken by
    one is not kept."""

    def __init__(self, match_id: int) -> None:
        self.match_id = match_id
        self.rooms: dict[str, list[Line]] = {}
        self.said = 0

    async def recent(self, room: str) -> list[Line]:
        """The room's last lines, oldest first (as recent() reads them for a viewer who muted nobody)."""
        lines = self.rooms.get(room)
        if lines is None:
            said = self.said
            lines = await database_sync_to_async(recent)(match_id=self.match_id, room=room, muted=frozenset())
            if said == self.said:
                self.rooms[room] = lines
        return list(lines)

    def add(self, line: Line) -> None:
        self.said += 1
        kept = self.rooms.get(line.room)
        if kept is not None and all(other.id != line.id for other in kept):
            # In id order, as read: with several processes a line may arrive after a later one was read.
            kept.append(line)
            kept.sort(key=lambda said: said.id)
            del kept[:-HISTORY]

    def forget(self) -> None:
        """The kept lines are read again (a line hidden, a name changed)."""
        self.rooms.clear()
        self.said += 1


def muted_by(*, match_id: int, user_id: int | None) -> frozenset[int]:
    """Whose lines this person is not shown in this match: whom they muted here, and whom they blocked anywhere
    (games.social), in one query."""
    if user_id is None:
        return frozenset()
    mutes = ChatMute.objects.filter(match_id=match_id, user_id=user_id).values_list("muted_id", flat=True)
    blocks = Block.objects.filter(blocker_id=user_id).values_list("blocked_id", flat=True)
    return frozenset(mutes.union(blocks))


def muted_by_many(viewers: Sequence[tuple[int, int]]) -> dict[tuple[int, int], frozenset[int]]:
    """muted_by for several (match, user) at once, in one query: {(match, user): whom they muted}."""
    if not viewers:
        return {}
    wanted = set(viewers)
    found: dict[tuple[int, int], set[int]] = {}
    users = {u for _, u in wanted}
    rows = (ChatMute.objects.filter(match_id__in={m for m, _ in wanted}, user_id__in=users)
            .values_list("user_id", "muted_id", "match_id"))
    # A block (games.social) holds in every match: its rows carry no match (0), in the same query.
    blocks = (Block.objects.filter(blocker_id__in=users).annotate(anywhere=Value(0, output_field=IntegerField()))
              .values_list("blocker_id", "blocked_id", "anywhere"))
    blocked: dict[int, set[int]] = {}
    for user_id, muted, match_id in rows.union(blocks, all=True):
        if match_id == 0:
            blocked.setdefault(user_id, set()).add(muted)
        elif (match_id, user_id) in wanted:  # the query's cross product may hold another viewer's pair
            found.setdefault((match_id, user_id), set()).add(muted)
    for match_id, user_id in wanted:
        if user_id in blocked:
            found.setdefault((match_id, user_id), set()).update(blocked[user_id])
    return {key: frozenset(found.get(key, ())) for key in wanted}


def set_mute(*, match_id: int, user_id: int, other: int, mute: bool) -> frozenset[int]:
    if other == user_id:
        raise ServiceError("You can't mute yourself.")
    if mute and not get_user_model().objects.filter(pk=other).exists():
        raise ServiceError("There is no such person to mute.")
    if mute:
        ChatMute.objects.get_or_create(match_id=match_id, user_id=user_id, muted_id=other)
    else:
        ChatMute.objects.filter(match_id=match_id, user_id=user_id, muted_id=other).delete()
    return muted_by(match_id=match_id, user_id=user_id)


def hide(messages: Any, *, by: Any) -> int:
    """An administrator hides lines: stored as hidden, and taken off every page showing them."""
    rows = list(messages.filter(hidden=False).values_list("pk", "match_id"))
    messages.filter(pk__in=[pk for pk, _ in rows]).update(hidden=True, hidden_by=by)
    layer = get_channel_layer()
    for pk, match_id in rows:
        message = {"type": "match.chat_hidden", "id": match_id, "line": pk}
        transaction.on_commit(partial(async_to_sync(layer.group_send), match_group(match_id), message))
    return len(rows)


def seats_two_people(snap: Snapshot) -> bool:
    """Whether two people can ever sit at this table: seats not given to bots at the start (a seat a person
    left is still theirs)."""
    return sum(1 for seat in snap.seats if seat.player is None or not seat.player.is_bot) >= 2


class LiveTable(Protocol):
    """What the chat needs of the live match it is part of (games.play.owner.LiveMatch)."""

    snap: Snapshot

    chat_kept: KeptLines

    async def chat(self, line: Line, *, publish: bool = True) -> None: ...


class ChatSocket(AsyncWebsocketConsumer):  # type: ignore[misc]  # channels ships no types
    """A match socket's part in the chat: its room, the lines it posts and is shown, the people it muted."""

    seat: int | None
    user_id: int | None
    match_id: int
    live: LiveTable | None
    muted: frozenset[int]
    # Tells this socket's page what was refused: the match socket's own (MatchConsumer.send_error), declared as its
    # other attributes are, so that a ChatSocket without it fails the type check rather than at a refusal.
    send_error: Callable[[str], Awaitable[None]]

    @property
    def room(self) -> str:
        """The seated players talk among themselves; everyone else in the spectators' room."""
        return "players" if self.seat is not None else "spectators"

    async def post_chat(self, frame: dict[str, Any]) -> None:
        live = self.live
        assert live is not None and self.user_id is not None
        try:
            text = checked(live.snap, self.room, self.user_id, frame.get("text"))
        except ServiceError as error:
            await self.send_error(str(error))
            return
        line = await database_sync_to_async(post)(match_id=self.match_id, user=self.scope["user"],
                                                       room=self.room, text=text)
        await live.chat(line)

    async def mute(self, frame: dict[str, Any], *, mute: bool = True) -> None:
        assert self.user_id is not None
        try:
            other = int_field(frame.get("user"))
        except Unreadable:
            other = None
        try:
            if other is None:
                raise ServiceError("Say whom to mute.")
            muted = await database_sync_to_async(set_mute)(
                match_id=self.match_id, user_id=self.user_id, other=other, mute=mute)
        except ServiceError as error:
            await self.send_error(str(error))
            return
        # Every page of this person that shows this match's chat (this one included) takes the new list.
        await self.channel_layer.group_send(user_group(self.user_id), {
            "type": "chat.muted", "match": self.match_id, "muted": sorted(muted)})

    async def chat_muted(self, event: dict[str, Any]) -> None:
        if event.get("match") != self.match_id:
            return
        self.muted = frozenset(int(user_id) for user_id in event.get("muted", ()))
        await self.send_chat()

    async def unmute(self, frame: dict[str, Any]) -> None:
        await self.mute(frame, mute=False)

    chat_ops: dict[str, Callable[[ChatSocket, dict[str, Any]], Awaitable[None]]] = {
        "chat": post_chat, "mute": mute, "unmute": unmute,
    }

    async def chat_panel(self) -> str:
        """The whole chat panel of this socket's room, as this person sees it (without the people they muted);
        none for the players of a match that can never seat two people (Columbo solo, a person against bots)."""
        if self.room == "players" and self.live is not None and not seats_two_people(self.live.snap):
            return '<section id="chat" class="chat" aria-label="Chat" hidden></section>'
        if self.live is not None and not self.muted:  # the live copy keeps the lines everyone is shown
            lines = await self.live.chat_kept.recent(self.room)
        else:
            lines = await database_sync_to_async(recent)(match_id=self.match_id, room=self.room, muted=self.muted)
        return render_fragment("chat", {
            "lines": lines, "room": self.room, "me": self.user_id, "muted": self.muted, "max": MAX_LENGTH})

    async def send_chat(self) -> None:
        await self.send(text_data=await self.chat_panel())

    async def chat_line(self, line: Line) -> None:
        if line.room == self.room and line.user_id not in self.muted:
            await self.send(text_data=render_fragment("chat_line", {"line": line, "me": self.user_id}))

    async def chat_hidden(self, line_id: int) -> None:
        await self.send(text_data=f'<li id="chat-{int(line_id)}" hx-swap-oob="delete"></li>')
