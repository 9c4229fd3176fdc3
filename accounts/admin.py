"""The user admin: Django's, plus the display name, a picture preview and the bot fields; suspending and
reinstating people (games.moderation), logged with who did it; the admin's log, read-only."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.models import LogEntry
from django.contrib.admin.widgets import AdminFileWidget
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.contrib.auth.forms import AdminUserCreationForm, UserChangeForm
from django.core.files.base import ContentFile
from django.core.files.uploadedfile import UploadedFile
from django.db.models import QuerySet
from django.db.models.fields.files import FieldFile
from django.http import HttpRequest
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import SafeString

from games.moderation import suspend_user, unsuspend_user

from .avatars import AvatarError, process_avatar
from .forms import refuse_taken_names
from .models import ApiToken, User


class AdminUserChangeForm(UserChangeForm):
    """Uploads through the admin get the same checks and re-encoding as the profile page."""

    # A plain file field: our own checks (size first, header before pixels) give the clear messages.
    avatar = forms.FileField(required=False, widget=AdminFileWidget)

    class Meta(UserChangeForm.Meta):
        model = User
        fields = "__all__"

    def clean_avatar(self) -> Any:
        avatar = self.cleaned_data.get("avatar")
        if isinstance(avatar, UploadedFile):
            try:
                processed = process_avatar(avatar, avatar.size)
            except AvatarError as exc:
                raise forms.ValidationError(str(exc), code="invalid_avatar") from exc
            # The model's upload_to gives it a fresh name; only the extension is kept.
            return ContentFile(processed.content, name=f"avatar.{processed.extension}")
        return avatar

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        refuse_taken_names(self, user=self.instance, username=cleaned.get("username"),
                           display_name=cleaned.get("display_name", ""))
        return cleaned


class AdminUserAddForm(AdminUserCreationForm):
    """Django's add-user form with the display name and email on it too."""

    class Meta(AdminUserCreationForm.Meta):
        model = User
        fields = ("username", "display_name", "email")

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        refuse_taken_names(self, user=None, username=cleaned.get("username"),
                           display_name=cleaned.get("display_name", ""))
        return cleaned


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    form = AdminUserChangeForm
    add_form = AdminUserAddForm
    list_display = ("avatar_thumbnail", "username", "display_name", "email", "is_bot", "program", "owner",
                    "is_staff", "suspended", "date_joined")
    list_display_links = ("avatar_thumbnail", "username")
    list_filter = ("is_bot", "program", "bot_game", "is_staff", "is_superuser", "is_active", "date_joined")
    search_fields = ("username", "display_name", "email", "first_name", "last_name")
    ordering = ("username",)
    readonly_fields = ("avatar_preview", "last_login", "date_joined")
    raw_id_fields = ("owner",)
    actions = ("suspend_users", "unsuspend_users")
    fieldsets = (
        (None, {"fields": ("username", "password")}),
        ("Profile", {"fields": ("display_name", "email", "avatar_preview", "avatar", "first_name", "last_name")}),
        ("Bot", {"fields": ("is_bot", "bot_game", "bot_level", "program", "owner"), "classes": ("collapse",)}),
        (
            "Permissions",
            {
                "fields": ("is_active", "is_staff", "is_superuser", "groups", "user_permissions"),
                "description": "Unticking “Active” suspends the person (see the “Suspend” action).",
            },
        ),
        ("Important dates", {"fields": ("last_login", "date_joined")}),
    )
    add_fieldsets = (
        (
            None,
            {
                "classes": ("wide",),
                "fields": ("username", "display_name", "email", "usable_password", "password1", "password2"),
            },
        ),
    )

    @admin.display(description="Picture")
    def avatar_thumbnail(self, obj: User) -> SafeString:
        return format_html('<img src="{}" alt="" width="32" height="32" class="avatar">', obj.avatar_url)

    @admin.display(description="Current picture")
    def avatar_preview(self, obj: User) -> SafeString:
        kind = "uploaded" if obj.avatar else "generated"
        return format_html(
            '<img src="{}" alt="" width="96" height="96" class="avatar"><br>{} picture', obj.avatar_url, kind
        )

    @admin.display(description="Suspended", boolean=True, ordering="is_active")
    def suspended(self, obj: User) -> bool:
        return not obj.is_active

    def save_model(self, request: Any, obj: User, form: forms.ModelForm, change: bool) -> None:
        """Delete the replaced or cleared picture file once the new one is saved; unticking "Active" suspends
        the person as the action does (signed out, live matches ended), ticking it reinstates them."""
        old_name = ""
        if change and "avatar" in form.changed_data:
            old = form.initial.get("avatar")
            old_name = (old.name or "") if isinstance(old, FieldFile) else str(old or "")
        super().save_model(request, obj, form, change)
        if old_name and old_name != obj.avatar.name:
            obj.avatar.storage.delete(old_name)
        if change and "is_active" in form.changed_data and not obj.is_bot and self.has_suspend_permission(request):
            if obj.is_active:
                self._reinstate(request, obj)
            else:
                self._suspend(request, obj)

    def has_suspend_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("accounts.suspend_user")

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        """"Active" suspends or reinstates the person (save_model): only with the permission to suspend."""
        fields = tuple(super().get_readonly_fields(request, obj))
        if obj is not None and not self.has_suspend_permission(request):
            fields += ("is_active",)
        return fields

    @admin.action(description="Suspend the selected people (sign out, end their matches, block sign-in)",
                  permissions=["suspend"])
    def suspend_users(self, request: HttpRequest, queryset: QuerySet[User]) -> None:
        for user in queryset:
            if user.pk == request.user.pk:
                messages.error(request, "You can't suspend yourself.")
            elif user.is_bot:
                messages.error(request, f"{user.username}: bots can't be suspended.")
            elif user.is_superuser and not request.user.is_superuser:
                messages.error(request, f"{user.username}: only a superuser can suspend a superuser.")
            elif not user.is_active:
                messages.info(request, f"{user.username} is suspended already.")
            else:
                self._suspend(request, user)

    @admin.action(description="Lift the selected people's suspension", permissions=["suspend"])
    def unsuspend_users(self, request: HttpRequest, queryset: QuerySet[User]) -> None:
        for user in queryset.filter(is_active=False, is_bot=False):
            self._reinstate(request, user)

    def _suspend(self, request: HttpRequest, user: User) -> None:
        done = suspend_user(user)
        summary = (f"signed out of {done['sessions']} session(s), {done['ended']} match(es) in progress ended "
                   f"with their loss, left {done['left']} waiting match(es), withdrawn from "
                   f"{done['tournaments']} tournament(s), {done['seeks']} seek(s) and {done['challenges']} "
                   "challenge(s) withdrawn")
        self.log_change(request, user, f"Moderation: suspended ({summary}).")
        messages.success(request, f"Suspended {user.username}: {summary}.")

    def _reinstate(self, request: HttpRequest, user: User) -> None:
        unsuspend_user(user)
        self.log_change(request, user, "Moderation: suspension lifted.")
        messages.success(request, f"{user.username} may sign in again.")


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """The Bot API's tokens: their names, scopes and use, never their keys (only hashes are stored); revocable."""

    list_display = ("name", "user", "prefix", "scopes", "created_at", "last_used_at", "revoked_at")
    list_filter = (("revoked_at", admin.EmptyFieldListFilter),)
    search_fields = ("name", "prefix", "user__username")
    list_select_related = ("user",)
    readonly_fields = ("user", "prefix", "key_hash", "created_at", "last_used_at", "revoked_at")
    fields = ("user", "name", "scopes", "prefix", "key_hash", "created_at", "last_used_at", "revoked_at")
    actions = ("revoke_tokens",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # made by their owner at /bots/ (shown once) or by manage.py bot_token

    @admin.action(description="Revoke the selected tokens")
    def revoke_tokens(self, request: HttpRequest, queryset: QuerySet[ApiToken]) -> None:
        count = queryset.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())
        messages.success(request, f"Revoked {count} token(s).")


@admin.register(LogEntry)
class LogEntryAdmin(admin.ModelAdmin):
    """The admin's own log, moderation included ("Moderation: ..."): who did what to which object, read-only."""

    list_display = ("action_time", "user", "content_type", "object_repr", "action_flag", "change_message")
    list_filter = ("action_flag", "content_type", ("action_time", admin.DateFieldListFilter))
    search_fields = ("object_repr", "change_message", "user__username")
    list_select_related = ("user", "content_type")
    date_hierarchy = "action_time"
    ordering = ("-action_time",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
