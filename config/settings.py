"""Settings, all from the environment, with defaults safe to serve friends with (README, "Configuration").

DJANGO_DEBUG (default off), DJANGO_SECRET_KEY (default: one generated on first run and kept in .secret_key),
DJANGO_HTTPS (default on when debug is off; ./dev run serves plain HTTP and turns it off), DJANGO_ALLOWED_HOSTS,
DJANGO_SERVE_MEDIA, DATABASE_URL (default: SQLite in the project), REDIS_URL (default: in-memory channel layer).
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import dj_database_url
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

from .email_url import email_settings

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if not value:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


def local_secret_key(path: Path) -> str:
    """This installation's own secret key, kept in `path` (readable by its owner only): made on first run, read
    on every later one. Two processes starting at once agree: the key is written to a file of its own and
    linked into place, which fails if another got there first, so both read the winner's."""
    if not path.exists():
        key = secrets.token_urlsafe(50)
        draft = path.with_name(f"{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
        try:
            descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(descriptor, "w") as out:
                out.write(key + "\n")
            try:
                os.link(draft, path)
            except FileExistsError:
                pass
            finally:
                draft.unlink()
        except OSError as error:
            raise ImproperlyConfigured(
                f"Could not keep a secret key in {path} ({error}): set DJANGO_SECRET_KEY, or "
                "DJANGO_SECRET_KEY_FILE to a writable place."
            ) from error
    key = path.read_text().strip()
    if len(key) < 50:
        raise ImproperlyConfigured(f"{path} holds no usable secret key: delete it to make a new one.")
    return key


# Off unless asked for: a debug page lists every URL of the site and much of its settings.
DEBUG = env_bool("DJANGO_DEBUG", False)
# The one key that signs sessions and password-reset links: DJANGO_SECRET_KEY when set, else the key file
# (.secret_key at the project root, ignored by git), made on first run.
SECRET_KEY_FILE = Path(os.environ.get("DJANGO_SECRET_KEY_FILE") or BASE_DIR / ".secret_key")
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "") or local_secret_key(SECRET_KEY_FILE)
# Whether people reach the site over HTTPS (a TLS proxy in front): then cookies are sent over HTTPS only, plain
# HTTP is redirected and HSTS is sent. On by default when debug is off (a deployment); ./dev run, which serves
# plain HTTP itself, turns it off.
HTTPS = env_bool("DJANGO_HTTPS", not DEBUG)
# Uploaded avatars served by the site itself (the embedded set-up); a deployment lets its proxy serve
# MEDIA_ROOT at /media/ and sets DJANGO_SERVE_MEDIA=0.
SERVE_MEDIA = env_bool("DJANGO_SERVE_MEDIA", True)

ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", [])
# A form refused for its CSRF check is a page of the site that says why (games.core.errors).
CSRF_FAILURE_VIEW = "games.core.errors.csrf_failure"

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "channels",
    "django_htmx",
    "template_partials",
    "csp",
    "axes",
    "accounts",
    "games",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Last, as django-axes asks, so it sees the outcome of authentication.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = None
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
            "builtins": ["template_partials.templatetags.partials"],
        },
    },
    # The live table's fragments (drawn for every socket after every move) and the game tables, in
    # templates/jinja2/: Jinja2 draws them 2.3-11 times faster (bench/fragments.py). games/core/jinja.py says
    # what its environment offers.
    {
        "BACKEND": "django.template.backends.jinja2.Jinja2",
        "DIRS": [BASE_DIR / "templates" / "jinja2"],
        "APP_DIRS": False,
        "OPTIONS": {"environment": "games.core.jinja.environment"},
    },
]

DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        # Persistent connections: Channels runs database work on a few threads, and opening a
        # connection per call (SQLite's PRAGMAs, PostgreSQL's handshake) was the live path's top cost.
        conn_max_age=int(os.environ.get("DJANGO_CONN_MAX_AGE", "600")),
        conn_health_checks=True,
    )
}
SQLITE_SYNCHRONOUS = os.environ.get("DJANGO_SQLITE_SYNCHRONOUS", "FULL").upper()
if SQLITE_SYNCHRONOUS not in {"NORMAL", "FULL"}:
    raise ImproperlyConfigured("DJANGO_SQLITE_SYNCHRONOUS is NORMAL or FULL.")
# How long a write waits for SQLite's lock held by another writer (a backup, a command, the analysis worker) before
# it fails: a move's batch is tried again within the writer's patience (games.play.hub), so a move is made or refused
# as "busy" within about twice this (README, Durability); a page waits this long, then says the site is busy.
SQLITE_BUSY_SECONDS = float(os.environ.get("DJANGO_SQLITE_BUSY_SECONDS", "4"))
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL lets readers go on while one writer commits; IMMEDIATE takes the write lock at
    # BEGIN, so two racing transactions queue instead of failing with "database is locked".
    DATABASES["default"]["OPTIONS"] = {
        # synchronous=FULL (the default): a committed move survives a power cut too, at an fsync per commit,
        # which group commit makes cheap (bench/live.py: no measurable cost); NORMAL survives a crash of the
        # process only (see the README).
        "init_command": f"PRAGMA journal_mode=WAL; PRAGMA synchronous={SQLITE_SYNCHRONOUS}; "
                        f"PRAGMA busy_timeout={int(SQLITE_BUSY_SECONDS * 1000)};",
        "transaction_mode": "IMMEDIATE",
        "timeout": SQLITE_BUSY_SECONDS,
    }
    # A file, not memory, so a live server subprocess (the browser tests) can share the test database.
    DATABASES["default"]["TEST"] = {"NAME": os.environ.get("DJANGO_TEST_DB", str(BASE_DIR / "test-db.sqlite3"))}
elif "postgresql" in DATABASES["default"]["ENGINE"]:
    # A move's transaction lasts milliseconds: a session idle inside a transaction for a minute is a bug (a
    # thread that died holding it), and PostgreSQL ends it rather than let its locks stop every writer.
    DATABASES["default"].setdefault("OPTIONS", {})["options"] = "-c idle_in_transaction_session_timeout=60s"
    # A pool of connections per process (psycopg_pool, through Django). Django's ASGI handler runs each HTTP
    # request in a thread of its own, so a persistent connection (one per thread) was opened again for every
    # page: 4.5 ms of handshake, more than the whole sign-in page (issue 20). A connection now goes back to
    # the pool when a request or a database_sync_to_async call ends, and the next one takes it at once.
    # DJANGO_DB_POOL_SIZE=0 goes back to one connection per thread.
    POOL_SIZE = int(os.environ.get("DJANGO_DB_POOL_SIZE", "20"))
    if POOL_SIZE > 0:
        DATABASES["default"]["CONN_MAX_AGE"] = 0  # the pool keeps them; Django refuses both
        DATABASES["default"]["OPTIONS"]["pool"] = {"min_size": 2, "max_size": POOL_SIZE, "timeout": 20}

REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            # Channels' Redis layer with pools that wait for a free connection rather than fail (games/core/layers.py).
            "BACKEND": "games.core.layers.RedisChannelLayer",
            # redis-py 8 times socket reads out after 5 s by default, the same 5 s channels-redis blocks
            # for in BZPOPMIN while a socket waits for messages: give reads a margin above that. At most
            # max_connections per process; an operation waits up to timeout seconds for one of them.
            "CONFIG": {
                "hosts": [{"address": REDIS_URL, "socket_timeout": 15, "max_connections": 200, "timeout": 20}],
                "capacity": 1500,
                "expiry": 30,
                # Deployments sharing one Redis (or parallel test servers) keep their groups apart by prefix.
                "prefix": os.environ.get("CHANNELS_REDIS_PREFIX", "asgi"),
            },
        }
    }
else:
    # Channels' in-memory layer, sweeping expired messages once a second rather than per message (games.core.layers).
    CHANNEL_LAYERS = {"default": {"BACKEND": "games.core.layers.InMemoryChannelLayer", "CONFIG": {"capacity": 1500}}}

AUTH_USER_MODEL = "accounts.User"
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "play"
LOGOUT_REDIRECT_URL = "home"

# Sign-in throttling: 5 failures from one address or for one username lock it out for a while.
AXES_FAILURE_LIMIT = 5
AXES_COOLOFF_TIME = float(os.environ.get("AXES_COOLOFF_HOURS", "0.25"))
AXES_LOCKOUT_PARAMETERS = ["ip_address", "username"]
AXES_LOCKOUT_TEMPLATE = "registration/lockout.html"
# A sign-in (or sign-up) clears only that account's own failures from that address. Axes' own handler
# cleared every failure from the address, so signing into one's own account reset the count of guesses
# at anyone else's password (accounts/lockout.py).
AXES_HANDLER = "accounts.lockout.OwnFailuresResetHandler"
AXES_RESET_ON_SUCCESS = True
AXES_VERBOSE = False

LANGUAGE_CODE = "en-gb"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(os.environ.get("DJANGO_STATIC_ROOT") or BASE_DIR / "staticfiles")
STATICFILES_DIRS = [BASE_DIR / "static"]
MEDIA_URL = "/media/"
MEDIA_ROOT = Path(os.environ.get("DJANGO_MEDIA_ROOT", BASE_DIR / "media"))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}
# Avatars are small (re-encoded to 256x256); refuse big uploads before Pillow sees them.
DATA_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# How mail leaves (password resets, the notifications' worker): DJANGO_EMAIL_URL, or the usual EMAIL_HOST,
# EMAIL_PORT, EMAIL_HOST_USER, EMAIL_HOST_PASSWORD, EMAIL_USE_TLS / EMAIL_USE_SSL; the console when none is set
# (config/email_url.py).
globals().update(email_settings(os.environ))
DEFAULT_FROM_EMAIL = os.environ.get("DJANGO_DEFAULT_FROM_EMAIL") or os.environ.get("DEFAULT_FROM_EMAIL") \
    or "Card Club <noreply@cardclub.local>"
# The site's address as people reach it, for the links in mail (sent by a worker, which has no request to take
# the host from): the match, the unsubscribe and verification links.
SITE_URL = (os.environ.get("DJANGO_SITE_URL") or "http://127.0.0.1:8000").rstrip("/")
# Notifications by email (games.notify.mail): notices of a person arriving within this many seconds leave in one
# email; a verified address is written to no more after this many refusals in a row; a notice is given up after
# this many attempts (with a growing pause between them).
NOTIFY_MAIL_GATHER_SECONDS = int(os.environ.get("NOTIFY_MAIL_GATHER_SECONDS", "180"))
NOTIFY_MAIL_BOUNCES = int(os.environ.get("NOTIFY_MAIL_BOUNCES", "3"))
NOTIFY_MAIL_ATTEMPTS = int(os.environ.get("NOTIFY_MAIL_ATTEMPTS", "6"))

# Content Security Policy: no inline scripts or styles anywhere; websockets to this origin only.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "connect-src": [SELF],
        "font-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}

SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_HTTPONLY = False
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
if HTTPS:
    # Only behind a proxy that sets it: a client talking to daphne directly could send it itself.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = int(os.environ.get("DJANGO_HSTS_SECONDS", "31536000"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("DJANGO_LOG_LEVEL", "INFO")},
    "loggers": {
        "django.channels.server": {"level": "WARNING"},
        "daphne": {"level": "WARNING"},
    },
}

# The live game: how long a disconnected player may be away before others may claim, and bots' pause.
GAMES_ABANDON_SECONDS = int(os.environ.get("GAMES_ABANDON_SECONDS", "60"))
GAMES_BOT_DELAY = float(os.environ.get("GAMES_BOT_DELAY", "0.8"))
# How often each process compares the versions of the matches it holds with the database's (games.play.hub): the
# bound on how long a page may show an older position than the database has after a change's news was lost.
GAMES_CATCH_UP_SECONDS = float(os.environ.get("GAMES_CATCH_UP_SECONDS", "2"))

# The Bot API (games.api): each token may make GAMES_API_BURST requests at once, then GAMES_API_RATE a second;
# a request body is at most GAMES_API_BODY_BYTES; a stream whose reader stops reading is dropped once
# GAMES_API_STREAM_BYTES wait unread in the server's buffers, and any stream ends after GAMES_API_STREAM_SECONDS
# (clients reconnect); a newline every GAMES_API_KEEPALIVE seconds keeps proxies from closing a quiet stream.
GAMES_API_BURST = int(os.environ.get("GAMES_API_BURST", "60"))
GAMES_API_RATE = float(os.environ.get("GAMES_API_RATE", "20"))
GAMES_API_BODY_BYTES = int(os.environ.get("GAMES_API_BODY_BYTES", "16384"))
GAMES_API_STREAM_BYTES = int(os.environ.get("GAMES_API_STREAM_BYTES", str(2 * 1024 * 1024)))
GAMES_API_STREAM_SECONDS = float(os.environ.get("GAMES_API_STREAM_SECONDS", str(3 * 3600)))
GAMES_API_KEEPALIVE = float(os.environ.get("GAMES_API_KEEPALIVE", "5"))
GAMES_API_STREAMS = int(os.environ.get("GAMES_API_STREAMS", "64"))  # open streams per bot and process
GAMES_API_OPEN_CHALLENGES = int(os.environ.get("GAMES_API_OPEN_CHALLENGES", "20"))  # a bot's open challenges
