"""What a Parley process makes once at start-up and shares: the composition root's shape.

The API server builds an `ApiServices` in its lifespan (`parley.api.root`) and hands it to
requests as Starlette lifespan state, to its in-process MCP server (the assistant's tools)
and to `/mcp`; `parley mcp` builds the smaller `Services` for its own process (no turns, no
sessions, no assistant). MCP tools read it from their server's lifespan context
(`parley.tools.context`), routes through the typed dependencies of `parley.api.deps`.

The API-only types are imported for type checking alone: `parley mcp` must not load the
Agents SDK or the Claude SDK to read this module.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from parley.accounts.credentials import Credentials
from parley.config import Settings
from parley.db import Database
from parley.limits import RateLimiter
from parley.modes import Modes
from parley.realtime.hub import Hub, message_fetcher
from parley.realtime.notifier import Notifier
from parley.realtime.waits import Waits

if TYPE_CHECKING:
    from starlette.types import ASGIApp

    from parley.accounts.oidc import Provider as OidcProvider
    from parley.assistant.runner import Assistant
    from parley.chat.runner import TurnRunner
    from parley.push.service import Push
    from parley.work.manager import WorkManager

# The key of the lifespan state the API's lifespan yields (Starlette copies it into every
# request's `scope["state"]`).
STATE_KEY = "services"


def realtime_parts(db: Database, *, database_url: str) -> tuple[Hub, Waits, Notifier]:
    """Every process's realtime parts over `db` (the notifier not started yet). A released
    connection wakes the notifier's reader: set on the pool here, not passed to `connect`,
    because the notifier needs the hub, which reads through this very pool."""
    hub, waits = Hub(message_fetcher(db)), Waits()
    notifier = Notifier(database_url=database_url, hub=hub, waits=waits)
    db.on_release = notifier.nudge
    return hub, waits, notifier


@dataclass(frozen=True, kw_only=True)
class Services:
    """What every Parley process has: its database, who is who, and the realtime parts
    (a conversation's live events, wake-ups of waits, and the notifier carrying both
    between instances); `modes` is the one door every write into a conversation goes
    through."""

    settings: Settings
    db: Database
    credentials: Credentials
    hub: Hub
    waits: Waits
    notifier: Notifier
    modes: Modes


@dataclass(frozen=True, kw_only=True)
class ApiServices(Services):
    """The API server's: also what runs turns and sessions, and the apps it serves beside
    its routes (`/mcp`, the OAuth authorization server), which need the database and so
    exist only once the lifespan has made it."""

    limiter: RateLimiter
    runner: TurnRunner
    work: WorkManager
    assistant: Assistant
    push: Push
    oidc: OidcProvider | None  # None unless sign-in with an OpenID provider is configured
    oauth: ASGIApp
    mcp: ASGIApp


def from_scope(scope: Mapping[str, Any]) -> ApiServices | None:
    """The API's services in an ASGI scope's lifespan state; None before the lifespan has
    made them (or in an app that has none)."""
    state = scope.get("state")
    found = state.get(STATE_KEY) if isinstance(state, Mapping) else None
    return found if isinstance(found, ApiServices) else None
