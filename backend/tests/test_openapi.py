"""The OpenAPI schema is a valid OpenAPI 3.1 document (tools that generate clients or fuzz the
API read it as one), built as `/openapi.json` serves it: from an app that was never started,
so no database is needed."""

from __future__ import annotations

from typing import Any, get_args

import pytest
from fastapi.routing import APIRoute, iter_route_contexts
from openapi_spec_validator import OpenAPIV31SpecValidator
from pydantic import BaseModel

from parley.api.app import create_app
from parley.schemas import RequestModel
from tests.conftest import settings_for

pytestmark = pytest.mark.unit


def _schema(**settings: Any) -> dict[str, Any]:
    return create_app(settings_for(**settings)).openapi()


def test_the_schema_is_valid_openapi_3_1():
    schema = _schema()
    assert schema["openapi"].startswith("3.1")
    problems = [
        f"{'/'.join(str(p) for p in error.absolute_path)}: {error.message}"
        for error in OpenAPIV31SpecValidator(schema).iter_errors()
    ]
    assert problems == []


def test_event_streams_are_described_by_their_schema():
    """SSE responses say which events they carry where OpenAPI allows it: on the schema."""
    paths = _schema()["paths"]
    for path, method in (
        ("/api/{user_id}/chat", "post"),
        ("/api/{user_id}/events", "get"),
        ("/api/{user_id}/conversations/{conversation_id}/events", "get"),
    ):
        stream = paths[path][method]["responses"]["200"]["content"]["text/event-stream"]
        assert set(stream) == {"schema"}, path
        assert stream["schema"]["type"] == "string"
        assert stream["schema"]["description"].startswith("Server-sent events: ")


def _models_within(model: type[BaseModel]) -> set[type[BaseModel]]:
    """`model` and every model one of its fields holds (a push subscription's `keys`)."""
    found = {model}
    for field in model.model_fields.values():
        for inner in (field.annotation, *get_args(field.annotation)):
            if isinstance(inner, type) and issubclass(inner, BaseModel):
                found |= _models_within(inner)
    return found


def test_every_request_body_is_strict_by_the_one_base():
    """Every body a route reads, and every object inside one, derives from `RequestModel`,
    whose config is where strict JSON types live: no model opts out field by field."""
    app = create_app(settings_for())
    bodies = {
        ctx.original_route.body_field.field_info.annotation
        for ctx in iter_route_contexts(app.routes)
        if isinstance(ctx.original_route, APIRoute) and ctx.original_route.body_field
    }
    assert len(bodies) > 25  # the walk found the routes
    models = set().union(*(_models_within(body) for body in bodies))
    lax = sorted(m.__name__ for m in models if not issubclass(m, RequestModel))
    assert lax == []
    assert all(m.model_config.get("strict") is True for m in models)
