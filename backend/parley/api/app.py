"""The FastAPI app and its lifespan: the one place process-wide resources are made."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from datetime import timedelta
from typing import Any

from agents.models.interface import Model
from fastapi import FastAPI
from starlette.types import Receive, Scope, Send

from parley.accounts.admin import first_admin_hint
from parley.accounts.credentials import Credentials
from parley.api import (
    errors,
    log_redaction,
    routes_accounts,
    routes_admin,
    routes_auth,
    routes_chat,
    routes_conversations,
    routes_delegations,
    routes_edits,
    routes_email,
    routes_events,
    routes_messages,
    routes_oauth,
    routes_oidc,
    routes_passkeys,
    routes_person_events,
    routes_push,
    routes_questions,
    routes_runs,
    routes_search,
    routes_second_factor,
    routes_tasks,
    routes_work,
    routes_work_usage,
)
from parley.api.middleware import BodyLimit, JsonErrors
from parley.assistant.ledger import Ledger
from parley.assistant.llm import resolve_model
from parley.assistant.mcp_bridge import InProcessTools
from parley.assistant.runner import Assistant
from parley.chat import lease
from parley.chat.runner import TurnRunner
from parley.config import Settings, get_settings
from parley.db import Database, resolve_database_url
from parley.limits import RateLimiter
from parley.modes import Modes, Parts
from parley.oauth.provider import Provider, build_app, oauth_routes
from parley.push import service as push_service
from parley.realtime.hub import Hub, message_fetcher
from parley.realtime.notifier import Notifier
from parley.realtime.stream import SERVER_SEND
from parley.realtime.waits import Waits
from parley.runs.sweeper import sweep_forever
from parley.serving import LIMITS_STATE_KEY, ConnectionLimits
from parley.stated import STORABLE_JSON, STORABLE_JSON_NAME, settings_for_schema
from parley.tools.http import McpHttp, mcp_routes
from parley.tools.identity import from_request_meta
from parley.tools.server import build_server
from parley.work.manager import WorkManager

log = logging.getLogger(__name__)

# Turns still running when the app shuts down (no request waits for them any more).
SHUTDOWN_LEFTOVER_SECONDS = 5.0


class ParleyApi(FastAPI):
    """FastAPI, handing the server's own `send` to the conversation streams (`SERVER_SEND`):
    the outermost layer is the only one that sees it unwrapped; and stating in its schema the
    limits that are settings as its own settings say."""

    def __init__(self, *, settings: Settings, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.parley_settings = settings

    def openapi(self) -> dict[str, Any]:
        if self.openapi_schema is None:
            with settings_for_schema(self.parley_settings):
                schema = super().openapi()
            components = schema.setdefault("components", {}).setdefault("schemas", {})
            components[STORABLE_JSON_NAME] = STORABLE_JSON
            return schema
        return self.openapi_schema

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            scope[SERVER_SEND] = send
        await super().__call__(scope, receive, send)


def create_app(
    settings: Settings | None = None, *, database_url: str | None = None, model: Model | None = None
) -> FastAPI:
    """`database_url` wins over the settings (the CLI resolves the embedded one first);
    `model` replaces the configured one (tests pass a scripted model)."""
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[dict[str, Any]]:
        async with AsyncExitStack() as stack:
            url = database_url
            if url is None:
                url, embedded = await resolve_database_url(settings)
                if embedded is not None:
                    stack.callback(embedded.stop)
            db = await Database.connect(url, max_connections=settings.db_pool_size)
            stack.push_async_callback(db.close)
            tools = InProcessTools(
                build_server(
                    db=db,
                    resolve_user=from_request_meta,
                    modes=lambda: getattr(app.state, "modes", None),
                    with_work=settings.work_enabled,
                ),
                ledger=Ledger(db),
            )
            await tools.connect()
            stack.push_async_callback(tools.cleanup)
            app.state.settings = settings
            app.state.db = db
            hint = await first_admin_hint(db, settings)
            if hint:
                log.warning(hint)
            app.state.credentials = Credentials(
                db,
                secret=settings.auth_secret,
                cache_seconds=settings.credential_cache_seconds,
                session_idle=timedelta(days=settings.session_idle_days),
            )
            app.state.oauth = build_app(
                Provider(db, settings=settings, forget=app.state.credentials.forget),
                on_error=errors.parley_error,
            )
            app.state.assistant = Assistant(model=model or resolve_model(settings), tools=tools)
            await app.state.assistant.prepare()
            app.state.limiter = RateLimiter(settings.rate_limit_per_minute)
            app.state.hub = Hub(message_fetcher(db))
            app.state.waits = waits = Waits()
            app.state.notifier = Notifier(database_url=url, hub=app.state.hub, waits=waits)
            db.on_release = app.state.notifier.nudge
            await app.state.notifier.start()
            stack.push_async_callback(app.state.notifier.stop)
            app.state.mcp_http = await stack.enter_async_context(
                McpHttp(
                    db=db,
                    settings=settings,
                    credentials=app.state.credentials,
                    limiter=app.state.limiter,
                    hub=app.state.hub,
                    waits=waits,
                    modes=lambda: app.state.modes,
                ).run()
            )
            app.state.push = await push_service.start(db, settings, waits)
            stack.push_async_callback(app.state.push.stop)
            runs_sweeper = asyncio.create_task(sweep_forever(db, settings))
            stack.push_async_callback(_cancel, runs_sweeper)
            app.state.runner = TurnRunner(
                app.state.notifier.publish_live, forward_stop=app.state.notifier.forward_stop
            )
            app.state.notifier.on_stop = app.state.runner.stop
            sweeper = asyncio.create_task(lease.keep_sweeping(db, every=settings.claim_seconds))
            stack.callback(sweeper.cancel)
            # By now the server has waited out its own grace for open requests (and streamed
            # turns stopped themselves at theirs): what is left gets a short one.
            stack.push_async_callback(app.state.runner.drain, SHUTDOWN_LEFTOVER_SECONDS)
            # Registered last, so it runs first at shutdown: prompts waiting on a session fail
            # at once instead of holding the runner's drain.
            app.state.work = WorkManager(
                db=db,
                settings=settings,
                notifier=app.state.notifier,
                waits=waits,
            )
            await app.state.work.start()
            stack.push_async_callback(app.state.work.shutdown)
            app.state.modes = Modes(
                Parts(
                    db=db,
                    settings=settings,
                    runner=app.state.runner,
                    work=app.state.work,
                    assistant=app.state.assistant,
                )
            )
            # Everything built so far lives as long as the process: keep it out of the
            # collector's full passes, which otherwise stall the event loop for 100+ ms.
            gc.collect()
            gc.freeze()
            # The connection guard reads its limits from the lifespan state.
            yield {LIMITS_STATE_KEY: ConnectionLimits.from_settings(settings)}

    app = ParleyApi(
        settings=settings,
        title="Parley API",
        version="0.1.0",
        description="Chat with a task assistant; every turn is stored in PostgreSQL.",
        lifespan=lifespan,
    )
    errors.install(app)
    if settings.max_body_bytes:
        app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes)
    app.add_middleware(JsonErrors)  # outermost: it also sees BodyLimit's answers
    for module in (
        routes_auth,
        routes_email,
        routes_accounts,
        routes_admin,
        routes_passkeys,
        routes_second_factor,
        routes_oidc,
        routes_oauth,
        routes_chat,
        routes_tasks,
        routes_conversations,
        routes_edits,
        routes_events,
        routes_person_events,
        routes_messages,
        routes_questions,
        routes_push,
        routes_runs,
        routes_search,
        routes_delegations,
        routes_work,
        routes_work_usage,
    ):
        app.include_router(module.router)
    app.router.routes.extend(mcp_routes())  # MCP over streamable HTTP, for remote agents
    app.router.routes.extend(oauth_routes())  # its authorization server (OAuth 2.1)
    log_redaction.install(app.openapi())
    return app


def app_from_env() -> FastAPI:
    """For `uvicorn --factory` (several workers): everything comes from the environment."""
    return create_app(get_settings())


async def _cancel(task: asyncio.Task[None]) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
