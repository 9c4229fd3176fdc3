"""The site's addresses and error handlers, plus views that fail on purpose (tests/games/test_error_pages.py)."""

from django.core.exceptions import PermissionDenied, SuspiciousOperation
from django.http import HttpRequest, HttpResponse
from django.urls import path
from django.views.decorators.csrf import csrf_exempt

from config import urls as site_urls

# The site's handlers, whichever they are (Django's own where it names none).
handler400 = getattr(site_urls, "handler400", "django.views.defaults.bad_request")
handler403 = getattr(site_urls, "handler403", "django.views.defaults.permission_denied")
handler404 = getattr(site_urls, "handler404", "django.views.defaults.page_not_found")
handler500 = getattr(site_urls, "handler500", "django.views.defaults.server_error")


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
    *site_urls.urlpatterns,
]
