"""The README's first command is safe to serve friends with: with nothing in the environment the settings
have debug off and a secret key of the installation's own (made once, kept in a file only its owner reads),
and `./dev run` serves a 404 without the URL list, the static files and the uploaded avatars."""

from __future__ import annotations

import contextlib
import os
import socket
import stat
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from servers import free_port

BASE_DIR = Path(__file__).resolve().parents[1]
SHOW = ("from django.conf import settings; "
        "print(settings.DEBUG, settings.HTTPS, settings.SERVE_MEDIA, settings.SECRET_KEY_FILE, settings.SECRET_KEY)")


def clean_env(**extra: str) -> dict[str, str]:
    """The environment of someone who set nothing: none of the site's variables (not even the test suite's)."""
    site = ("DJANGO_", "DATABASE_URL", "REDIS_URL", "CHANNELS_", "GAMES_", "AXES_")
    return {**{key: value for key, value in os.environ.items() if not key.startswith(site)}, **extra}


def settings_with(env: dict[str, str]) -> list[str]:
    result = subprocess.run([sys.executable, "-c", f"import django; django.setup(); {SHOW}"], cwd=BASE_DIR,
                            env={**env, "DJANGO_SETTINGS_MODULE": "config.settings"}, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


def test_with_nothing_set_debug_is_off_and_a_key_is_made_once_and_kept_private(tmp_path: Path) -> None:
    key_file = tmp_path / "secret"
    debug, https, media, path, key = settings_with(clean_env(DJANGO_SECRET_KEY_FILE=str(key_file)))
    assert debug == "False" and https == "True" and media == "True"
    assert path == str(key_file) and key_file.read_text().strip() == key and len(key) >= 50
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert list(tmp_path.iterdir()) == [key_file]  # no draft left behind
    # Reused on the next start (sessions survive a restart), and DJANGO_SECRET_KEY still wins.
    assert settings_with(clean_env(DJANGO_SECRET_KEY_FILE=str(key_file)))[-1] == key
    chosen = "k" * 60
    assert settings_with(clean_env(DJANGO_SECRET_KEY_FILE=str(key_file), DJANGO_SECRET_KEY=chosen))[-1] == chosen
    # Debug is for development, asked for by name.
    assert settings_with(clean_env(DJANGO_SECRET_KEY_FILE=str(key_file), DJANGO_DEBUG="1"))[:2] == ["True", "False"]


def test_the_key_file_is_at_the_project_root_and_ignored_by_git() -> None:
    path = settings_with(clean_env(DJANGO_SECRET_KEY="k" * 60))[3]
    assert path == str(BASE_DIR / ".secret_key")
    ignored = subprocess.run(["git", "check-ignore", "-q", ".secret_key"], cwd=BASE_DIR, timeout=30)
    assert ignored.returncode == 0


class NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None  # a redirect (to https, say) is answered as it is


def fetch(url: str) -> tuple[int, str]:
    """The status and text of a GET, redirects not followed."""
    try:
        with urllib.request.build_opener(NoRedirects).open(url, timeout=10) as response:
            return response.status, response.read().decode(errors="replace")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(errors="replace")


@pytest.mark.timeout(600)
def test_dev_run_serves_no_debug_page_and_serves_static_files_and_avatars(tmp_path: Path) -> None:
    """The default command itself, on a database, static and media folders of its own."""
    port = free_port()
    media = tmp_path / "media"
    (media / "avatars" / "1").mkdir(parents=True)
    (media / "avatars" / "1" / "me.png").write_bytes(b"\x89PNG\r\n\x1a\n-avatar-")
    env = clean_env(PORT=str(port), HOST="127.0.0.1", DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
                    DJANGO_STATIC_ROOT=str(tmp_path / "static"), DJANGO_MEDIA_ROOT=str(media),
                    DJANGO_SECRET_KEY_FILE=str(tmp_path / "secret"))
    log = (tmp_path / "dev-run.log").open("wb")
    process = subprocess.Popen(["./dev", "run"], cwd=BASE_DIR, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 300  # a fresh database is migrated and the static files collected first
        while time.monotonic() < deadline:
            assert process.poll() is None, (tmp_path / "dev-run.log").read_text()[-4000:]
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
                break
            time.sleep(0.2)
        base = f"http://127.0.0.1:{port}"
        status, page = fetch(f"{base}/no-such-page/")
        assert status == 404
        assert "URLconf" not in page and "admin/" not in page and "DEBUG = True" not in page
        status, page = fetch(f"{base}/")
        assert status == 200  # plain HTTP works: no redirect to https
        stylesheet = page.split('rel="stylesheet" href="', 1)[1].split('"', 1)[0]
        assert stylesheet.startswith("/static/")
        assert fetch(base + stylesheet)[0] == 200
        status, avatar = fetch(f"{base}/media/avatars/1/me.png")
        assert status == 200 and "-avatar-" in avatar
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
        log.close()


def test_a_deployment_turns_the_site_s_own_media_serving_off() -> None:
    check = ("import django; django.setup(); from django.urls import Resolver404, resolve\n"
             "try:\n    resolve('/media/avatars/1/me.png'); print('served')\n"
             "except Resolver404:\n    print('not served')")
    for value, expected in (("", "served"), ("0", "not served")):
        result = subprocess.run([sys.executable, "-c", check], cwd=BASE_DIR, capture_output=True, text=True,
                                env={**clean_env(DJANGO_SECRET_KEY="k" * 60, DJANGO_SERVE_MEDIA=value),
                                     "DJANGO_SETTINGS_MODULE": "config.settings"}, timeout=120)
        assert result.stdout.strip() == expected, result.stderr
