"""The OpenAPI schema is a valid OpenAPI 3.1 document (tools that generate clients or fuzz the
API read it as one), built as `/openapi.json` serves it: from an app that was never started,
so no database is needed."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, get_args

import pytest
from fastapi.routing import APIRoute, iter_route_contexts
from openapi_spec_validator import OpenAPIV31SpecValidator
from pydantic import BaseModel

from parley.api.app import create_app
from parley.schemas import RequestBody
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
    """Every body a route reads, and every object inside one, derives from `RequestBody`,
    whose config is where strict JSON types live: no model opts out field by field."""
    app = create_app(settings_for())
    bodies = {
        ctx.original_route.body_field.field_info.annotation
        for ctx in iter_route_contexts(app.routes)
        if isinstance(ctx.original_route, APIRoute) and ctx.original_route.body_field
    }
    assert len(bodies) > 25  # the walk found the routes
    models = set().union(*(_models_within(body) for body in bodies))
    lax = sorted(m.__name__ for m in models if not issubclass(m, RequestBody))
    assert lax == []
    assert all(m.model_config.get("strict") is True for m in models)


def _walk(node: Any, path: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    if isinstance(node, dict):
        yield path, node
        for key, value in node.items():
            yield from _walk(value, f"{path}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _walk(value, f"{path}/{i}")


def test_bounds_are_json_schema_keywords_and_exact():
    """A bound pydantic could not place (one after a validator) would leak as `ge`/`lt`,
    which JSON Schema ignores; a bound FastAPI holds as a float must still be exact (2**63 - 1
    is not, so ids are stated as below 2**63)."""
    leaked, inexact = [], []
    for path, node in _walk(_schema()):
        if node.get("type") == "integer" and {"ge", "gt", "le", "lt"} & set(node):
            leaked.append(path)
        for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
            bound = node.get(key)
            # Past 2**53 a float is not every integer; 2**63 is, and as an exclusive bound it
            # says "a bigint" exactly.
            large = isinstance(bound, (int, float)) and abs(bound) > 2**53
            if large and (key, bound) != ("exclusiveMaximum", 2**63):
                inexact.append(f"{path}/{key}={bound!r}")
    assert leaked == []
    assert inexact == []


def test_limits_that_are_settings_are_this_apps():
    """Two apps with other settings state other limits: the schema is the server's own."""
    small = _schema(PARLEY_MAX_MESSAGE_CHARS=300, PARLEY_LONG_POLL_MAX=2.5)
    default = _schema()
    for schema, chars, wait in ((small, 300, 2.5), (default, 16000, 60)):
        message = schema["components"]["schemas"]["MessageCreate"]["properties"]["text"]
        assert message["maxLength"] == chars
        chat = schema["components"]["schemas"]["ChatRequest"]["properties"]["message"]
        assert chat["anyOf"][0]["maxLength"] == chars
        (wait_param,) = (
            p
            for p in schema["paths"]["/api/{user_id}/runs/{run_id}/messages"]["get"]["parameters"]
            if p["name"] == "wait"
        )
        assert wait_param["schema"]["maximum"] == wait


def test_push_endpoints_are_stated_from_the_allowed_hosts():
    schema = _schema(PARLEY_PUSH_ALLOWED_HOSTS="push.example.org,*.push.example.net:8443")
    endpoint = schema["components"]["schemas"]["PushSubscriptionIn"]["properties"]["endpoint"]
    pattern = re.compile(endpoint["pattern"])
    assert pattern.search("https://push.example.org/send/abc")
    assert pattern.search("https://eu.push.example.net:8443/x?y=1")
    assert not pattern.search("https://eu.push.example.net/x")  # its entry names a port
    assert not pattern.search("https://fcm.googleapis.com/fcm/send/abc")
    assert not pattern.search("https://push.example.org@evil.example/")
    assert not pattern.search("http://push.example.org/")
