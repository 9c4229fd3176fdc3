"""The tournaments admin: created through the service (the same checks as the site's form), then read-only but for
the name."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from accounts.models import User

from ..models import Entrant, Tournament
from ..play.snapshot import ServiceError
from ..tournaments import services as tournament_services


class TournamentForm(forms.ModelForm):
    clock_key = forms.ChoiceField(label="Clock", choices=[(key, label) for key, (label, _) in
                                                          tournament_services.CLOCKS.items()])

    class Meta:
        model = Tournament
        fields = ("name", "kind", "game", "table_size", "clock_key", "starts_at", "minutes", "rounds", "rated",
                  "is_private")
        help_texts = {"minutes": "An arena's length.", "rounds": "A Swiss's rounds.",
                      "is_private": "Listed nowhere; joined with its invite link."}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.creator: User | None = kwargs.pop("creator", None)
        super().__init__(*args, **kwargs)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if self.errors:
            return data
        try:
            self.checked = tournament_services.check_new(
                creator=self.creator, kind=data["kind"], game=data["game"], clock_key=data["clock_key"],
                starts_at=data["starts_at"], table_size=data["table_size"], minutes=data.get("minutes"),
                rounds=data.get("rounds"), name=data.get("name", ""), is_private=data.get("is_private", False),
            )
        except ServiceError as error:
            raise forms.ValidationError(str(error)) from None
        return data


class EntrantInline(admin.TabularInline):
    model = Entrant
    extra = 0
    can_delete = False
    fields = ("user", "score", "streak", "place", "paused", "withdrawn", "match")
    readonly_fields = fields
    ordering = ("place", "-score")

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    """Staff schedule public tournaments here (the hourly arenas come from `manage.py create_arenas`)."""

    list_display = ("name", "kind", "game", "starts_at", "status", "is_private", "entrant_count")
    list_filter = ("status", "kind", "game", "is_private")
    search_fields = ("name",)
    inlines = [EntrantInline]
    actions = ["rebuild_standings"]

    def get_form(self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any) -> Any:
        if obj is not None:
            return super().get_form(request, obj, change=change, **kwargs)
        form = super().get_form(request, obj, change=change, form=TournamentForm, **kwargs)

        class WithCreator(form):  # type: ignore[valid-type, misc]
            def __init__(self, *args: Any, **kw: Any) -> None:
                super().__init__(*args, creator=request.user, **kw)

        return WithCreator

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        if obj is None:
            return ()
        return [f.name for f in Tournament._meta.fields if f.name not in ("name",)]

    def save_model(self, request: HttpRequest, obj: Tournament, form: Any, change: bool) -> None:
        if change:
            Tournament.objects.filter(pk=obj.pk).update(name=obj.name)  # nothing else changes after creation
            return
        data = form.cleaned_data
        created = tournament_services.create_tournament(
            creator=request.user, kind=data["kind"], game=data["game"], clock_key=data["clock_key"],  # type: ignore[arg-type]
            starts_at=data["starts_at"], table_size=data["table_size"], minutes=data.get("minutes"),
            rounds=data.get("rounds"), name=data.get("name", ""), is_private=data.get("is_private", False),
            rated=data.get("rated", True),
        )
        obj.pk = created.pk
        obj.refresh_from_db()

    @admin.display(description="players")
    def entrant_count(self, obj: Tournament) -> int:
        return obj.entrants.count()

    @admin.action(description="Rebuild the standings from the matches")
    def rebuild_standings(self, request: HttpRequest, queryset: QuerySet[Tournament]) -> None:
        changed = sum(tournament_services.rebuild(t.pk) for t in queryset)
        self.message_user(request, f"Rebuilt {queryset.count()} tournaments ({changed} entrants changed).",
                          messages.SUCCESS)
