"""Archive, pin and export a conversation over real HTTP: the person's own only (another
person's id is a 404 that changes nothing), bad input a clear 422, the export a download."""

from __future__ import annotations

import asyncio
import json
from typing import Any


async def _conversation(server: Any, user: str, text: str) -> int:
    reply = await server.chat(user, text)
    assert reply.status_code == 200, reply.text
    conversation_id: int = reply.json()["conversation_id"]
    return conversation_id


async def _listed(server: Any, user: str) -> dict[int, dict[str, Any]]:
    found = await server.client.get(f"/api/{user}/conversations", headers=server.headers(user))
    assert found.status_code == 200, found.text
    return {c["id"]: c for c in found.json()}


async def test_archive_and_pin_are_the_persons_own_and_undone(server: Any) -> None:
    first = await _conversation(server, "alice", "add a task to buy milk")
    second = await _conversation(server, "alice", "add a task to buy bread")
    h = server.headers("alice")
    base = "/api/alice/conversations"
    listed = await _listed(server, "alice")
    assert listed[first]["archived_at"] is None and listed[first]["pinned_at"] is None

    archived = await server.client.put(
        f"{base}/{first}/archived", json={"archived": True}, headers=h
    )
    assert archived.status_code == 200, archived.text
    stamp = archived.json()["archived_at"]
    assert stamp is not None
    again = await server.client.put(f"{base}/{first}/archived", json={"archived": True}, headers=h)
    assert again.json()["archived_at"] == stamp  # archiving twice keeps the first time
    pinned = await server.client.put(f"{base}/{second}/pinned", json={"pinned": True}, headers=h)
    assert pinned.status_code == 200 and pinned.json()["pinned_at"] is not None
    listed = await _listed(server, "alice")
    assert listed[first]["archived_at"] == stamp and listed[second]["pinned_at"] is not None
    # Nothing is lost by archiving: its messages are all there.
    messages = await server.client.get(f"{base}/{first}/messages", headers=h)
    assert len(messages.json()) == 2

    restored = await server.client.put(
        f"{base}/{first}/archived", json={"archived": False}, headers=h
    )
    unpinned = await server.client.put(f"{base}/{second}/pinned", json={"pinned": False}, headers=h)
    assert restored.json()["archived_at"] is None and unpinned.json()["pinned_at"] is None


async def test_another_persons_conversation_is_a_404_and_stays_as_it_was(server: Any) -> None:
    theirs = await _conversation(server, "alice", "add a task to buy milk")
    bob = server.headers("bob")
    for path, body in (("archived", {"archived": True}), ("pinned", {"pinned": True})):
        # Bob's own path, and Alice's path with Bob's token: both refused.
        mine = await server.client.put(
            f"/api/bob/conversations/{theirs}/{path}", json=body, headers=bob
        )
        assert mine.status_code == 404, mine.text
        assert mine.json()["error"]["code"] == "not_found"
        forged = await server.client.put(
            f"/api/alice/conversations/{theirs}/{path}", json=body, headers=bob
        )
        assert forged.status_code in (401, 403, 404)
    for fmt in ("markdown", "json"):
        export = await server.client.get(
            f"/api/bob/conversations/{theirs}/export", params={"format": fmt}, headers=bob
        )
        assert export.status_code == 404
        assert "buy milk" not in export.text
    listed = await _listed(server, "alice")
    assert listed[theirs]["archived_at"] is None and listed[theirs]["pinned_at"] is None


async def test_bad_input_is_a_clear_422_and_changes_nothing(server: Any) -> None:
    conversation_id = await _conversation(server, "alice", "add a task to buy milk")
    h = server.headers("alice")
    base = f"/api/alice/conversations/{conversation_id}"
    for body in ({}, {"archived": "yes"}, {"archived": None}, {"archived": True, "x": 1}, []):
        response = await server.client.put(f"{base}/archived", json=body, headers=h)
        assert response.status_code == 422, (body, response.text)
        assert "error" in response.json()
    for fmt in ("pdf", "MARKDOWN", "json ", "../etc/passwd", ""):
        response = await server.client.get(f"{base}/export", params={"format": fmt}, headers=h)
        assert response.status_code == 422, (fmt, response.text)
        assert response.json()["error"]["code"] == "validation_error"
    for bad in ("0", "-1", "99999999999999999999", "abc"):
        response = await server.client.put(
            f"/api/alice/conversations/{bad}/pinned", json={"pinned": True}, headers=h
        )
        assert response.status_code in (404, 422), (bad, response.text)
    listed = await _listed(server, "alice")
    assert listed[conversation_id]["archived_at"] is None
    assert listed[conversation_id]["pinned_at"] is None


async def test_export_downloads_every_message_as_markdown_or_json(server: Any) -> None:
    conversation_id = await _conversation(server, "alice", "add a task to buy milk")
    await server.chat("alice", "add a task to buy bread", conversation_id=conversation_id)
    h = server.headers("alice")
    base = f"/api/alice/conversations/{conversation_id}/export"
    markdown, as_json = await asyncio.gather(
        server.client.get(base, headers=h),  # Markdown unless asked otherwise
        server.client.get(base, params={"format": "json"}, headers=h),
    )
    assert markdown.status_code == 200, markdown.text
    assert markdown.headers["content-type"].startswith("text/markdown")
    disposition = markdown.headers["content-disposition"]
    assert disposition.startswith("attachment;") and disposition.endswith('.md"')
    assert f"parley-{conversation_id}-" in disposition
    text = markdown.text
    assert text.index("add a task to buy milk") < text.index("add a task to buy bread")
    assert text.count("## You") == 2 and text.count("## Assistant") == 2

    assert as_json.status_code == 200
    assert as_json.headers["content-disposition"].endswith('.json"')
    data = json.loads(as_json.text)
    assert data["conversation"]["id"] == conversation_id
    assert [m["role"] for m in data["messages"]] == ["user", "assistant", "user", "assistant"]
    assert all("user_id" not in m and "xid" not in m for m in data["messages"])
