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

from . import gallery
from .avatars import (
    ALLOWED_CONTENT_TYPES,
    AvatarError,
    ProcessedAvatar,
    initials_sample,
    name_avatar,
    process_avatar,
    svg_data_url,
)
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


# The picker's values besides the gallery's keys: the picture drawn from the name, and keeping one's upload (never a
# gallery key: accounts.gallery's keys are words of the motifs).
FROM_NAME = ""
KEEP_UPLOAD = "upload"
INVALID_PICTURE = "There is no picture “%(value)s” to choose; pick one of the pictures shown."


class AvatarPicker(forms.RadioSelect):
    """A radio group of pictures (drawn by accounts/_avatar_picker.html): each option carries its picture's URL and
    whether it is the one shown now."""

    def __init__(self, pictures: dict[str, str], current: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.pictures, self.current = pictures, current

    def create_option(self, name: str, value: Any, label: Any, selected: Any, index: int, subindex: int | None = None,
                      attrs: dict[str, Any] | None = None) -> dict[str, Any]:
        option = super().create_option(name, value, label, selected, index, subindex, attrs)
        option["picture"] = self.pictures.get(str(value), "")
        option["current"] = self.current is not None and str(value) == self.current
        return option


def avatar_choice_field(name_picture: str, *, upload_url: str = "", current: str | None = None,
                        help_text: str = "") -> forms.ChoiceField:
    """The picker: one's upload (when there is one), the picture drawn from one's name, then the gallery."""
    choices = [(KEEP_UPLOAD, "Your upload")] if upload_url else []
    choices += [(FROM_NAME, "Your initials"), *((avatar.key, avatar.label) for avatar in gallery.GALLERY)]
    pictures = {KEEP_UPLOAD: upload_url, FROM_NAME: name_picture} | {
        avatar.key: gallery.url(avatar) for avatar in gallery.GALLERY}
    return forms.ChoiceField(
        label="Picture", required=False, choices=choices, help_text=help_text,
        widget=AvatarPicker(pictures, current, attrs={"class": "visually-hidden"}),
        error_messages={"invalid_choice": INVALID_PICTURE},
    )


class SignUpForm(UserCreationForm):
    """Username, display name, password twice, an optional email (needed only to reset a password) and a picture
    (the gallery's, or the one drawn from the name)."""

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
    avatar_choice = forms.ChoiceField(required=False)  # made in __init__: the pictures' URLs are reversed then
    # The picture last: an optional extra after what an account needs.
    field_order = ("username", "display_name", "email", "password1", "password2", "avatar_choice")

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "display_name", "email", "avatar_choice")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["username"].help_text = "Letters, digits and @ . + - _ only. Shown in your profile's address."
        self.fields["username"].widget.attrs.update({"autocomplete": "username", "autocapitalize": "none"})
        self.fields["avatar_choice"] = avatar_choice_field(
            svg_data_url(initials_sample()),
            help_text="What other players see beside your name. Keep your initials or pick a picture; you can "
                      "change it, or upload your own, in your profile.",
        )

    def clean_display_name(self) -> str:
        return clean_display_name(self.cleaned_data.get("display_name", ""))

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        refuse_taken_names(self, user=None, username=cleaned.get("username"),
                           display_name=cleaned.get("display_name", ""))
        return cleaned


class ProfileForm(forms.ModelForm):
    """A person's own profile: display name, email, and a picture: a new upload, the gallery's, or the one drawn
    from their name (each replaces the others)."""

    avatar_choice = forms.ChoiceField(required=False)  # made for this person in __init__ (avatar_choice_field)
    avatar_upload = forms.FileField(
        label="New picture",
        required=False,
        help_text="PNG, JPEG, WebP or GIF, up to 2 MB and 4096×4096 pixels. It is cropped to a square, and "
                  "replaces the picture chosen above.",
        widget=forms.FileInput(attrs={"accept": ALLOWED_CONTENT_TYPES}),
    )

    class Meta:
        model = User
        fields = ("display_name", "email", "refuse_challenges", "hide_online")
        labels = {"refuse_challenges": "Refuse all challenges", "hide_online": "Hide my online status"}
        help_texts = {
            "display_name": "What other players see. Leave empty to use your username.",
            "email": "For a password reset link, and the notifications you choose below once it is verified.",
            "refuse_challenges": "Nobody can challenge you from your profile; quick pairing and open seats still work.",
            "hide_online": "You appear offline to everyone, the people who follow you included.",
        }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.processed_avatar: ProcessedAvatar | None = None
        # The gallery's key (or FROM_NAME) to show instead of what is shown now; None: no change of choice.
        self.chosen_avatar: str | None = None
        self.fields["display_name"].widget.attrs.update({"autocomplete": "nickname"})
        self.fields["email"].widget.attrs.update({"autocomplete": "email"})
        user = self.instance
        self.current_avatar = KEEP_UPLOAD if user.avatar else (
            user.avatar_choice if gallery.find(user.avatar_choice) else FROM_NAME)
        self.fields["avatar_choice"] = avatar_choice_field(
            svg_data_url(name_avatar(user)), upload_url=user.avatar.url if user.avatar else "",
            current=self.current_avatar,
            help_text="What other players see beside your name: pick one, or upload your own below.",
        )
        self.initial["avatar_choice"] = self.current_avatar

    @property
    def current_avatar_text(self) -> str:
        """Which picture is shown now, said beside it on the page."""
        chosen = gallery.find(self.current_avatar)
        if self.current_avatar == KEEP_UPLOAD:
            return "Your uploaded picture. Pick another below, or upload a new one."
        if chosen is not None:
            return f"The {chosen.label.lower()} from the gallery. Pick another below, or upload your own."
        return "A picture drawn from your name. Pick one below, or upload your own."

    def clean_avatar_choice(self) -> str:
        if self.add_prefix("avatar_choice") not in self.data:
            # Only a post without the picker (no browser's: one radio is always checked) leaves it out: no change.
            return self.current_avatar
        choice: str = self.cleaned_data.get("avatar_choice", FROM_NAME)
        return choice

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
        choice = cleaned.get("avatar_choice")
        if cleaned.get("avatar_upload"):
            # The upload replaces whatever is shown (accounts.avatars.set_avatar), unless another picture was picked.
            if choice is not None and choice != self.current_avatar:
                raise forms.ValidationError("Upload a new picture or choose one above, not both.")
        elif choice is not None and choice != self.current_avatar and choice != KEEP_UPLOAD:
            self.chosen_avatar = choice
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
