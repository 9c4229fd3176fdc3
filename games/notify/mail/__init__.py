"""Notifications by email (README, "Notifications by email"): kinds (what a person may opt into), tokens (the
signed verification and unsubscribe links), queue (the one decision, and the features' news queued after their
commit), compose (what a mail says), worker (manage.py run_mail sends them), views (verify, unsubscribe, the
profile's choices)."""

from .kinds import KINDS

__all__ = ["KINDS"]
