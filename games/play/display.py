"""A match and one seat's view turned into the page's HTML fragments, and what one socket's page shows already.

Templates only ever see a view (what that seat may know), never a state. Each game's presenter
(games/presenters/<slug>.py) turns its view plus the socket's selection into display-ready data. A socket's
page (SocketPage) sends only the fragments whose data changed; the sockets of one update share what they
have in common (RenderCache): the meta, each seat's view, and fragments drawn for the same viewer.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from typing import Any

from django.utils import timezone
from django.utils.safestring import SafeString, mark_safe

from ..catalog import kit
from ..core.jinja import render_block
from ..engines.base import View
from ..presenters import Timing
from .clock import clock_label, is_correspondence
from .due import due_time
from .meta import FRAGMENTS, TableMeta, table_meta
from .snapshot import Presence, Snapshot, State, Status, engine_of
from .wording import closing_line, describe_result, format_event, handover_events, told_of

FRAGMENTS_TEMPLATE = "games/fragments.html"  # Jinja2, under templates/jinja2/: a block per fragment
LOG_TAIL = 60

Context = dict[str, Any]


def page_view(view: View | None) -> View | None:
    """A view as the live page needs it: the log's tail only (a long game's whole log would be copied
    into every broadcast for nothing; the replay shows the rest)."""
    if view is None or len(view.get("log", ())) <= LOG_TAIL:
        return view
    return {**view, "log": view["log"][-LOG_TAIL:], "log_total": len(view["log"])}


def log_count(view: View | None) -> int:
    """How many log entries the game has (the view may carry only the tail)."""
    if view is None:
        return 0
    count: int = view.get("log_total", len(view.get("log") or []))
    return count


def log_entries(
    entries: list[dict[str, Any]], start: int, total: int, names: list[str], seat: int | None,
    handovers: tuple[dict[str, Any], ...], words: Callable[[str], str], closing: str | None = None,
    events_from: int = 0,
) -> list[dict[str, Any]]:
    """Engine log entries numbered from `start`, newest first, in words (the game's kit: places and tiles as the
    board shows them), with each seat named as who played it then: a seat handed to a bot is the bot's in the
    entries of its moves. The record's own lines join them: each handover, and the closing line of a match that
    ended otherwise than its game says (games.play.wording.closing_line)."""
    events = handover_events(handovers)
    if closing is not None:
        events.append((total, closing))
    if not events:
        return [{"text": format_event(words(e.get("text", "")), names, seat), "seat": e.get("seat")}
                for e in reversed(entries)]
    lines: list[tuple[int, int, dict[str, Any]]] = []
    for offset, entry in enumerate(entries):
        number = start + offset
        named = list(names)
        for h in handovers:
            if h["log"] <= number < h.get("until_log", total + 1) and h["seat"] < len(named):
                named[h["seat"]] = h["bot"]
        lines.append((number, 1, {"text": format_event(words(entry.get("text", "")), named, seat),
                                  "seat": entry.get("seat")}))
    for number, text in events:
        if events_from <= number <= total:
            lines.append((number, 0, {"text": format_event(text, names, seat), "seat": None}))
    return [line for _, _, line in sorted(lines, key=lambda item: (item[0], item[1]), reverse=True)]


def table_context(
    meta: TableMeta, view: View | None, seat: int | None, ui: dict[str, Any] | None = None,
    error: str = "", log_from: int = 0, zone: str = "", own: bool = True,
) -> Context:
    """The whole template context for one viewer; the log from entry number `log_from` on (newest first).
    `zone`: the viewer's chosen time zone (User.time_zone), in which a correspondence match's due times are
    written; blank, they are written in UTC for the browser to rewrite in its own (static/js/site.js).
    `own`: the seat is the viewer's own, whom the words call "you"; a replay seen from another's seat is not, and
    its words name every player (context["you"]: the seat called "you", or None)."""
    names = meta.names
    you = seat if own else None
    slug = meta.game
    game = kit(slug)
    context: Context = {
        "meta": meta,
        "view": view,
        "seat": seat,
        "you": you,
        "names": names,
        "error": error,
        "game": game,
        "table_template": f"games/tables/{slug}.html",  # its board and hand macros (Jinja2)
        "ws_url": f"/ws/m/{meta.id}/",
        "table_css": game.table_css,
        # A table's own few lines of JS, loaded with the page (scripts inside swapped fragments never run).
        "table_js": game.table_js,
        "ui_empty": not ui,
        # What only a view gives, for a match not dealt yet.
        "table": {},
        "log": [],
    }
    scores = view.get("scores") if view is not None else None
    context["players"] = meta.players
    # A correspondence match says its pace and, for each seat waited on, the date its move is due: no countdown.
    context["days_label"] = clock_label(meta.clock) if is_correspondence(meta.clock) else ""
    context["due"] = {p.index: due_time(p.due_at, zone) for p in meta.players if p.due_at is not None}
    # Each seat's running score from this viewer's view (the final one once the match is over).
    context["scores_now"] = [scores[p.index] if scores and p.index < len(scores) else p.score for p in meta.players]
    if view is not None:
        log = view.get("log", [])[-LOG_TAIL:]
        if not own and seat is not None:  # the seat's own lines, which the engine words for it, told of its player
            log = [{**e, "text": told_of(e.get("text", ""), e["seat"])} if isinstance(e.get("seat"), int) else e
                   for e in log]
        first = log_count(view) - len(log)  # the number of the first entry of the tail
        skip = max(0, log_from - first)
        # Only new entries (log_from): a handover line before them was sent with the entries before it.
        context["log"] = log_entries(log[skip:], first + skip, log_count(view), names, you, meta.handovers,
                                     lambda text: game.words(text, view), closing_line(meta.result, len(names)),
                                     events_from=first + skip + (1 if log_from else 0))
        must_act = view.get("must_act", [])
        context["my_turn"] = seat is not None and seat in must_act
        context["waiting_on"] = [meta.players[i].bot_name or names[i] for i in must_act
                                 if i != seat and i < len(meta.players)]
        timing = Timing(elapsed=meta.elapsed, turn_age=meta.turn_age)
        context["table"] = game.presenter.present(view, seat, ui or {}, names, timing, own=own)
        # In a correspondence match an absent player is the normal case, and nobody may claim: no notice.
        context["away"] = [] if meta.correspondence else [
            p for p in meta.players
            if not p.present and not p.is_bot and not p.open and p.index in must_act and p.index != seat]
        # Whole seconds to each one's claim deadline (the meta's claim_at, which the claim is decided on), as the
        # table starts counting down from; not what the status is drawn from, so a redraw never moves the deadline.
        now = timezone.now()
        context["claim_in"] = {p.index: max(0, math.ceil((p.claim_at - now).total_seconds())) if p.claim_at else 0
                               for p in context["away"]}
    # A bots' match's reasons, in words as its log.
    context["reasons"] = {p.index: [game.words(reason, view) for reason in p.reasons] for p in meta.players}
    context["rematch_offerers"] = [names[i] for i in meta.rematch_votes if i != seat and i < len(names)]
    if meta.result:
        context["outcome"] = describe_result(meta.result, names, you)
    return context


def page_fragments(context: Context, fragments: tuple[str, ...] = FRAGMENTS) -> dict[str, SafeString]:
    """The named fragments by name, each safe to put in a Django template (the match page, the replay)."""
    return {name: mark_safe(render_fragment(name, context)) for name in fragments}


def render_fragment(name: str, context: Context) -> str:
    """One fragment's HTML: its block of the Jinja2 template games/fragments.html, drawn with this context
    ("table_board" and "table_hand" are the game's board and hand alone, without their section).

    Plain text to Django: mark_safe it to put it in a Django template."""
    return render_block(FRAGMENTS_TEMPLATE, name, context)


def error_fragment(message: str) -> str:
    return render_fragment("error", {"error": message})


def seat_notice(snap: Snapshot, index: int | None) -> tuple[int | None, int]:
    """What seat `index`'s person is told of it (the match page, then its socket as it changes): (the seat while a
    bot plays it since they left a match still being played, else None; the move it was handed over at)."""
    seat = snap.seat(index) if index is not None else None
    left = seat is not None and seat.left and snap.status == Status.ACTIVE
    move = next((h["move"] for h in reversed(snap.handovers) if h["seat"] == index), 0)
    return (index if left else None, move)


def seat_notice_html(notice: tuple[int | None, int]) -> str:
    return render_fragment("seat_notice", {"left_seat": notice[0], "left_move": notice[1]})


class FragmentCache:
    """Fragments drawn for several sockets of one update, by who sees them and their selection: each drawn once;
    and the presented context they are drawn from, made once per viewer and selection."""

    def __init__(self) -> None:
        self._fragments: dict[Hashable, str] = {}
        self._contexts: dict[Hashable, Context] = {}

    def fragment(self, key: Hashable, make: Callable[[], str]) -> str:
        drawn = self._fragments.get(key)
        if drawn is None:
            drawn = self._fragments[key] = make()
        return drawn

    def context(self, key: Hashable, make: Callable[[], Context]) -> Context:
        """A viewer's presented table (a seat's two tabs, or every spectator, share one), read-only once made."""
        made = self._contexts.get(key)
        if made is None:
            made = self._contexts[key] = make()
        return made


class RenderCache(FragmentCache):
    """What the sockets of one update of a match share, each made once by the first socket that needs it: the
    match's meta, each seat's view (its log's tail), and fragments drawn for the same viewer and selection."""

    def __init__(self, snap: Snapshot, state: State | None, presence: dict[int, Presence], watchers: int) -> None:
        super().__init__()
        self.snap, self.state, self.presence, self.watchers = snap, state, presence, watchers
        self._meta: TableMeta | None = None
        self._views: dict[int | None, View | None] = {}

    @property
    def meta(self) -> TableMeta:
        if self._meta is None:
            self._meta = table_meta(self.snap, self.presence, self.watchers, self.state)
        return self._meta

    def view(self, seat: int | None) -> View | None:
        if seat not in self._views:
            view = engine_of(self.snap).view(self.state, seat) if self.state is not None else None
            self._views[seat] = page_view(view)
        return self._views[seat]


class SocketPage:
    """What one socket's page shows, so that an update sends only what changed on it.

    Which fragments changed is decided from the data each is drawn from (the view, the selection, the
    match's meta fields that redraw it), not by drawing them and comparing HTML; of the log, only the new
    entries are sent (added at the top of the list)."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """The next update draws everything (a page that connects, reconnects or moved on)."""
        self.drawn_from: dict[str, Any] = {}
        self.log_shown: int | None = None
        self.log_names: list[Any] = []  # the players' names in the log entries the page shows
        # (the viewer's turn, the match over) as last drawn; None until the page's first drawing, which says nothing.
        self.told: tuple[bool, bool] | None = None

    def update(
        self, meta: TableMeta, view: View | None, seat: int | None, ui: dict[str, Any],
        error: str = "", fragments: tuple[str, ...] = FRAGMENTS, changed_only: bool = True,
        cache: FragmentCache | None = None, zone: str = "",
    ) -> str:
        """The HTML to send: with changed_only, none of what the page shows already (an answer to the
        person's own click sends its fragments whatever they hold). `cache` holds fragments already drawn
        in this same update of the match for another socket, by who sees them, their selection and their time
        zone (`zone`, the viewer's chosen one: a correspondence match's due times are written in it)."""
        total = log_count(view)
        names = [*meta.names, meta.drawn_from("log")]
        same_names = names == self.log_names  # a player renamed: the entries shown carry the old name
        nothing_new = self.log_shown == total and same_names
        new_entries = (
            "log" in fragments and self.log_shown is not None and 0 < self.log_shown <= total
            and total - self.log_shown <= min(LOG_TAIL, len((view or {}).get("log") or [])) and same_names
        )
        log_from = self.log_shown if new_entries and self.log_shown is not None else 0
        ui_key = repr(sorted(ui.items()))
        if cache is None:
            context = table_context(meta, view, seat, ui, error=error, log_from=log_from, zone=zone)
        else:
            context = cache.context((seat, ui_key, error, log_from, zone),
                                    lambda: table_context(meta, view, seat, ui, error=error, log_from=log_from,
                                                          zone=zone))
        public_board = not ui and view is not None and kit(meta.game).board_is_public
        parts = []
        said = self.announcement(meta, view, seat, context) if "log" in fragments else ""
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
            source = drawn_from(name, context, view, ui)
            if changed_only and name in self.drawn_from and self.drawn_from[name] == source:
                continue
            self.drawn_from[name] = source
            # Only the players' fragment is written in the viewer's zone (the due times): the others stay shared.
            who = ("public" if name == "board" and public_board
                   else (seat, ui_key, error, zone if name == "players" else ""))
            key = (name, who)
            if cache is None:
                parts.append(render_fragment(name, context))
            else:
                parts.append(cache.fragment(key, lambda name=name: render_fragment(name, context)))  # type: ignore[misc]
        return "".join(parts) + said


    def announcement(self, meta: TableMeta, view: View | None, seat: int | None, context: Context) -> str:
        """What a screen reader is told of this change, in the page's live region (#announce, whose content only is
        replaced: a region drawn anew is not reliably read): the game's new log lines since the page's last drawing,
        in the log's own words, oldest first; then "Your turn." and what to do, when the turn has just come to this
        viewer; then the result and the final scores, when the match has just ended. Nothing on a page's first
        drawing (it opened, or reconnected). Called before the log's drawing moves `log_shown` on."""
        turn = bool(context.get("my_turn")) and meta.status == Status.ACTIVE
        over = meta.status in (Status.FINISHED, Status.ABORTED)
        told, self.told = self.told, (turn, over)
        if told is None or self.log_shown is None:
            return ""
        lines: list[str] = [entry["text"] for entry in reversed(new_log_lines(meta, view, seat, self.log_shown))]
        if turn and not told[0]:
            prompt = (context.get("table") or {}).get("prompt")
            lines.append(f"Your turn. {prompt}" if prompt else "Your turn.")
        if over and not told[1]:  # the result says what a closing line of the log would
            lines.append(context.get("outcome") or "This match was cancelled.")
            if meta.status == Status.FINISHED:  # the result box's final scores, as it says them
                scores = " · ".join(f"{name} {p.score}" for name, p in zip(meta.names, meta.players, strict=False))
                lines.append(f"{context['game'].score_heading}: {scores}")
        return render_fragment("announce", {"lines": lines}) if lines else ""


def new_log_lines(meta: TableMeta, view: View | None, seat: int | None, shown: int) -> list[dict[str, Any]]:
    """The log's entries from number `shown` on (newest first, as the log draws them; a handover's line among
    them), whether the page is sent them alone or the whole log drawn again (the match ended, a name changed)."""
    if view is None:
        return []
    total = log_count(view)
    if total <= shown:
        return []
    tail = view.get("log", [])[-LOG_TAIL:]
    first = total - len(tail)
    skip = max(0, shown - first)
    game = kit(meta.game)
    return log_entries(tail[skip:], first + skip, total, meta.names, seat, meta.handovers,
                       lambda text: game.words(text, view), events_from=first + skip + 1)


def drawn_from(name: str, context: Context, view: View | None, ui: dict[str, Any]) -> Any:
    """The data a fragment is drawn from: equal data, equal HTML. The meta's own part is the fields that say
    they redraw this fragment (games.play.meta.TableMeta); the rest is what the view gives."""
    meta: TableMeta = context["meta"]
    own = meta.drawn_from(name)
    if name == "players":
        return own, context["scores_now"], (view or {}).get("must_act")
    if name == "status":
        table = context.get("table") or {}
        return (own, context.get("my_turn"), context.get("waiting_on"), context.get("away"), table.get("prompt"),
                context.get("outcome"), meta.players if meta.status == Status.FINISHED else None)
    if name == "error":
        return context["error"]
    return own, view, dict(ui), context["names"]
