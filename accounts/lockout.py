"""django-axes' database handler, with a narrower reset when someone signs in.

Axes' own reset on success deletes every failure matching any lockout parameter of the request: with
AXES_LOCKOUT_PARAMETERS = ["ip_address", "username"], signing into one's own account (or signing up, which
signs in) wiped every failure from that address, whichever account they were against. Four guesses at
someone else's password, a sign-in of one's own, four more guesses, and so on: never locked out.

Here a sign-in forgives only that account's own failures from that same address (the person's own typos).
Failures against other accounts, and failures against this account from other addresses, keep counting
towards both limits (per username and per address) until the cool-off expires.
"""

from __future__ import annotations

from typing import Any

from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_username
from axes.models import AccessAttempt
from django.http import HttpRequest


class OwnFailuresResetHandler(AxesDatabaseHandler):
    def reset_user_attempts(self, request: HttpRequest, credentials: dict[str, Any] | None = None) -> int:
        username = get_client_username(request, credentials)
        if not username:
            return 0
        address = getattr(request, "axes_ip_address", None)  # set by axes' middleware
        count, _ = AccessAttempt.objects.filter(username=username, ip_address=address).delete()
        return count
