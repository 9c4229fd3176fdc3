"""Sign up, profiles and avatars. Signing in and out are Django's own views with our `next` check; the password
pages are Django's own."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import LoginView, LogoutView
from django.db import IntegrityError, transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render, resolve_url
from django.urls import reverse
from django.utils.cache import get_conditional_response, patch_cache_control
from django.utils.http import quote_etag
from django.views.decorators.http import require_http_methods, require_safe

from . import gallery
from .avatars import choose_avatar, generated_avatar_version, render_generated_avatar, set_avatar
from .forms import ProfileForm, SignInForm, SignUpForm, TimeZoneForm
from .models import User
from .names import taken_message
from .redirects import safe_next

MODEL_BACKEND = "django.contrib.auth.backends.ModelBackend"


class SignInView(LoginView):
    """Django's sign-in, with the form that names a suspension and the site's one `next` check."""

    authentication_form = SignInForm

    def get_redirect_url(self, request: HttpRequest | None = None) -> str:
        return safe_next(request or self.request)


class SignOutView(LogoutView):
    """Django's sign-out (a POST), with the site's one `next` check."""

    def get_redirect_url(self, request: HttpRequest | None = None) -> str:
        return safe_next(request or self.request)


@require_http_methods(["GET", "HEAD", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    """Create an account and sign straight in."""
    if request.user.is_authenticated:
        return redirect(safe_next(request) or resolve_url(settings.LOGIN_REDIRECT_URL))
    form = SignUpForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        try:
            with transaction.atomic():
                user = form.save()
        except IntegrityError:
            # Someone took the name (or a look-alike) between the form's check and the save: the database's
            # unique keys refused the second one (accounts.models.NameKey).
            shown = form.cleaned_data.get("display_name") or form.cleaned_data.get("username", "")
            form.add_error(None, taken_message(shown))
            return render(request, "registration/signup.html", {"form": form, "next": safe_next(request)})
        login(request, user, backend=MODEL_BACKEND)
        messages.success(request, f"Welcome to Card Club, {user.name}!")
        return redirect(safe_next(request) or resolve_url(settings.LOGIN_REDIRECT_URL))
    # Only a `next` that would be followed is carried on (the hidden field, the "Sign in" link).
    return render(request, "registration/signup.html", {"form": form, "next": safe_next(request)})


@require_safe
def profile(request: HttpRequest, username: str) -> HttpResponse:
    """Anyone's public page: picture, name and when they joined (the games app draws their standing in it)."""
    profile_user = get_object_or_404(User, username=username, is_active=True)
    return render(
        request,
        "accounts/profile.html",
        {
            "profile_user": profile_user,
            "is_own": request.user.is_authenticated and request.user.pk == profile_user.pk,
        },
    )


@login_required
@require_http_methods(["POST"])
def sounds(request: HttpRequest) -> HttpResponse:
    """Turn the table's sound cues on or off for this person (the match page's toggle posts here)."""
    user = request.user
    assert isinstance(user, User)  # login_required
    user.sounds = request.POST.get("on") == "1"
    user.save(update_fields=["sounds"])
    return HttpResponse(status=204)


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def profile_edit(request: HttpRequest) -> HttpResponse:
    """One's own display name, email and picture."""
    # A separate copy: a form that fails validation must not change the name shown in the page's header.
    assert request.user.pk is not None  # login_required
    user = User.objects.get(pk=request.user.pk)
    if request.method == "POST":
        form = ProfileForm(request.POST, request.FILES, instance=user)
    else:
        form = ProfileForm(instance=user)
    if request.method == "POST" and form.is_valid():
        try:
            with transaction.atomic():
                form.save()
                if form.processed_avatar is not None:
                    set_avatar(user, form.processed_avatar)
                elif form.chosen_avatar is not None:
                    choose_avatar(user, form.chosen_avatar)
        except IntegrityError:  # the name was taken meanwhile (see signup)
            form.add_error("display_name", taken_message(form.cleaned_data.get("display_name") or user.username))
            return render(request, "accounts/profile_edit.html",
                          {"form": form, "zone_form": TimeZoneForm(instance=user)})
        messages.success(request, "Your profile is saved.")
        return redirect("profile", user.username)
    return render(request, "accounts/profile_edit.html", {"form": form, "zone_form": TimeZoneForm(instance=user)})


@login_required
@require_http_methods(["POST"])
def time_zone_edit(request: HttpRequest) -> HttpResponse:
    """The profile page's time zone, a form of its own (saved without the rest of the profile)."""
    assert request.user.pk is not None  # login_required
    user = User.objects.get(pk=request.user.pk)
    zone_form = TimeZoneForm(request.POST, instance=user)
    if zone_form.is_valid():
        zone_form.save()
        messages.success(request, "Your time zone is saved.")
        return redirect(reverse("profile_edit") + "#time-zone")
    fresh = User.objects.get(pk=user.pk)
    return render(request, "accounts/profile_edit.html", {"form": ProfileForm(instance=fresh), "zone_form": zone_form},
                  status=400)


@require_safe
def generated_avatar(request: HttpRequest, username: str) -> HttpResponse:
    """The drawn picture of a user without an upload (a robot for bots): SVG, cached by browsers and proxies."""
    user = get_object_or_404(User, username=username)
    etag = quote_etag(generated_avatar_version(user))
    not_modified = get_conditional_response(request, etag=etag)
    if not_modified is not None:
        return not_modified
    response = HttpResponse(render_generated_avatar(user), content_type="image/svg+xml; charset=utf-8")
    response["ETag"] = etag
    # The page links it with ?v=<version>, which changes with the name and the choice, so a day's caching is safe.
    patch_cache_control(response, public=True, max_age=86400)
    return response


@require_safe
def gallery_avatar(request: HttpRequest, key: str) -> HttpResponse:
    """One of the gallery's pictures, as the picker shows it: the same for everyone, cached for long (its URL's
    ?v= changes with the drawings)."""
    avatar = gallery.find(key)
    if avatar is None:
        raise Http404("No such picture.")
    response = HttpResponse(gallery.render(avatar), content_type="image/svg+xml; charset=utf-8")
    patch_cache_control(response, public=True, max_age=7 * 86400)
    return response
