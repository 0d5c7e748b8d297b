"""Text PostgreSQL cannot store (NUL, `\\u0000`; a lone surrogate, `\\ud800`) sent to every
door the app has: each JSON body field the OpenAPI document describes (nested ones and
free-form objects' keys too), each query and path parameter, the OAuth server's forms and
the MCP tools' arguments. Each is a JSON error naming the problem, never a 500, and nothing
is stored. A push subscription's `label`, a plain `str`, used to reach the insert: a 500."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
from agents.testing import ScriptedModel, assistant_message

from parley.db import Database
from tests.conftest import Server, snapshot, token_for
from tests.push.fake_push import Device
from tests.tools.results import data
from tests.tools.test_mcp_http import mcp_client

NUL = "a\x00b"
SURROGATE = "a\ud800b"  # json.dumps writes it as the escape `\ud800`, as an attacker would
BAD = {NUL: "NUL", SURROGATE: "surrogate"}
Path = tuple[str | int, ...]


def _resolve(schema: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def _options(schema: dict[str, Any], spec: dict[str, Any]) -> list[dict[str, Any]]:
    schema = _resolve(schema, spec)
    if "anyOf" in schema:
        return [_resolve(s, spec) for s in schema["anyOf"] if s.get("type") != "null"]
    return [schema]


def string_slots(schema: dict[str, Any], spec: dict[str, Any], at: Path = ()) -> Iterator[Path]:
    """Every place in a body where a string goes: fields, nested fields, list items, and a
    free-form object's values and keys (a key slot ends with `None` in the path)."""
    for option in _options(schema, spec):
        kind = option.get("type")
        if kind == "string" or "enum" in option:
            yield at
        elif kind == "object":
            for name, field in option.get("properties", {}).items():
                yield from string_slots(field, spec, (*at, name))
            if option.get("additionalProperties", not option.get("properties")) is not False:
                yield (*at, "k")
                yield (*at, None)  # type: ignore[arg-type]
        elif kind == "array":
            yield from string_slots(option.get("items", {}), spec, (*at, 0))


def example(schema: dict[str, Any], spec: dict[str, Any]) -> Any:
    """A value of the schema's type (required fields only), for the fields around the one
    under attack."""
    option = _options(schema, spec)[0]
    if "enum" in option:
        return option["enum"][0]
    kind = option.get("type")
    if kind == "object":
        return {
            name: example(field, spec)
            for name, field in option.get("properties", {}).items()
            if name in option.get("required", [])
        }
    if kind == "array":
        return []
    if kind in ("integer", "number"):
        return max(1, option.get("minimum", 1), option.get("exclusiveMinimum", 0) + 1)
    if kind == "boolean":
        return True
    if option.get("format") == "date-time":
        return "2099-01-01T00:00:00Z"
    return "ok"


def put(body: Any, at: Path, value: str) -> Any:
    """`body` with `value` at `at` (a `None` last step: as a key of that object)."""
    if not at:
        return value
    head, rest = at[0], at[1:]
    if head is None:
        return {value: "v"}
    if isinstance(head, int):
        return [put(None, rest, value)]
    base = dict(body) if isinstance(body, dict) else {}
    base[head] = put(base.get(head), rest, value)
    return base


def dotted(at: Path) -> str:
    return ".".join(str(step) for step in at if step is not None)


async def make_admin(db: Database, user: str) -> None:
    async with db.connection() as conn:
        await conn.execute(
            "INSERT INTO accounts (user_id, is_admin) VALUES ($1, true)"
            " ON CONFLICT (user_id) DO UPDATE SET is_admin = true",
            user,
        )


def valid_bodies(server: Server) -> dict[str, dict[str, Any]]:
    """Bodies a service takes as they are, so the attacked field is the only thing wrong."""
    return {"PushSubscriptionIn": Device("phone", "http://127.0.0.1:9").subscription("Phone")}


async def test_every_json_body_field_refuses_nul_and_lone_surrogates(
    make_server: Any, db: Database
) -> None:
    async with make_server(PARLEY_PUSH_ALLOWED_HOSTS="127.0.0.1:*") as server:
        await make_admin(db, "alice")
        spec = (await server.client.get("/openapi.json")).json()
        chat = await server.chat("alice", "add a task to buy milk")
        assert chat.status_code == 200, chat.text
        before = await snapshot(db)
        headers = {**server.headers("alice"), "Content-Type": "application/json"}
        valid = valid_bodies(server)
        tried: list[str] = []
        wrong: list[str] = []
        for template, operations in spec["paths"].items():
            for method, operation in operations.items():
                content = operation.get("requestBody", {}).get("content", {})
                form = "application/x-www-form-urlencoded" in content
                if not form and "application/json" not in content:
                    continue
                schema = next(iter(content.values()))["schema"]
                name = schema.get("$ref", "").rsplit("/", 1)[-1]
                path = template.replace("{user_id}", "alice")
                for parameter in operation.get("parameters", []):
                    if parameter["in"] == "path":
                        path = path.replace(f"{{{parameter['name']}}}", "1")
                base = valid.get(name) or example(schema, spec)
                for slot in string_slots(schema, spec):
                    for value, word in BAD.items():
                        if form:  # a form's fields are flat, and its bytes UTF-8 (no surrogate)
                            if len(slot) != 1 or word == "surrogate":
                                continue
                            response = await server.client.request(
                                method,
                                path,
                                data=put(base, slot, value),
                                headers=server.headers("alice"),
                            )
                        else:
                            body = json.dumps(put(base, slot, value))
                            response = await server.client.request(
                                method, path, content=body, headers=headers
                            )
                        case = f"{method.upper()} {template} {dotted(slot) or '(key)'} {word}"
                        tried.append(case)
                        problems = " ".join(
                            f"{d.get('field')}: {d.get('problem')}"
                            for d in response.json().get("error", {}).get("details", [])
                        )
                        if (
                            response.status_code != 422
                            or word not in problems
                            or dotted(slot) not in problems
                        ):
                            wrong.append(f"{case}: {response.status_code} {response.text[:160]}")
        assert wrong == []
        assert any("push-subscriptions label NUL" in case for case in tried)
        assert any("oauth/requests/{request} agent NUL" in case for case in tried)
        assert len(tried) > 80  # every body of the app, not a few
        assert await snapshot(db) == before


async def test_query_and_path_parameters_refuse_nul(server: Server, db: Database) -> None:
    """A NUL can only come percent-encoded in a URL (`%00`); a surrogate cannot come at all
    (its UTF-8 bytes decode to U+FFFD), but is tried too."""
    spec = (await server.client.get("/openapi.json")).json()
    await server.chat("alice", "add a task to buy milk")
    before = await snapshot(db)
    headers = server.headers("alice")
    wrong: list[str] = []
    tried = 0
    for template, operations in spec["paths"].items():
        for method, operation in operations.items():
            parameters = operation.get("parameters", [])
            path_values = {
                p["name"]: "1" if p["schema"].get("type") == "integer" else "a%00b"
                for p in parameters
                if p["in"] == "path" and p["name"] != "user_id"
            }
            path = template.replace("{user_id}", "alice")
            for name, value in path_values.items():
                path = path.replace(f"{{{name}}}", value)
            attempts: list[str] = []
            if "%00" in path:
                attempts.append(path)
            for parameter in parameters:
                if parameter["in"] == "query":
                    attempts += [
                        f"{path}?{parameter['name']}={v}" for v in ("a%00b", "a%ED%A0%80b")
                    ]
            for url in attempts:
                tried += 1
                response = await server.client.request(method, url, headers=headers, json={})
                # The surrogate's bytes arrive as U+FFFD, which is text like any other.
                refused = "%00" not in url or "error" in response.json()
                if response.status_code >= 500 or not refused:
                    wrong.append(f"{method.upper()} {url}: {response.status_code} {response.text}")
    assert wrong == []
    assert tried > 20
    after = await snapshot(db)
    # An upload's name is its query parameter: the surrogate's U+FFFD is a name like any other,
    # and the file (the `{}` body) is kept under it; only the NUL is refused.
    assert [row[2] for row in after.pop("attachments")] == ["a\ufffd\ufffd\ufffdb"]
    before.pop("attachments")
    assert after == before


async def test_the_oauth_server_and_the_mcp_tools_refuse_nul(server: Server, db: Database) -> None:
    """The routes the OpenAPI document does not describe: the authorization server's
    (query strings, forms, a registration's JSON) and every MCP tool's string arguments."""
    before = await snapshot(db)
    client = server.client
    authorize = {
        "response_type": "code",
        "client_id": NUL,
        "redirect_uri": "http://127.0.0.1:1/cb",
        "code_challenge": "x" * 43,
        "code_challenge_method": "S256",
        "state": NUL,
    }
    attempts: list[tuple[str, httpx.Response]] = [
        ("authorize", await client.get("/authorize", params=authorize)),
        (
            "token",
            await client.post(
                "/token",
                data={"grant_type": "authorization_code", "client_id": NUL, "code": NUL},
            ),
        ),
        (
            "refresh",
            await client.post(
                "/token",
                data={"grant_type": "refresh_token", "client_id": NUL, "refresh_token": NUL},
            ),
        ),
        ("revoke", await client.post("/revoke", data={"token": NUL, "client_id": NUL})),
    ]
    for value in BAD:
        registration = {"client_name": value, "redirect_uris": ["http://127.0.0.1:1/cb"]}
        attempts.append(
            (
                "register",
                await client.post(
                    "/register",
                    content=json.dumps(registration),
                    headers={"Content-Type": "application/json"},
                ),
            )
        )
    wrong = [
        f"{name}: {r.status_code} {r.text[:200]}"
        for name, r in attempts
        if r.status_code not in (400, 422)
        or not r.headers["content-type"].startswith("application/json")
    ]
    assert wrong == []
    assert await snapshot(db) == before

    statuses: list[int] = []
    called = []
    async with mcp_client(
        server.base_url, token_for("alice", agent="coder"), statuses=statuses
    ) as mcp:
        # Something for the ids to name (run 1, task 1), so a call is refused for its text.
        data(await mcp.call_tool("start_run", {"title": "Work"}))
        data(await mcp.call_tool("add_task", {"title": "Existing"}))
        before = await snapshot(db)
        for tool in (await mcp.list_tools()).tools:
            properties = tool.input_schema.get("properties", {})
            valid: dict[str, Any] = {}
            strings = []
            for name, field in properties.items():
                kinds = {o.get("type") for o in field.get("anyOf", [field])}
                if "string" in kinds:
                    strings.append(name)
                    valid[name] = "ok"
                elif kinds & {"integer", "number"}:
                    valid[name] = 0 if "wait" in name else 1
            for name in strings:  # one argument at a time, the others as a caller means them
                result = await mcp.call_tool(tool.name, {**valid, name: NUL})
                called.append(f"{tool.name}.{name}")
                assert result.is_error, (tool.name, name, result)
    assert {"post_message.text", "add_task.title", "delegate_task.idempotency_key"} <= set(called)
    assert all(s < 500 for s in statuses), statuses
    assert await snapshot(db) == before


async def test_a_model_reply_holding_nul_is_stored_shown_not_lost(make_server: Any, db: Database):
    """Text nobody typed (a model's reply) is not refused, since nobody could send it again
    better: what cannot be stored is shown (NUL as ␀, a lone surrogate as U+FFFD)."""
    model = ScriptedModel([[assistant_message("before\x00after \ud800 end")]])
    async with make_server(model=model) as server:
        response = await server.chat("alice", "say something odd")
        assert response.status_code == 200, response.text
        assert response.json()["response"] == "before\u2400after \ufffd end"
        async with db.connection() as conn:
            stored = await conn.fetchval("SELECT content FROM messages WHERE role = 'assistant'")
        assert stored == "before\u2400after \ufffd end"
