"""URL routes: accounts (Django's own auth views plus signup/profile), games, admin."""

from django.conf import settings
from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.templatetags.static import static
from django.urls import include, path, re_path
from django.views.decorators.cache import cache_control
from django.views.static import serve

from games.api import pages as api_pages
from games.api.auth import not_found as api_not_found


@cache_control(max_age=86400, public=True)
def favicon(request: HttpRequest) -> HttpResponse:
    """Browsers ask for /favicon.ico wherever a page names no icon (a restored history entry, a JSON file)."""
    return redirect(static("img/favicon.svg"), permanent=True)


# A request that failed because the database is away is told so (503, the page reloads itself), not a bare 500.
handler500 = "games.core.faults.server_error"
# The others are pages of the site (its header, a plain reason, the way home); JSON under /api/ (games.core.errors).
handler400 = "games.core.errors.bad_request"
handler403 = "games.core.errors.permission_denied"
handler404 = "games.core.errors.page_not_found"

urlpatterns = [
    path("favicon.ico", favicon),
    path("admin/", admin.site.urls),
    path("api/v1/", include("games.api.urls")),
    path("api/", api_pages.docs, name="api_docs"),
    path("api/computer_gomori_bridge.py", api_pages.bridge, name="api_bridge"),
    # Any other address under /api/ (/api/v1 without its slash, /api/v2/...) is the API's JSON 404, whatever the
    # method: not a redirect, nor the site's page.
    re_path(r"^api/(?P<path>.+)$", api_not_found),
    path("bots/", api_pages.bots, name="bots"),
    path("accounts/", include("accounts.urls")),
    path("accounts/", include("django.contrib.auth.urls")),
    path("", include("games.urls")),
    path("", include("accounts.profile_urls")),
]

if settings.SERVE_MEDIA:
    # Uploaded avatars, in the embedded set-up (./dev run, debug off by default); a deployment behind a proxy
    # serves /media/ there and turns this off (DJANGO_SERVE_MEDIA=0).
    urlpatterns.append(path("media/<path:path>", serve, {"document_root": settings.MEDIA_ROOT}))
