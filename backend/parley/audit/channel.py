"""Through what a request came (the web UI, a program over REST, an MCP client), kept for
the request's task so the audit trail can say how a decision arrived without every layer
between the door and the decision passing it along.

The door sets it (the API's credential check, the MCP server's tool context); a decision
names its channel explicitly where the door knows more (a notification's button, an emailed
link), and that wins. Plain values only: nothing of HTTP reaches the services.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Channel:
    via: str  # web | rest | mcp | push_action | email_link
    session_id: int | None = None  # the web session, for the web UI
    device_id: int | None = None  # the push subscription, for a notification's button


_current: ContextVar[Channel | None] = ContextVar("parley_audit_channel", default=None)


def set_channel(channel: Channel) -> None:
    _current.set(channel)


def current() -> Channel:
    """The request's channel; outside any request (a test, a script): REST."""
    return _current.get() or Channel("rest")
