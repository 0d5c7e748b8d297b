"""The OpenAPI schema is a valid OpenAPI 3.1 document (tools that generate clients or fuzz the
API read it as one), built as `/openapi.json` serves it: from an app that was never started,
so no database is needed."""

from __future__ import annotations

from typing import Any

import pytest
from openapi_spec_validator import OpenAPIV31SpecValidator

from parley.api.app import create_app
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
