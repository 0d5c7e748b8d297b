"""The REST API the web UI uses, over real HTTP against real PostgreSQL:
the task list, the conversation list with titles and previews, message paging, rename and
delete, and an OpenAPI schema that documents every route and its errors."""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

import httpx

from parley.api.app import create_app
from parley.assistant.offline import HELP
from tests.conftest import settings_for

# --- tasks ----------------------------------------------------------------------------------


async def test_tasks_crud(server):
    h = server.headers("alice")
    c = server.client

    created = await c.post(
        "/api/alice/tasks", json={"title": "  buy   milk ", "description": " 2 litres "}, headers=h
    )
    assert created.status_code == 201, created.text
    milk = created.json()
    # Exactly the public fields: the record the service returns also holds `id` and `user_id`.
    assert set(milk) == {"number", "title", "description", "completed", "created_at", "updated_at"}
    assert (milk["title"], milk["description"], milk["completed"]) == (
        "buy milk",
        "2 litres",
        False,
    )
    bread = (await c.post("/api/alice/tasks", json={"title": "buy bread"}, headers=h)).json()
    assert bread["description"] is None

    listed = await c.get("/api/alice/tasks", headers=h)
    assert [t["number"] for t in listed.json()] == [milk["number"], bread["number"]]  # oldest first
    assert listed.json()[0] == milk

    renamed = await c.patch(
        f"/api/alice/tasks/{milk['number']}", json={"title": "buy oat milk"}, headers=h
    )
    assert renamed.status_code == 200, renamed.text
    assert (renamed.json()["title"], renamed.json()["description"]) == ("buy oat milk", "2 litres")
    assert _at(renamed.json()["updated_at"]) >= _at(milk["updated_at"])
    assert renamed.json()["created_at"] == milk["created_at"]

    done = await c.patch(f"/api/alice/tasks/{milk['number']}", json={"completed": True}, headers=h)
    assert done.json()["completed"] is True and done.json()["title"] == "buy oat milk"
    pending = await c.get("/api/alice/tasks", params={"status": "pending"}, headers=h)
    completed = await c.get("/api/alice/tasks", params={"status": "completed"}, headers=h)
    assert [t["number"] for t in pending.json()] == [bread["number"]]
    assert [t["number"] for t in completed.json()] == [milk["number"]]

    undone = await c.patch(
        f"/api/alice/tasks/{milk['number']}", json={"completed": False}, headers=h
    )
    assert undone.json()["completed"] is False
    cleared = await c.patch(
        f"/api/alice/tasks/{milk['number']}", json={"description": ""}, headers=h
    )
    assert cleared.json()["description"] is None

    deleted = await c.delete(f"/api/alice/tasks/{milk['number']}", headers=h)
    assert deleted.status_code == 204 and deleted.content == b""
    assert [t["number"] for t in (await c.get("/api/alice/tasks", headers=h)).json()] == [
        bread["number"]
    ]
    for again in (
        await c.delete(f"/api/alice/tasks/{milk['number']}", headers=h),
        await c.patch(f"/api/alice/tasks/{milk['number']}", json={"title": "back"}, headers=h),
    ):
        assert again.status_code == 404 and again.json()["error"]["code"] == "not_found"


async def test_tasks_from_chat_and_rest_are_one_list(server):
    h = server.headers("alice")
    await server.client.post("/api/alice/tasks", json={"title": "from the panel"}, headers=h)
    chat = await server.chat("alice", "add a task to from the chat")
    assert chat.status_code == 200, chat.text
    titles = [t["title"] for t in (await server.client.get("/api/alice/tasks", headers=h)).json()]
    assert titles == ["from the panel", "from the chat"]
    listed = await server.chat("alice", "list my tasks", chat.json()["conversation_id"])
    assert "from the panel" in listed.json()["response"]


async def test_unknown_task_ids_are_404(server):
    h = server.headers("alice")
    for task_id in (1, 424242):
        for response in (
            await server.client.patch(
                f"/api/alice/tasks/{task_id}", json={"title": "x"}, headers=h
            ),
            await server.client.delete(f"/api/alice/tasks/{task_id}", headers=h),
        ):
            assert response.status_code == 404, response.text
            assert response.json()["error"]["code"] == "not_found"
            assert str(task_id) in response.json()["error"]["message"]


# --- conversations --------------------------------------------------------------------------


def _at(value: str) -> datetime:
    return datetime.fromisoformat(value)


def _flat(text: str) -> str:
    """A preview is one line."""
    return " ".join(text.split())


async def _conversations(server, user: str = "alice") -> list[dict[str, Any]]:
    response = await server.client.get(f"/api/{user}/conversations", headers=server.headers(user))
    assert response.status_code == 200, response.text
    return response.json()


async def test_conversations_are_listed_newest_first_with_title_and_preview(server):
    first = (await server.chat("alice", "add a task to buy milk")).json()
    second = (await server.chat("alice", "list my tasks")).json()

    listed = await _conversations(server)
    assert [c["id"] for c in listed] == [second["conversation_id"], first["conversation_id"]]
    newest = listed[0]
    assert set(newest) >= {"id", "title", "mode", "version", "created_at", "updated_at"}
    assert newest["title"] == "list my tasks"  # named after its first message
    assert newest["preview"] == _flat(second["response"])  # the last message: the reply
    assert newest["mode"] == "chat" and newest["version"] == 1
    assert _at(newest["last_message_at"]) >= _at(listed[1]["last_message_at"])

    # activity in the older one moves it to the top
    third = (await server.chat("alice", "show my pending tasks", first["conversation_id"])).json()
    listed = await _conversations(server)
    assert [c["id"] for c in listed] == [first["conversation_id"], second["conversation_id"]]
    assert listed[0]["title"] == "add a task to buy milk"
    assert listed[0]["preview"] == _flat(third["response"])
    assert listed[0]["version"] == 2


async def test_a_long_last_message_gives_a_short_preview(server):
    body = (await server.chat("alice", "hello there")).json()
    assert body["response"] == HELP and len(HELP) > 150
    [listed] = await _conversations(server)
    preview = listed["preview"]
    assert 20 < len(preview) <= 120, preview
    assert preview.endswith("…") and HELP.startswith(preview[:-1].rstrip())


async def test_a_long_first_message_gives_a_short_title(server):
    text = "add a task to " + " ".join(["remember"] * 40)
    await server.chat("alice", text)
    [listed] = await _conversations(server)
    assert 10 < len(listed["title"]) <= 60 and text.startswith(listed["title"].rstrip("…"))


async def test_an_empty_conversation_is_listed_without_a_preview(server):
    h = server.headers("alice")
    created = await server.client.post("/api/alice/conversations", json={}, headers=h)
    assert created.status_code == 201, created.text
    conversation = created.json()
    assert conversation["preview"] is None and conversation["title"]
    assert conversation["version"] == 0 and conversation["mode"] == "chat"
    named = await server.client.post(
        "/api/alice/conversations", json={"title": "Groceries"}, headers=h
    )
    assert named.json()["title"] == "Groceries"
    fetched = await server.client.get(f"/api/alice/conversations/{conversation['id']}", headers=h)
    assert fetched.status_code == 200 and fetched.json()["id"] == conversation["id"]
    assert {c["id"] for c in await _conversations(server)} == {
        conversation["id"],
        named.json()["id"],
    }


async def test_a_conversation_created_empty_is_named_by_its_first_message_only(server):
    h = server.headers("alice")
    empty = (await server.client.post("/api/alice/conversations", json={}, headers=h)).json()
    named = (
        await server.client.post("/api/alice/conversations", json={"title": "Groceries"}, headers=h)
    ).json()
    for conversation in (empty, named):
        for text in ("add a task to buy milk", "list my tasks"):
            response = await server.chat("alice", text, conversation["id"])
            assert response.status_code == 200, response.text
    titles = {c["id"]: c["title"] for c in await _conversations(server)}
    assert titles == {empty["id"]: "add a task to buy milk", named["id"]: "Groceries"}


async def _three_turns(server) -> tuple[int, list[dict[str, Any]]]:
    body = (await server.chat("alice", "add a task to buy milk")).json()
    conversation_id = body["conversation_id"]
    for text in ("add a task to buy bread", "list my tasks"):
        response = await server.chat("alice", text, conversation_id)
        assert response.status_code == 200, response.text
    everything = await server.client.get(
        f"/api/alice/conversations/{conversation_id}/messages", headers=server.headers("alice")
    )
    assert everything.status_code == 200, everything.text
    return conversation_id, everything.json()


async def test_messages_come_in_order_and_page_with_after_and_limit(server):
    conversation_id, messages = await _three_turns(server)
    ids = [m["id"] for m in messages]
    assert len(ids) == 6 and ids == sorted(ids)
    assert [m["role"] for m in messages] == ["user", "assistant"] * 3
    assert [m["content"] for m in messages[::2]] == [
        "add a task to buy milk",
        "add a task to buy bread",
        "list my tasks",
    ]
    first = messages[0]
    assert set(first) >= {
        "id",
        "conversation_id",
        "role",
        "author",
        "kind",
        "content",
        "tool_calls",
        "error",
        "reply_to",
        "meta",
        "created_at",
    }
    assert first["conversation_id"] == conversation_id and first["kind"] == "message"
    assert messages[1]["tool_calls"][0]["tool"] == "add_task"

    async def page(**params: Any) -> list[int]:
        response = await server.client.get(
            f"/api/alice/conversations/{conversation_id}/messages",
            params=params,
            headers=server.headers("alice"),
        )
        assert response.status_code == 200, response.text
        return [m["id"] for m in response.json()]

    assert await page(limit=2) == ids[-2:]  # the newest two, oldest first
    assert await page(after=ids[1]) == ids[2:]
    assert await page(after=ids[1], limit=2) == ids[2:4]  # the first two after the cursor
    assert await page(after=ids[-1]) == []
    assert await page(after=0) == ids
    assert await page(limit=200) == ids

    # another conversation's messages never show up here, and vice versa
    other = (await server.chat("alice", "list my tasks")).json()["conversation_id"]
    assert await page(after=0) == ids
    response = await server.client.get(
        f"/api/alice/conversations/{other}/messages",
        params={"after": 0},
        headers=server.headers("alice"),
    )
    assert not {m["id"] for m in response.json()} & set(ids)


async def test_rename_changes_the_title_everywhere(server):
    conversation_id = (await server.chat("alice", "add a task to buy milk")).json()[
        "conversation_id"
    ]
    response = await server.client.patch(
        f"/api/alice/conversations/{conversation_id}",
        json={"title": "  Shopping   list "},
        headers=server.headers("alice"),
    )
    assert response.status_code == 200, response.text
    assert response.json()["title"] == "Shopping list"
    assert response.json()["id"] == conversation_id
    assert response.json()["preview"]  # still a full conversation summary
    [listed] = await _conversations(server)
    assert listed["title"] == "Shopping list"
    # a later turn does not rename it back
    await server.chat("alice", "list my tasks", conversation_id)
    [listed] = await _conversations(server)
    assert listed["title"] == "Shopping list"


async def test_delete_removes_the_conversation_and_its_messages(server, db):
    h = server.headers("alice")
    doomed, _ = await _three_turns(server)
    kept = (await server.chat("alice", "list my tasks")).json()["conversation_id"]

    response = await server.client.delete(f"/api/alice/conversations/{doomed}", headers=h)
    assert response.status_code == 204 and response.content == b""

    async with db.connection() as conn:
        left = await conn.fetchval(
            "SELECT count(*) FROM messages WHERE conversation_id = $1", doomed
        )
    assert left == 0
    assert [c["id"] for c in await _conversations(server)] == [kept]
    for gone in (
        *await _each_conversation_route(server, doomed),
        await server.chat("alice", "list my tasks", doomed),
    ):
        assert gone.status_code == 404, gone.text
        assert gone.json()["error"]["code"] == "not_found"
    # the other conversation and the tasks the deleted one made are untouched
    kept_messages = await server.client.get(f"/api/alice/conversations/{kept}/messages", headers=h)
    assert len(kept_messages.json()) == 2
    tasks = await server.client.get("/api/alice/tasks", headers=h)
    assert [t["title"] for t in tasks.json()] == ["buy milk", "buy bread"]


async def _each_conversation_route(server, cid: int) -> list[httpx.Response]:
    """alice calling every REST route about conversation `cid`, in turn (delete last)."""
    h = server.headers("alice")
    path = f"/api/alice/conversations/{cid}"
    return [
        await server.client.get(path, headers=h),
        await server.client.get(f"{path}/messages", headers=h),
        await server.client.patch(path, json={"title": "renamed"}, headers=h),
        await server.client.delete(path, headers=h),
    ]


async def test_unknown_conversation_ids_are_404(server):
    await server.chat("alice", "list my tasks")
    for cid in (2, 424242):
        for response in await _each_conversation_route(server, cid):
            assert response.status_code == 404, response.text
            assert response.json()["error"]["code"] == "not_found"
    assert len(await _conversations(server)) == 1


# --- the OpenAPI schema ---------------------------------------------------------------------

NOT_DOCUMENTED = {"/docs", "/docs/oauth2-redirect", "/redoc", "/openapi.json", "/mcp"}
AUTHED_ERRORS = {"401", "403", "404", "422", "503"}


def _served_routes() -> set[tuple[str, str]]:
    """What the app actually serves (its route table, not its schema)."""
    app = create_app(settings_for())
    try:
        from fastapi.routing import iter_route_contexts

        table: Any = iter_route_contexts(app.routes)
    except ImportError:
        table = app.routes
    found = set()
    for route in table:
        path = getattr(route, "path", None)
        for method in getattr(route, "methods", None) or ():
            if path and method != "HEAD" and path not in NOT_DOCUMENTED:
                found.add((method.lower(), path))
    return found


def _resolve(schema: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[-1]
        node = schema["components"]["schemas"][name]
    return node


async def test_openapi_documents_every_route_and_its_errors(server):
    response = await server.client.get("/openapi.json")
    assert response.status_code == 200
    schema = response.json()
    paths = schema["paths"]
    served = _served_routes()
    assert ("post", "/api/{user_id}/chat") in served and len(served) >= 12

    problems = []
    for method, path in sorted(served):
        operation = paths.get(path, {}).get(method)
        if operation is None:
            problems.append(f"{method.upper()} {path}: not in the schema")
            continue
        if not (operation.get("summary") or operation.get("description")):
            problems.append(f"{method.upper()} {path}: no summary or description")
        responses = operation.get("responses", {})
        # (the OIDC routes answer a browser navigation with a redirect)
        if not any(code.startswith(("2", "3")) for code in responses):
            problems.append(f"{method.upper()} {path}: no success response")
        expected = set(AUTHED_ERRORS) if path.startswith("/api/{user_id}") else set()
        if path == "/api/{user_id}/chat":
            expected |= {"409", "413"}
        if path == "/api/auth/dev-login":
            expected |= {"404", "422"}
        missing = expected - set(responses)
        if missing:
            problems.append(f"{method.upper()} {path}: errors {sorted(missing)} not documented")
        for code in expected & set(responses):
            body = responses[code].get("content", {}).get("application/json", {}).get("schema", {})
            error = _resolve(schema, body).get("properties", {}).get("error")
            if not responses[code].get("description") or error is None:
                problems.append(f"{method.upper()} {path}: {code} is not the JSON error shape")
        if path.startswith("/api/{user_id}"):
            parameters = {p["name"].lower() for p in operation.get("parameters", [])}
            secured = bool(operation.get("security") or schema.get("security"))
            if "authorization" not in parameters and not secured:
                problems.append(f"{method.upper()} {path}: does not say it needs a bearer token")
    assert problems == []

    error_body = _resolve(schema, {"$ref": "#/components/schemas/ErrorBody"})
    assert {"code", "message"} <= set(error_body["required"])


async def test_task_numbers_are_per_user_and_never_reused(server):
    alice, bob = server.headers("alice"), server.headers("bob")
    for title in ("a1", "a2", "a3"):
        await server.client.post("/api/alice/tasks", json={"title": title}, headers=alice)
    first = await server.client.post("/api/bob/tasks", json={"title": "b1"}, headers=bob)
    assert first.status_code == 201 and first.json()["number"] == 1
    assert "id" not in first.json()
    assert (await server.client.delete("/api/alice/tasks/3", headers=alice)).status_code == 204
    fourth = await server.client.post("/api/alice/tasks", json={"title": "a4"}, headers=alice)
    assert fourth.json()["number"] == 4  # 3 stays retired: "task 3" never means another task
    # The help text's own example works for every user, through chat too.
    done = await server.chat("bob", "mark task 1 as done")
    assert done.status_code == 200, done.text
    assert done.json()["tool_calls"][0]["result"] == {
        "task_id": 1,
        "status": "completed",
        "title": "b1",
    }


async def test_concurrent_adds_get_distinct_numbers(server):
    headers = server.headers("alice")
    responses = await asyncio.gather(
        *(
            server.client.post("/api/alice/tasks", json={"title": f"t{i}"}, headers=headers)
            for i in range(20)
        )
    )
    assert {r.status_code for r in responses} == {201}
    assert sorted(r.json()["number"] for r in responses) == list(range(1, 21))
