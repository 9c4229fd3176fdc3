"""The matches admin: matches with their seats, moves and results, the match import, and the chat lines.

A match changes only through games.play (every change behind the version fence, and told to the live
pages), so here it is read-only but for its privacy; an administrator aborts a match or annuls a result
with the actions, which go through games.moderation and are logged with who did it (the admin's log,
shown on each object's history and under "Log entries").
"""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString

from accounts.models import User

from .. import moderation
from ..history.replay import ReplayError, import_match
from ..models import ChatMessage, Match, Move, Seat
from ..play import chat
from ..play.create import set_public
from ..play.snapshot import ServiceError
from .results import PlayerResultInline

MAX_IMPORT_BYTES = 5 * 1024 * 1024


class SeatInline(admin.TabularInline):
    """Who sits where: shown, never edited here (a seat changes only through services, behind the fence)."""

    model = Seat
    extra = 0
    fields = ("index", "user", "substitute", "invite_only", "joined_at", "final_score", "place", "last_seen")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class MoveInline(admin.TabularInline):
    """The moves are the match's record: shown, never edited (seed + options + moves replay it)."""

    model = Move
    extra = 0
    fields = ("number", "seat", "action", "note", "created_at")
    readonly_fields = fields
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ImportMatchForm(forms.Form):
    """An exported match file (or its JSON pasted), checked by replaying it before anything is stored."""

    file = forms.FileField(required=False, label="Match file (.json)")
    text = forms.CharField(required=False, label="…or the JSON itself", widget=forms.Textarea(attrs={"rows": 8}))
    rated = forms.BooleanField(required=False, initial=False, label="Count it for the players' ratings")

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        upload = data.get("file")
        if upload is not None:
            if upload.size > MAX_IMPORT_BYTES:
                raise forms.ValidationError("The file is larger than 5 MB.")
            raw = upload.read()
        elif data.get("text"):
            raw = data["text"].encode()
        else:
            raise forms.ValidationError("Choose a file or paste the JSON.")
        try:
            data["payload"] = json.loads(raw)
        except (UnicodeDecodeError, ValueError):
            raise forms.ValidationError("This is not valid JSON.") from None
        return data


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = ("id", "game", "status", "player_names", "rated", "is_public", "version", "created_at",
                    "finished_at", "replay_link")
    list_display_links = ("id", "game")
    list_filter = ("game", "status", "rated", "is_public", ("finished_at", admin.DateFieldListFilter),
                   ("created_at", admin.DateFieldListFilter))
    search_fields = ("seats__user__username", "seats__user__display_name", "=id")
    date_hierarchy = "created_at"
    ordering = ("-created_at",)
    fieldsets = (
        (None, {"fields": ("game", "players", "status", "result", "is_public", "rated", "replay_link")}),
        ("Record", {"fields": ("seed", "options", "version", "move_count", "created_by", "created_at",
                               "started_at", "finished_at", "updated_at", "rematch", "invite_code")}),
        ("Play", {"fields": ("turn_started_at", "bot_due_at", "clock", "clock_left", "clock_due_at",
                             "rematch_votes", "rematch_declined", "handovers"), "classes": ("collapse",)}),
        # The engine's state holds every hidden hand and the deck: folded away, and never editable.
        ("Engine state", {"fields": ("state",), "classes": ("collapse",)}),
    )
    # Everything but the privacy flag: the rest changes only through games.play, behind the version fence.
    readonly_fields = (*(f.name for f in Match._meta.concrete_fields if f.name not in ("id", "is_public")),
                       "replay_link")
    inlines = (SeatInline, PlayerResultInline, MoveInline)
    change_list_template = "admin/games/match/change_list.html"
    actions = ("abort_matches", "annul_results")

    def get_queryset(self, request: HttpRequest) -> QuerySet[Match]:
        return super().get_queryset(request).prefetch_related("seats__user")

    def add_view(self, request: HttpRequest, form_url: str = "", extra_context: Any = None) -> HttpResponse:
        # A match is created by services (or imported, replayed move by move), never typed in.
        return HttpResponseRedirect(reverse("admin:games_match_import"))

    def change_view(self, request: HttpRequest, object_id: str, form_url: str = "",
                    extra_context: dict[str, Any] | None = None) -> HttpResponse:
        # "Add another" leads to the import page (add_view), not to a blank match.
        extra_context = {**(extra_context or {}), "show_save_and_add_another": False}
        return super().change_view(request, object_id, form_url, extra_context)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        """Superusers only, and only a match that counts for nothing (aborted, or its result annulled):
        deleting a live match would pull it from under its players, a finished one would leave its
        ratings behind. Abort or annul first."""
        if not (request.user.is_superuser and super().has_delete_permission(request, obj)):
            return False
        return obj is None or obj.status == Match.Status.ABORTED or bool((obj.result or {}).get("annulled"))

    def get_actions(self, request: HttpRequest) -> dict[str, Any]:
        actions = super().get_actions(request)
        # The bulk delete would skip the per-match check above.
        actions.pop("delete_selected", None)
        return actions

    def save_model(self, request: HttpRequest, obj: Match, form: Any, change: bool) -> None:
        set_public(match_id=obj.pk, is_public=obj.is_public)

    # Each moderation action has its own permission (games.Match's Meta), so that a helper may, say, abort
    # matches without annulling results; the admin offers an action only with its permission, and refuses it
    # otherwise (a forged POST of an action not offered does nothing).
    def has_abort_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("games.abort_match")

    def has_annul_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("games.annul_result")

    @admin.action(description="Abort the selected matches (unrated, in nobody's history)", permissions=["abort"])
    def abort_matches(self, request: HttpRequest, queryset: QuerySet[Match]) -> None:
        self._moderate(request, queryset, moderation.abort_match,
                       "Moderation: aborted the match (unrated, in nobody's history or statistics).", "Aborted")

    @admin.action(description="Annul the selected finished matches' results (ratings recomputed)",
                  permissions=["annul"])
    def annul_results(self, request: HttpRequest, queryset: QuerySet[Match]) -> None:
        self._moderate(request, queryset, moderation.annul_result,
                       "Moderation: annulled the result (ratings and statistics recomputed without it).", "Annulled")

    def _moderate(self, request: HttpRequest, queryset: QuerySet[Match], act: Any, log: str, done: str) -> None:
        names = []
        for match in queryset.order_by("finished_at", "pk"):
            try:
                act(match.pk)
            except ServiceError as error:
                messages.error(request, f"{match}: {error}")
                continue
            self.log_change(request, match, log)
            names.append(str(match))
        if names:
            messages.success(request, f"{done}: {', '.join(names)}.")

    def get_search_results(self, request: HttpRequest, queryset: QuerySet[Match], search_term: str
                           ) -> tuple[QuerySet[Match], bool]:
        # Searching across seats can list a match once per matching seat.
        results, _ = super().get_search_results(request, queryset, search_term)
        return results.distinct(), False

    @admin.display(description="players")
    def player_names(self, match: Match) -> str:
        return " vs ".join(seat.user.name if seat.user else "open" for seat in match.seats.all())

    @admin.display(description="replay")
    def replay_link(self, match: Match) -> SafeString | str:
        if match.state is None or match.status not in (Match.Status.ACTIVE, Match.Status.FINISHED):
            return "—"
        return format_html('<a href="{}">Replay</a>', reverse("replay", args=[match.pk]))

    def get_urls(self) -> list[URLPattern]:
        own = [path("import/", self.admin_site.admin_view(self.import_view), name="games_match_import")]
        return own + super().get_urls()

    def import_view(self, request: HttpRequest) -> HttpResponse:
        """Import an exported match: replayed action by action, refused unless every action replays. Needs the
        permission to add matches (admin_view lets in any staff member)."""
        if not self.has_add_permission(request):
            raise PermissionDenied
        form = ImportMatchForm(request.POST or None, request.FILES or None)
        if request.method == "POST" and form.is_valid():
            try:
                creator = request.user
                assert isinstance(creator, User)  # the admin site lets staff in only
                match = import_match(form.cleaned_data["payload"], creator=creator,
                                     rated=form.cleaned_data["rated"])
            except ReplayError as error:
                form.add_error(None, str(error))
            else:
                messages.success(request, f"Imported {match}: every action replayed.")
                return HttpResponseRedirect(reverse("admin:games_match_change", args=[match.pk]))
        context = {
            **self.admin_site.each_context(request),
            "title": "Import a match",
            "form": form,
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "admin/games/match/import.html", context)


@admin.register(ChatMessage)
class ChatMessageAdmin(admin.ModelAdmin):
    """Chat lines are evidence: read-only; an administrator hides a line (it leaves every page at once)."""

    list_display = ("created_at", "match", "room", "user", "text", "hidden", "hidden_by")
    list_filter = ("hidden", "room")
    search_fields = ("text", "user__username")
    raw_id_fields = ("match", "user")
    readonly_fields = ("match", "user", "room", "text", "created_at", "hidden", "hidden_by")
    actions = ("hide_lines",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_hide_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("games.hide_chatmessage")

    @admin.action(description="Hide the selected lines from every page", permissions=["hide"])
    def hide_lines(self, request: HttpRequest, queryset: QuerySet[ChatMessage]) -> None:
        ids = list(queryset.filter(hidden=False).values_list("pk", flat=True))
        hidden = chat.hide(queryset, by=request.user)
        for message in ChatMessage.objects.filter(pk__in=ids):
            self.log_change(request, message, "Moderation: hid the chat line")
        self.message_user(request, f"{hidden} line(s) hidden.", messages.SUCCESS)
