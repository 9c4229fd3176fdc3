"""How mail is configured from the environment (config/email_url.py): DJANGO_EMAIL_URL, the usual EMAIL_*
variables, the console when nothing is set; a wrong URL says what is wrong at start-up."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.email_url import BACKENDS, SMTP, email_settings, parse_email_url


def test_nothing_set_is_the_console() -> None:
    assert email_settings({})["EMAIL_BACKEND"] == BACKENDS["console"]
    assert email_settings({"DJANGO_EMAIL_BACKEND": "x.Backend"})["EMAIL_BACKEND"] == "x.Backend"


def test_an_smtp_url_with_starttls_ssl_and_a_user_with_an_at() -> None:
    tls = parse_email_url("smtp://me%40example.org:s3cr%2Ft@mail.example.org:2525?tls=1&timeout=20")
    assert tls == {"EMAIL_BACKEND": SMTP, "EMAIL_HOST": "mail.example.org", "EMAIL_PORT": 2525,
                   "EMAIL_HOST_USER": "me@example.org", "EMAIL_HOST_PASSWORD": "s3cr/t", "EMAIL_USE_TLS": True,
                   "EMAIL_USE_SSL": False, "EMAIL_TIMEOUT": 20}
    assert parse_email_url("smtp://mail.example.org?tls=1")["EMAIL_PORT"] == 587
    assert parse_email_url("smtp://mail.example.org")["EMAIL_PORT"] == 25
    ssl = parse_email_url("smtps://u:p@mail.example.org")
    assert ssl["EMAIL_PORT"] == 465 and ssl["EMAIL_USE_SSL"] and not ssl["EMAIL_USE_TLS"]
    assert email_settings({"DJANGO_EMAIL_URL": "console://"})["EMAIL_BACKEND"] == BACKENDS["console"]


def test_the_usual_email_variables() -> None:
    found = email_settings({"EMAIL_HOST": "smtp.example.org", "EMAIL_USE_TLS": "true", "EMAIL_HOST_USER": "u",
                            "EMAIL_HOST_PASSWORD": "p"})
    assert found["EMAIL_BACKEND"] == SMTP and found["EMAIL_PORT"] == 587 and found["EMAIL_USE_TLS"]
    assert email_settings({"EMAIL_HOST": "h", "EMAIL_PORT": "26"})["EMAIL_PORT"] == 26
    # The URL wins over the variables.
    assert email_settings({"DJANGO_EMAIL_URL": "smtps://a.org", "EMAIL_HOST": "b.org"})["EMAIL_HOST"] == "a.org"


@pytest.mark.parametrize("url", ["http://mail.example.org", "smtp://", "smtp://h:notaport", "smtp://h?timeout=x"])
def test_a_wrong_url_is_refused_with_a_reason(url: str) -> None:
    with pytest.raises(ImproperlyConfigured):
        parse_email_url(url)


def test_tls_and_ssl_together_are_refused() -> None:
    with pytest.raises(ImproperlyConfigured):
        email_settings({"EMAIL_HOST": "h", "EMAIL_USE_TLS": "1", "EMAIL_USE_SSL": "1"})
