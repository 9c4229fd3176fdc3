"""The WebSocket origin check, as strict as Django's CSRF origin check: a socket opens only from a page of
this very site (the same scheme, host and port) or from an origin listed in CSRF_TRUSTED_ORIGINS.

Channels' AllowedHostsOriginValidator compared host names alone, so a page on another port or scheme of the
same host (or any host in ALLOWED_HOSTS) could open a signed-in player's socket and act through it. Browsers
always send an Origin with a WebSocket handshake, so a handshake without one (or with "null", a sandboxed or
file page) is refused too. A refusal closes at the handshake (403), as Channels' validator does.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.http.request import split_domain_port, validate_host

DEFAULT_PORTS = {"http": "80", "https": "443"}
# The socket's own scheme, as the page that opened it has it.
PAGE_SCHEMES = {"ws": "http", "wss": "https", "http": "http", "https": "https"}


def normalise(scheme: str, netloc: str) -> str | None:
    """scheme://host[:port], the host in lower case and a default port left out; None if it is no origin."""
    scheme = scheme.lower()
    if scheme not in DEFAULT_PORTS or not netloc or "@" in netloc:
        return None
    host, port = split_domain_port(netloc.lower())
    if not host:
        return None
    if netloc.startswith("["):  # split_domain_port drops an IPv6 address's brackets
        host = f"[{host}]"
    if port and not port.isdigit():
        return None
    if port == DEFAULT_PORTS[scheme]:
        port = ""
    return f"{scheme}://{host}" + (f":{port}" if port else "")


def parse_origin(value: str) -> str | None:
    """An Origin header's value, normalised; None for "null", a path or anything else that is no origin."""
    try:
        parts = urlsplit(value.strip())
    except ValueError:
        return None
    if parts.path or parts.query or parts.fragment:
        return None
    return normalise(parts.scheme, parts.netloc)


def trusted(origin: str) -> bool:
    """Whether CSRF_TRUSTED_ORIGINS lists the origin: exactly, or as Django's https://*.example.com form (any
    subdomain of example.com, with that scheme)."""
    scheme, _, netloc = origin.partition("://")
    for entry in settings.CSRF_TRUSTED_ORIGINS:
        entry_scheme, _, entry_netloc = entry.lower().partition("://")
        if entry_netloc.startswith("*."):
            pattern = normalise(entry_scheme, entry_netloc[2:])
            if pattern is None:
                continue
            suffix = pattern.partition("://")[2]
            if scheme == entry_scheme and netloc.endswith("." + suffix):
                return True
        elif normalise(entry_scheme, entry_netloc) == origin:
            return True
    return False


def page_scheme(scope: dict[str, Any], headers: dict[bytes, bytes]) -> str:
    """http or https: the scheme of the page that may open this socket, decided as Django decides
    request.is_secure(). Behind a TLS proxy (SECURE_PROXY_SSL_HEADER set, as the settings do when the site is
    served over HTTPS) the proxy's header says it: daphne's WebSocket scope carries no scheme of its own, even
    with --proxy-headers."""
    if settings.SECURE_PROXY_SSL_HEADER:
        name, secure_value = settings.SECURE_PROXY_SSL_HEADER
        header = name.removeprefix("HTTP_").lower().replace("_", "-").encode("latin1")
        if header in headers:
            value = headers[header].decode("latin1").split(",", 1)[0].strip()
            return "https" if value == secure_value else "http"
    return PAGE_SCHEMES.get(str(scope.get("scheme") or "ws").lower(), "")


def allowed_hosts() -> list[str]:
    hosts = list(settings.ALLOWED_HOSTS)
    if settings.DEBUG and not hosts:  # as Django's own request.get_host() does
        hosts = [".localhost", "127.0.0.1", "[::1]"]
    return hosts


def origin_allowed(scope: dict[str, Any]) -> bool:
    """Whether a WebSocket handshake comes from a page of this site (see the module's docstring)."""
    headers = dict(scope.get("headers") or [])
    raw_origin, raw_host = headers.get(b"origin"), headers.get(b"host")
    if raw_origin is None or raw_host is None:
        return False
    try:
        origin_value, host_value = raw_origin.decode("ascii"), raw_host.decode("ascii")
    except UnicodeDecodeError:
        return False
    # The Host must be one the site answers to, as Django demands of every request.
    domain, _port = split_domain_port(host_value.lower())
    if not domain or not validate_host(domain, allowed_hosts()):
        return False
    origin = parse_origin(origin_value)
    if origin is None:
        return False
    expected = normalise(page_scheme(scope, headers), host_value)
    return origin == expected or trusted(origin)


class SameOriginValidator:
    """ASGI middleware for WebSockets: hands on a handshake from this site's own pages, refuses any other."""

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if scope["type"] != "websocket":
            raise ValueError("SameOriginValidator checks WebSocket connections only.")
        if origin_allowed(scope):
            return await self.application(scope, receive, send)
        return await WebsocketDenier()(scope, receive, send)
