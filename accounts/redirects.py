"""Where sign-in, sign-up and sign-out send a person afterwards: the `next` they came with, only when it is a
plain path on this site; anything else is ignored (the view's usual landing page is used)."""

from __future__ import annotations

import unicodedata
from urllib.parse import unquote, urlsplit

from django.http import HttpRequest
from django.utils.http import url_has_allowed_host_and_scheme

REDIRECT_FIELD = "next"


def is_local_path(target: str) -> bool:
    """Whether `target` is a path on this site: one leading "/" (never "//", which browsers read as another
    host), no scheme or host, no backslash (which browsers read as "/"), no control or invisible character,
    and the same once percent-decoded (so "/%2F/evil.example" is not one either)."""
    if not target.startswith("/"):
        return False
    for text in (target, unquote(target)):
        if text.startswith("//") or "\\" in text:
            return False
        if any(unicodedata.category(char).startswith("C") or char.isspace() for char in text):
            return False
    parts = urlsplit(target)
    return not parts.scheme and not parts.netloc


def safe_next(request: HttpRequest) -> str:
    """The request's `next` (the form's field first, then the address's), when it is a path on this site;
    "" otherwise. Sign-in, sign-up and sign-out all go through this one check."""
    target = request.POST.get(REDIRECT_FIELD) or request.GET.get(REDIRECT_FIELD) or ""
    if not is_local_path(target):
        return ""
    # Django's own check too, as a second opinion: a path that it would not follow is not followed.
    if not url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()},
                                           require_https=request.is_secure()):
        return ""
    return target
