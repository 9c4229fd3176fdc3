"""The user admin: Django's, plus the display name, a picture preview and the bot fields."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.admin.widgets import AdminFileWidget
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.contrib.auth.forms import AdminUserCreationForm, UserChangeForm
from django.core.files.base import ContentFile
from django.core.files.uploadedfile import UploadedFile
from django.db.models.fields.files import FieldFile
from django.utils.html import format_html
from django.utils.safestring import SafeString

from .avatars import AvatarError, process_avatar
from .models import User


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


class AdminUserAddForm(AdminUserCreationForm):
    """Django's add-user form with the display name and email on it too."""

    class Meta(AdminUserCreationForm.Meta):
        model = User
        fields = ("username", "display_name", "email")


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    form = AdminUserChangeForm
    add_form = AdminUserAddForm
    list_display = ("avatar_thumbnail", "username", "display_name", "email", "is_bot", "is_staff", "date_joined")
    list_display_links = ("avatar_thumbnail", "username")
    list_filter = ("is_bot", "bot_game", "is_staff", "is_superuser", "is_active", "date_joined")
    search_fields = ("username", "display_name", "email", "first_name", "last_name")
    ordering = ("username",)
    readonly_fields = ("avatar_preview", "last_login", "date_joined")
    fieldsets = (
        (None, {"fields": ("username", "password")}),
        ("Profile", {"fields": ("display_name", "email", "avatar_preview", "avatar", "first_name", "last_name")}),
        ("Bot", {"fields": ("is_bot", "bot_game", "bot_level"), "classes": ("collapse",)}),
        (
            "Permissions",
            {"fields": ("is_active", "is_staff", "is_superuser", "groups", "user_permissions")},
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

    def save_model(self, request: Any, obj: User, form: forms.ModelForm, change: bool) -> None:
        """Delete the replaced or cleared picture file once the new one is saved."""
        old_name = ""
        if change and "avatar" in form.changed_data:
            old = form.initial.get("avatar")
            old_name = old.name if isinstance(old, FieldFile) else str(old or "")
        super().save_model(request, obj, form, change)
        if old_name and old_name != obj.avatar.name:
            obj.avatar.storage.delete(old_name)
