"""The Bot API's pages: /bots/ (a person's bot accounts and their tokens: made, shown once, revoked) and /api/
(the documentation, with runnable curl examples and the Computer Gomori bridge to download)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import authenticate
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_safe

from accounts.models import ApiToken, User

from ..play.snapshot import ServiceError
from . import tokens

# A client program, not part of the server: served as it is, from the project's clients/.
BRIDGE = Path(settings.BASE_DIR) / "clients" / "computer_gomori_bridge.py"


# Each form has its prefix: two of them ask for a username, and a page's ids must be unique.
class BotForm(forms.Form):
    username = forms.CharField(max_length=40,
                               help_text="Letters, digits, _ - and . (its address is /u/username/).")
    display_name = forms.CharField(max_length=40, required=False)


class TokenForm(forms.Form):
    bot = forms.ChoiceField()
    name = forms.CharField(max_length=60, initial="my bot", help_text="Where it is used, e.g. “laptop”.")
    play = forms.BooleanField(required=False, initial=True, label="play: read its matches and move")
    challenge = forms.BooleanField(required=False, initial=True, label="challenge: challenge, accept and decline")

    def __init__(self, *args: Any, bots: list[User], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["bot"]
        assert isinstance(field, forms.ChoiceField)
        field.choices = [(str(bot.pk), bot.username) for bot in bots]


class TurnForm(forms.Form):
    username = forms.CharField(max_length=150, label="The fresh account's username")
    password = forms.CharField(widget=forms.PasswordInput, label="Its password")


def _page(request: HttpRequest, *, key: str = "", key_bot: str = "", **forms_given: Any) -> HttpResponse:
    assert isinstance(request.user, User)
    bots = list(User.objects.filter(owner=request.user, program=True).order_by("username"))
    rows = {bot.pk: list(ApiToken.objects.filter(user=bot).order_by("-created_at")) for bot in bots}
    return render(request, "games/bots.html", {
        "bots": [(bot, rows[bot.pk]) for bot in bots],
        "bot_form": forms_given.get("bot_form") or BotForm(prefix="bot"),
        "token_form": forms_given.get("token_form") or TokenForm(bots=bots, prefix="token"),
        "turn_form": forms_given.get("turn_form") or TurnForm(prefix="turn"),
        "new_key": key, "new_key_bot": key_bot,
    })


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def bots(request: HttpRequest) -> HttpResponse:
    """A person's bots. A new token's key is in this response only (shown once: never stored, never again)."""
    user = request.user
    assert isinstance(user, User)
    if request.method != "POST":
        return _page(request)
    action = request.POST.get("action", "")
    mine = list(User.objects.filter(owner=user, program=True))
    try:
        if action == "bot":
            form = BotForm(request.POST, prefix="bot")
            if not form.is_valid():
                return _page(request, bot_form=form)
            bot = tokens.create_bot(user, form.cleaned_data["username"], form.cleaned_data["display_name"])
            messages.success(request, f"Made the bot {bot.username}: now give it a token.")
        elif action == "turn":
            turn = TurnForm(request.POST, prefix="turn")
            if not turn.is_valid():
                return _page(request, turn_form=turn)
            other = authenticate(request, username=turn.cleaned_data["username"],
                                 password=turn.cleaned_data["password"])
            if not isinstance(other, User) or other.pk == user.pk:
                turn.add_error(None, "That username and password don't match another account of yours.")
                return _page(request, turn_form=turn)
            tokens.turn_into_bot(other, owner=user)
            messages.success(request, f"{other.username} is a bot now: give it a token.")
        elif action == "token":
            token_form = TokenForm(request.POST, bots=mine, prefix="token")
            if not token_form.is_valid():
                return _page(request, token_form=token_form)
            bot = next(b for b in mine if str(b.pk) == token_form.cleaned_data["bot"])
            scopes = [s for s in ("play", "challenge") if token_form.cleaned_data[s]]
            _, key = tokens.make_token(bot, name=token_form.cleaned_data["name"], scopes=scopes)
            response = _page(request, key=key, key_bot=bot.username)
            response["Cache-Control"] = "no-store"  # the key is in this page only
            return response
        elif action == "revoke":
            row = tokens.revoke(int(request.POST.get("token", "0") or 0), by=user)
            messages.success(request, f"Revoked {row.name} ({row.prefix}…).")
    except (ServiceError, ValueError) as error:
        messages.error(request, str(error))
    return redirect("bots")


@require_safe
def docs(request: HttpRequest) -> HttpResponse:
    base = request.build_absolute_uri("/").rstrip("/")
    return render(request, "games/api_docs.html", {"base": base})


@require_safe
def bridge(request: HttpRequest) -> FileResponse:
    return FileResponse(BRIDGE.open("rb"), as_attachment=True, filename=BRIDGE.name, content_type="text/x-python")
