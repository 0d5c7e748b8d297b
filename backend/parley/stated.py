"""Rules the OpenAPI schema states for request fields whose check lives in a service.

A service checks some rules itself: text is trimmed before it must not be empty, a message
over its limit is a 413 rather than a 422, a limit is a setting. Pydantic checking them again
would refuse with other words or another status, so these markers only *state* the rule in
the field's JSON Schema, beside the field, with the constant the service checks against. A
request that `/openapi.json` accepts is then never refused for its shape
(tests/api/test_schema_contract.py sends such requests to a live server).

A limit that is a setting (PARLEY_MAX_MESSAGE_CHARS, PARLEY_LONG_POLL_MAX, ...) is stated as
the settings of the app whose schema is being built say (`settings_for_schema`, which
`api.app` wraps around building it)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from pydantic import GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

from parley.config import Settings, get_settings

# Whitespace as Python's str.strip() and str.split() read it, in a form every regex dialect
# reads alike: ECMA-262's (JSON Schema's) `\s` lacks U+001C-U+001F and U+0085, which Python
# strips; it has U+FEFF, which Python keeps (so a schema is at most stricter there).
_SPACE = r"\s\x1c-\x1f\x85"
# No NUL (PostgreSQL's text cannot hold it: see parley.text).
STORABLE = r"^[^\x00]*$"
# Storable, and something left once trimmed.
WORDS = rf"^[{_SPACE}]*[^{_SPACE}\x00][^\x00]*$"
# Empty (which means "none"), or WORDS: not blank, which the service would trim to nothing.
EMPTY_OR_WORDS = rf"^(?:[{_SPACE}]*[^{_SPACE}\x00][^\x00]*)?$"

# Any JSON value a request body may hold where its model leaves it free (a passkey's
# credential): every string in it, object keys too, STORABLE, as `schemas.RequestBody` checks.
# Recursive, so it is a component of the schema (`api.app` adds it) that others point to; the
# recursion goes through objects only (TypeScript cannot name an array of itself), so an
# array directly inside an array is left unstated: a credential holds none.
STORABLE_JSON_NAME = "StorableJSON"
STORABLE_JSON_REF = {"$ref": f"#/components/schemas/{STORABLE_JSON_NAME}"}
_STORABLE_LEAF: list[dict[str, Any]] = [
    {"type": ["null", "boolean", "number"]},
    {"type": "string", "pattern": STORABLE},
    {
        "type": "object",
        "propertyNames": {"pattern": STORABLE},
        "additionalProperties": STORABLE_JSON_REF,
    },
]
STORABLE_JSON: dict[str, Any] = {
    "description": "Any JSON value whose strings (object keys too) hold no NUL",
    "anyOf": [*_STORABLE_LEAF, {"type": "array", "items": {"anyOf": _STORABLE_LEAF}}],
}

_BUILDING: ContextVar[Settings | None] = ContextVar("parley_schema_settings", default=None)


@contextmanager
def settings_for_schema(settings: Settings) -> Iterator[None]:
    """Limits that are settings are stated as `settings` say while a schema is built here."""
    token = _BUILDING.set(settings)
    try:
        yield
    finally:
        _BUILDING.reset(token)


@dataclass(frozen=True, eq=False)  # hashed by identity: `X | None` hashes its metadata
class Stated:
    """JSON Schema keywords for a rule the service checks (an `Annotated` marker); pydantic
    does not check them."""

    keywords: Mapping[str, Any]

    def __get_pydantic_json_schema__(
        self, core_schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        schema = handler(core_schema)
        schema.update(self.keywords)
        return schema


@dataclass(frozen=True, eq=False)
class FromSettings:
    """JSON Schema keywords that come from the settings (an `Annotated` marker): those of the
    app being described, else the process's own."""

    keywords: Callable[[Settings], Mapping[str, Any]]

    def __get_pydantic_json_schema__(
        self, core_schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        schema = handler(core_schema)
        schema.update(self.keywords(_BUILDING.get() or get_settings()))
        return schema


def stated(**keywords: Any) -> Stated:
    return Stated(keywords)


MESSAGE_LIMIT = FromSettings(lambda s: {"maxLength": s.max_message_chars})
LONG_POLL_LIMIT = FromSettings(lambda s: {"maximum": s.long_poll_max})
