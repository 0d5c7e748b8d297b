"""The FastAPI app, and its lifespan, which runs the services `parley.api.root` makes (the one
place process-wide resources are made) and hands them to requests as lifespan state."""

from __future__ import annotations

import gc
import logging
import re
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

from agents.models.interface import Model
from fastapi import FastAPI
from starlette.types import Receive, Scope, Send

from parley import attachments
from parley.api import (
    errors,
    log_redaction,
    routes_accounts,
    routes_admin,
    routes_approval_rules,
    routes_attachments,
    routes_audit,
    routes_auth,
    routes_branches,
    routes_chat,
    routes_conversations,
    routes_delegations,
    routes_device,
    routes_email,
    routes_events,
    routes_messages,
    routes_models,
    routes_oauth,
    routes_oidc,
    routes_passkeys,
    routes_permission_requests,
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
from parley.api.middleware import BodyLimit, JsonErrors, Upload
from parley.api.root import build_services
from parley.config import Settings, get_settings
from parley.oauth.provider import oauth_routes
from parley.realtime.stream import SERVER_SEND
from parley.services import STATE_KEY, ApiServices
from parley.serving import LIMITS_STATE_KEY, ConnectionLimits
from parley.stated import STORABLE_JSON, STORABLE_JSON_NAME, settings_for_schema
from parley.tools.http import mcp_routes

log = logging.getLogger(__name__)


class ParleyApi(FastAPI):
    """FastAPI, handing the server's own `send` to the conversation streams (`SERVER_SEND`):
    the outermost layer is the only one that sees it unwrapped; and stating in its schema the
    limits that are settings as its own settings say."""

    def __init__(self, *, settings: Settings, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.parley_settings = settings
        # The services while the lifespan runs, for whoever holds the app rather than a
        # request (tests, the bench); requests read them from the lifespan state.
        self.running: ApiServices | None = None

    @property
    def services(self) -> ApiServices:
        if self.running is None:
            raise RuntimeError("The app is not running")
        return self.running

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
) -> ParleyApi:
    """`database_url` wins over the settings (the CLI resolves the embedded one first);
    `model` replaces the configured one (tests pass a scripted model)."""
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[dict[str, Any]]:
        async with AsyncExitStack() as stack:
            services = await build_services(stack, settings, database_url=database_url, model=model)
            assert isinstance(app, ParleyApi)
            app.running = services
            # Everything built so far lives as long as the process: keep it out of the
            # collector's full passes, which otherwise stall the event loop for 100+ ms.
            gc.collect()
            gc.freeze()
            # Lifespan state: Starlette hands it to every request (`parley.api.deps`); the
            # connection guard reads its limits from it.
            try:
                yield {
                    STATE_KEY: services,
                    LIMITS_STATE_KEY: ConnectionLimits.from_settings(settings),
                }
            finally:
                app.running = None

    app = ParleyApi(
        settings=settings,
        title="Parley API",
        version="0.1.0",
        description="Chat with a task assistant; every turn is stored in PostgreSQL.",
        lifespan=lifespan,
    )
    errors.install(app)
    if settings.max_body_bytes:
        too_large = attachments.too_large(settings.max_attachment_bytes)
        uploads = Upload(
            path=re.compile(r"/api/[^/]+/attachments/?"),
            max_bytes=settings.max_attachment_bytes,
            refusal=(too_large.code, too_large.message),
        )
        app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes, uploads=uploads)
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
        routes_device,
        routes_chat,
        routes_attachments,
        routes_tasks,
        routes_conversations,
        routes_branches,
        routes_events,
        routes_person_events,
        routes_messages,
        routes_models,
        routes_questions,
        routes_push,
        routes_runs,
        routes_search,
        routes_delegations,
        routes_work,
        routes_work_usage,
        routes_approval_rules,
        routes_permission_requests,
        routes_audit,
    ):
        app.include_router(module.router)
    app.router.routes.extend(mcp_routes())  # MCP over streamable HTTP, for remote agents
    app.router.routes.extend(oauth_routes())  # its authorization server (OAuth 2.1)
    log_redaction.install_for(app.routes)
    return app


def app_from_env() -> ParleyApi:
    """For `uvicorn --factory` (several workers): everything comes from the environment."""
    return create_app(get_settings())
