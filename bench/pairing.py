#!/usr/bin/env python3
"""Quick pairing as a person feels it: two real browsers (Playwright, Debian's chromium) in the lobby, one clicks
a pool's button, then the other; the time is from the second click until both pages show the new match's table
(its board drawn). ROUNDS rounds, the median and p90 printed.

The site is served as deployed: daphne, debug off, static files collected and served by WhiteNoise, on a fresh
SQLite database in a temporary folder (or, with DATABASE_URL on PostgreSQL, a database of its own next to the
one named there; REDIS_URL for the channel layer).

    .venv/bin/python bench/pairing.py                  # 20 rounds on SQLite, in-memory channel layer
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/cardclub REDIS_URL=redis://127.0.0.1:6379/5 \\
        .venv/bin/python bench/pairing.py
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.pages import reset_database, serve  # noqa: E402

CHROMIUM = os.environ.get("E2E_CHROMIUM", "/usr/bin/chromium")
POOL = "gomori-2-none"
CLICK_CLOCK = """document.addEventListener("click", function (event) {
  if (event.target.closest && event.target.closest("[data-pool]")) {
    sessionStorage.setItem("clickAt", String(performance.timeOrigin + performance.now()));
  }
}, true);"""
# When the page first painted, on the same clock (epoch milliseconds).
PAINTED = """(() => { const paint = performance.getEntriesByName("first-contentful-paint")[0]
  || performance.getEntriesByType("navigation")[0];
  return performance.timeOrigin + (paint.startTime || paint.domContentLoadedEventEnd); })()"""


def database(tmp: str) -> str:
    configured = os.environ.get("DATABASE_URL", "")
    if configured.startswith(("postgres://", "postgresql://")):
        url = urlunsplit(urlsplit(configured)._replace(path="/cardclub_bench_pairing"))
        reset_database(url)
        return url
    return f"sqlite:///{tmp}/pairing.sqlite3"


def people() -> list[str]:
    """Two people and their session keys (in the bench's database)."""
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    from accounts.models import User

    keys = []
    for name in ("ada", "bea"):
        user = User.objects.create_user(name, password=None, display_name=name.title())
        session = SessionStore()
        session[SESSION_KEY] = str(user.pk)
        session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        session[HASH_SESSION_KEY] = user.get_session_auth_hash()
        session.create()
        keys.append(session.session_key)
    return keys


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "DATABASE_URL": database(tmp), "DJANGO_SETTINGS_MODULE": "bench.pages_settings",
               "DJANGO_SECRET_KEY": "bench-pairing-" + "x" * 40, "DJANGO_STATIC_ROOT": f"{tmp}/static",
               "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost", "DJANGO_HTTPS": "false", "DJANGO_DEBUG": "false"}
        os.environ.update(env)
        import django

        django.setup()
        from django.core.management import call_command
        from django.db import connection

        call_command("migrate", verbosity=0)
        call_command("collectstatic", verbosity=0, interactive=False)
        cookies = people()
        connection.close()
        proc, port = serve(env)
        base = f"http://127.0.0.1:{port}"
        from playwright.sync_api import sync_playwright

        times: list[float] = []
        told: list[float] = []  # until both pages have the match's page coming (its response begun)
        in_browser: list[float] = []  # the browsers' clocks: the click event to the later first paint
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                                     args=["--no-sandbox", "--disable-gpu"])
                tabs = []
                for key in cookies:
                    # The browser's own clock marks the click (kept across the navigation) and the new page's
                    # first paint: Playwright's round trips are not counted. (CSP bypassed for reading them.)
                    context = browser.new_context(base_url=base, bypass_csp=True)
                    context.add_init_script(script=CLICK_CLOCK)
                    context.add_cookies([{"name": "sessionid", "value": key, "url": base}])
                    tabs.append(context.new_page())
                first, second = tabs
                for _ in range(args.rounds + 2):  # two rounds to warm up, not counted
                    for tab in tabs:
                        tab.goto("/play/")
                        tab.wait_for_selector("#quick .quick-button:not([disabled])")
                    first.wait_for_timeout(400)  # both lobby sockets open
                    first.locator(f'button[data-pool="{POOL}"]').click()
                    first.wait_for_selector(f'button[data-pool="{POOL}"][aria-pressed="true"]')
                    second.locator(f'button[data-pool="{POOL}"]').filter(has_text="1 waiting").wait_for()
                    began = time.perf_counter()
                    second.locator(f'button[data-pool="{POOL}"]').click()
                    for tab in tabs:  # the server's answer: both pages asked for the match's address
                        tab.wait_for_url(re.compile(r".*/m/\d+/$"), wait_until="commit")
                    told.append(time.perf_counter() - began)
                    for tab in tabs:
                        tab.wait_for_selector("#board")
                    times.append(time.perf_counter() - began)
                    clicked = second.evaluate("Number(sessionStorage.getItem('clickAt'))")
                    painted = max(tab.evaluate(PAINTED) for tab in tabs)
                    in_browser.append((painted - clicked) / 1000)
                    if first.url != second.url:
                        raise SystemExit(f"paired apart: {first.url} and {second.url}")
                browser.close()
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    counted, answered, browser_side = sorted(times[2:]), sorted(told[2:]), sorted(in_browser[2:])
    engine = "PostgreSQL" if env["DATABASE_URL"].startswith("postgres") else "SQLite"
    layer = "Redis" if os.environ.get("REDIS_URL") else "in-memory"
    print(f"quick pairing, {engine} + {layer} channel layer, {len(counted)} rounds: from the second click until "
          f"both tables are drawn")
    print(f"median {statistics.median(counted) * 1000:.0f} ms, p90 "
          f"{counted[min(len(counted) - 1, round(0.9 * (len(counted) - 1)))] * 1000:.0f} ms, "
          f"min {counted[0] * 1000:.0f} ms, max {counted[-1] * 1000:.0f} ms")
    print(f"of which until both pages had the match's page coming: median "
          f"{statistics.median(answered) * 1000:.0f} ms (the rest: loading and drawing the table)")
    print(f"by the browsers' own clocks, the click event to the later page's first paint: median "
          f"{statistics.median(browser_side) * 1000:.0f} ms, p90 "
          f"{browser_side[min(len(browser_side) - 1, round(0.9 * (len(browser_side) - 1)))] * 1000:.0f} ms")


if __name__ == "__main__":
    main()
