"""Placeholder being replaced by the foundation work (signup, profile, avatars)."""
from django.http import HttpResponse


def signup(request):  # noqa: ANN001, ANN201
    return HttpResponse("")


def profile(request, username):  # noqa: ANN001, ANN201
    return HttpResponse("")


def generated_avatar(request, username):  # noqa: ANN001, ANN201
    return HttpResponse("", content_type="image/svg+xml")
