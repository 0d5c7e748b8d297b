"""The API server's composition root: the one function that makes its `ApiServices`.

Everything is made first, in an order that needs no hook assigned afterwards, then started
in the order shutdown must undo: the exit stack runs its callbacks last-in first-out.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from contextlib import AsyncExitStack
from datetime import timedelta

from agents.models.interface import Model

from parley.accounts.admin import first_admin_hint
from parley.accounts.credentials import Credentials
from parley.accounts.oidc import Provider as OidcProvider
from parley.api import errors
from parley.api.web_session import client_address
from parley.assistant.catalog import ModelCatalog
from parley.assistant.ledger import Ledger
from parley.assistant.llm import resolve_model
from parley.assistant.mcp_bridge import InProcessTools
from parley.assistant.runner import Assistant
from parley.chat import lease
from parley.chat.runner import TurnRunner
from parley.config import Settings
from parley.db import Database, resolve_database_url
from parley.limits import RateLimiter
from parley.modes import Modes, Parts
from parley.oauth.provider import Provider, build_app
from parley.push import service as push_service
from parley.runs.sweeper import sweep_forever
from parley.services import ApiServices, realtime_parts
from parley.tools.context import ToolContext, serving
from parley.tools.http import McpHttp
from parley.tools.identity import from_request_meta
from parley.tools.server import build_server
from parley.work.manager import WorkManager

log = logging.getLogger(__name__)

# Turns still running when the app shuts down (no request waits for them any more).
SHUTDOWN_LEFTOVER_SECONDS = 5.0


async def build_services(
    stack: AsyncExitStack,
    settings: Settings,
    *,
    database_url: str | None = None,
    model: Model | None = None,
) -> ApiServices:
    """The API's services, running until `stack` closes. `database_url` wins over the
    settings; `model` replaces the configured one (tests pass a scripted model)."""
    url = database_url
    if url is None:
        url, embedded = await resolve_database_url(settings)
        if embedded is not None:
            stack.callback(embedded.stop)
    db = await Database.connect(url, max_connections=settings.db_pool_size)
    stack.push_async_callback(db.close)
    # The assistant's tools close after everything that may still run a turn; they connect
    # at the end, once the services they reach exist.
    tools_slot = await stack.enter_async_context(AsyncExitStack())
    hint = await first_admin_hint(db, settings)
    if hint:
        log.warning(hint)
    credentials = Credentials(
        db,
        secret=settings.auth_secret,
        cache_seconds=settings.credential_cache_seconds,
        session_idle=timedelta(days=settings.session_idle_days),
    )
    oauth = build_app(
        Provider(db, settings=settings, forget=credentials.forget),
        address=lambda request: client_address(request, settings),
        on_error=errors.parley_error,
    )
    tools = InProcessTools(ledger=Ledger(db))
    default_model = model or resolve_model(settings)
    catalog = ModelCatalog(settings, default=default_model)
    assistant = Assistant(model=default_model, tools=tools, catalog=catalog)
    limiter = RateLimiter(settings.rate_limit_per_minute)
    hub, waits, notifier = realtime_parts(db, database_url=url)
    runner = TurnRunner(notifier.publish_live, forward_stop=notifier.forward_stop)
    await notifier.start(on_stop=runner.stop)
    stack.push_async_callback(notifier.stop)
    mcp = McpHttp(settings=settings, credentials=credentials, limiter=limiter)
    mcp_slot = await stack.enter_async_context(AsyncExitStack())  # serves once all exist
    push = await push_service.start(db, settings, waits)
    stack.push_async_callback(push.stop)
    runs_sweeper = asyncio.create_task(sweep_forever(db, settings))
    stack.push_async_callback(_cancel, runs_sweeper)
    sweeper = asyncio.create_task(lease.keep_sweeping(db, every=settings.claim_seconds))
    stack.callback(sweeper.cancel)
    # By now the server has waited out its own grace for open requests (and streamed
    # turns stopped themselves at theirs): what is left gets a short one.
    stack.push_async_callback(runner.drain, SHUTDOWN_LEFTOVER_SECONDS)
    # Registered last, so it runs first at shutdown: prompts waiting on a session fail
    # at once instead of holding the runner's drain.
    work = WorkManager(db=db, settings=settings, notifier=notifier, waits=waits)
    await work.start()
    stack.push_async_callback(work.shutdown)
    services = ApiServices(
        settings=settings,
        db=db,
        credentials=credentials,
        hub=hub,
        waits=waits,
        notifier=notifier,
        modes=Modes(Parts(db=db, settings=settings, runner=runner, work=work, assistant=assistant)),
        limiter=limiter,
        runner=runner,
        work=work,
        assistant=assistant,
        push=push,
        oidc=OidcProvider(settings) if settings.oidc_enabled else None,
        oauth=oauth,
        mcp=mcp,
    )
    await mcp_slot.enter_async_context(mcp.run(services))
    await tools.connect(
        build_server(
            lifespan=serving(ToolContext(services=services, caller=from_request_meta)),
            with_work=settings.work_enabled,
        )
    )
    tools_slot.push_async_callback(tools.cleanup)
    await assistant.prepare()  # the tools' schemas, converted before the first turn
    return services


async def _cancel(task: asyncio.Task[None]) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
