"""Decisions serialised in the database, so any process may take them: a transaction-level lock per key."""

from __future__ import annotations

from django.db import connection


def advisory_xact_lock(namespace: int, key: int) -> None:
    """Hold `(namespace, key)` until the current transaction ends. PostgreSQL: an advisory lock, so decisions of
    several processes about one thing run one after the other, each seeing what the last wrote. SQLite: nothing to
    do, its transactions are IMMEDIATE (config.settings): one writer at a time, deciding on the latest data."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [namespace, key])
