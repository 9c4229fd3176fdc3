"""Forms for signing up and editing one's profile; everything else uses Django's own auth forms."""

from __future__ import annotations

import unicodedata
from functools import lru_cache
from typing import Any
from zoneinfo import available_timezones

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.core.files.uploadedfile import UploadedFile

from .avatars import ALLOWED_CONTENT_TYPES, AvatarError, ProcessedAvatar, process_avatar
from .models import NameKey, User
from .names import name_keys, taken_message


def clean_display_name(value: str) -> str:
    """Trim, fold runs of spaces, and refuse control or invisible characters that could fake another name."""
    value = " ".join(value.split())
    for char in value:
        if unicodedata.category(char) in {"Cc", "Cf", "Co", "Cs"}:
            raise forms.ValidationError("Use letters, digits, spaces and punctuation only.")
    return value


def name_taken(name: str, *, user: User | None) -> bool:
    """Whether someone other than `user` holds a name that `name` would be taken for (accounts.names)."""
    held = NameKey.objects.filter(key__in=name_keys(name))
    if user is not None and user.pk is not None:
        held = held.exclude(user_id=user.pk)
    return held.exists()


def refuse_taken_names(form: forms.BaseForm, *, user: User | None, username: str | None, display_name: str,
                       username_field: bool = True) -> None:
    """Add "That name is taken" to the form where a new name would pass for someone else's: the display
    name, the username (the profile's address, and the shown name when there is no display name), compared
    with every other person's shown name and username. A name that did not change is not checked again (an
    account that shared a name before names were compared keeps it)."""
    saved = (user.username, user.display_name) if user is not None and user.pk is not None else None
    if display_name and (saved is None or display_name != saved[1]) and name_taken(display_name, user=user):
        form.add_error("display_name", taken_message(display_name))
    if username and (saved is None or username != saved[0]) and name_taken(username, user=user):
        form.add_error("username" if username_field else None, taken_message(username))
    elif not display_name and saved is not None and saved[1] and username_field is False \
            and name_taken(saved[0], user=user):
        # Clearing the display name shows the username instead: it must be free too.
        form.add_error("display_name", taken_message(saved[0]))


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
        help_text="For a password reset link, and notifications you turn on in your profile. Never shown.",
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

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        refuse_taken_names(self, user=None, username=cleaned.get("username"),
                           display_name=cleaned.get("display_name", ""))
        return cleaned


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
        fields = ("display_name", "email", "refuse_challenges")
        labels = {"refuse_challenges": "Refuse all challenges"}
        help_texts = {
            "display_name": "What other players see. Leave empty to use your username.",
            "email": "For a password reset link, and the notifications you choose below once it is verified.",
            "refuse_challenges": "Nobody can challenge you from your profile; quick pairing and open seats still work.",
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
        if "display_name" in cleaned:
            refuse_taken_names(self, user=self.instance, username=None, display_name=cleaned["display_name"],
                               username_field=False)
        if cleaned.get("remove_avatar") and cleaned.get("avatar_upload"):
            raise forms.ValidationError("Choose a new picture or remove the current one, not both.")
        return cleaned


BROWSER_ZONE = "My browser’s time zone"


@lru_cache(maxsize=1)
def zone_choices() -> list[tuple[str, str]]:
    """The choice of time zones: the browser's own (blank) first, then every IANA zone this machine knows, sorted."""
    return [("", BROWSER_ZONE), *((name, name.replace("_", " ")) for name in sorted(available_timezones()))]


class TimeZoneForm(forms.ModelForm):
    """The time zone the site writes dates in (a correspondence move's due time): blank is the browser's own. A form
    of its own on the profile page, saved apart from the profile's."""

    time_zone = forms.ChoiceField(
        label="Show dates in", required=False, choices=zone_choices,
        help_text="Dates such as a correspondence move’s due time are shown in it. Leave it on your browser’s "
                  "to follow the device you are on.",
    )

    class Meta:
        model = User
        fields = ("time_zone",)
