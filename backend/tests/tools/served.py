"""An in-process MCP server on a test's database: the services a tool call reaches, made as
`parley mcp` makes them (posting only: no turns, no sessions), nothing started."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

from parley.accounts.credentials import Credentials
from parley.db import Database
from parley.modes import Modes, Parts
from parley.realtime.hub import Hub, message_fetcher
from parley.realtime.notifier import Notifier
from parley.realtime.waits import Waits
from parley.services import Services
from parley.tools.context import ToolContext, serving
from parley.tools.identity import CallerResolver
from parley.tools.server import build_server
from tests.conftest import SECRET, settings_for


def services_for(db: Database) -> Services:
    settings = settings_for()
    hub = Hub(message_fetcher(db))
    return Services(
        settings=settings,
        db=db,
        credentials=Credentials(db, secret=SECRET, cache_seconds=0),
        hub=hub,
        waits=Waits(),
        notifier=Notifier(database_url="postgresql://unused/unused", hub=hub),
        modes=Modes(Parts(db=db, settings=settings)),
    )


def tool_server(db: Database, caller: CallerResolver, *, with_work: bool = True) -> MCPServer:
    """The tools the assistant is offered, each call made as `caller` finds."""
    context = ToolContext(services=services_for(db), caller=caller)
    return build_server(lifespan=serving(context), with_work=with_work)
