"""`manage.py run_mail` as real processes: two workers share the queue, one is killed with SIGKILL in the middle
of a send (the mail server holds every RCPT, so both are caught in one), and every notice still leaves exactly
once: the killed worker never got past RCPT, its claimed notices are taken again after its lease by the other,
and nobody gets a second mail. On SQLite the claim is the conditional UPDATE; on PostgreSQL (the CI's second pass)
SELECT ... FOR UPDATE SKIP LOCKED picks the candidates too."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone
from mail_server import SmtpServer, text_of
from servers import BASE_DIR, database_url

from games.models import Challenge, Notice
from games.notify.mail import queue

pytestmark = pytest.mark.django_db(transaction=True)  # the workers read what this process committed

PEOPLE = 12
LEASE = "2"


def worker(log: Path, smtp: SmtpServer, *args: str) -> subprocess.Popen[bytes]:
    from django.db import connection

    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "PYTHONUNBUFFERED": "1",
           "DATABASE_URL": database_url(connection.settings_dict),
           "DJANGO_EMAIL_URL": f"smtp://127.0.0.1:{smtp.port}", "DJANGO_SITE_URL": "https://cards.example.org"}
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    with log.open("ab") as output:
        return subprocess.Popen([sys.executable, "manage.py", "run_mail", "--lease", LEASE, "--poll", "0.1", *args],
                                cwd=BASE_DIR, env=env, stdout=output, stderr=subprocess.STDOUT)


def wait_for(check: Callable[[], Any], timeout: float, what: str, log: Path) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"{what} did not happen in {timeout} s; the workers said:\n{log.read_text()[-3000:]}")


def test_two_workers_and_a_kill_9_send_every_notice_exactly_once(
        smtp: SmtpServer, subscriber: Callable[..., Any], tmp_path: Path) -> None:
    challenger = subscriber("zed")
    people = [subscriber(f"p{number}") for number in range(PEOPLE)]
    now = timezone.now()
    for person in people:
        made = Challenge.objects.create(challenger=challenger, challenged=person, game="gomori", clock={},
                                        created_at=now, expires_at=now + timedelta(hours=1))
        queue.notify([person.pk], "challenge", f"challenge:{made.pk}", challenge_id=made.pk)
    assert Notice.objects.filter(status=Notice.Status.QUEUED).count() == PEOPLE
    log = tmp_path / "workers.log"

    smtp.sink.released.clear()  # every RCPT waits: each worker is caught in its first send
    first, second = worker(log, smtp), worker(log, smtp)
    try:
        wait_for(lambda: smtp.sink.held >= 2, 60, "both workers in a send", log)
        assert Notice.objects.filter(status=Notice.Status.CLAIMED).count() == 2
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)
        smtp.sink.released.set()
        wait_for(lambda: Notice.objects.filter(status=Notice.Status.SENT).count() == PEOPLE, 60,
                 "every notice sent", log)
        second.send_signal(signal.SIGTERM)  # a worker told to stop exits cleanly
        assert second.wait(timeout=20) == 0, log.read_text()[-3000:]
    finally:
        for process in (first, second):
            if process.poll() is None:
                process.kill()
    time.sleep(0.2)  # the last DATA's reply is written before the row is marked: it has arrived
    received = Counter(str(message["To"]) for message in smtp.messages)
    assert received == Counter(f"p{number}@example.org" for number in range(PEOPLE)), received
    for message in smtp.messages:
        assert "Zed challenges you to Gomori" in text_of(message)
    taken_again = Notice.objects.filter(attempts=2)
    assert taken_again.count() == 1  # the killed worker's notice, after its lease
    assert "Mail worker stopped" in log.read_text()
