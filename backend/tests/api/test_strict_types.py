"""Request bodies take JSON types as they are, on every route: `0` or `"yes"` for a boolean,
`"1"`, `1.5` or `true` for a whole number is a 422 naming the field, and changes nothing.
(Before, a few bodies were lax: `{"email_reminders": 0}` turned reminder emails off.) `1.0`
is the number 1, as JSON Schema reads it."""

from __future__ import annotations

from typing import Any

from tests.conftest import snapshot

USER = "alice"

# (method, path under /api/alice, body): each a value of the wrong JSON type for its field.
LAX: list[tuple[str, str, dict[str, Any]]] = [
    ("PATCH", "/notification-preferences", {"email_reminders": 0}),
    ("PATCH", "/notification-preferences", {"email_reminders": "yes"}),
    ("PATCH", "/notification-preferences", {"question": 1}),
    ("PATCH", "/notification-preferences", {"message": "true"}),
    ("PATCH", "/notification-preferences", {"run_failed": "false"}),
    ("PUT", "/conversations/{chat}/mute", {"muted": 1}),
    ("PUT", "/conversations/{chat}/mute", {"muted": "true"}),
    ("POST", "/conversations/{chat}/branch", {"message_id": "{first}"}),
    ("POST", "/conversations/{chat}/branch", {"message_id": 1.5}),
    ("POST", "/conversations/{chat}/branch", {"message_id": True}),
    ("POST", "/chat", {"conversation_id": "{chat}", "replaces": "{first}"}),
    ("POST", "/chat", {"conversation_id": "{chat}", "replaces": 1.5}),
    ("PATCH", "/tasks/1", {"completed": 1}),
    ("PATCH", "/tasks/1", {"completed": "yes"}),
    ("POST", "/chat", {"conversation_id": "{chat}", "retry": 0}),
    ("POST", "/conversations/{chat}/read", {"message_id": "{first}"}),
    (
        "POST",
        "/push-subscriptions",
        {
            "endpoint": "https://fcm.googleapis.com/fcm/send/abc",
            "keys": {"p256dh": "BNcR", "auth": "tBHI"},
            "expirationTime": "5",
        },
    ),
    (
        "POST",
        "/push-subscriptions",
        {"endpoint": "https://fcm.googleapis.com/fcm/send/abc", "keys": {"p256dh": 1, "auth": 2}},
    ),
]


def _fill(value: Any, ids: dict[str, Any]) -> Any:
    """`value` with "{chat}"-style placeholders replaced (a whole "{x}" keeps x's type)."""
    if isinstance(value, dict):
        return {k: _fill(v, ids) for k, v in value.items()}
    if isinstance(value, str) and value.startswith("{") and value.endswith("}"):
        found = ids[value[1:-1]]
        return str(found) if value == "{first}" else found
    if isinstance(value, str):
        return value.format(**ids)
    return value


async def test_lax_json_types_are_refused_everywhere_and_change_nothing(server, db):
    headers = server.headers(USER)
    turn = await server.chat(USER, "add a task to buy milk")
    assert turn.status_code == 200, turn.text
    chat = turn.json()["conversation_id"]
    listed = await server.client.get(f"/api/{USER}/conversations/{chat}/messages", headers=headers)
    ids = {"chat": chat, "first": listed.json()[0]["id"]}
    before_prefs = (
        await server.client.get(f"/api/{USER}/notification-preferences", headers=headers)
    ).json()
    before = await snapshot(db)
    problems = []
    for method, path, body in LAX:
        url = f"/api/{USER}" + _fill(path, ids)
        response = await server.client.request(method, url, json=_fill(body, ids), headers=headers)
        if response.status_code != 422 or response.json()["error"]["code"] != "validation_error":
            problems.append(f"{method} {path} {body}: {response.status_code} {response.text}")
            continue
        fields = {d["field"] for d in response.json()["error"]["details"]}
        if not any(name in field for field in fields for name in body):
            problems.append(f"{method} {path} {body}: the error names {fields}")
    assert problems == []
    assert await snapshot(db) == before
    after_prefs = await server.client.get(f"/api/{USER}/notification-preferences", headers=headers)
    assert after_prefs.json() == before_prefs


async def test_the_same_fields_with_their_own_types_are_taken(server):
    """The control: the refusals above are about the types, not the fields."""
    headers = server.headers(USER)
    prefs = f"/api/{USER}/notification-preferences"
    assert (await server.client.get(prefs, headers=headers)).json()["email_reminders"] is True
    changed = await server.client.patch(prefs, json={"email_reminders": False}, headers=headers)
    assert changed.status_code == 200, changed.text
    assert changed.json()["email_reminders"] is False
    turn = await server.chat(USER, "add a task to buy milk")
    chat = turn.json()["conversation_id"]
    muted = await server.client.put(
        f"/api/{USER}/conversations/{chat}/mute", json={"muted": True}, headers=headers
    )
    assert muted.json() == {"conversation_id": chat, "muted": True}
    done = await server.client.patch(
        f"/api/{USER}/tasks/1", json={"completed": True}, headers=headers
    )
    assert done.json()["completed"] is True
