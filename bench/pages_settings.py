"""Settings for bench/pages.py: the site's own, served as in production (DEBUG off) but without the
collected-static manifest, so the bench never depends on when collectstatic last ran."""

from config.settings import *  # noqa: F403
from config.settings import STORAGES

DEBUG = False
STORAGES = {**STORAGES, "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}
