"""The results admin: each seat's recorded result and rating change (within a match), and player statistics."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from ..models import PlayerResult, PlayerStats


class PlayerResultInline(admin.TabularInline):
    """Each seat's recorded result and rating change (written when the match finished)."""

    model = PlayerResult
    extra = 0
    fields = ("seat", "user", "outcome", "score", "place", "rated", "rating_before", "rating_after")
    readonly_fields = fields
    can_delete = False
    verbose_name = "result and rating change"
    verbose_name_plural = "results and rating changes"

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(PlayerStats)
class PlayerStatsAdmin(admin.ModelAdmin):
    list_display = ("user", "game", "played", "won", "lost", "drawn", "streak", "best_streak", "rating_shown",
                    "rated_matches", "last_played_at")
    list_filter = ("game",)
    search_fields = ("user__username", "user__display_name")
    list_select_related = ("user",)
    ordering = ("game", "-rating")
    readonly_fields = tuple(f.name for f in PlayerStats._meta.fields)

    @admin.display(description="rating", ordering="rating")
    def rating_shown(self, row: PlayerStats) -> str:
        return f"{row.rating:.0f} ± {row.deviation:.0f}"

    def has_add_permission(self, request: HttpRequest) -> bool:
        # Statistics come from finished matches (and `manage.py rebuild_stats`), never typed in.
        return False
