"""The test suite's settings: the site's own, imported as in development unless the environment says otherwise.

Debug at import time keeps plain static storage (a targeted test run needs no collectstatic) and leaves HTTPS
off (the test client speaks plain HTTP); pytest-django still turns DEBUG off for every test. A fixed test key
keeps the suite from writing the project's .secret_key. SQLite's wait for another writer's lock is the old 20 s: the
tests' own processes share one file and a loaded CI machine is slow (test_faults_databases.py serves with the real
default). These go into the environment, so the servers the
tests start (tests/servers.py) get them too. tests/test_settings_defaults.py checks the real defaults.
"""

import os

os.environ.setdefault("DJANGO_DEBUG", "true")
os.environ.setdefault("DJANGO_SQLITE_BUSY_SECONDS", "20")
os.environ.setdefault("DJANGO_SECRET_KEY", "test-only-key-never-used-to-serve-anyone-0123456789abcdefghijklmnop")

from .settings import *  # noqa: F403
