"""Turning a match and one seat's view into the page's HTML fragments.

Templates only ever see a view (what that seat may know), never a state. Each game's presenter
(games/tables/<slug>.py) turns its view plus the socket's UI selection into display-ready context.
"""

from __future__ import annotations

import math
import re
from typing import Any

from django.urls import reverse
from django.utils import timezone
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from .catalog import GAMES, kit
from .engines import get_engine
from .jinja import render_block
from .models import Match
from .results import Outcome, Termination
from .selectors import Presence, away_seconds_left
from .services import Snapshot, abort_allowed, clock_now
from .tables import Timing

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


def distinct_names(names: list[str]) -> list[str]:
    """The seats' names with a number added to repeats (two Regular bots in one match), so the log is never
    ambiguous: "Columbo Regular (bot)", "Columbo Regular 2 (bot)"."""
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        if seen[name] == 1 or not name:
            out.append(name)
        elif name.endswith(" (bot)"):
            out.append(f"{name[:-6]} {seen[name]} (bot)")
        else:
            out.append(f"{name} ({seen[name]})")
    return out


def match_meta(snap: Snapshot, presence: dict[int, Presence], watchers: int = 0, state: Any = None) -> dict[str, Any]:
    """What every viewer may know about the match itself: players, presence, status, result."""
    reasons = bot_reasons(snap)
    now = timezone.now()
    players = []
    names = distinct_names([s.player.name if s.player else "" for s in snap.seats])
    bot_names = distinct_names([s.actor.name if s.actor else "" for s in snap.seats])
    if snap.clock and state is None and snap.state is not None:
        state = _state_of(snap)
    clocks = clock_now(snap, state, now) if snap.clock else []
    for seat in snap.seats:
        player = seat.player
        players.append(
            {
                "index": seat.index,
                "name": names[seat.index],
                "username": player.username if player else "",
                "avatar": player.avatar if player else "",
                "profile_url": player.profile_url if player else "",
                "is_bot": seat.is_bot,
                "left": seat.left,
                "bot_name": bot_names[seat.index] if seat.left else "",
                "user_id": player.user_id if player else None,
                "open": player is None,
                "invite_only": seat.invite_only,
                "present": bool(player and (seat.is_bot or (presence.get(seat.index) or _AWAY).present)),
                "claim_in": (
                    away_seconds_left(presence.get(seat.index), snap.turn_started_at, now)
                    if seat.is_person else None
                ),
                "clock": round(clocks[seat.index], 1) if seat.index < len(clocks) else None,
                "clock_text": _clock_text(clocks[seat.index]) if seat.index < len(clocks) else "",
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
        "rematch_declined": snap.rematch_declined,
        "abort_allowed": abort_allowed(snap),
        "handovers": snap.handovers,
        "watchers": watchers,
        "created_by_id": snap.created_by_id,
        "invite_code": snap.invite_code,  # drawn for the seated players only (the status fragment)
        "clock": snap.clock,
        "rematch_url": reverse("match", args=[snap.rematch_id]) if snap.rematch_id else "",
        "url": reverse("match", args=[snap.id]),
        # Seconds since the deal while the match is on (Columbo solo's clock); the server's time, never the browser's.
        "elapsed": int((now - snap.started_at).total_seconds())
        if snap.started_at and snap.status == Match.Status.ACTIVE else None,
        # Seconds since the turn's last change: with a bot's known pause, the time a countdown shows (Columbo's
        # card actions and slap window last until a bot draws).
        "turn_age": round((now - snap.turn_started_at).total_seconds(), 1)
        if snap.turn_started_at and snap.status == Match.Status.ACTIVE else None,
    }


_AWAY = Presence(False, None)


def _state_of(snap: Snapshot) -> Any:
    engine = get_engine(snap.game)
    return engine.load(snap.state)


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


def handover_events(handovers: Any) -> list[tuple[int, str]]:
    """The record's own log lines: (the number of engine entries before it, the sentence with {sN})."""
    events = []
    for h in handovers:
        seat = h["seat"]
        why = "ran out of time" if h.get("why") == "time" else "left"
        events.append((h["log"], f"{{s{seat}}} {why}; a bot plays their seat from move {h['move']}."))
        if "until_log" in h:
            events.append((h["until_log"], f"{{s{seat}}} took their seat back at move {h['until_move']}."))
    return events


def log_entries(
    entries: list[dict[str, Any]], start: int, total: int, names: list[str], seat: int | None, handovers: Any,
    events_from: int = 0,
) -> list[dict[str, Any]]:
    """Engine log entries numbered from `start`, newest first, with each seat named as who played it then:
    a seat handed to a bot is the bot's in the entries of its moves, and the handover is a line of its own."""
    if not handovers:
        return [{"text": format_event(e.get("text", ""), names, seat), "seat": e.get("seat")}
                for e in reversed(entries)]
    lines: list[tuple[int, int, dict[str, Any]]] = []
    for offset, entry in enumerate(entries):
        number = start + offset
        named = list(names)
        for h in handovers:
            if h["log"] <= number < h.get("until_log", total + 1) and h["seat"] < len(named):
                named[h["seat"]] = h["bot"]
        lines.append((number, 1, {"text": format_event(entry.get("text", ""), named, seat), "seat": entry.get("seat")}))
    for number, text in handover_events(handovers):
        if events_from <= number <= total:
            lines.append((number, 0, {"text": format_event(text, names, seat), "seat": None}))
    return [line for _, _, line in sorted(lines, key=lambda item: (item[0], item[1]), reverse=True)]


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
    game = kit(slug)
    context: dict[str, Any] = {
        "meta": meta,
        "view": view,
        "seat": seat,
        "names": names,
        "error": error,
        "game": game,
        "table_template": f"games/tables/{slug}.html",  # its board and hand macros (Jinja2)
        "ws_url": f"/ws/m/{meta['id']}/",
        "table_css": game.table_css,
        # A table's own few lines of JS, loaded with the page (scripts inside swapped fragments never run).
        "table_js": game.table_js,
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
        first = log_count(view) - len(log)  # the number of the first entry of the tail
        skip = max(0, log_from - first)
        # Only new entries (log_from): a handover line before them was sent with the entries before it.
        context["log"] = log_entries(log[skip:], first + skip, log_count(view), names, seat,
                                     meta.get("handovers") or (), events_from=first + skip + (1 if log_from else 0))
        context["my_turn"] = seat is not None and seat in view.get("must_act", [])
        context["waiting_on"] = [meta["players"][i]["bot_name"] or names[i] for i in view.get("must_act", [])
                                 if i != seat and i < len(meta["players"])]
        timing = Timing(elapsed=meta.get("elapsed"), turn_age=meta.get("turn_age"))
        context["table"] = game.presenter.present(view, seat, ui or {}, names, timing)
        context["away"] = [
            p for p in meta["players"]
            if not p["present"] and not p["is_bot"] and not p["open"] and p["index"] in view.get("must_act", [])
            and p["index"] != seat
        ]
    context["rematch_offerers"] = [names[i] for i in meta["rematch_votes"] if i != seat and i < len(names)]
    if meta["result"]:
        context["outcome"] = describe_result(meta, seat)
    return context


def _clock_text(seconds: float) -> str:
    """A clock as it reads: "4:05" (whole seconds, rounded up: a clock at 0.2 s has not run out)."""
    whole = math.ceil(seconds)
    return f"{whole // 60}:{whole % 60:02d}"


def describe_result(meta: dict[str, Any], seat: int | None) -> str:
    """The result in a sentence, for this viewer ("You won!")."""
    outcome = Outcome.of(meta["result"])
    if outcome is None:
        return ""
    names = seat_names(meta)
    end, by, loser = outcome.termination, outcome.by, outcome.loser
    if end == Termination.CANCELLED:
        return "The match was cancelled before it started."
    if end == Termination.ABORTED:
        if by is None:
            return "An administrator aborted the match: it counts for nothing."
        who = "you" if by == seat else names[by]
        return f"The match was aborted by {who} before everyone had moved: it counts for nothing."
    if len(meta["players"]) == 1 and outcome.scores and end == Termination.NORMAL:
        return f"{'Your' if seat == 0 else names[0] + '’s'} solo score: {outcome.scores[0]:,}."
    winners = outcome.winners
    if outcome.draw:
        text = "A draw."
    elif seat is not None and seat in winners:
        text = "You won!" if len(winners) == 1 else "You share the win."
    elif not winners:
        text = "Nobody wins."
    else:
        text = " and ".join(names[i] for i in winners) + (" wins." if len(winners) == 1 else " share the win.")
    why = {Termination.RESIGN: "resigned", Termination.ABANDON: "left the match", Termination.TIME: "ran out of time"}
    if end in why and loser is not None:
        text += f" {'You' if loser == seat else names[loser]} {why[end]}."
    for index in outcome.left:
        if index != loser and index < len(names):
            text += f" {'You' if index == seat else names[index]} left the table: a loss, whatever the bot achieved."
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
        names = [*seat_names(meta), repr(meta.get("handovers"))]  # a handover renames past entries
        same_names = names == self.log_names  # a player renamed: the entries shown carry the old name
        nothing_new = self.log_shown == total and same_names
        new_entries = (
            "log" in fragments and self.log_shown is not None and 0 < self.log_shown <= total
            and total - self.log_shown <= min(LOG_TAIL, len((view or {}).get("log") or [])) and same_names
        )
        log_from = self.log_shown if new_entries and self.log_shown is not None else 0
        context = table_context(meta, view, seat, ui, error=error, log_from=log_from)
        shared = {} if shared is None else shared
        public_board = not ui and view is not None and kit(meta["game"]).board_is_public
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
            drawn = shared.get(key)
            if drawn is None:
                drawn = shared[key] = render_fragment(name, context)
            parts.append(drawn)
        return "".join(parts)


def _drawn_from(name: str, context: dict[str, Any], view: dict[str, Any] | None, ui: dict[str, Any]) -> Any:
    """The data a fragment is drawn from: equal data, equal HTML."""
    meta = context["meta"]
    if name == "players":
        return context["players"], (view or {}).get("must_act"), meta["status"], meta["watchers"]
    if name == "status":
        table = context.get("table") or {}
        return (meta["status"], meta["result"], meta["rematch_votes"], meta["rematch_url"], meta["rematch_declined"],
                meta["abort_allowed"], context.get("my_turn"),
                context.get("waiting_on"), context.get("away"), table.get("prompt"), context.get("outcome"),
                meta["players"] if meta["status"] == "finished" else None)
    if name == "error":
        return context["error"]
    return view, dict(ui), context["names"], meta["status"], meta["version"]


def error_fragment(message: str) -> str:
    return render_fragment("error", {"error": message})
