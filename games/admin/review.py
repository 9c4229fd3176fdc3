"""The analysis queue's admin (read-only)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from ..models import AnalysisJob


@admin.register(AnalysisJob)
class AnalysisJobAdmin(admin.ModelAdmin):
    """The analysis queue, to look at: workers write it (manage.py run_analysis), people ask on the replay."""

    list_display = ("match", "state", "done", "total", "attempts", "worker", "lease_until", "created_at",
                    "finished_at")
    list_filter = ("state",)
    raw_id_fields = ("match", "requested_by")
    readonly_fields = tuple(f.name for f in AnalysisJob._meta.fields)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
