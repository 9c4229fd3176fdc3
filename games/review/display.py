"""What the replay shows of a match's analysis: its progress, each seat's accuracy, the marked moves with the
better move in the site's words, and a small chart of the estimate over the match (numbers an SVG template
draws, like games.history.charts). Plain data; the templates only lay it out.

The moves' words are the log's own: a marked decision's played move and better move are each applied to the
position before it, and the public log entries they add are kept, in the game's words (its kit's ``words``)
with the seats still as {sN} tokens (names are put in when shown: a renamed player's analysis follows). They
are worked out once, by the worker, and stored with the result (``word_marks``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from django.urls import reverse
from django.utils.safestring import SafeString

from ..catalog import kit
from ..models import AnalysisJob, Match
from ..play.wording import distinct_names, format_event
from ..results import OUTCOME_LABELS, Outcome
from . import jobs

MARK_LABELS = {"inaccuracy": "Inaccuracy", "mistake": "Mistake", "blunder": "Blunder"}
MARK_SYMBOLS = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}
LONG_ENTRY = 140  # a log sentence longer than this is cut at its first colon (Ruhd's points explained)

CHART_WIDTH = 480
CHART_HEIGHT = 150
CHART_LEFT = 42
CHART_RIGHT = 8
CHART_TOP = 8
CHART_BOTTOM = 22


# ---------------------------------------------------------------------------------------------------------
# The moves in words (worked out by the worker, stored with the result)


def _entries(engine: Any, words: Any, state: Any, seat: int, action: Any) -> str:
    """The public log's sentence for this seat's action in the position, in the game's words ({sN} tokens kept)."""
    seen = len(engine.view(state, None).get("log") or [])
    after = engine.apply(state, seat, action)
    view = engine.view(after, None)
    for entry in (view.get("log") or [])[seen:]:
        text = words(str(entry.get("text", "")), view)
        if not text.startswith(f"{{s{seat}}}"):
            continue  # what the game did meanwhile (whose turn it is, a refill) is not the move
        if len(text) > LONG_ENTRY and ": " in text:
            text = text.split(": ", 1)[0] + "."
        return text  # the move itself; what follows (drawing a card) is its consequence
    return ""


def word_marks(game: str, players: int, seed: int, options: dict[str, Any] | None,
               actions: Sequence[tuple[int, Any]], decisions: list[dict[str, Any]]) -> None:
    """Add "played_text" and "better_text" to each marked decision (in place): one replay of the match."""
    wanted = {d["ply"]: d for d in decisions if d.get("mark")}
    if not wanted:
        return
    game_kit = kit(game)
    engine, words = game_kit.engine, game_kit.words
    state = engine.new_game(players, seed=seed, options=options or None)
    for ply, (seat, action) in enumerate(actions):
        decision = wanted.get(ply)
        if decision is not None:
            decision["played_text"] = _entries(engine, words, state, seat, action)
            better = decision.get("better")
            if better is None:
                decision["better_text"] = game_kit.analysis.let_go_text(seat)
            else:
                try:
                    decision["better_text"] = _entries(engine, words, state, seat, better)
                except ValueError:  # never expected: the better move was one of the seat's options
                    decision["better_text"] = ""
        if ply >= max(wanted):
            return
        state = engine.apply(state, seat, action)


# ---------------------------------------------------------------------------------------------------------
# The panel


@dataclass
class SeatLine:
    seat: int
    name: str
    accuracy: str  # "87.4", or "–" for a seat without a decision
    decisions: int
    inaccuracies: int
    mistakes: int
    blunders: int
    outcome: str = ""  # the seat's result from its place (games.results): won, drawn, lost, solo

    @property
    def outcome_label(self) -> str:
        return OUTCOME_LABELS.get(self.outcome, "")


@dataclass
class MarkLine:
    ply: int
    number: int  # the move's number in the replay (ply + 1)
    url: str
    seat: int
    name: str
    mark: str
    label: str
    symbol: str
    loss: str  # the win chance lost, in percentage points
    played: SafeString
    better: SafeString


@dataclass
class AnalysisPanel:
    """The replay's analysis section for one match (and, on a page, one step of it)."""

    match_id: int
    state: str  # "none", or an AnalysisJob.State
    percent: int = 0
    done: int = 0
    total: int = 0
    can_request: bool = False  # the viewer may press "Analyse" (signed in; none yet, or it failed)
    sign_in: bool = False  # an anonymous visitor could have it analysed after signing in
    refusal: str = ""  # why this match can't be analysed
    error: str = ""
    seats: list[SeatLine] = field(default_factory=list)
    marks: list[MarkLine] = field(default_factory=list)
    chart: dict[str, Any] | None = None
    here: MarkLine | None = None  # the mark of the step shown, if any
    here_analysed: bool = False  # the step shown is an analysed decision (marked or not)
    decisions: int = 0
    skipped: int = 0
    game_notes: str = ""

    @property
    def pending(self) -> bool:
        return self.state in (AnalysisJob.State.QUEUED, AnalysisJob.State.RUNNING)

    @property
    def finished(self) -> bool:
        return self.state == AnalysisJob.State.DONE


def names_of(match: Match) -> list[str]:
    """The seats' names as the replay's log gives them."""
    seats = list(match.seats.select_related("user").order_by("index"))
    names = distinct_names([seat.user.name if seat.user else "" for seat in seats])
    return [name or f"Seat {index + 1}" for index, name in enumerate(names)]


def step_url(match_id: int, number: int, params: Mapping[str, str]) -> str:
    query = {key: value for key, value in params.items() if value}
    query["move"] = str(number)
    return f"{reverse('replay', args=[match_id])}?{urlencode(query)}"


def panel(match: Match, job: AnalysisJob | None, names: list[str], *, viewer: Any = None,
          number: int | None = None, params: Mapping[str, str] | None = None) -> AnalysisPanel:
    """The analysis section: `viewer` decides the "Analyse" button (None: a broadcast to every watcher, which
    never shows it), `number` the step shown (None: no step, as in a broadcast), `params` the replay's query
    (perspective, invite code) its links keep."""
    params = params or {}
    why = jobs.refusal(match)
    signed_in = bool(viewer is not None and viewer.is_authenticated)
    state = job.state if job is not None else "none"
    out = AnalysisPanel(match_id=match.pk, state=state, refusal=why)
    failed = state == AnalysisJob.State.FAILED
    out.can_request = signed_in and not why and (job is None or failed)
    out.sign_in = viewer is not None and not signed_in and not why and job is None
    if job is None:
        return out
    out.done, out.total, out.percent = job.done, job.total, job.percent
    if failed:
        out.error = job.error or "The analysis failed."
        return out
    if state != AnalysisJob.State.DONE or not job.result:
        return out
    result = job.result
    out.percent = 100
    out.game_notes = kit(match.game).analysis.note
    decisions = result.get("decisions") or []
    out.decisions = len(decisions)
    out.skipped = sum((result.get("skipped") or {}).values())

    def name(seat: int) -> str:
        return names[seat] if seat < len(names) else f"Seat {seat + 1}"

    outcome = Outcome.of(match.result, match.players)
    for s in result.get("seats") or []:
        if s["seat"] >= match.players:
            continue
        out.seats.append(SeatLine(
            outcome=(outcome.of_seat(s["seat"]) if outcome is not None else None) or "",
            seat=s["seat"], name=name(s["seat"]),
            accuracy="–" if s.get("accuracy") is None else f"{s['accuracy']:.1f}", decisions=s["decisions"],
            inaccuracies=s["inaccuracies"], mistakes=s["mistakes"], blunders=s["blunders"],
        ))
    for d in decisions:
        mark = d.get("mark")
        here = number is not None and d["ply"] == number - 1
        if here:
            out.here_analysed = True
        if not mark:
            continue
        line = MarkLine(
            ply=d["ply"], number=d["ply"] + 1, url=step_url(match.pk, d["ply"] + 1, params), seat=d["seat"],
            name=name(d["seat"]), mark=mark, label=MARK_LABELS.get(mark, mark), symbol=MARK_SYMBOLS.get(mark, ""),
            loss=f"{100 * float(d.get('cost', 0)):.0f}",
            played=format_event(d.get("played_text") or "", names, None),
            better=format_event(d.get("better_text") or "", names, None),
        )
        out.marks.append(line)
        if here:
            out.here = line
    out.chart = chart(decisions, match.move_count, match.players, names, number)
    return out


def chart(decisions: list[dict[str, Any]], moves: int, players: int, names: list[str],
          number: int | None) -> dict[str, Any] | None:
    """Each seat's estimated win chance after each of its decisions (as it could see the game), over the match's
    moves; the marked decisions as dots; a cursor at the step shown."""
    if not decisions:
        return None
    inner_w = CHART_WIDTH - CHART_LEFT - CHART_RIGHT
    inner_h = CHART_HEIGHT - CHART_TOP - CHART_BOTTOM
    span = max(1, moves)

    def x(move: float) -> float:
        return CHART_LEFT + inner_w * move / span

    def y(value: float) -> float:
        return CHART_TOP + inner_h * (1 - max(0.0, min(1.0, value)))

    lines = []
    dots = []
    for seat in range(players):
        mine = [d for d in decisions if d["seat"] == seat]
        if not mine:
            continue
        points = " ".join(f"{x(d['ply'] + 1):.1f},{y(float(d['value_played'])):.1f}" for d in mine)
        label = names[seat] if seat < len(names) else f"Seat {seat + 1}"
        lines.append({"seat": seat, "points": points, "name": label,
                      "single": len(mine) == 1, "x": f"{x(mine[0]['ply'] + 1):.1f}",
                      "y": f"{y(float(mine[0]['value_played'])):.1f}"})
        for d in mine:
            if d.get("mark"):
                dots.append({"seat": seat, "mark": d["mark"], "x": f"{x(d['ply'] + 1):.1f}",
                             "y": f"{y(float(d['value_played'])):.1f}",
                             "title": f"Move {d['ply'] + 1}, {label}: {MARK_LABELS.get(d['mark'], d['mark'])}"})
    ticks = [{"label": f"{round(v * 100)}%", "y": f"{y(v):.1f}"} for v in (0.0, 0.5, 1.0)]
    cursor = f"{x(number):.1f}" if number is not None and 0 < number <= moves else None
    return {
        "width": CHART_WIDTH, "height": CHART_HEIGHT, "left": CHART_LEFT, "right": CHART_WIDTH - CHART_RIGHT,
        "top": CHART_TOP, "bottom": CHART_HEIGHT - CHART_BOTTOM, "label_x": CHART_LEFT - 6,
        "label_y": CHART_HEIGHT - 6, "lines": lines, "dots": dots, "ticks": ticks, "cursor": cursor,
        "moves": moves,
    }

