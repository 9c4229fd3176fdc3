"""Frame fuzzing: frames made from valid ones (the game's legal actions, the page's own selection controls,
the socket's operations) and then broken, sent over real sockets through config.asgi.application, for all
four games.

Broken how: every field ("action", "version", "ui", "op", "seat" and the action's own keys) given a value of
another type (null, booleans, huge and negative integers, floats such as 1.5, NaN and infinities, unicode
including lone surrogates, lists, objects, JSON text), fields dropped and added, deep nesting, frames that
are not JSON objects or not JSON at all, binary frames, frames over 4096 bytes (in characters, and in UTF-8
bytes only).

What must hold, frame by frame: an answer comes (an #error fragment saying something, or for a selection
the redrawn table; nothing only for a spectator's selection, which the next frame proves), it says nothing
about a server error, it can be sent by a real server (valid UTF-8); the consumer raised nothing and the socket
is open; the match in the database is as it was (version, move_count, state) - frames that would be a legal
move (or a resignation) are never sent, as the engine tells; the seat is present while its socket is open,
and absent once it closed. A flood still closes the socket with 4429 and releases the seat.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import itertools
import json
import logging
import os
import random
import re
from collections.abc import Iterator
from copy import deepcopy
from typing import Any
from unittest import mock

import playing
import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.db import connections
from django.test import Client
from fragments import error_text
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from games.engines import get_engine
from games.models import Match, Move
from games.play import frames as frames_module
from games.play import scheduler
from games.play.create import SeatSpec, create_match
from games.play.frames import BURST, MAX_FRAME_BYTES, Unreadable, int_field, json_field, parse_json
from games.play.presence import presence_of

pytestmark = pytest.mark.django_db(transaction=True)

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "20"))
FRAMES = (30, 60)  # frames per example
WARMUP = {"gomori": 10, "columbo": 12, "ruhd": 8, "rummy": 12}  # legal moves at most before the fuzzing
OPTIONS: dict[str, dict[str, Any] | None] = {"columbo": {"rounds": 4}}
_names = itertools.count(1)
SENT: dict[str, int] = {}  # frames sent, by game and kind (printed with -s)
_DEEP = re.compile(r'"@@(DEEP|RAW):([^@]*)@@"')

# ---------------------------------------------------------------------------------------------
# Values of the wrong kind

ODD_TEXT = [
    "", " ", "\x00", "\ud800", "\udfff", "a\ud83d", "🂡🂱", "7♣", "10♥", "XR", "red joker", "T05", "Ｋ♠", "\u202e",
    "é" * 3, "{s0}", "{s9}'s", "%s%n", "<script>alert(1)</script>", "' OR 1=1 --", "null", "true", "1.5", "[1,2]",
    "resign", "claim", "rematch", "stock", "discard", "play", "swap", "__proto__", "constructor", "0", "-1",
    "999999999", "1000000000", "00000000001",
]
HUGE = [10**9, 10**9 - 1, 2**31, 2**53 + 1, 2**63, 2**64, 10**100, -(10**100), -1, -(2**63)]
FLOATS = [1.5, 0.5, -0.0, 0.0, 1.0, 2.0, 1e308, -1e-300, 3.14159]
RAW = ["NaN", "Infinity", "-Infinity", "1e999", "-1e999", "1E400", "-0", "1.0e0", "0.1e1", "9" * 500]
KEYS = ["type", "card", "at", "seat", "slot", "seq", "tile", "rotation", "from", "pack", "packs", "end", "slots",
        "version", "ui", "op", "action", "known", "peek", "pick", "sort", "order", "selected", "building", "by",
        "to", "target", "a", "b", "__proto__", "extra", "\ud800", "ключ", ""]

odd_text = st.text(alphabet=st.sampled_from(["a", "Z", "7", "♣", "é", "\u202e", "\x00", "\ud800", "\udfff", "🂡", "'",
                                              '"', "<", "{"]), max_size=8)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from(HUGE),
    st.sampled_from(FLOATS),
    st.floats(allow_nan=False, allow_infinity=False, width=64),
    st.sampled_from(ODD_TEXT),
    st.text(max_size=12),
    odd_text,
    st.sampled_from(RAW).map(lambda raw: f"@@RAW:{raw}@@"),
)
weird = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(KEYS) | odd_text, inner, max_size=4),
    max_leaves=8,
)


def paths(value: Any, here: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every place inside a frame: the keys (indices) leading to it."""
    yield here
    if isinstance(value, dict):
        for key, item in value.items():
            yield from paths(item, (*here, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from paths(item, (*here, index))


def get_at(value: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        value = value[key]
    return value


def set_at(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    """A copy of value with the place at path replaced (the root itself when path is empty)."""
    if not path:
        return new
    copy = deepcopy(value)
    parent = get_at(copy, path[:-1])
    parent[path[-1]] = new
    return copy


@st.composite
def mutated(draw: st.DrawFn, base: dict[str, Any]) -> Any:
    """One to three changes to a valid frame."""
    frame: Any = deepcopy(base)
    for _ in range(draw(st.integers(1, 3))):
        places = list(paths(frame))
        path = draw(st.sampled_from(places))
        here = get_at(frame, path)
        kind = draw(st.sampled_from(["set", "set", "set", "drop", "extra", "extra-in-action", "wrap", "stringify",
                                     "deep", "number"]))
        if kind == "extra-in-action" and isinstance(frame, dict) and isinstance(frame.get("action"), dict):
            path, here, kind = ("action",), frame["action"], "extra"
        if kind == "set":
            frame = set_at(frame, path, draw(weird))
        elif kind == "drop" and path:
            copy = deepcopy(frame)
            parent = get_at(copy, path[:-1])
            del parent[path[-1]]
            frame = copy
        elif kind == "extra" and isinstance(here, dict):
            frame = set_at(frame, path, {**here, draw(st.sampled_from(KEYS) | odd_text): draw(weird)})
        elif kind == "wrap":
            frame = set_at(frame, path, draw(st.sampled_from([[here], {"value": here}, [[here]], {"type": here}])))
        elif kind == "stringify":
            frame = set_at(frame, path, json.dumps(here))
        elif kind == "deep":
            depth = draw(st.sampled_from([30, 200, 900, 999, 1000, 1001, 1500, 3000]))
            frame = set_at(frame, path, f"@@DEEP:{depth}:{draw(st.sampled_from(['[]', '{}', 'mixed']))}@@")
        elif kind == "number":
            frame = set_at(frame, path, draw(st.sampled_from(HUGE + FLOATS) | st.sampled_from(RAW).map(
                lambda raw: f"@@RAW:{raw}@@")))
    return frame


def deep(depth: int, how: str) -> str:
    if how == "[]":
        return "[" * depth + "1" + "]" * depth
    if how == "{}":
        return '{"a":' * depth + "1" + "}" * depth
    return '[{"a":' * (depth // 2) + "1" + "}]" * (depth // 2)


def to_text(frame: Any) -> str:
    """The frame as the socket's text (ensure_ascii off: unicode goes as UTF-8; lone surrogates as escapes)."""
    try:
        text = json.dumps(frame, ensure_ascii=False)
        text.encode("utf-8")
    except (UnicodeEncodeError, ValueError):
        text = json.dumps(frame)

    def fill(found: re.Match[str]) -> str:
        if found.group(1) == "RAW":
            return found.group(2)
        depth, how = found.group(2).split(":")
        return deep(int(depth), how)

    return _DEEP.sub(fill, text)


@st.composite
def frames(draw: st.DrawFn, bases: list[dict[str, Any]]) -> tuple[str, str | bytes]:
    """(what kind of frame, the frame: text, or bytes for a binary frame)."""
    base = draw(st.sampled_from(bases))
    kind = draw(st.sampled_from(["mutated"] * 10 + ["whole", "text", "binary", "oversized", "valid"]))
    if kind == "valid":  # as it is: a stale, foreign or unknown frame, or one that would move (then not sent)
        return kind, to_text(base)
    if kind == "whole":  # not a JSON object
        return kind, to_text(draw(weird.filter(lambda v: not isinstance(v, dict))))
    if kind == "text":  # not JSON at all, or JSON with surprises
        good = to_text(base)
        return kind, draw(st.sampled_from([
            good[: max(1, len(good) // 2)], good + "}", good + " x", "{'op': 'rematch'}", "", "   ", "\ufeff" + good,
            good.replace(":", "=", 1), good[:-1] + ',"action":' + good + "}", "{" * 5000, "[" * 1100 + "]" * 1100,
            '{"op": "claim", "seat": 1, "seat": "x"}', '{"action": {}, "action": []}', "\x00", "🂡", '"\\ud800"',
        ]))
    if kind == "binary":
        raw = draw(st.sampled_from([to_text(base).encode(), b"\xff\xfe\x00", b"", b"\x80" * 10, "é".encode()]))
        return kind, raw
    if kind == "oversized":
        frame = draw(mutated(base))
        if not isinstance(frame, dict):
            frame = {"x": frame}
        # Too many characters, or few enough characters but too many UTF-8 bytes
        too_long = draw(st.booleans())
        filler = "x" * draw(st.integers(4097, 6000)) if too_long else "é" * draw(st.integers(2050, 2100))
        return kind, to_text({**frame, draw(st.sampled_from(KEYS)): filler})
    return kind, to_text(draw(mutated(base)))


# ---------------------------------------------------------------------------------------------
# A match to fuzz


def make_people() -> list[Any]:
    users = []
    for _ in range(2):
        name = f"fuzz-{os.getpid()}-{next(_names)}"
        user = get_user_model()(username=name, display_name=name.title())
        user.set_password("felt-and-cards-42")
        user.save()
        users.append(user)
    return users


def start_match(game: str, seed: int, warmup: int) -> tuple[int, list[Any]]:
    """Two people in a match of the game, a few legal moves in."""
    people = make_people()
    match = create_match(creator=people[0], game=game, players=2, seats=[SeatSpec("open")], seed=seed,
                                  options=OPTIONS.get(game))
    playing.join(match_id=match.pk, user=people[1])
    engine = get_engine(game)
    rng = random.Random(seed)
    for _ in range(warmup):
        match = Match.objects.get(pk=match.pk)
        state = engine.load(match.state)
        if match.status != Match.Status.ACTIVE:
            break
        seat = rng.choice(engine.to_act(state))
        legal = [a for a in engine.legal_actions(state, seat) if a.get("type") != "tap"]  # keep the round on
        if legal:
            playing.act(match_id=match.pk, user=people[seat], seat=seat, action=rng.choice(legal),
                         expected_version=match.version)
    return match.pk, people


def row(match_id: int) -> tuple[int, int, Any, str, int]:
    match = Match.objects.get(pk=match_id)
    return match.version, match.move_count, match.state, match.status, Move.objects.filter(match_id=match_id).count()


def cookie_of(user: Any) -> str:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}"


def bases_for(game: str, state: Any, version: int, seat: int, page: str) -> list[dict[str, Any]]:
    """Valid frames of every kind for this position: legal actions (this seat's and the other's), the page's
    own selection controls, every operation but resigning, and one the socket does not know."""
    engine = get_engine(game)
    actions = [a for s in (0, 1) for a in engine.legal_actions(state, s)]
    actions += {
        "gomori": [{"type": "play", "card": "AC", "at": [0, 0]}, {"type": "play", "card": "KH", "at": [1, 1],
                                                                 "king_target": [0, 0]}],
        "columbo": [{"type": "draw", "from": "stock"}, {"type": "swap", "slot": 0}, {"type": "discard"},
                    {"type": "slap", "seat": 1, "slot": 0, "seq": 1}, {"type": "peek", "slots": [0, 1]},
                    {"type": "look", "target": [1, 0]}, {"type": "exchange", "a": [0, 0], "b": [1, 0]},
                    {"type": "tap"}, {"type": "skip"}],
        "ruhd": [{"type": "place", "tile": "T05", "at": [0, 2], "rotation": 1},
                 {"type": "place", "tile": "T05", "from": [0, 0], "at": [0, 2], "rotation": 1},
                 {"type": "cover", "tile": "T35", "at": [0, 0]}],
        "rummy": [{"type": "draw", "from": "stock"}, {"type": "draw", "from": "discard"},
                  {"type": "discard", "card": "AC"}, {"type": "meld", "packs": [["8D", "8H", "XB"]]},
                  {"type": "add", "card": "8D", "pack": 0, "end": "low"}],
    }[game]
    rng = random.Random(version)
    rng.shuffle(actions)
    bases: list[dict[str, Any]] = []
    for action in actions[:12]:
        bases.append({"action": action, "version": version})
        bases.append({"action": action, "version": version - 1})
        bases.append({"action": action})
    for control in re.findall(r'hx-vals="(\{(?:&quot;|&#34;)ui(?:&quot;|&#34;):.*?\})"', page)[:8]:
        bases.append(json.loads(html.unescape(control)))
    bases += {
        "gomori": [{"ui": {"card": "AC", "at": [0, 0]}}],
        "columbo": [{"ui": {"known": True, "peek": 1, "pick": [1, 0]}}],
        "ruhd": [{"ui": {"tile": "T05", "rotation": 3}}],
        "rummy": [{"ui": {"sort": "rank", "order": ["AC", "XR"], "selected": [0, 1], "building": [["8D", "8H", "XB"]],
                          "op": "move", "from": 0, "to": 5}},
                  {"ui": {"op": "make", "selected": [0, 1, 2]}}, {"ui": {"op": "shift", "by": 1, "selected": [0]}}],
    }[game]
    other = 1 - seat
    bases += [{"op": "claim", "seat": other}, {"op": "claim_bot", "seat": other}, {"op": "claim", "seat": seat},
              {"op": "rematch"}, {"op": "resign", "action": None}, {"hello": 1},
              # The lifecycle's and the chat's operations, in the shapes that change nothing of an active
              # match (a chat line that is sent reaches the others; an empty one, or one too long, is refused).
              {"op": "cancel"}, {"op": "leave"}, {"op": "retake"}, {"op": "decline"}, {"op": "chat", "text": ""},
              {"op": "chat", "text": "x" * 301}, {"op": "mute", "user": 10**9 - 1}, {"op": "unmute", "user": None}]
    return bases


def would_change(game: str, text: str, state: Any, version: int, status: str, seat: int | None) -> bool:
    """Whether the consumer would change the match with this frame from this socket (a legal move, resigning,
    a rematch vote, and from anyone a chat line or a mute): such frames are not sent. Read as the consumer
    reads it (games/play/frames.py)."""
    try:
        frame = parse_json(text)
    except Unreadable:
        return False
    if not isinstance(frame, dict) or "ui" in frame:
        return False
    if seat is None and frame.get("op") not in ("chat", "mute", "unmute"):  # spectators chat in their own room
        return False
    if "action" not in frame:
        op = frame.get("op")
        if not isinstance(op, str):
            return False
        if op == "chat":  # a line that would be sent reaches the other sockets: only refused ones are fuzzed
            text = frame.get("text")
            return isinstance(text, str) and 0 < len(text.strip()) <= 300
        if op in {"mute", "unmute"}:  # a real person muted redraws this socket's chat: not a change, but news
            return isinstance(frame.get("user"), int) and not isinstance(frame.get("user"), bool)
        return op in {"resign", "abort"} or (op in {"rematch", "decline"} and status != Match.Status.ACTIVE)
    if seat is None:
        return False
    try:
        action = json_field(frame["action"])
        expected = int_field(frame.get("version"))
    except (Unreadable, RecursionError):
        return False
    if expected is not None and expected != version:
        return False
    try:
        get_engine(game).apply(state, seat, action)
    except Exception:
        return False
    return True


class Errors(logging.Handler):
    """Errors the site logs while the frames are answered (a caught exception is a server error too)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


async def fuzz(game: str, data: st.DataObject) -> None:
    from config.asgi import application

    seed = data.draw(st.integers(0, 10**6), label="seed")
    warmup = data.draw(st.integers(0, WARMUP[game]), label="warmup")
    match_id, people = await database_sync_to_async(start_match)(game, seed, warmup)
    before = await database_sync_to_async(row)(match_id)
    engine = get_engine(game)
    state = engine.load(before[2])
    version, status = before[0], before[3]

    # The socket of one of the people, and a spectator's (signed in or anonymous).
    seat = data.draw(st.sampled_from([0, 1]), label="seat")
    spectator = data.draw(st.sampled_from(["carol", "anonymous"]), label="spectator")
    sockets: dict[str, tuple[WebsocketCommunicator, int | None]] = {}
    errors = Errors()
    logging.getLogger("games").addHandler(errors)
    try:
        watcher = (await database_sync_to_async(make_people)())[0] if spectator == "carol" else None
        for name, user, index in (("spectator", watcher, None), ("player", people[seat], seat)):
            headers = [(b"origin", b"http://testserver"), (b"host", b"testserver")]
            if user is not None:
                headers.append((b"cookie", (await database_sync_to_async(cookie_of)(user)).encode()))
            communicator = WebsocketCommunicator(application, f"/ws/m/{match_id}/", headers=headers)
            connected, _ = await communicator.connect(timeout=5)
            assert connected
            sockets[name] = (communicator, index)
        player = sockets["player"][0]
        await player.receive_output(timeout=5)  # its page
        spectator_socket = sockets["spectator"][0]
        await spectator_socket.receive_output(timeout=5)  # its page
        first = await spectator_socket.receive_output(timeout=5)  # the player arrived
        assert first["type"] == "websocket.send"
        page = await player_page(player)
        bases = bases_for(game, state, version, seat, page)
        presence = await database_sync_to_async(presence_of)(match_id)
        assert presence[seat].present

        count = data.draw(st.integers(*FRAMES), label="frames")
        sent = skipped = 0
        closed: set[str] = set()
        for number in range(count):
            name = data.draw(st.sampled_from(["player", "player", "player", "spectator"]))
            if name in closed:
                continue
            communicator, index = sockets[name]
            kind, frame = data.draw(frames(bases))
            if isinstance(frame, str) and would_change(game, frame, state, version, status, index):
                skipped += 1
                continue
            described = f"{game} frame {number} ({kind}, {name}): {frame[:300]!r}"
            # As daphne hands a frame over (send_to refuses empty frames)
            key = "bytes" if isinstance(frame, bytes) else "text"
            await communicator.send_input({"type": "websocket.receive", key: frame})
            sent += 1
            SENT[f"{game}/{kind}"] = SENT.get(f"{game}/{kind}", 0) + 1
            if await check_answer(communicator, frame, index, described):
                closed.add(name)  # closed cleanly by the server: its seat (if any) must be released
                if index is not None:
                    presence = await database_sync_to_async(presence_of)(match_id)
                    assert not presence[index].present, f"{described}: closed, and the seat is still present"
            assert not errors.records, f"{described}: the site logged {errors.records[0].getMessage()}"
            now = await database_sync_to_async(row)(match_id)
            assert now == before, f"{described} changed the match: {before[:2]} -> {now[:2]}"
        assert sent > count // 3, f"only {sent} of {count} frames could be sent ({skipped} would have moved)"
        presence = await database_sync_to_async(presence_of)(match_id)
        assert presence[seat].present == ("player" not in closed), "the seat's presence is not its socket's"
        for communicator, _ in sockets.values():
            await communicator.disconnect(timeout=5)  # raises what the consumer raised, if anything
        presence = await database_sync_to_async(presence_of)(match_id)
        assert not presence[seat].present, "the seat is still present after its socket closed"
        assert not errors.records, errors.records[0].getMessage()
    finally:
        logging.getLogger("games").removeHandler(errors)
        for communicator, _ in sockets.values():
            if not communicator.future.done():
                with contextlib.suppress(Exception, asyncio.CancelledError):
                    await communicator.disconnect(timeout=3)
        await scheduler.stop()
        await database_sync_to_async(connections.close_all)()


async def player_page(player: WebsocketCommunicator) -> str:
    """The player's page, by asking for an empty selection (which redraws the table)."""
    await player.send_to(text_data='{"ui": {}}')
    output = await player.receive_output(timeout=5)
    return output.get("text", "")


async def check_answer(communicator: WebsocketCommunicator, frame: str | bytes, seat: int | None,
                       described: str) -> bool:
    """The answer to one frame: an error saying something (a selection: the table redrawn), never a server
    error, sendable by a real server; the socket still open and its consumer unharmed. True if the server
    closed the socket instead (then with an application code or 1000, never 1011)."""
    selection = False  # a frame the consumer reads as a selection (read with its own reader)
    if isinstance(frame, str):
        try:
            parsed = parse_json(frame)
            selection = (isinstance(parsed, dict) and "ui" in parsed
                         and len(frame) <= MAX_FRAME_BYTES
                         and len(frame.encode("utf-8", "surrogatepass")) <= MAX_FRAME_BYTES)
        except Unreadable:
            pass
    if selection and seat is None:
        # A spectator's selection is ignored: the next frame's answer is the next message.
        await communicator.send_to(text_data='{"probe": 1}')
    output = await communicator.receive_output(timeout=10)
    if output["type"] == "websocket.close":
        code = output.get("code", 1000)
        assert code == 1000 or 4000 <= code <= 4999, f"{described}: the socket was closed with {code}"
        return True
    assert output["type"] == "websocket.send", f"{described}: {output}"
    text = output.get("text") or ""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise AssertionError(f"{described}: the answer can't be sent as UTF-8 ({error}): {text[:300]!r}") from None
    assert 'id="error"' in text, f"{described}: no #error in the answer {text[:300]!r}"
    said = error_text(text).strip()
    if selection and seat is None:
        assert "Unknown request" in said, f"{described}: a spectator's selection was answered: {text[:300]!r}"
    elif selection:
        assert 'id="hand"' in text, f"{described}: the selection's answer is not the table: {text[:300]!r}"
    else:
        assert said, f"{described}: the answer says nothing: {text[:300]!r}"
    assert "Something went wrong" not in said, f"{described}: a server error: {said}"
    assert not communicator.future.done(), f"{described}: the consumer ended: {communicator.future}"
    return False


# No shrinking: an example is a whole match and its sockets (seconds each); a failure names its frame instead.
FUZZ_SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck),
                         phases=[Phase.explicit, Phase.reuse, Phase.generate], print_blob=True)


@FUZZ_SETTINGS
@given(data=st.data())
async def test_fuzzed_frames_on_gomori(data: st.DataObject) -> None:
    with mock.patch.object(frames_module, "BURST", 10**6):
        await fuzz("gomori", data)


@FUZZ_SETTINGS
@given(data=st.data())
async def test_fuzzed_frames_on_columbo(data: st.DataObject) -> None:
    with mock.patch.object(frames_module, "BURST", 10**6):
        await fuzz("columbo", data)


@FUZZ_SETTINGS
@given(data=st.data())
async def test_fuzzed_frames_on_ruhd(data: st.DataObject) -> None:
    with mock.patch.object(frames_module, "BURST", 10**6):
        await fuzz("ruhd", data)


@FUZZ_SETTINGS
@given(data=st.data())
async def test_fuzzed_frames_on_rummy(data: st.DataObject) -> None:
    with mock.patch.object(frames_module, "BURST", 10**6):
        await fuzz("rummy", data)


# ---------------------------------------------------------------------------------------------
# The flood limit, with the frames the fuzzing sends


@pytest.mark.parametrize("flood", ["unknown", "selection", "binary", "oversized", "broken"])
async def test_a_flood_closes_with_4429_and_releases_the_seat(flood: str) -> None:
    """BURST frames are answered, the rest close the socket with 4429; the seat is absent at once, the match
    unchanged, the consumer unharmed."""
    from config.asgi import application

    frame: dict[str, Any] = {
        "unknown": {"text": '{"hello": 1}'}, "selection": {"text": '{"ui": {"card": "AC"}}'},
        "binary": {"bytes": b"\x00\x01"}, "oversized": {"text": json.dumps({"ui": "x" * 5000})},
        "broken": {"text": "{"},
    }[flood]
    match_id, people = await database_sync_to_async(start_match)("gomori", 7, 0)
    before = await database_sync_to_async(row)(match_id)
    cookie = await database_sync_to_async(cookie_of)(people[0])
    communicator = WebsocketCommunicator(application, f"/ws/m/{match_id}/",
                                         headers=[(b"origin", b"http://testserver"), (b"host", b"testserver"),
                                                  (b"cookie", cookie.encode())])
    try:
        assert (await communicator.connect(timeout=5))[0]
        await communicator.receive_output(timeout=5)  # the page
        assert (await database_sync_to_async(presence_of)(match_id))[0].present
        for _ in range(BURST + 15):
            await communicator.send_input({"type": "websocket.receive", **frame})
        answered = 0
        while True:
            output = await communicator.receive_output(timeout=5)
            if output["type"] == "websocket.close":
                break
            assert "Something went wrong" not in output["text"]
            answered += "Too many messages" not in output["text"]
        assert output["code"] == 4429
        assert answered >= BURST  # a burst (and what refilled meanwhile), then the close
        assert await communicator.receive_nothing(timeout=0.1)
        assert not (await database_sync_to_async(presence_of)(match_id))[0].present
        assert not communicator.future.done() or communicator.future.exception() is None
        assert await database_sync_to_async(row)(match_id) == before
    finally:
        with contextlib.suppress(Exception, asyncio.CancelledError):
            await communicator.disconnect(timeout=3)
        await scheduler.stop()
        await database_sync_to_async(connections.close_all)()


# ---------------------------------------------------------------------------------------------
# Defects the fuzzing found


LONE_SURROGATE = "\ud800"


def refused_with_lone_surrogate(game: str) -> list[dict[str, Any]]:
    """Actions of the seat to play, each refused for a field name or a card string holding a lone surrogate."""
    return {
        "gomori": [{"type": "play", "card": "AC", "at": [0, 0], LONE_SURROGATE: 1}],
        "columbo": [{"type": "peek", "slots": [0, 1], LONE_SURROGATE: 1}],
        "ruhd": [{"type": "cover", "tile": "T05", "at": [0, 0], LONE_SURROGATE: 1}],
        "rummy": [{"type": "draw", "from": "stock", LONE_SURROGATE: 1}],
    }[game]


@pytest.mark.parametrize("game", ["gomori", "columbo", "ruhd", "rummy", "rummy-card"])
async def test_a_lone_surrogate_in_a_refused_action_gets_the_refusal(game: str) -> None:
    """A refusal must be text a server can send: valid UTF-8, whatever escapes the frame held."""
    from config.asgi import application

    slug = game.split("-")[0]
    match_id, people = await database_sync_to_async(start_match)(slug, 11, 0)
    actions = refused_with_lone_surrogate(slug)
    if game == "rummy-card":  # after the draw, a meld or an add naming a "card" that is no card
        await database_sync_to_async(playing.act)(match_id=match_id, user=people[0], seat=0,
                                                   action={"type": "draw", "from": "stock"})
        actions = [{"type": "meld", "packs": [[LONE_SURROGATE, "KH", "KD"]]},
                   {"type": "add", "card": LONE_SURROGATE, "pack": 0}]
    cookie = await database_sync_to_async(cookie_of)(people[0])
    communicator = WebsocketCommunicator(application, f"/ws/m/{match_id}/",
                                         headers=[(b"origin", b"http://testserver"), (b"host", b"testserver"),
                                                  (b"cookie", cookie.encode())])
    try:
        assert (await communicator.connect(timeout=5))[0]
        await communicator.receive_output(timeout=5)
        unsendable = []
        for action in actions:
            await communicator.send_to(text_data=json.dumps({"action": action}))  # ASCII: "\\ud800" escaped
            text = (await communicator.receive_output(timeout=5))["text"]
            assert error_text(text).strip()
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:
                unsendable.append(error_text(text).strip())
        assert not unsendable, f"refusals a server can't send: {unsendable}"
    finally:
        with contextlib.suppress(Exception, asyncio.CancelledError):
            await communicator.disconnect(timeout=3)
        await scheduler.stop()
        await database_sync_to_async(connections.close_all)()


def teardown_module() -> None:
    print("\nframes sent:", sum(SENT.values()), dict(sorted(SENT.items())))
