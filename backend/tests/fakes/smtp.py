"""A local SMTP server (aiosmtpd) keeping what it receives: where reminder and verification
emails go in tests (and, through tests/e2e/support/fake_smtp_server.py, in browser tests)."""

from __future__ import annotations

import asyncio
import email
import re
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from aiosmtpd.controller import Controller


class Inbox:
    """What the server received, in order."""

    def __init__(self) -> None:
        self.messages: list[email.message.Message] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.messages.append(email.message_from_bytes(envelope.content))
        return "250 OK"


async def reminder_link(inbox: Inbox, *, to: str, within: float = 30) -> tuple[str, str]:
    """The one reminder email's body and its one-time link's path under `/api/`, once it
    has come (the reminder is sent by the server's own loop)."""
    deadline = time.monotonic() + within
    while not inbox.messages:
        assert time.monotonic() < deadline, "no reminder email"
        await asyncio.sleep(0.05)
    [mail] = inbox.messages
    assert mail["To"] == to
    body = str(mail.get_payload(decode=True).decode())
    link = re.search(r"http://\S+/api/question-links/\S+", body)
    assert link is not None, body
    return body, link.group(0).split("/api/", 1)[1]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextmanager
def smtp_server(port: int | None = None) -> Iterator[tuple[Inbox, int]]:
    inbox, port = Inbox(), port or _free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield inbox, port
    finally:
        controller.stop()
