"""Forms for signing up and editing one's profile; everything else uses Django's own auth forms."""

from __future__ import annotations

import unicodedata
from typing import Any

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.core.files.uploadedfile import UploadedFile

from .avatars import ALLOWED_CONTENT_TYPES, AvatarError, ProcessedAvatar, process_avatar
from .models import User


def clean_display_name(value: str) -> str:
    """Trim, fold runs of spaces, and refuse control or invisible characters that could fake another name."""
    value = " ".join(value.split())
    for char in value:
        if unicodedata.category(char) in {"Cc", "Cf", "Co", "Cs"}:
            raise forms.ValidationError("Use letters, digits, spaces and punctuation only.")
    return value


SUSPENDED_MESSAGE = (
    "This account is suspended, so it can't sign in. Ask the club's administrators if you think it's a mistake."
)


class SignInForm(AuthenticationForm):
    """Django's sign-in form, which says so when the account is suspended (is_active off) instead of
    "wrong username or password": only to whoever gave that account's right password."""

    def clean(self) -> dict[str, Any]:
        try:
            return super().clean()
        except forms.ValidationError:
            username, password = self.cleaned_data.get("username"), self.cleaned_data.get("password")
            user_model = get_user_model()
            user = user_model._default_manager.filter(**{user_model.USERNAME_FIELD: username}).first()
            if user is not None and not user.is_active and password and user.check_password(password):
                raise forms.ValidationError(SUSPENDED_MESSAGE, code="inactive") from None
            raise


class SignUpForm(UserCreationForm):
    """Username, display name, password twice and an optional email (needed only to reset a password)."""

    display_name = forms.CharField(
        max_length=40,
        required=False,
        help_text="What other players see. Leave empty to use your username.",
        widget=forms.TextInput(attrs={"autocomplete": "nickname"}),
    )
    email = forms.EmailField(
        required=False,
        help_text="Only used to send you a link if you forget your password.",
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "display_name", "email")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["username"].help_text = "Letters, digits and @ . + - _ only. Shown in your profile's address."
        self.fields["username"].widget.attrs.update({"autocomplete": "username", "autocapitalize": "none"})

    def clean_display_name(self) -> str:
        return clean_display_name(self.cleaned_data.get("display_name", ""))


class ProfileForm(forms.ModelForm):
    """A person's own profile: display name, email, and a new avatar or going back to the generated one."""

    avatar_upload = forms.FileField(
        label="New picture",
        required=False,
        help_text="PNG, JPEG, WebP or GIF, up to 2 MB and 4096×4096 pixels. It is cropped to a square.",
        widget=forms.FileInput(attrs={"accept": ALLOWED_CONTENT_TYPES}),
    )
    remove_avatar = forms.BooleanField(label="Remove my picture and use the generated one", required=False)

    class Meta:
        model = User
        fields = ("display_name", "email")
        help_texts = {
            "display_name": "What other players see. Leave empty to use your username.",
            "email": "Only used to send you a link if you forget your password.",
        }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.processed_avatar: ProcessedAvatar | None = None
        self.fields["display_name"].widget.attrs.update({"autocomplete": "nickname"})
        self.fields["email"].widget.attrs.update({"autocomplete": "email"})
        if not self.instance.avatar:
            del self.fields["remove_avatar"]

    def clean_display_name(self) -> str:
        return clean_display_name(self.cleaned_data.get("display_name", ""))

    def clean_avatar_upload(self) -> UploadedFile | None:
        upload: UploadedFile | None = self.cleaned_data.get("avatar_upload")
        if upload:
            try:
                self.processed_avatar = process_avatar(upload, upload.size)
            except AvatarError as exc:
                raise forms.ValidationError(str(exc), code="invalid_avatar") from exc
        return upload

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if cleaned.get("remove_avatar") and cleaned.get("avatar_upload"):
            raise forms.ValidationError("Choose a new picture or remove the current one, not both.")
        return cleaned
