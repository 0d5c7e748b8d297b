"""Input that used to crash or slip through: lone surrogates, loose types, dot user ids,
bodies json.loads cannot take, and errors that were not JSON. Each is a 4xx JSON error in
the one shape, and changes nothing."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from parley import tasks
from parley.errors import InvalidInput
from tests.api.test_validation import JSON, _assert_json_error, _post_raw
from tests.conftest import snapshot, token_for

SURROGATE = '"x\\ud800"'  # JSON text: a lone high surrogate, which UTF-8 cannot encode


def _with_surrogate(template: str) -> bytes:
    """`template` is JSON with `@` where the lone surrogate string goes."""
    return template.replace('"@"', SURROGATE).encode()


async def test_lone_surrogates_are_refused_everywhere_text_is_stored(server, db):
    headers = {**JSON, **server.headers("alice")}
    chat = await server.chat("alice", "add a task to buy milk")
    conversation_id = chat.json()["conversation_id"]
    task = (await server.client.get("/api/alice/tasks", headers=headers)).json()[0]
    task_url = f"/api/alice/tasks/{task.get('number', task.get('id'))}"
    before = await snapshot(db)
    cases = [
        ("POST", "/api/alice/chat", '{"message": "@"}'),
        ("POST", "/api/alice/chat", f'{{"message": "@", "conversation_id": {conversation_id}}}'),
        ("POST", "/api/alice/tasks", '{"title": "@"}'),
        ("POST", "/api/alice/tasks", '{"title": "ok", "description": "@"}'),
        ("PATCH", task_url, '{"title": "@"}'),
        ("PATCH", task_url, '{"description": "@"}'),
        ("POST", "/api/alice/conversations", '{"title": "@"}'),
        ("PATCH", f"/api/alice/conversations/{conversation_id}", '{"title": "@"}'),
    ]
    for method, url, template in cases:
        response = await server.client.request(
            method, url, content=_with_surrogate(template), headers=headers
        )
        error = _assert_json_error(response)
        assert error["code"] == "validation_error", (url, template, error)
        assert "surrogate" in json.dumps(error).lower(), error
    assert await snapshot(db) == before
    # A proper pair (an emoji written as two escapes) is fine.
    ok = await _post_raw(server, "/api/alice/tasks", b'{"title": "party \\ud83c\\udf89"}')
    assert ok.status_code == 201 and ok.json()["title"] == "party \U0001f389"


async def test_mcp_tools_refuse_lone_surrogates_too(server, db):
    """Over HTTP the MCP SDK's parser refuses such JSON itself (a JSON-RPC parse error);
    the in-process and stdio tools reach the task service, which shares the rule."""
    before = await snapshot(db)
    call = (
        '{"jsonrpc": "2.0", "id": 2, "method": "tools/call",'
        ' "params": {"name": "add_task", "arguments": {"title": "@"}}}'
    )
    headers = {"Accept": "application/json, text/event-stream", **JSON, **server.headers("a")}
    response = await server.client.post("/mcp", content=_with_surrogate(call), headers=headers)
    assert response.status_code == 400
    assert response.json()["error"]["message"].startswith("Parse error")
    for title in ("x\ud800", "\udfff"):
        with pytest.raises(InvalidInput, match="surrogate"):
            await tasks.add_task(db, user_id="alice", title=title)
    with pytest.raises(InvalidInput, match="surrogate"):
        await tasks.add_task(db, user_id="alice", title="ok", description="\ud800")
    assert await snapshot(db) == before


STRICT: list[tuple[str, str, Any]] = [
    ("POST", "/api/alice/chat", {"message": "hi", "conversation_id": True}),
    ("POST", "/api/alice/chat", {"message": "hi", "conversation_id": "1"}),
    ("POST", "/api/alice/chat", {"message": "hi", "conversation_id": 1.5}),
    ("POST", "/api/alice/tasks", {"title": "ok", "description": 1}),
    ("PATCH", "/api/alice/tasks/{task}", {"completed": 1}),
    ("PATCH", "/api/alice/tasks/{task}", {"completed": "true"}),
    ("PATCH", "/api/alice/tasks/{task}", {"completed": "yes"}),
    ("POST", "/api/auth/dev-login", {"user_id": 5}),
]


async def test_types_are_strict_true_is_not_one(server, db):
    headers = server.headers("alice")
    first = await server.chat("alice", "add a task to buy milk")
    assert first.status_code == 200
    task = (await server.client.get("/api/alice/tasks", headers=headers)).json()[0]
    before = await snapshot(db)
    for method, url, body in STRICT:
        url = url.format(task=task.get("number", task.get("id")))
        response = await server.client.request(method, url, json=body, headers=headers)
        assert _assert_json_error(response)["code"] == "validation_error", (url, body)
    assert await snapshot(db) == before


async def test_a_whole_number_written_with_a_fraction_is_that_number(server):
    """JSON Schema's `integer` is any number without a fractional part: 1.0 is the id 1."""
    first = await server.chat("alice", "add a task to buy milk")
    conversation_id = first.json()["conversation_id"]
    again = await server.client.post(
        "/api/alice/chat",
        json={"message": "show my tasks", "conversation_id": float(conversation_id)},
        headers=server.headers("alice"),
    )
    assert again.status_code == 200, again.text
    assert again.json()["conversation_id"] == conversation_id
    assert "buy milk" in again.json()["response"]


async def test_dot_user_ids_are_refused(server):
    for user_id in (".", "..", "..."):
        response = await server.client.post("/api/auth/dev-login", json={"user_id": user_id})
        assert _assert_json_error(response)["code"] == "validation_error", user_id
    # ...and a token someone minted for one elsewhere is not accepted either.
    import jwt

    from tests.conftest import SECRET

    forged = jwt.encode({"sub": "..", "exp": 2**31}, SECRET, "HS256")
    response = await server.client.get(
        "/api/%2E%2E/tasks", headers={"Authorization": f"Bearer {forged}"}
    )
    assert response.status_code in (401, 404), response.text
    assert response.headers["content-type"].startswith("application/json")
    # A dot inside a name stays fine.
    ok = await server.client.post("/api/auth/dev-login", json={"user_id": "a.b"})
    assert ok.status_code == 200, ok.text


async def test_bodies_json_cannot_read_are_validation_errors(server, db):
    before = await snapshot(db)
    bodies = {
        "invalid UTF-8": b'{"message": "caf\xe9"}',
        "a lone continuation byte": b'{"message": "\x80"}',
        "nested past the recursion limit": b'{"message": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
        "deep objects": b'{"message": "hi", "x": '
        + b'{"a":' * 50_000
        + b"1"
        + b"}" * 50_000
        + b"}",
    }
    for name, body in bodies.items():
        for url in ("/api/alice/chat", "/api/alice/tasks"):
            response = await _post_raw(server, url, body)
            error = _assert_json_error(response)
            assert error["code"] == "validation_error", (name, url, error)
    assert await snapshot(db) == before


async def test_405_says_which_methods_are_allowed(server):
    headers = server.headers("alice")
    response = await server.client.put("/api/alice/tasks", headers=headers)
    error = _assert_json_error(response, (405,))
    assert error["code"] == "method_not_allowed"
    assert set(response.headers["allow"].replace(" ", "").split(",")) == {"GET", "POST"}
    response = await server.client.get("/api/alice/chat", headers=headers)
    _assert_json_error(response, (405,))
    assert response.headers["allow"] == "POST"
    # ...and at /mcp, where the MCP SDK answers (a JSON-RPC error, which MCP clients read)
    response = await server.client.put("/mcp", headers=headers)
    assert response.status_code == 405
    assert response.json()["error"]["message"]
    assert "POST" in response.headers["allow"]


async def test_mcp_refusals_are_json_errors_too(make_server):
    auth = {"Authorization": f"Bearer {token_for('alice')}"}
    mcp_headers = {"Accept": "application/json, text/event-stream", **JSON, **auth}
    async with (
        make_server(PARLEY_MCP_ALLOWED_HOSTS="parley.example.com") as server,
        httpx.AsyncClient(base_url=server.base_url, timeout=30) as http,
    ):
        init = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        bad_host = await http.post(
            "/mcp", json=init, headers={**mcp_headers, "Host": "evil.example.net"}
        )
        assert _assert_json_error(bad_host, (421,))["code"] == "misdirected_request"
        bad_origin = await http.post(
            "/mcp",
            json=init,
            headers={
                **mcp_headers,
                "Host": "parley.example.com",
                "Origin": "http://evil.example.net",
            },
        )
        assert _assert_json_error(bad_origin, (403,))["code"] == "forbidden"
        big = await http.post(
            "/mcp",
            content=b'{"pad": "' + b"x" * (2 * 1024 * 1024) + b'"}',
            headers={**mcp_headers, "Host": "parley.example.com"},
        )
        assert _assert_json_error(big, (413,))["code"] == "body_too_large"
