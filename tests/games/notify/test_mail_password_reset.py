"""The password reset (Django's own views, sending in the request through EMAIL_BACKEND) through the same real
SMTP server as the notifications: the mail arrives, its link sets a new password once."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client
from mail_server import SmtpServer, text_of

pytestmark = pytest.mark.django_db


def test_a_password_reset_mail_arrives_and_its_link_sets_a_new_password(
        smtp: SmtpServer, make_user: Callable[..., Any]) -> None:
    ana = make_user("ana", email="ana@example.org")
    client = Client()
    assert client.post("/accounts/password_reset/", {"email": "ana@example.org"}).status_code == 302
    assert client.post("/accounts/password_reset/", {"email": "nobody@example.org"}).status_code == 302
    (mail,) = smtp.wait_for(1)
    assert mail["To"] == "ana@example.org" and "ana" in text_of(mail)
    found = re.search(r"http://testserver(/accounts/reset/\S+/)", text_of(mail))
    assert found is not None
    form = client.get(found.group(1), follow=True)
    assert form.status_code == 200
    new = "a-brand-new-secret-77"
    done = client.post(form.redirect_chain[-1][0], {"new_password1": new, "new_password2": new})
    assert done.status_code == 302
    ana.refresh_from_db()
    assert ana.check_password(new)
    assert client.get(found.group(1), follow=True).context["validlink"] is False  # once
    assert len(smtp.messages) == 1  # the unknown address got nothing
