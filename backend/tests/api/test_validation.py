"""Bad input is refused with a clear JSON error and changes nothing.

"Nothing" is checked in the database itself: no conversation, message or task appears, and
an existing conversation keeps its messages, version and (free) turn claim.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conftest import snapshot

LIMIT = 16_000
JSON = {"Content-Type": "application/json"}


def _assert_json_error(response, statuses: tuple[int, ...] = (422,)) -> dict[str, Any]:
    assert response.status_code in statuses, (response.status_code, response.text)
    assert response.headers["content-type"].startswith("application/json")
    error = response.json()["error"]
    assert isinstance(error["code"], str) and error["code"]
    assert isinstance(error["message"], str) and error["message"].strip()
    return error


def _refused(name: str, response, statuses: tuple[int, ...]) -> list[str]:
    """Nothing if `response` is the expected JSON error, else a line saying what came."""
    try:
        _assert_json_error(response, statuses)
    except (AssertionError, KeyError, ValueError) as exc:
        return [f"{name}: {response.status_code} {response.text[:200]} ({exc})"]
    return []


async def _post_raw(server, path: str, content: bytes | str, user: str = "alice"):
    return await server.client.post(path, content=content, headers={**JSON, **server.headers(user)})


# --- POST /chat -----------------------------------------------------------------------------

# (name, raw JSON body or a dict, acceptable statuses)
BAD_CHAT: list[tuple[str, Any, tuple[int, ...]]] = [
    ("empty message", {"message": ""}, (422,)),
    ("whitespace-only message", {"message": " \n\t \u00a0\u2003 "}, (422,)),
    ("too long", {"message": "x" * (LIMIT + 1)}, (413,)),
    ("too long after trimming", {"message": "  " + "x" * (LIMIT + 1) + "  "}, (413,)),
    ("message is a number", {"message": 123}, (422,)),
    ("message is null", {"message": None}, (422,)),
    ("message is a list", {"message": ["add a task to buy milk"]}, (422,)),
    ("missing message", {}, (422,)),
    ("extra field", {"message": "add a task to buy milk", "user_id": "bob"}, (422,)),
    ("NUL character", {"message": "add a task to buy\u0000milk"}, (422,)),
    ("conversation_id is a string", {"message": "hi", "conversation_id": "x"}, (422,)),
    ("conversation_id is zero", {"message": "hi", "conversation_id": 0}, (422,)),
    ("conversation_id is negative", {"message": "hi", "conversation_id": -1}, (422,)),
    ("conversation_id is a float", {"message": "hi", "conversation_id": 1.5}, (422,)),
    ("malformed JSON", b'{"message": "add a task to buy milk"', (422,)),
    ("not JSON at all", b"add a task to buy milk", (422,)),
    ("a JSON list", b'["add a task to buy milk"]', (422,)),
    ("a JSON string", b'"add a task to buy milk"', (422,)),
    ("empty body", b"", (422,)),
]


def _chat_body(body: Any, conversation_id: int | None) -> bytes:
    if isinstance(body, bytes):
        return body
    if conversation_id is not None and "conversation_id" not in body:
        body = {**body, "conversation_id": conversation_id}
    return json.dumps(body).encode()


@pytest.mark.parametrize("existing", [False, True], ids=["new conversation", "existing one"])
async def test_bad_chat_requests_get_a_json_error_and_store_nothing(server, db, existing):
    conversation_id = None
    if existing:
        first = await server.chat("alice", "add a task to buy milk")
        assert first.status_code == 200, first.text
        conversation_id = first.json()["conversation_id"]
    before = await snapshot(db)
    problems = []
    for name, body, statuses in BAD_CHAT:
        response = await _post_raw(server, "/api/alice/chat", _chat_body(body, conversation_id))
        problems += _refused(name, response, statuses)
        if await snapshot(db) != before:
            problems.append(f"{name}: stored something")
            before = await snapshot(db)
    assert problems == []
    if existing:
        # the conversation is not left claimed: the next good message goes through
        ok = await server.chat("alice", "list my tasks", conversation_id)
        assert ok.status_code == 200, ok.text
        assert "buy milk" in ok.json()["response"]


async def test_errors_name_the_problem(server):
    empty = _assert_json_error(await server.chat("alice", "   "), (422,))
    assert "empty" in empty["message"].lower()
    too_long = _assert_json_error(await server.chat("alice", "x" * (LIMIT + 1)), (413,))
    assert "16000" in too_long["message"].replace(",", "") or too_long.get("limit") == LIMIT
    wrong_type = _assert_json_error(
        await _post_raw(server, "/api/alice/chat", json.dumps({"message": 5}))
    )
    assert wrong_type["code"] == "validation_error"
    assert any("message" in d.get("field", "") for d in wrong_type["details"]), wrong_type


async def test_exactly_the_size_limit_is_accepted_and_stored_whole(server, db):
    text = "y" * LIMIT
    response = await server.chat("alice", "  " + text + "\n")  # trimmed before measuring
    assert response.status_code == 200, response.text
    messages = await server.client.get(
        f"/api/alice/conversations/{response.json()['conversation_id']}/messages",
        headers=server.headers("alice"),
    )
    assert messages.json()[0]["content"] == text


async def test_chat_into_an_unknown_conversation_is_404_and_stores_nothing(server, db):
    await server.chat("alice", "add a task to buy milk")
    before = await snapshot(db)
    for unknown in (999, 2**31, 2**63 - 1):  # conversation ids are bigints
        response = await server.chat("alice", "add a task to buy bread", unknown)
        assert _assert_json_error(response, (404,))["code"] == "not_found"
    huge = await server.chat("alice", "add a task to buy bread", 2**63)
    _assert_json_error(huge, (422,))  # a body field beyond any id: invalid
    assert await snapshot(db) == before


# --- tasks ----------------------------------------------------------------------------------

BAD_TASK_CREATE: list[tuple[str, Any]] = [
    ("empty title", {"title": ""}),
    ("whitespace title", {"title": "   \n "}),
    ("title too long", {"title": "t" * 501}),
    ("description too long", {"title": "ok", "description": "d" * 5001}),
    ("title is a number", {"title": 123}),
    ("title is null", {"title": None}),
    ("missing title", {}),
    ("description is a number", {"title": "ok", "description": 5}),
    ("extra field", {"title": "ok", "completed": True}),
    ("someone else's user_id", {"title": "ok", "user_id": "bob"}),
    ("NUL in title", {"title": "buy\u0000milk"}),
    ("malformed JSON", b'{"title": "ok"'),
    ("a JSON list", b'["ok"]'),
    ("empty body", b""),
]


async def test_bad_task_creations_are_refused_and_store_nothing(server, db):
    await server.client.post(
        "/api/alice/tasks", json={"title": "existing"}, headers=server.headers("alice")
    )
    before = await snapshot(db)
    problems = []
    for name, body in BAD_TASK_CREATE:
        content = body if isinstance(body, bytes) else json.dumps(body).encode()
        response = await _post_raw(server, "/api/alice/tasks", content)
        problems += _refused(name, response, (422,))
    assert problems == []
    assert await snapshot(db) == before


async def test_task_limits_are_inclusive(server):
    headers = server.headers("alice")
    created = await server.client.post(
        "/api/alice/tasks", json={"title": "t" * 500, "description": "d" * 5000}, headers=headers
    )
    assert created.status_code == 201, created.text
    assert len(created.json()["title"]) == 500 and len(created.json()["description"]) == 5000


BAD_TASK_PATCH: list[tuple[str, Any]] = [
    ("nothing to change", {}),
    ("only nulls", {"title": None, "description": None, "completed": None}),
    ("empty title", {"title": ""}),
    ("whitespace title", {"title": "  "}),
    ("title too long", {"title": "t" * 501}),
    ("description too long", {"description": "d" * 5001}),
    ("title is a number", {"title": 1}),
    ("completed is not a boolean", {"completed": "maybe"}),
    ("completed is a list", {"completed": [True]}),
    ("extra field", {"title": "ok", "user_id": "bob"}),
    ("id in body", {"id": 99, "title": "ok"}),
    ("NUL in description", {"description": "a\u0000b"}),
    ("malformed JSON", b'{"title": '),
    ("a JSON list", b"[]"),
]


async def test_bad_task_updates_are_refused_and_change_nothing(server, db):
    headers = server.headers("alice")
    created = await server.client.post(
        "/api/alice/tasks", json={"title": "original", "description": "as it was"}, headers=headers
    )
    task_id = created.json()["number"]
    before = await snapshot(db)
    problems = []
    for name, body in BAD_TASK_PATCH:
        content = body if isinstance(body, bytes) else json.dumps(body).encode()
        response = await server.client.patch(
            f"/api/alice/tasks/{task_id}", content=content, headers={**JSON, **headers}
        )
        problems += _refused(name, response, (422,))
    assert problems == []
    assert await snapshot(db) == before


async def test_task_list_status_filter_is_validated(server):
    headers = server.headers("alice")
    for query in ("", "?status=all", "?status=pending", "?status=completed"):
        response = await server.client.get(f"/api/alice/tasks{query}", headers=headers)
        assert response.status_code == 200, response.text
    for query in ("?status=done", "?status=", "?status=ALL"):
        response = await server.client.get(f"/api/alice/tasks{query}", headers=headers)
        _assert_json_error(response)


# --- conversations --------------------------------------------------------------------------

BAD_RENAME: list[tuple[str, Any]] = [
    ("empty title", {"title": ""}),
    ("whitespace title", {"title": " \n "}),
    ("title too long", {"title": "t" * 201}),
    ("title is a number", {"title": 5}),
    ("title is null", {"title": None}),
    ("missing title", {}),
    ("extra field", {"title": "ok", "mode": "work"}),
    ("NUL in title", {"title": "a\u0000b"}),
    ("malformed JSON", b'{"title": "ok'),
    ("a JSON string", b'"ok"'),
]


async def test_bad_conversation_renames_are_refused_and_change_nothing(server, db):
    chat = await server.chat("alice", "add a task to buy milk")
    conversation_id = chat.json()["conversation_id"]
    before = await snapshot(db)
    problems = []
    for name, body in BAD_RENAME:
        content = body if isinstance(body, bytes) else json.dumps(body).encode()
        response = await server.client.patch(
            f"/api/alice/conversations/{conversation_id}",
            content=content,
            headers={**JSON, **server.headers("alice")},
        )
        problems += _refused(name, response, (422,))
    assert problems == []
    assert await snapshot(db) == before


async def test_bad_conversation_creations_are_refused(server, db):
    problems = []
    for body in (
        {"mode": "inbox"},
        {"mode": "delegation"},
        {"mode": 1},
        {"title": "   "},
        {"title": "t" * 201},
        {"title": "ok", "version": 7},
    ):
        response = await server.client.post(
            "/api/alice/conversations", json=body, headers=server.headers("alice")
        )
        if response.status_code != 422:
            problems.append(f"{body}: {response.status_code} {response.text[:200]}")
    assert problems == []
    assert (await snapshot(db))["conversations"] == []


async def test_message_paging_parameters_are_validated(server):
    chat = await server.chat("alice", "list my tasks")
    url = f"/api/alice/conversations/{chat.json()['conversation_id']}/messages"
    for query in ("?limit=0", "?limit=201", "?limit=x", "?after=-1", "?after=x", "?after=1e3"):
        response = await server.client.get(url + query, headers=server.headers("alice"))
        _assert_json_error(response)


async def test_event_stream_cursors_are_validated(server):
    """A resume cursor no message can have is a clear error, not a stream that breaks."""
    chat = await server.chat("alice", "list my tasks")
    url = f"/api/alice/conversations/{chat.json()['conversation_id']}/events"
    headers = server.headers("alice")

    async def status_of(query: str, extra: dict[str, Any]) -> tuple[int, Any]:
        """Only the status of a stream that opens (it never ends); the body of one that not."""
        async with server.client.stream("GET", url + query, headers={**headers, **extra}) as r:
            if r.status_code == 200:
                return 200, None
            await r.aread()
            return r.status_code, r

    # A bad query parameter is invalid (422); a bad Last-Event-ID a bad request (400).
    bad: list[tuple[str, dict[str, Any], int]] = [
        (q, {}, 422) for q in ("?after=-1", "?after=x", f"?after={2**63}")
    ] + [
        ("", {"Last-Event-ID": cursor.encode("latin-1")}, 400)
        for cursor in ("abc", "-1", "1.5", "9" * 19, "9" * 5000, "\u00b2")
    ]
    for query, extra, expected in bad:
        status, response = await status_of(query, extra)
        assert status != 200, (query, extra)
        _assert_json_error(response, (expected,))
    # the largest possible cursor is fine: the stream opens (and has nothing to replay)
    for query, extra in ((f"?after={2**63 - 1}", {}), ("", {"Last-Event-ID": str(2**63 - 1)})):
        assert (await status_of(query, extra))[0] == 200
