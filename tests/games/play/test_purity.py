"""The decisions of a match are pure: games.play.decide and games.play.seating (and what they import) read no
database. Imported in a fresh interpreter without Django set up, a module that reached for the ORM would raise
(the app registry is not ready) or show in sys.modules."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
DECIDING = ("games.play.decide", "games.play.seating")
FORBIDDEN = ("django.db", "games.models", "accounts.models", "channels", "games.play.store", "games.play.presence")


def imported_by(modules: tuple[str, ...]) -> list[str] | str:
    """The modules loaded by importing these (Django not set up), or the error the import raised."""
    code = ("import importlib, json, sys\n"
            f"for name in {list(modules)!r}: importlib.import_module(name)\n"
            "print(json.dumps(sorted(sys.modules)))")
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings"}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
    if done.returncode:
        return done.stderr.strip().splitlines()[-1]
    loaded: list[str] = json.loads(done.stdout)
    return loaded


def test_the_deciders_import_no_database() -> None:
    loaded = imported_by(DECIDING)
    assert isinstance(loaded, list), loaded
    assert set(DECIDING) <= set(loaded)
    assert [m for m in loaded if m.startswith(FORBIDDEN)] == []


def test_the_check_sees_a_module_that_reads_the_database() -> None:
    """The same check on a module that reads the database (the store) finds it."""
    loaded = imported_by(("games.play.store",))
    assert "AppRegistryNotReady" in loaded if isinstance(loaded, str) else "games.models" in loaded
