"""A real SMTP server in the test process (aiosmtpd), to read what the site sends: every message accepted is kept,
parsed; a recipient can be refused (451 for a while, 550 for good), and every RCPT can be held until released
(to catch a worker in the middle of a send). Importable as `mail_server` from every test folder."""

from __future__ import annotations

import asyncio
import threading
import time
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any

from aiosmtpd.controller import Controller
from servers import free_port


class Sink:
    """aiosmtpd's handler: what arrives, and what to refuse."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []
        self.refusals: dict[str, list[str]] = {}  # address -> the replies to its next RCPTs, in order
        self.released = threading.Event()
        self.released.set()
        self.held = 0  # RCPTs waiting for release

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str,
                          rcpt_options: list[str]) -> str:
        replies = self.refusals.get(address)
        if replies:
            return replies.pop(0)
        if not self.released.is_set():
            self.held += 1
            await asyncio.get_running_loop().run_in_executor(None, self.released.wait)
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        message = message_from_bytes(envelope.content, policy=policy.default)
        assert isinstance(message, EmailMessage)
        self.messages.append(message)
        return "250 Message accepted for delivery"


class SmtpServer:
    def __init__(self) -> None:
        self.sink = Sink()
        self.port = free_port()
        self.controller = Controller(self.sink, hostname="127.0.0.1", port=self.port)

    def __enter__(self) -> SmtpServer:
        self.controller.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.sink.released.set()
        self.controller.stop()

    @property
    def messages(self) -> list[EmailMessage]:
        return self.sink.messages

    def to(self, address: str) -> list[EmailMessage]:
        return [m for m in self.messages if address in str(m["To"])]

    def wait_for(self, count: int, timeout: float = 10) -> list[EmailMessage]:
        deadline = time.monotonic() + timeout
        while len(self.messages) < count and time.monotonic() < deadline:
            time.sleep(0.02)
        return self.messages

    def settings(self) -> dict[str, Any]:
        """Django's settings for sending here."""
        return {"EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend", "EMAIL_HOST": "127.0.0.1",
                "EMAIL_PORT": self.port, "EMAIL_USE_TLS": False, "EMAIL_USE_SSL": False, "EMAIL_HOST_USER": "",
                "EMAIL_HOST_PASSWORD": "", "EMAIL_TIMEOUT": 10}


def text_of(message: EmailMessage) -> str:
    part = message.get_body(preferencelist=("plain",))
    assert part is not None
    return str(part.get_content())


def html_of(message: EmailMessage) -> str:
    part = message.get_body(preferencelist=("html",))
    assert part is not None
    return str(part.get_content())
