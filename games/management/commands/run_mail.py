"""Run the mail worker (games.notify.mail.worker): any number may run, on any machine sharing the database; each
person's notices are claimed by one of them, and a killed worker's are taken again after its lease."""

from __future__ import annotations

import datetime as dt
from typing import Any

from games.core.leases import LeaseWorker, WorkerCommand
from games.notify.mail.worker import Worker


class Command(WorkerCommand):
    help = "Send the queued email notifications, forever (a worker beside the servers)."
    worker_name = "Mail"
    once_help = "send what is due, then exit"
    default_lease = 60.0
    lease_help = ("seconds claimed notices stay this worker's (default 60); a killed worker's are taken again "
                  "after that")

    def worker(self, lease: dt.timedelta, **options: Any) -> Worker:
        return Worker(lease=lease, say=self.say)

    def drained(self, worker: LeaseWorker, count: int) -> str:
        assert isinstance(worker, Worker)
        return f"{count} person(s) claimed, {worker.sent} mail(s) sent."

    def stopped(self, worker: LeaseWorker) -> str:
        assert isinstance(worker, Worker)
        return f"Mail worker stopped ({worker.sent} mail(s) sent)."
