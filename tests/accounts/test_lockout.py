"""Sign-in lockout can't be side-stepped: a success (or a sign-up) clears only the signing-in account's own
failures from that address, never another account's failures nor the address's failures against others."""

from __future__ import annotations

import io
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.core.management import call_command
from django.db.models import F
from django.urls import reverse

pytestmark = pytest.mark.django_db

HOME = "203.0.113.10"
ELSEWHERE = "198.51.100.20"


def attempt(client: Any, username: str, password: str, ip: str) -> Any:
    return client.post(reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=ip)


def is_lockout(response: Any) -> bool:
    return response.status_code == 429 and "Too many sign-in attempts" in response.content.decode()


def sign_in_as_own_account(client: Any, username: str, password: str, ip: str) -> Any:
    response = attempt(client, username, password, ip)
    client.logout()
    return response


def test_the_handler_resets_only_the_signing_in_accounts_own_failures() -> None:
    assert settings.AXES_HANDLER == "accounts.lockout.OwnFailuresResetHandler"
    assert settings.AXES_RESET_ON_SUCCESS is True


def test_successes_for_ones_own_account_dont_buy_more_guesses_for_another(
    client: Any, make_user: Callable[..., Any], password: str
) -> None:
    """(a) 4 wrong for alice, then sign into one's own account, three times over: only 4 guesses get through."""
    make_user("alice")
    make_user("mallory")
    guesses_let_through = 0
    for round_ in range(3):
        for _ in range(4):
            if not is_lockout(attempt(client, "alice", "wrong", HOME)):
                guesses_let_through += 1
        success = sign_in_as_own_account(client, "mallory", password, HOME)
        if round_ == 0:
            assert success.status_code == 302  # the address isn't locked yet: 4 failures
    assert guesses_let_through == 4
    # alice is locked out from anywhere, even with her right password, and so is the address.
    assert is_lockout(attempt(client, "alice", password, ELSEWHERE))
    assert is_lockout(attempt(client, "mallory", password, HOME))


def test_signing_up_doesnt_clear_anothers_failures(client: Any, make_user: Callable[..., Any]) -> None:
    """(b) A new account signed up (and so signed in) from the address leaves alice's 4 failures in place."""
    make_user("alice")
    for _ in range(4):
        assert attempt(client, "alice", "wrong", HOME).status_code == 200
    signup = {
        "username": "newcomer",
        "display_name": "",
        "email": "",
        "password1": "analytical-engine-1843",
        "password2": "analytical-engine-1843",
    }
    assert client.post(reverse("signup"), signup, REMOTE_ADDR=HOME).status_code == 302
    client.logout()
    # alice's fifth failure, from another address, locks the username...
    assert is_lockout(attempt(client, "alice", "wrong", ELSEWHERE))
    # ...and the address's fifth failure, against yet another username, locks the address.
    assert is_lockout(attempt(client, "carol", "wrong", HOME))


def test_failures_for_one_username_from_many_addresses_lock_it_despite_successes_there(
    client: Any, make_user: Callable[..., Any], password: str
) -> None:
    """(c) One guess for alice from each of five addresses, each followed by a success for one's own account."""
    make_user("alice")
    make_user("mallory")
    for n in range(1, 5):
        ip = f"192.0.2.{n}"
        assert attempt(client, "alice", "wrong", ip).status_code == 200
        assert sign_in_as_own_account(client, "mallory", password, ip).status_code == 302
    assert is_lockout(attempt(client, "alice", "wrong", "192.0.2.5"))
    assert is_lockout(attempt(client, "alice", password, "192.0.2.99"))
    # The addresses themselves are not locked: one failure each.
    assert sign_in_as_own_account(client, "mallory", password, "192.0.2.1").status_code == 302


def test_a_correct_sign_in_after_fewer_than_five_failures_works(
    client: Any, make_user: Callable[..., Any], password: str
) -> None:
    """(d) Four typos, then the right password: signed in, and those four typos of hers are forgiven."""
    make_user("alice")
    for _ in range(4):
        assert attempt(client, "alice", "wrong", HOME).status_code == 200
    assert sign_in_as_own_account(client, "alice", password, HOME).status_code == 302
    for _ in range(4):
        assert attempt(client, "alice", "wrong", HOME).status_code == 200
    assert is_lockout(attempt(client, "alice", "wrong", HOME))


def test_a_success_keeps_the_addresss_failures_against_other_accounts(
    client: Any, make_user: Callable[..., Any], password: str
) -> None:
    make_user("alice")
    for n in range(4):
        assert attempt(client, f"guess-{n}", "wrong", HOME).status_code == 200
    assert sign_in_as_own_account(client, "alice", password, HOME).status_code == 302
    assert is_lockout(attempt(client, "guess-4", "wrong", HOME))


def test_a_success_keeps_failures_against_that_account_from_other_addresses(
    client: Any, make_user: Callable[..., Any], password: str
) -> None:
    """Someone else's guesses at alice's password, from elsewhere, still count after alice signs in."""
    make_user("alice")
    for n in range(4):
        assert attempt(client, "alice", "wrong", f"192.0.2.{n + 1}").status_code == 200
    assert sign_in_as_own_account(client, "alice", password, HOME).status_code == 302
    assert is_lockout(attempt(client, "alice", "wrong", "192.0.2.5"))


def _age_failures(minutes: float) -> None:
    """Move every recorded failure this many minutes into the past."""
    AccessAttempt.objects.update(attempt_time=F("attempt_time") - timedelta(minutes=minutes))


def test_failures_are_forgotten_after_the_cool_off_and_tries_while_locked_out_count(
    client: Any, make_user: Callable[..., Any], password: str
) -> None:
    make_user("alice")
    assert settings.AXES_COOLOFF_TIME == 0.25  # hours: 15 minutes
    for _ in range(5):
        attempt(client, "alice", "wrong", HOME)
    _age_failures(10)
    # A try while locked out, even with the right password, is refused and counts as a failure...
    assert is_lockout(attempt(client, "alice", password, HOME))
    _age_failures(10)
    # ...so 20 minutes after the fifth failure (10 after that try) she is still locked out...
    assert is_lockout(attempt(client, "alice", password, ELSEWHERE))
    _age_failures(16)
    # ...and 15 minutes after the latest failure everything is forgotten.
    assert sign_in_as_own_account(client, "alice", password, HOME).status_code == 302


def test_an_administrator_can_lift_a_lockout(client: Any, make_user: Callable[..., Any], password: str) -> None:
    make_user("alice")
    for n in range(5):
        attempt(client, "alice", "wrong", f"192.0.2.{n + 1}")
    assert is_lockout(attempt(client, "alice", password, HOME))
    call_command("axes_reset_username", "alice", stdout=io.StringIO())
    assert sign_in_as_own_account(client, "alice", password, HOME).status_code == 302
