"""The pages of the mail links and the profile's choices: /mail/verify/<token>/ (the signed link proving an
address), /mail/unsubscribe/<token>/ (one click, no sign-in: a page with one button, and RFC 8058's POST from a
mail client), and /mail/settings/ (the profile's "Email notifications" form). A bad or expired link gets a page
saying so (400), never an error."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST

from accounts.models import User

from .kinds import KINDS
from .queue import request_verification
from .tokens import BadToken, read_unsubscribe_token, read_verify_token


class MailForm(forms.Form):
    """The kinds of notification a person wants by email (all off until they choose)."""

    kinds = forms.MultipleChoiceField(choices=list(KINDS.items()), required=False,
                                      widget=forms.CheckboxSelectMultiple, label="Email me when")


def _page(request: HttpRequest, title: str, text: str, *, status: int = 200, **extra: object) -> HttpResponse:
    return render(request, "mail/page.html", {"title": title, "text": text, **extra}, status=status)


@require_http_methods(["GET", "HEAD"])
def verify(request: HttpRequest, token: str) -> HttpResponse:
    """The address is proven: notifications may go to it (while it stays the person's address)."""
    try:
        proof = read_verify_token(token)
    except BadToken as error:
        return _page(request, "Link not valid", str(error), status=400)
    user = User.objects.filter(pk=proof.user_id, is_active=True).first()
    if user is None or user.email != proof.address:
        return _page(request, "Link not valid", "This link is for an address that is no longer the account's. "
                     "Send yourself a new one from your profile.", status=400)
    if user.email_verified != proof.address:
        # A freshly proven address starts with no bounce against it.
        User.objects.filter(pk=user.pk, email=proof.address).update(email_verified=proof.address, mail_bounces=0)
    return _page(request, "Address verified", f"{proof.address} is verified. Choose the emails you want on "
                 "your profile.")


@csrf_exempt  # the signed token is the authority (a mail client's one-click POST carries no cookie or form token)
@require_http_methods(["GET", "HEAD", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    """GET: a page with one button (a link scanner following the link changes nothing); POST: stopped."""
    try:
        user_id, kinds = read_unsubscribe_token(token)
    except BadToken as error:
        return _page(request, "Link not valid", str(error), status=400)
    labels = [KINDS[kind] for kind in kinds]
    if request.method != "POST":
        return _page(request, "Unsubscribe", "Stop these emails from Card Club?", labels=labels, confirm=True)
    user = User.objects.filter(pk=user_id).first()
    if user is not None:
        # Only the kinds named: a second click, or one after the person opted in again, removes what it says.
        User.objects.filter(pk=user.pk).update(mail_kinds=[k for k in (user.mail_kinds or []) if k not in kinds])
    if request.POST.get("List-Unsubscribe") == "One-Click":  # RFC 8058: a mail client, which reads no page
        return HttpResponse("Unsubscribed.\n", content_type="text/plain; charset=utf-8")
    return _page(request, "Unsubscribed", "You will get no more of these emails.", labels=labels)


@login_required
@require_POST
def settings_view(request: HttpRequest) -> HttpResponse:
    """The profile's "Email notifications": the kinds chosen, or the verification link sent."""
    assert request.user.pk is not None  # login_required
    user = User.objects.get(pk=request.user.pk)
    if "verify" in request.POST:
        messages.info(request, request_verification(user))
        return redirect("profile_edit")
    form = MailForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Choose among the kinds of email listed.")
        return redirect("profile_edit")
    User.objects.filter(pk=user.pk).update(mail_kinds=[k for k in KINDS if k in form.cleaned_data["kinds"]])
    messages.success(request, "Your email choices are saved.")
    return redirect("profile_edit")


def mail_context(user: User) -> dict[str, object]:
    """The profile's section: the address, whether it is verified, and the choices."""
    verified = bool(user.email) and user.email == user.email_verified
    return {"address": user.email, "verified": verified, "form": MailForm(initial={"kinds": user.mail_kinds or []}),
            "bounced": user.mail_bounces > 0 and verified}


__all__ = ["MailForm", "mail_context", "settings_view", "unsubscribe", "verify"]
