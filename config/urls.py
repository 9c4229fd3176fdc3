"""URL routes: accounts (Django's own auth views plus signup/profile), games, admin."""

from django.conf import settings
from django.contrib import admin
from django.urls import include, path
from django.views.static import serve

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("accounts.urls")),
    path("accounts/", include("django.contrib.auth.urls")),
    path("", include("games.urls")),
    path("", include("accounts.profile_urls")),
]

if settings.DEBUG:
    urlpatterns.append(path("media/<path:path>", serve, {"document_root": settings.MEDIA_ROOT}))
