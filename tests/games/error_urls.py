"""The site's addresses and error handlers, plus views that fail on purpose (tests/games/test_error_pages.py)."""

from django.core.exceptions import PermissionDenied, SuspiciousOperation
from django.http import HttpRequest, HttpResponse
from django.urls import path
from django.views.decorators.csrf import csrf_exempt

from config.urls import handler400, handler403, handler404, handler500
from config.urls import urlpatterns as site

__all__ = ["handler400", "handler403", "handler404", "handler500", "urlpatterns"]


def forbidden(request: HttpRequest) -> HttpResponse:
    raise PermissionDenied


def suspicious(request: HttpRequest) -> HttpResponse:
    raise SuspiciousOperation("a damaged header (for the log only)")


@csrf_exempt  # as the API's views are
def broken(request: HttpRequest) -> HttpResponse:
    raise ValueError("a bug (for the log only)")


urlpatterns = [
    path("test-errors/forbidden/", forbidden),
    path("test-errors/suspicious/", suspicious),
    path("test-errors/broken/", broken),
    path("api/v1/test-errors/broken", broken),
    *site,
]
