"""Search: titles and message words, only the caller's, served by the GIN index."""

from __future__ import annotations

import re

from parley import search


async def _search(server, user: str, q: str, *, as_user: str | None = None):
    return await server.client.get(
        f"/api/{user}/search", params={"q": q}, headers=server.headers(as_user or user)
    )


async def test_finds_words_of_messages_and_titles_newest_first(server, db):
    first = (await server.chat("alice", "add a task to buy oat milk")).json()
    second = (await server.chat("alice", "remind me about the dentist")).json()
    bobs = (await server.chat("bob", "add a task to buy oat milk for bob")).json()
    found = await _search(server, "alice", "oat milk")
    assert found.status_code == 200, found.text
    body = found.json()
    hits = body["messages"]
    found_in = {h["conversation_id"] for h in hits}
    assert first["conversation_id"] in found_in and bobs["conversation_id"] not in found_in
    assert all({"oat", "milk"} <= set(re.findall(r"\w+", h["snippet"].lower())) for h in hits), [
        h["snippet"] for h in hits
    ]
    assert [h["id"] for h in hits] == sorted((h["id"] for h in hits), reverse=True)
    oldest = hits[-1]
    assert (oldest["role"], oldest["conversation_id"]) == ("user", first["conversation_id"])
    assert oldest["snippet"] == "add a task to buy oat milk" and oldest["conversation_title"]
    # A title is found by part of a word, too.
    titles = (await _search(server, "alice", "denti")).json()["conversations"]
    assert [t["id"] for t in titles] == [second["conversation_id"]]


async def test_only_the_callers_data_and_clear_errors(server, db):
    await server.chat("alice", "a secret about pineapples")
    assert (await _search(server, "bob", "pineapples")).json() == {
        "conversations": [],
        "messages": [],
    }
    assert (await _search(server, "alice", "pineapples", as_user="bob")).status_code == 403
    for bad in ("", "   ", "x" * (search.QUERY_MAX + 1)):
        answer = await _search(server, "alice", bad)
        assert answer.status_code == 422, bad
        assert answer.json()["error"]["code"] == "validation_error"
    # Operators and odd characters are words, never SQL or a syntax error.
    for odd in ('"unclosed', "a & b | !c", "100%_", "-", "\\"):
        assert (await _search(server, "alice", odd)).status_code == 200, odd
