"""How the site sends mail, from the environment (README, "Notifications by email"): DJANGO_EMAIL_URL in one
variable, or the usual EMAIL_* variables, or the console when neither is set. Parsed here, without a dependency:

    smtp://user:pass@mail.example.org:587?tls=1   SMTP with STARTTLS (tls=1; port 587 by default then, else 25)
    smtps://user:pass@mail.example.org            SMTP over TLS from the first byte (port 465 by default)
    console://                                    printed on the server's terminal (the default)
    locmem://, dummy://                           kept in memory (tests), dropped

The user and password are percent-decoded (an @ in a user name is %40). A query's timeout=N sets the seconds
an SMTP exchange may take (default 30, below the mail worker's lease).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from django.core.exceptions import ImproperlyConfigured

SMTP = "django.core.mail.backends.smtp.EmailBackend"
BACKENDS = {
    "console": "django.core.mail.backends.console.EmailBackend",
    "locmem": "django.core.mail.backends.locmem.EmailBackend",
    "dummy": "django.core.mail.backends.dummy.EmailBackend",
}
TRUE = {"1", "true", "yes", "on"}
DEFAULT_TIMEOUT = 30


def _flag(value: str | None) -> bool:
    return (value or "").strip().lower() in TRUE


def parse_email_url(url: str) -> dict[str, Any]:
    """Django's EMAIL_* settings from one URL; ImproperlyConfigured for a scheme or port it does not know."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    if scheme in BACKENDS:
        return {"EMAIL_BACKEND": BACKENDS[scheme]}
    if scheme not in ("smtp", "smtps"):
        raise ImproperlyConfigured(f"DJANGO_EMAIL_URL: unknown scheme {scheme!r} (smtp, smtps, console, locmem, dummy)")
    query = {key: values[-1] for key, values in parse_qs(parts.query).items()}
    ssl = scheme == "smtps" or _flag(query.get("ssl"))
    tls = not ssl and (_flag(query.get("tls")) or _flag(query.get("starttls")))
    if not parts.hostname:
        raise ImproperlyConfigured("DJANGO_EMAIL_URL names no host (smtp://user:pass@host:587?tls=1)")
    try:
        port = parts.port or (465 if ssl else 587 if tls else 25)
        timeout = int(query.get("timeout", DEFAULT_TIMEOUT))
    except ValueError as error:
        raise ImproperlyConfigured(f"DJANGO_EMAIL_URL: {error}") from None
    return {
        "EMAIL_BACKEND": SMTP,
        "EMAIL_HOST": parts.hostname,
        "EMAIL_PORT": port,
        "EMAIL_HOST_USER": unquote(parts.username or ""),
        "EMAIL_HOST_PASSWORD": unquote(parts.password or ""),
        "EMAIL_USE_TLS": tls,
        "EMAIL_USE_SSL": ssl,
        "EMAIL_TIMEOUT": timeout,
    }


def email_settings(env: Mapping[str, str]) -> dict[str, Any]:
    """The mail settings the environment asks for: DJANGO_EMAIL_URL wins; else EMAIL_HOST (with EMAIL_PORT,
    EMAIL_HOST_USER, EMAIL_HOST_PASSWORD, EMAIL_USE_TLS, EMAIL_USE_SSL) means SMTP; else DJANGO_EMAIL_BACKEND
    (a backend's dotted path, as before); else the console."""
    if env.get("DJANGO_EMAIL_URL"):
        return parse_email_url(env["DJANGO_EMAIL_URL"])
    if env.get("EMAIL_HOST"):
        ssl, tls = _flag(env.get("EMAIL_USE_SSL")), _flag(env.get("EMAIL_USE_TLS"))
        if ssl and tls:
            raise ImproperlyConfigured("EMAIL_USE_TLS and EMAIL_USE_SSL exclude each other: set one.")
        try:
            port = int(env.get("EMAIL_PORT") or (465 if ssl else 587 if tls else 25))
        except ValueError:
            raise ImproperlyConfigured("EMAIL_PORT is a number.") from None
        return {
            "EMAIL_BACKEND": env.get("DJANGO_EMAIL_BACKEND") or SMTP,
            "EMAIL_HOST": env["EMAIL_HOST"],
            "EMAIL_PORT": port,
            "EMAIL_HOST_USER": env.get("EMAIL_HOST_USER", ""),
            "EMAIL_HOST_PASSWORD": env.get("EMAIL_HOST_PASSWORD", ""),
            "EMAIL_USE_TLS": tls,
            "EMAIL_USE_SSL": ssl,
            "EMAIL_TIMEOUT": DEFAULT_TIMEOUT,
        }
    return {"EMAIL_BACKEND": env.get("DJANGO_EMAIL_BACKEND") or BACKENDS["console"], "EMAIL_TIMEOUT": DEFAULT_TIMEOUT}
