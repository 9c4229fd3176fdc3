"""Turning a match and one seat's view into the page's HTML fragments.

Templates only ever see a view (what that seat may know), never a state. Each game's presenter
(games/tables/<slug>.py) turns its view plus the socket's UI selection into display-ready context.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

from django.urls import reverse
from django.utils import timezone
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from .catalog import GAMES
from .jinja import render_block
from .models import Match
from .services import Presence, Snapshot, away_seconds_left

TABLE_SCRIPTS = {"rummy": "js/rummy.js"}
FRAGMENTS = ("players", "status", "board", "hand", "log", "error")
FRAGMENTS_TEMPLATE = "games/fragments.html"  # Jinja2, under templates/jinja2/: a block per fragment
LOG_TAIL = 60
BOT_REASONS = 4  # at most this many of a bot's reasons for its latest turn
_SEAT_TOKEN = re.compile(r"\{s(\d)\}(&#x27;s)?")


def page_view(view: dict[str, Any] | None) -> dict[str, Any] | None:
    """A view as the live page needs it: the log's tail only (a long game's whole log would be copied
    into every broadcast for nothing; the replay shows the rest)."""
    if view is None or len(view.get("log", ())) <= LOG_TAIL:
        return view
    return {**view, "log": view["log"][-LOG_TAIL:], "log_total": len(view["log"])}


def presenter(slug: str) -> Any:
    return importlib.import_module(f"games.tables.{slug}")


def bot_reasons(snap: Snapshot) -> dict[int, list[str]]:
    """In a match of bots only: each bot's reasons (Move.note) for the moves of its latest turn, oldest first.

    Never where a person plays: a reason may tell what a bot holds ("completes K-K-K")."""
    if snap.state is None or not snap.seats or not all(s.is_bot for s in snap.seats):
        return {}
    reasons: dict[int, list[str]] = {}
    closed: set[int] = set()
    previous = None
    for seat, note in reversed(snap.notes):  # newest first: a seat's latest turn is its first run of moves
        if previous is not None and seat != previous:
            closed.add(previous)
        previous = seat
        if seat in closed:
            continue
        turn = reasons.setdefault(seat, [])
        if note and len(turn) < BOT_REASONS:
            turn.insert(0, note)
    return reasons


def match_meta(snap: Snapshot, presence: dict[int, Presence]) -> dict[str, Any]:
    """What every viewer may know about the match itself: players, presence, status, result."""
    reasons = bot_reasons(snap)
    now = timezone.now()
    players = []
    for seat in snap.seats:
        player = seat.player
        players.append(
            {
                "index": seat.index,
                "name": player.name if player else "",
                "username": player.username if player else "",
                "avatar": player.avatar if player else "",
                "profile_url": player.profile_url if player else "",
                "is_bot": bool(player and player.is_bot),
                "user_id": player.user_id if player else None,
                "open": player is None,
                "invite_only": seat.invite_only,
                "present": bool(player and (player.is_bot or (presence.get(seat.index) or _AWAY).present)),
                "claim_in": (
                    away_seconds_left(presence.get(seat.index), snap.turn_started_at, now)
                    if player and not player.is_bot else None
                ),
                "score": seat.final_score,
                "place": seat.place,
                "reasons": reasons.get(seat.index, []),
            }
        )
    return {
        "id": snap.id,
        "game": snap.game,
        "game_name": GAMES[snap.game].name,
        "status": snap.status,
        "version": snap.version,
        "players": players,
        "result": snap.result,
        "is_public": snap.is_public,
        "rated": snap.rated,
        "rematch_votes": list(snap.rematch_votes),
        "rematch_url": reverse("match", args=[snap.rematch_id]) if snap.rematch_id else "",
        "url": reverse("match", args=[snap.id]),
        # Seconds since the deal while the match is on (Columbo solo's clock); the server's time, never the browser's.
        "elapsed": int((now - snap.started_at).total_seconds())
        if snap.started_at and snap.status == Match.Status.ACTIVE else None,
    }


_AWAY = Presence(False, None)


def seat_names(meta: dict[str, Any]) -> list[str]:
    return [p["name"] or f"Seat {p['index'] + 1}" for p in meta["players"]]


# Third-person verbs the engines use after a seat, and their second-person forms.
_VERBS = {
    "begins": "begin", "wins": "win", "plays": "play", "has": "have", "is": "are", "was": "were",
    "draws": "draw", "takes": "take", "passes": "pass", "gathers": "gather", "places": "place",
    "covers": "cover", "discards": "discard", "taps": "tap", "slaps": "slap", "peeks": "peek",
    "looks": "look", "lays": "lay", "adds": "add", "keeps": "keep", "goes": "go", "scores": "score",
    "gets": "get", "loses": "lose", "shares": "share", "needs": "need", "does": "do", "starts": "start",
    "leads": "lead", "must": "must", "may": "may", "can": "can", "cannot": "cannot",
    "deals": "deal", "swaps": "swap", "exchanges": "exchange", "skips": "skip", "uses": "use",
    "holds": "hold", "finishes": "finish", "ends": "end",
}
# The viewer's token (marked \x00) followed by a verb, directly or after "and" in the same sentence.
_SECOND_PERSON = re.compile(r"(\x00(?:'s)?\s(?:[^.:;]*?\band\s)?)(" + "|".join(_VERBS) + r")\b")


def format_event(text: str, names: list[str], viewer: int | None) -> SafeString:
    """An engine log sentence with {sN} replaced by the escaped player name ("you"/"your" for the viewer).

    Engines write a seat's possessive as "{sN}'s" and the actor's own things as "their": seen by that seat,
    they read "your".
    """
    escaped = str(escape(text))
    if viewer is not None:
        # Engines write the third person ("{s0} wins", "{s1} plays again"); said to the viewer: "you win".
        escaped = _SECOND_PERSON.sub(lambda m: m.group(1) + _VERBS[m.group(2)], escaped.replace(
            f"{{s{viewer}}}", "\x00"))
        escaped = escaped.replace("\x00", f"{{s{viewer}}}")
    if viewer is not None and escaped.startswith(f"{{s{viewer}}}"):
        escaped = re.sub(r"\btheir\b", "your", escaped)

    def name(found: re.Match[str]) -> str:
        index = int(found.group(1))
        if index == viewer:
            word = "your" if found.group(2) else "you"
            sentence_start = found.start() == 0 or escaped[: found.start()].endswith((". ", ": "))
            return f'<strong class="you">{word.capitalize() if sentence_start else word}</strong>'
        label = names[index] if index < len(names) else f"Seat {index + 1}"
        return f'<strong class="seat-{index}">{escape(label)}</strong>{found.group(2) or ""}'

    return mark_safe(_SEAT_TOKEN.sub(name, escaped))


def log_count(view: dict[str, Any] | None) -> int:
    """How many log entries the game has (the view may carry only the tail)."""
    if view is None:
        return 0
    return view.get("log_total", len(view.get("log") or []))


def table_context(
    meta: dict[str, Any], view: dict[str, Any] | None, seat: int | None, ui: dict[str, Any] | None = None,
    error: str = "", log_from: int = 0,
) -> dict[str, Any]:
    """The whole template context for one viewer; the log from entry number `log_from` on (newest first)."""
    names = seat_names(meta)
    slug = meta["game"]
    context: dict[str, Any] = {
        "meta": meta,
        "view": view,
        "seat": seat,
        "names": names,
        "error": error,
        "game": GAMES[slug],
        "table_template": f"games/tables/{slug}.html",  # its board and hand macros (Jinja2)
        "ws_url": f"/ws/m/{meta['id']}/",
        "table_css": "" if slug == "gomori" else f"css/{slug}.css",
        # A table's own few lines of JS, loaded with the page (scripts inside swapped fragments never run).
        "table_js": TABLE_SCRIPTS.get(slug, ""),
        "ui_empty": not ui,
        # What only a view gives, for a match not dealt yet.
        "table": {},
        "log": [],
    }
    scores = view.get("scores") if view is not None else None
    context["players"] = [
        {**p, "score_now": scores[p["index"]] if scores and p["index"] < len(scores) else p["score"]}
        for p in meta["players"]
    ]
    if view is not None:
        log = view.get("log", [])[-LOG_TAIL:]
        skip = max(0, log_from - (log_count(view) - len(log)))
        log = log[skip:]
        context["log"] = [
            {"text": format_event(entry.get("text", ""), names, seat), "seat": entry.get("seat")}
            for entry in reversed(log)
        ]
        context["my_turn"] = seat is not None and seat in view.get("must_act", [])
        context["waiting_on"] = [names[i] for i in view.get("must_act", []) if i != seat]
        context["table"] = presenter(slug).present(view, seat, ui or {}, names)
        context["away"] = [
            p for p in meta["players"]
            if not p["present"] and not p["is_bot"] and not p["open"] and p["index"] in view.get("must_act", [])
            and p["index"] != seat
        ]
    if meta["result"]:
        context["outcome"] = describe_result(meta, seat)
    return context


def describe_result(meta: dict[str, Any], seat: int | None) -> str:
    result = meta["result"] or {}
    names = seat_names(meta)
    reason = result.get("reason")
    if reason == "cancelled":
        return "The match was cancelled."
    winners = result.get("winners", [])
    scores = result.get("scores") or []
    if len(meta["players"]) == 1 and scores and reason == "normal":
        return f"{'Your' if seat == 0 else names[0] + '’s'} solo score: {scores[0]:,}."
    if result.get("draw"):
        text = "A draw."
    elif seat is not None and seat in winners:
        text = "You won!" if len(winners) == 1 else "You share the win."
    else:
        text = " and ".join(names[i] for i in winners) + (" wins." if len(winners) == 1 else " share the win.")
    loser = result.get("loser")
    if reason == "resign" and loser is not None:
        text += f" {'You' if loser == seat else names[loser]} resigned."
    elif reason == "abandon" and loser is not None:
        text += f" {'You' if loser == seat else names[loser]} left the match."
    return text


def page_fragments(context: dict[str, Any], fragments: tuple[str, ...] = FRAGMENTS) -> dict[str, SafeString]:
    """The named fragments by name, each safe to put in a Django template (the match page, the replay)."""
    return {name: mark_safe(render_fragment(name, context)) for name in fragments}


def render_fragment(name: str, context: dict[str, Any]) -> str:
    """One fragment's HTML: its block of the Jinja2 template games/fragments.html, drawn with this context
    ("table_board" and "table_hand" are the game's board and hand alone, without their section).

    Plain text to Django: mark_safe it to put it in a Django template."""
    return render_block(FRAGMENTS_TEMPLATE, name, context)


class SocketPage:
    """What one socket's page shows, so that an update sends only what changed on it.

    Which fragments changed is decided from the data each is drawn from (the view, the selection, the
    match's meta), not by drawing them and comparing HTML; of the log, only the new entries are sent
    (added at the top of the list)."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """The next update draws everything (a page that connects, reconnects or moved on)."""
        self.drawn_from: dict[str, Any] = {}
        self.log_shown: int | None = None
        self.log_names: list[str] = []  # the players' names in the log entries the page shows

    def update(
        self, meta: dict[str, Any], view: dict[str, Any] | None, seat: int | None, ui: dict[str, Any],
        error: str = "", fragments: tuple[str, ...] = FRAGMENTS, changed_only: bool = True,
        shared: dict[Any, str] | None = None,
    ) -> str:
        """The HTML to send: with changed_only, none of what the page shows already (an answer to the
        person's own click sends its fragments whatever they hold). `shared` holds fragments already drawn
        in this same update of the match for another socket, by who sees them and their selection."""
        total = log_count(view)
        names = seat_names(meta)
        same_names = names == self.log_names  # a player renamed: the entries shown carry the old name
        nothing_new = self.log_shown == total and same_names
        new_entries = (
            "log" in fragments and self.log_shown is not None and 0 < self.log_shown <= total
            and total - self.log_shown <= min(LOG_TAIL, len((view or {}).get("log") or [])) and same_names
        )
        context = table_context(meta, view, seat, ui, error=error, log_from=self.log_shown if new_entries else 0)
        shared = {} if shared is None else shared
        public_board = not ui and view is not None and getattr(presenter(meta["game"]), "BOARD_IS_PUBLIC", False)
        parts = []
        for name in fragments:
            if name == "log":
                if nothing_new and changed_only:
                    continue
                if new_entries:
                    html = render_fragment("log_entries", context) if context["log"] else ""
                else:
                    html = render_fragment(name, context)
                self.log_shown, self.log_names = total, names
                if html:
                    parts.append(html)
                continue
            source = _drawn_from(name, context, view, ui)
            if changed_only and name in self.drawn_from and self.drawn_from[name] == source:
                continue
            self.drawn_from[name] = source
            who = "public" if name == "board" and public_board else (seat, repr(sorted(ui.items())), error)
            key = (name, who, log_count(view) if name == "log" else None)
            html = shared.get(key)
            if html is None:
                html = shared[key] = render_fragment(name, context)
            parts.append(html)
        return "".join(parts)


def _drawn_from(name: str, context: dict[str, Any], view: dict[str, Any] | None, ui: dict[str, Any]) -> Any:
    """The data a fragment is drawn from: equal data, equal HTML."""
    meta = context["meta"]
    if name == "players":
        return context["players"], (view or {}).get("must_act"), meta["status"]
    if name == "status":
        table = context.get("table") or {}
        return (meta["status"], meta["result"], meta["rematch_votes"], meta["rematch_url"], context.get("my_turn"),
                context.get("waiting_on"), context.get("away"), table.get("prompt"), context.get("outcome"),
                meta["players"] if meta["status"] == "finished" else None)
    if name == "error":
        return context["error"]
    return view, dict(ui), context["names"], meta["status"], meta["version"]


def error_fragment(message: str) -> str:
    return render_fragment("error", {"error": message})
