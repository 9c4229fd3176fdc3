"""The site's error pages (handler400/403/404 and CSRF_FAILURE_VIEW): the site's header and navigation, a plain
reason and a way home, not Django's bare "Not Found". Under /api/ the same refusals are JSON, as every answer of
the Bot API. The 500 page is templates/500.html, drawn by Django's own server_error without a request or the
database (games.core.faults.server_error decides between it, its JSON and the 503 of a database that is away)."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.middleware.csrf import REASON_NO_CSRF_COOKIE
from django.shortcuts import render
from django.urls import Resolver404

NO_SUCH_ADDRESS = "No such address: see /api/ for the list."

# get_object_or_404's own words ("No User matches the given query."): a programmer's, not a person's.
_DJANGO_SAYS = "matches the given query."


def for_api(request: HttpRequest) -> bool:
    """Whether the request is a program's (the Bot API's addresses): it is answered in JSON."""
    return request.path.startswith("/api/")


def _page(request: HttpRequest, status: int, title: str, reason: str) -> HttpResponse:
    return render(request, "error.html", {"status": status, "title": title, "reason": reason}, status=status)


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """handler404: the view's own sentence when it gave one ("No such match."), else a plain one."""
    said = exception.args[0] if isinstance(exception, Http404) and exception.args else None
    if isinstance(exception, Resolver404) or not isinstance(said, str) or not said or said.endswith(_DJANGO_SAYS):
        said = ""
    if for_api(request):
        return JsonResponse({"error": said or NO_SUCH_ADDRESS}, status=404)
    return _page(request, 404, "Page not found",
                 said or "There is no page at this address: it may have been mistyped, or what it showed is gone.")


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    """handler403."""
    if for_api(request):
        return JsonResponse({"error": "You may not do this."}, status=403)
    reason = "This page is not open to you."
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        reason += " If it is yours, sign in first."
    return _page(request, 403, "Not allowed", reason)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """handler400 (a SuspiciousOperation too: its message is for the log, not the page)."""
    if for_api(request):
        return JsonResponse({"error": "The request could not be understood."}, status=400)
    return _page(request, 400, "Bad request",
                 "The site could not understand this request (a damaged address or form). Go back and try again.")


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """CSRF_FAILURE_VIEW: a form sent without the page's check, most often from a page left open across a sign-in
    or sign-out in another tab, or a browser that refuses the site's cookie."""
    if for_api(request):  # the API's own addresses need no check: this is one of its pages (/api/) posted to
        return JsonResponse({"error": "This address takes no form posts."}, status=403)
    if reason == REASON_NO_CSRF_COOKIE:
        said = ("Your browser did not send this site's cookie, which the site needs to check forms and to keep you "
                "signed in. Allow cookies for this site, then try again.")
    else:
        said = ("The form came from a page that is out of date (it was open across a sign-in or sign-out, or for a "
                "long time). Go back, reload the page and try again.")
    return _page(request, 403, "The form could not be sent", said)
