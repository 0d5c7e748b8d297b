"""Every route's 401/403/404 matrix, over real HTTP against real PostgreSQL.

The routes are read from the app itself, so a route added later is checked without anyone
remembering to list it here: it must refuse a missing or bad token, refuse another user's
path, and hide another user's objects. Nothing a refused request touches may change.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

import jwt

from parley.api.app import create_app
from tests.conftest import SECRET, settings_for, snapshot, token_for
from tests.push.fake_push import Device

ORIGIN = "http://127.0.0.1:3000"  # the web UI's, as its proxy forwards it

# Routes that are public on purpose, or not part of the REST API.
PUBLIC = {"/api/health", "/api/push/vapid-public-key"}
# Public on purpose, guarded by a single-use token in the path (tests/push covers it).
PUBLIC |= {"/api/question-links/{token}"}
# Sign-in and admin routes are not per-user paths: tests/api/test_accounts.py covers them; the
# OAuth consent requests are the signed-in person's own by their id (tests/oauth covers them);
# a device code is found by the code itself (tests/device covers who may see and answer it).
NOT_PER_USER = ("/api/auth/", "/api/admin/", "/api/oauth/", "/api/device/")
NOT_REST = {
    "/docs",
    "/docs/oauth2-redirect",
    "/redoc",
    "/openapi.json",
    "/mcp",
    "/.well-known/oauth-protected-resource/mcp",
}

PUSH_KEYS = Device("matrix", "").subscription()["keys"]

# A valid body for each route that takes one, so a refusal can only come from auth.
BODIES: dict[tuple[str, str], dict[str, Any]] = {
    ("POST", "/api/{user_id}/chat"): {"conversation_id": None, "message": "add a task to sneak in"},
    ("POST", "/api/{user_id}/tasks"): {"title": "sneaked in"},
    ("POST", "/api/{user_id}/conversations/{conversation_id}/messages"): {"text": "sneaked in"},
    ("PATCH", "/api/{user_id}/tasks/{number}"): {"title": "hijacked", "completed": True},
    ("POST", "/api/{user_id}/conversations"): {"title": "sneaked in"},
    ("PATCH", "/api/{user_id}/conversations/{conversation_id}"): {"title": "hijacked"},
    ("POST", "/api/{user_id}/conversations/{conversation_id}/read"): {"message_id": 1},
    ("PUT", "/api/{user_id}/conversations/{conversation_id}/model"): {"model": "offline"},
    ("PUT", "/api/{user_id}/instructions"): {"text": "sneaked in"},
    ("POST", "/api/{user_id}/inbox/messages"): {"text": "sneaked in"},
    ("POST", "/api/{user_id}/runs"): {"title": "sneaked in"},
    ("POST", "/api/{user_id}/runs/{run_id}/messages"): {"text": "sneaked in"},
    ("POST", "/api/{user_id}/runs/{run_id}/status"): {"text": "sneaked in", "progress": 5},
    ("POST", "/api/{user_id}/runs/{run_id}/finish"): {"status": "cancelled"},
    ("POST", "/api/{user_id}/runs/{run_id}/delegations"): {"agent": "coder", "task": "sneak"},
    ("POST", "/api/{user_id}/delegations/{thread_id}/complete"): {"text": "sneaked in"},
    ("POST", "/api/{user_id}/delegations/{thread_id}/fail"): {"text": "sneaked in"},
    ("POST", "/api/{user_id}/delegations/{thread_id}/escalate"): {"text": "sneaked in"},
    ("POST", "/api/{user_id}/delegations/{thread_id}/cancel"): {},
    ("POST", "/api/{user_id}/conversations/{conversation_id}/stop"): {},
    ("POST", "/api/{user_id}/agent-keys"): {"agent": "sneaky"},
    ("POST", "/api/{user_id}/questions/{question_id}/answer"): {"text": "sneaked in"},
    ("POST", "/api/{user_id}/conversations/{conversation_id}/branch"): {"message_id": 1},
    ("POST", "/api/{user_id}/push-subscriptions"): {
        "endpoint": "https://fcm.googleapis.com/fcm/send/sneaked-in",
        "keys": PUSH_KEYS,
    },
    ("PATCH", "/api/{user_id}/notification-preferences"): {"message": True},
    ("PUT", "/api/{user_id}/conversations/{conversation_id}/mute"): {"muted": True},
    ("PUT", "/api/{user_id}/conversations/{conversation_id}/archived"): {"archived": True},
    ("PUT", "/api/{user_id}/conversations/{conversation_id}/pinned"): {"pinned": True},
    ("POST", "/api/{user_id}/approval-rules"): {"decision": "allow", "pattern": "Bash"},
    ("PATCH", "/api/{user_id}/approval-rules/{rule_id}"): {"decision": "allow", "pattern": "Bash"},
    ("POST", "/api/{user_id}/permission-requests"): {
        "tool_name": "Write",
        "tool_input": {"file_path": "/sneaked/in"},
        "tool_use_id": "toolu_sneaked",
    },
}

UNKNOWN_ID = 987_654


def _routes() -> list[tuple[str, str]]:
    """Every (method, path) the app serves: its route table (hidden routes too), plus its
    OpenAPI schema in case the table cannot be walked."""
    app = create_app(settings_for())
    try:  # FastAPI >= 0.137 keeps included routers lazy: walk them through their contexts
        from fastapi.routing import iter_route_contexts

        table: Any = iter_route_contexts(app.routes)
    except ImportError:
        table = app.routes
    found: set[tuple[str, str]] = set()
    for route in table:
        path = getattr(route, "path", None)
        for method in getattr(route, "methods", None) or ():
            found.add((method, path))
    for path, operations in app.openapi()["paths"].items():
        found.update((method.upper(), path) for method in operations)
    return sorted(
        (
            (m, p)
            for m, p in found
            if p and m != "HEAD" and p not in PUBLIC | NOT_REST and not p.startswith(NOT_PER_USER)
        ),
        key=lambda r: (r[1], r[0]),
    )


ROUTES = _routes()
ROUTE_IDS = [f"{m} {p}" for m, p in ROUTES]


def _params(path: str) -> list[str]:
    return re.findall(r"{(\w+)}", path)


def _object_params(path: str) -> list[str]:
    return [p for p in _params(path) if p != "user_id"]


def test_the_matrix_sees_the_api():
    """Guard against the enumeration silently finding nothing (and so checking nothing)."""
    paths = {p for _, p in ROUTES}
    assert "/api/{user_id}/chat" in paths
    assert "/api/{user_id}/tasks/{number}" in paths
    assert "/api/{user_id}/conversations/{conversation_id}/messages" in paths
    assert all(p.startswith("/api/{user_id}") for p in paths), paths


# --- helpers -------------------------------------------------------------------------------


async def _seed(server, user: str, db) -> dict[str, int]:
    """A task and a conversation with messages for `user`, and their account's web session,
    agent key and passkey; returns their ids by path param."""
    headers = server.headers(user)
    login = await server.client.post("/api/auth/dev-login", json={"user_id": user})
    assert login.status_code == 200, login.text
    server.client.cookies.clear()  # the matrix sends the credentials it means to
    key = await server.client.post(
        f"/api/{user}/agent-keys", json={"agent": "helper"}, headers=headers
    )
    assert key.status_code == 201, key.text
    async with db.connection() as conn:
        session_id = await conn.fetchval(
            "SELECT max(id) FROM web_sessions WHERE user_id = $1", user
        )
        passkey_id = await conn.fetchval(
            "INSERT INTO passkeys (user_id, credential_id, public_key, name)"
            " VALUES ($1, $2, 'key', 'laptop') RETURNING id",
            user,
            user.encode(),
        )
        app_id = await conn.fetchval(
            "INSERT INTO oauth_grants (user_id, agent, client_id, client_name)"
            " VALUES ($1, 'claude-code', 'https://client.example/meta.json', 'An app')"
            " RETURNING id",
            user,
        )
    task = await server.client.post(
        f"/api/{user}/tasks", json={"title": f"{user}'s task"}, headers=headers
    )
    assert task.status_code == 201, task.text
    chat = await server.chat(user, f"add a task to help {user}")
    assert chat.status_code == 200, chat.text
    agent = server.headers(user, agent="helper")
    run = await server.client.post(f"/api/{user}/runs", json={"title": "help"}, headers=agent)
    assert run.status_code == 201, run.text
    question = await server.client.post(
        f"/api/{user}/runs/{run.json()['id']}/messages",
        json={"text": "ok?", "kind": "question"},
        headers=agent,
    )
    assert question.status_code == 201, question.text
    thread = await server.client.post(
        f"/api/{user}/runs/{run.json()['id']}/delegations",
        json={"agent": "helper", "task": "help more"},
        headers=agent,
    )
    assert thread.status_code == 201, thread.text
    device = await server.client.post(
        f"/api/{user}/push-subscriptions",
        json={"endpoint": f"https://fcm.googleapis.com/fcm/send/{user}", "keys": PUSH_KEYS},
        headers=headers,
    )
    assert device.status_code == 201, device.text
    rule = await server.client.post(
        f"/api/{user}/approval-rules",
        json={"decision": "deny", "pattern": "Bash(rm:*)"},
        headers=headers,
    )
    assert rule.status_code == 201, rule.text
    asked = await server.client.post(
        f"/api/{user}/permission-requests",
        json={"tool_name": "Write", "tool_input": {"file_path": "/w/a"}, "tool_use_id": "t1"},
        headers=agent,
    )
    assert asked.status_code == 200, asked.text
    attachment = await server.client.post(
        f"/api/{user}/attachments",
        params={"name": f"{user}.txt"},
        content=f"{user}'s file".encode(),
        headers={**headers, "Content-Type": "text/plain"},
    )
    assert attachment.status_code == 201, attachment.text
    return {
        "attachment_id": attachment.json()["id"],
        "request_id": asked.json()["id"],
        "rule_id": rule.json()["id"],
        "subscription_id": device.json()["id"],
        "thread_id": thread.json()["thread_id"],
        "number": task.json()["number"],
        "conversation_id": chat.json()["conversation_id"],
        "run_id": run.json()["id"],
        "question_id": question.json()["id"],
        "session_id": session_id,
        "key_id": key.json()["id"],
        "passkey_id": passkey_id,
        "app_id": app_id,
    }


def _url(path: str, user: str, ids: dict[str, int]) -> str:
    def fill(match: re.Match[str]) -> str:
        name = match[1]
        if name == "user_id":
            return user
        return str(ids.get(name, UNKNOWN_ID))

    return re.sub(r"{(\w+)}", fill, path)


async def _request(server, method: str, path: str, url: str, headers: dict[str, str]):
    body = BODIES.get((method, path))
    return await server.client.request(
        method, url, json=body, headers=headers, timeout=10 if body is None else 30
    )


def _check(response, status: int, code: str) -> str | None:
    """None when the response is the expected JSON error, else what is wrong."""
    where = f"{response.request.method} {response.request.url.path}"
    if response.status_code != status:
        return f"{where}: {response.status_code} (want {status}) {response.text[:200]}"
    if not response.headers.get("content-type", "").startswith("application/json"):
        return f"{where}: not JSON ({response.headers.get('content-type')})"
    error = response.json().get("error")
    if not isinstance(error, dict) or error.get("code") != code or not error.get("message"):
        return f"{where}: body {response.text[:200]} (want error.code={code!r} and a message)"
    return None


# --- 401: no valid token --------------------------------------------------------------------


def _bad_tokens() -> dict[str, Callable[[], dict[str, str]]]:
    now = int(time.time())

    def bearer(token: str) -> Callable[[], dict[str, str]]:
        return lambda: {"Authorization": f"Bearer {token}"}

    return {
        "no token": lambda: {},
        "empty header": lambda: {"Authorization": ""},
        "bearer without token": lambda: {"Authorization": "Bearer"},
        "wrong scheme": lambda: {"Authorization": f"Basic {token_for('alice')}"},
        "token without scheme": lambda: {"Authorization": token_for("alice")},
        "malformed": bearer("not.a.jwt"),
        "garbage": bearer("x" * 40),
        "wrong secret": bearer(
            jwt.encode({"sub": "alice", "exp": now + 3600}, "another-secret-" + "y" * 32, "HS256")
        ),
        "expired": bearer(token_for("alice", ttl=-60)),
        "no exp": bearer(jwt.encode({"sub": "alice", "iat": now}, SECRET, "HS256")),
        "no sub": bearer(jwt.encode({"exp": now + 3600}, SECRET, "HS256")),
        "sub not a valid user id": bearer(
            jwt.encode({"sub": "alice/../bob", "exp": now + 3600}, SECRET, "HS256")
        ),
        "other algorithm": bearer(
            jwt.encode({"sub": "alice", "exp": now + 3600}, SECRET + SECRET, "HS512")
        ),
        "unsigned (alg none)": bearer(
            jwt.encode({"sub": "alice", "exp": now + 3600}, None, algorithm="none")
        ),
        "unknown agent key": bearer("pk_parley_0badf00d_" + "x" * 43),
        "agent key without its secret": bearer("pk_parley_"),
        "unknown session cookie": lambda: {"Cookie": "parley_session=nope", "Origin": ORIGIN},
        "empty session cookie": lambda: {"Cookie": "parley_session=", "Origin": ORIGIN},
    }


BAD_TOKENS = _bad_tokens()


async def test_every_route_refuses_a_missing_or_bad_token_with_401(server, db):
    alice = await _seed(server, "alice", db)
    before = await snapshot(db)
    problems = []
    for variant, make_headers in BAD_TOKENS.items():
        for method, path in ROUTES:
            url = _url(path, "alice", alice)
            response = await _request(server, method, path, url, make_headers())
            problem = _check(response, 401, "unauthorized")
            if problem:
                problems.append(f"[{variant}] {problem}")
    assert problems == []
    assert await snapshot(db) == before, "a request without a valid token changed data"


# --- 403: someone else's path ---------------------------------------------------------------


async def test_every_route_refuses_another_users_path_with_403(server, db):
    alice = await _seed(server, "alice", db)
    await _seed(server, "bob", db)
    before = await snapshot(db)
    problems = []
    for method, path in ROUTES:
        for token_user in ("bob", "Alice"):  # someone else, and a look-alike of alice
            url = _url(path, "alice", alice)
            headers = {"Authorization": f"Bearer {token_for(token_user)}"}
            response = await _request(server, method, path, url, headers)
            problems.append(_check(response, 403, "forbidden"))
    assert [p for p in problems if p] == []
    assert await snapshot(db) == before, "a request on another user's path changed data"


async def _cookie_and_key(server, user: str) -> dict[str, dict[str, str]]:
    """The other credentials a person has: a web session (sent as a browser on the web UI's
    origin sends it) and an agent key."""
    login = await server.client.post("/api/auth/dev-login", json={"user_id": user})
    cookie = login.cookies["parley_session"]
    server.client.cookies.clear()
    key = await server.client.post(
        f"/api/{user}/agent-keys", json={"agent": "matrix"}, headers=server.headers(user)
    )
    return {
        "cookie": {"Cookie": f"parley_session={cookie}", "Origin": ORIGIN},
        "agent key": {"Authorization": f"Bearer {key.json()['secret']}"},
    }


async def test_every_route_refuses_another_users_path_by_cookie_or_agent_key(server, db):
    alice = await _seed(server, "alice", db)
    await _seed(server, "bob", db)
    bobs = await _cookie_and_key(server, "bob")
    before = await snapshot(db)
    problems = []
    for kind, headers in bobs.items():
        for method, path in ROUTES:
            url = _url(path, "alice", alice)
            response = await _request(server, method, path, url, headers)
            problem = _check(response, 403, "forbidden")
            if problem:
                problems.append(f"[{kind}] {problem}")
    assert problems == []
    assert await snapshot(db) == before, "a request on another user's path changed data"


# --- 404: someone else's objects ------------------------------------------------------------

OBJECT_ROUTES = [(m, p) for m, p in ROUTES if _object_params(p)]


def test_every_object_route_is_covered():
    """A route on a new kind of object needs a way to make one, or the 404 matrix is blind."""
    known = {"number", "conversation_id", "run_id", "question_id", "thread_id"}
    known |= {"session_id", "key_id", "passkey_id", "subscription_id", "app_id", "rule_id"}
    known |= {"request_id", "attachment_id"}
    unknown = {f"{m} {p}": _object_params(p) for m, p in OBJECT_ROUTES}
    unknown = {route: params for route, params in unknown.items() if set(params) - known}
    assert unknown == {}, "teach _seed() to make these objects for bob, so alice can be refused"
    assert len(OBJECT_ROUTES) >= 6


async def test_another_users_objects_are_404_and_stay_unchanged(server, db):
    # Alice has no objects of her own: task numbers are per user, so her "task 1" would be
    # her own task, not bob's.
    bob = await _seed(server, "bob", db)
    problems = []
    for method, path in OBJECT_ROUTES:
        before = await snapshot(db)
        url = _url(path, "alice", bob)
        response = await _request(server, method, path, url, server.headers("alice"))
        problems.append(_check(response, 404, "not_found"))
        if await snapshot(db) != before:
            problems.append(f"{method} {path}: alice's request changed bob's data")
    assert [p for p in problems if p] == []
    # and bob can still read them (headers only: some are endless event streams)
    for method, path in OBJECT_ROUTES:
        if method == "GET":
            url = _url(path, "bob", bob)
            async with server.client.stream("GET", url, headers=server.headers("bob")) as r:
                assert r.status_code == 200, path


async def test_another_users_objects_stay_out_of_reach_of_cookies_and_keys(server, db):
    """Alice's web session gets 404 for bob's objects, like her token; her agent key gets 404,
    or 403 where only the person may act at all (credentials, a chat turn)."""
    bob = await _seed(server, "bob", db)
    alices = await _cookie_and_key(server, "alice")
    problems = []
    for kind, headers in alices.items():
        for method, path in OBJECT_ROUTES:
            before = await snapshot(db)
            url = _url(path, "alice", bob)
            response = await _request(server, method, path, url, headers)
            problem = _check(response, 404, "not_found")
            if problem and kind == "agent key":
                problem = problem and _check(response, 403, "agent_not_allowed")
            if problem:
                problems.append(f"[{kind}] {problem}")
            if await snapshot(db) != before:
                problems.append(f"[{kind}] {method} {path}: alice changed bob's data")
    assert problems == []


async def test_unknown_objects_are_404(server, db):
    await _seed(server, "alice", db)
    before = await snapshot(db)
    problems = []
    for method, path in OBJECT_ROUTES:
        for unknown in (UNKNOWN_ID, 2**31, 2**63):  # also ids beyond what the database holds
            ids = dict.fromkeys(_object_params(path), unknown)
            url = _url(path, "alice", ids)
            response = await _request(server, method, path, url, server.headers("alice"))
            problems.append(_check(response, 404, "not_found"))
    assert [p for p in problems if p] == []
    assert await snapshot(db) == before


async def test_chat_into_another_users_conversation_is_404_and_stores_nothing(server, db):
    bob = await _seed(server, "bob", db)
    before = await snapshot(db)
    response = await server.chat("alice", "add a task to read bob's mail", bob["conversation_id"])
    problem = _check(response, 404, "not_found")
    assert problem is None, problem
    assert await snapshot(db) == before
    # bob's conversation is still his to use: alice's attempt left no claim behind
    again = await server.chat("bob", "list my tasks", bob["conversation_id"])
    assert again.status_code == 200, again.text


async def test_a_users_token_only_sees_their_own_lists(server, db):
    await _seed(server, "alice", db)
    await _seed(server, "bob", db)
    for user in ("alice", "bob"):
        tasks = await server.client.get(f"/api/{user}/tasks", headers=server.headers(user))
        assert {t["title"] for t in tasks.json()} == {f"{user}'s task", f"help {user}"}
        conversations = await server.client.get(
            f"/api/{user}/conversations", headers=server.headers(user)
        )
        # the chat, the helper's run and its thread, the inbox its permission request is in
        assert len(conversations.json()) == 4


# --- dev-login ------------------------------------------------------------------------------


async def test_dev_login_gives_a_working_token_for_that_user_only(server):
    response = await server.client.post("/api/auth/dev-login", json={"user_id": "carol"})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["user_id"] == "carol"
    headers = {"Authorization": f"Bearer {body['token']}"}
    own = await server.client.get("/api/carol/tasks", headers=headers)
    assert own.status_code == 200 and own.json() == []
    other = await server.client.get("/api/alice/tasks", headers=headers)
    assert _check(other, 403, "forbidden") is None


async def test_dev_login_is_404_when_disabled(make_server):
    async with make_server(PARLEY_DEV_LOGIN=False) as server:
        response = await server.client.post("/api/auth/dev-login", json={"user_id": "carol"})
        assert _check(response, 404, "not_found") is None, response.text
        health = await server.client.get("/api/health")
        assert health.json()["dev_login"] is False
        # tokens minted elsewhere (`parley token`) still work
        tasks = await server.client.get("/api/carol/tasks", headers=server.headers("carol"))
        assert tasks.status_code == 200


BAD_LOGINS: list[Any] = [
    {"user_id": ""},
    {"user_id": "   "},
    {"user_id": "a" * 65},
    {"user_id": "bob smith"},
    {"user_id": "../etc/passwd"},
    {"user_id": "alice/tasks"},
    {"user_id": "ålice"},
    {"user_id": "alice\u0000"},
    {"user_id": 123},
    {"user_id": None},
    {},
    {"user_id": "carol", "admin": True},
    ["carol"],
]


async def test_dev_login_rejects_bad_user_ids_with_422(server):
    problems = []
    for body in BAD_LOGINS:
        response = await server.client.post("/api/auth/dev-login", json=body)
        problem = _check(response, 422, "validation_error")
        if problem or "token" in response.json():
            problems.append(f"{body!r}: {problem or response.text}")
    assert problems == []


async def test_dev_login_rejects_a_malformed_body_with_422(server):
    response = await server.client.post(
        "/api/auth/dev-login", content=b'{"user_id": ', headers={"Content-Type": "application/json"}
    )
    assert _check(response, 422, "validation_error") is None, response.text
