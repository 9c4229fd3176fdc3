"""The lobby page's two parts, drawn by Jinja2 (templates/jinja2/games/lobby.html): the create forms, and the
lists of matches that the page shows and its socket redraws as matches open, fill and finish.

Django's templates drew them in 20 ms for an empty club, nine times the sign-in page, mostly the forms'
widgets (issue 20); the page (games/lobby.html) is still a Django template, around these two parts.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from accounts.models import Viewer

from ..boards import Sitter, is_clocked, refusal, sitter_of
from ..catalog import GAMES
from ..core.jinja import render_block
from ..core.web import Link
from ..models import Match
from . import queries
from .forms import CreateMatchForm, FieldView, all_forms, field_view

TEMPLATE = "games/lobby.html"


@dataclass(frozen=True)
class CreateForm:
    """One game's create form as the lobby lays it out: every value made, every field ready to draw."""

    slug: str
    name: str
    players_text: str  # "2 players", "1–6 players"
    blurb: str
    rules_url: str
    action_url: str
    open: bool
    errors: list[str]  # the form's own (a service's refusal), not a field's
    players: FieldView
    seats: list[FieldView]
    bot_blurbs: list[tuple[str, str, str]]  # (title, measured rating or "", how it plays)
    options: list[FieldView]
    is_public: FieldView
    rated: FieldView
    clock: FieldView
    clock_minutes: FieldView
    clock_increment: FieldView
    clock_turn: FieldView
    clock_days: FieldView


def create_form(form: CreateMatchForm, *, open_game: str, rules: Link, create: Link) -> CreateForm:
    info = form.info
    low, high = info.engine.min_players, info.engine.max_players
    return CreateForm(
        slug=info.slug,
        name=info.name,
        players_text=f"{low} players" if low == high else f"{low}–{high} players",
        blurb=info.blurb,
        rules_url=rules(info.slug),
        action_url=create(info.slug),
        open=open_game == info.slug,
        errors=[str(error) for error in form.non_field_errors()],
        players=field_view(form["players"]),
        seats=[field_view(field) for field in form.seat_fields],
        bot_blurbs=form.bot_blurbs,
        options=[field_view(field) for field in form.option_fields],
        is_public=field_view(form["is_public"]),
        rated=field_view(form["rated"]),
        clock=field_view(form["clock"]),
        clock_minutes=field_view(form["clock_minutes"]),
        clock_increment=field_view(form["clock_increment"]),
        clock_turn=field_view(form["clock_turn"]),
        clock_days=field_view(form["clock_days"]),
    )


def create_forms_html(forms: list[CreateMatchForm] | None, *, open_game: str, signed_in: bool,
                      csrf_token: str) -> SafeString:
    """The "Start a match" forms, one per game (None: every game's, blank); the one of open_game (else the first)
    unfolded."""
    if forms is None:
        # Nothing typed in them: the same drawing as every other page's but for the person's CSRF token.
        return mark_safe(escape(csrf_token).join(_blank_forms(open_game or next(iter(GAMES), ""), signed_in)))
    open_game = open_game or (forms[0].info.slug if forms else "")
    return _draw_forms(forms, open_game=open_game, signed_in=signed_in, csrf_token=csrf_token)


# Where the CSRF token goes in the blank forms' drawing (a CSRF token is letters and digits only).
_TOKEN_SLOT = "{csrf-token}"


@lru_cache(maxsize=32)
def _blank_forms(open_game: str, signed_in: bool) -> tuple[str, ...]:
    """The blank create forms drawn once a process, split where the CSRF token goes: they are made from the
    catalog alone (the games, their options, bot levels and measured ratings, all fixed while the process
    runs), and drawing them took ~5 ms of every lobby page (issue 47). Keyed by all else they are drawn from."""
    html = _draw_forms(all_forms(), open_game=open_game, signed_in=signed_in, csrf_token=_TOKEN_SLOT)
    return tuple(html.split(_TOKEN_SLOT))


def _draw_forms(forms: list[CreateMatchForm], *, open_game: str, signed_in: bool, csrf_token: str) -> SafeString:
    rules, create = Link("rules"), Link("create_match")
    return mark_safe(render_block(TEMPLATE, "create", {
        "forms": [create_form(form, open_game=open_game, rules=rules, create=create) for form in forms],
        "signed_in": signed_in,
        "csrf_token": csrf_token,
    }))


def lists_html(user: Viewer, csrf_token: str, *, sitter: Sitter | None = None) -> SafeString:
    """The three lists (#lobby-lists): this person's matches, those waiting for players, those to watch, each
    match with the URLs its line links to (one reverse() per URL name, games.core.web.Link)."""
    lists = queries.lobby_lists(user)
    page, join = Link("match", numeric=True), Link("join_match", numeric=True)
    cancel, abandon = Link("cancel_match", numeric=True), Link("abandon_match", numeric=True)
    for matches in lists.values():
        for match in matches:
            match.page_url, match.join_url = page(match.pk), join(match.pk)
            match.cancel_url, match.abandon_url = cancel(match.pk), abandon(match.pk)
    join_refusals(user, lists["open_matches"], sitter=sitter)
    return mark_safe(render_block(TEMPLATE, "lists", {**lists, "csrf_token": csrf_token}))


def join_refusals(user: Viewer, matches: list[Match], *, sitter: Sitter | None = None) -> None:
    """The gate's answer for each open match, as match.join_refusal: its reason takes the place of a Join that
    would only be refused. One read of the person's board (none when the page passes the one it read for the
    grid); the open matches' clocks (left out of the lists' rows) are read, in one query, only for a person who
    holds one."""
    if sitter is None and user.is_authenticated:
        sitter = sitter_of(user)
    clocks: dict[int, Any] = {}
    if sitter is not None and sitter.held is not None and matches:
        clocks = dict(Match.objects.filter(pk__in=[m.pk for m in matches]).values_list("pk", "clock"))
    for match in matches:
        reason = refusal(sitter, clocked=is_clocked(clocks.get(match.pk)), match_id=match.pk) if sitter else None
        match.join_refusal = reason or ""
