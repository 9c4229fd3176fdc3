"""The documented production settings pass Django's deployment checklist (manage.py check --deploy)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parents[1]


def test_check_deploy_is_clean_with_the_documented_production_variables() -> None:
    env = {
        **{key: value for key, value in os.environ.items() if not key.startswith("DJANGO_")},
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DJANGO_DEBUG": "false",
        "DJANGO_SECRET_KEY": "x7#kq!v2m-production-like-secret-of-fifty-or-more-characters-0193",
        "DJANGO_ALLOWED_HOSTS": "cards.example.org",
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=BASE_DIR, env=env, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout
