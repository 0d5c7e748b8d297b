"""Search: one row per conversation, found by the start of a word or a word like it (a typo),
marked where the words are, only the caller's, and bad text never a 500."""

from __future__ import annotations

import asyncio
import re

from parley import conversations, search
from parley.messages import store as message_store
from parley.models import Role


async def _search(server, user: str, q: str, *, as_user: str | None = None, limit: int = 20):
    return await server.client.get(
        f"/api/{user}/search",
        params={"q": q, "limit": limit},
        headers=server.headers(as_user or user),
    )


async def _found(server, user: str, q: str) -> list[dict]:
    answer = await _search(server, user, q)
    assert answer.status_code == 200, answer.text
    return answer.json()["conversations"]


async def _conversation(db, user: str, title: str, *texts: str) -> tuple[int, list[int]]:
    conversation_id = await conversations.create_conversation(db, user_id=user, title=title)
    ids = []
    async with db.connection() as conn, conn.transaction():
        for i, text in enumerate(texts):
            message = await message_store.append(
                conn,
                conversation_id=conversation_id,
                user_id=user,
                role=Role.user if i % 2 == 0 else Role.assistant,
                content=text,
                author=user if i % 2 == 0 else "assistant",
            )
            assert message.id is not None
            ids.append(message.id)
    return conversation_id, ids


def _marked(text: str, marks: list[dict]) -> list[str]:
    return [text[m["start"] : m["end"]] for m in marks]


async def test_the_start_of_a_word_finds_it_one_row_per_conversation(server, db):
    house, ids = await _conversation(
        db,
        "alice",
        "House",
        "the plumber comes on monday",
        "I will tell the plumber",
        "which plumber? the plumber from next door, the plumber who fixed the sink",
        "nothing here",
    )
    garden, _ = await _conversation(db, "alice", "Garden", "the plumbing of the pond leaks")
    other, _ = await _conversation(db, "alice", "Errands", "buy oat milk")
    hits = await _found(server, "alice", "plumb")
    assert [h["id"] for h in hits].count(house) == 1
    assert {h["id"] for h in hits} == {house, garden} and other not in {h["id"] for h in hits}
    by_id = {h["id"]: h for h in hits}
    # The best match of a conversation is the message with most of the words.
    assert by_id[house]["message"]["id"] == ids[2]
    assert by_id[house]["similar"] is False and by_id[house]["message"]["role"] == "user"
    snippet = by_id[garden]["message"]["snippet"]
    assert snippet == "the plumbing of the pond leaks"
    assert _marked(snippet, by_id[garden]["message"]["marks"]) == ["plumbing"]
    house_hit = by_id[house]["message"]
    assert _marked(house_hit["snippet"], house_hit["marks"]) == ["plumber"] * 3
    # A whole word typed ranks its holders above those of a longer word.
    assert [h["id"] for h in await _found(server, "alice", "plumbing")] == [garden]


async def test_a_typo_finds_the_word_it_meant_and_marks_it(server, db):
    house, ids = await _conversation(db, "alice", "House", "call the plumber about the leak")
    await _conversation(db, "alice", "Music", "a new album by the band")
    hits = await _found(server, "alice", "plumbre")
    assert [h["id"] for h in hits] == [house]
    hit = hits[0]
    assert hit["similar"] is True and hit["message"]["id"] == ids[0]
    assert _marked(hit["message"]["snippet"], hit["message"]["marks"]) == ["plumber"]
    # Two words: each must be like a word of the message.
    assert [h["id"] for h in await _found(server, "alice", "plumbre leakk")] == [house]
    assert await _found(server, "alice", "plumbre zebra") == []


async def test_titles_and_messages_are_one_row_and_titles_are_marked(server, db):
    trip, _ = await _conversation(db, "alice", "Trip to Lisbon", "book the lisbon hotel")
    hits = await _found(server, "alice", "lisbon")
    assert len(hits) == 1 and hits[0]["id"] == trip
    assert _marked(hits[0]["title"], hits[0]["title_marks"]) == ["Lisbon"]
    assert _marked(hits[0]["message"]["snippet"], hits[0]["message"]["marks"]) == ["lisbon"]
    # A title alone: the row has no message.
    named, _ = await _conversation(db, "alice", "Dentist appointments")
    hits = await _found(server, "alice", "dentist")
    assert [(h["id"], h["message"]) for h in hits] == [(named, None)]


async def test_a_long_message_is_cut_around_the_match_and_marks_stay_on_it(server, db):
    text = "filler " * 60 + "the élan of naïve café owners " + "tail " * 60
    await _conversation(db, "alice", "Long", text)
    hits = await _found(server, "alice", "naïv caf")
    message = hits[0]["message"]
    assert message["snippet"].startswith("…") and message["snippet"].endswith("…")
    assert len(message["snippet"]) < 200
    assert _marked(message["snippet"], message["marks"]) == ["naïve", "café"]
    emoji = "🙂🙂 " * 5 + "plumber 🙂"
    await _conversation(db, "alice", "Emoji", emoji)
    hit = (await _found(server, "alice", "plumber"))[0]["message"]
    assert _marked(hit["snippet"], hit["marks"]) == ["plumber"]


async def test_phrases_exclusions_and_or(server, db):
    a, _ = await _conversation(db, "alice", "A", "the red door is open")
    b, _ = await _conversation(db, "alice", "B", "the door is red")
    found = lambda q: _found(server, "alice", q)  # noqa: E731
    assert [h["id"] for h in await found('"red door"')] == [a]
    assert [h["id"] for h in await found("door -open")] == [b]
    assert {h["id"] for h in await found("open or red")} == {a, b}


async def test_another_persons_conversations_never_appear(server, db):
    mine, _ = await _conversation(db, "alice", "Mine", "the plumber is booked")
    theirs, _ = await _conversation(db, "bob", "Plumber secrets", "a secret plumber pineapple")
    for q in ("plumb", "plumber", "plumbre", "pineapple", "pinapple", "secrets", "Plumber"):
        ids = {h["id"] for h in await _found(server, "alice", q)}
        assert theirs not in ids, q
    assert await _found(server, "alice", "pinapple") == []
    assert {h["id"] for h in await _found(server, "bob", "plumbre")} == {theirs}
    assert mine in {h["id"] for h in await _found(server, "alice", "plumbre")}
    # Many at once, interleaved: each answer is its asker's alone.
    answers = await asyncio.gather(
        *(_found(server, user, "plumb") for user in ("alice", "bob") * 10)
    )
    for user, hits in zip(("alice", "bob") * 10, answers, strict=True):
        assert {h["id"] for h in hits} == ({mine} if user == "alice" else {theirs})
    forbidden = await _search(server, "bob", "plumber", as_user="alice")
    assert forbidden.status_code == 403


async def test_bad_text_is_a_clear_error_or_nothing_never_a_500(server, db):
    await _conversation(db, "alice", "Shop", "100% sure the a_b path is C:\\temp")
    for bad in ("", "   ", "\t\n", "x" * (search.QUERY_MAX + 1), "a\x00b"):
        answer = await _search(server, "alice", bad)
        assert answer.status_code == 422, bad
        assert answer.json()["error"]["code"] == "validation_error"
    odd = [
        '"unclosed',
        "a & b | !c",
        "100%_",
        "%",
        "_",
        "\\",
        "-",
        "--",
        "or",
        "or or",
        "'",
        "':*",
        "a:* & !",
        "\u202e\u200b",
        "\uff46\uff55\uff4c\uff4c",  # fullwidth "full"
        "e\u0301",
        "🙂",
        "\x07bell",
        "x" * search.QUERY_MAX,
        "a " * 99,
        "x² ²",
        "東京 タワー",
        "ab cd",
    ]
    for q in odd:
        answer = await _search(server, "alice", q)
        assert answer.status_code == 200, (q, answer.text)
        assert isinstance(answer.json()["conversations"], list)
    # `%`, `_` and `\` are themselves, not patterns, in titles.
    assert await _found(server, "alice", "%") == []
    hits = await _found(server, "alice", "a_b")
    assert len(hits) == 1 and _marked(hits[0]["message"]["snippet"], hits[0]["message"]["marks"])
    assert (await _search(server, "alice", "x", limit=0)).status_code == 422
    assert (await _search(server, "alice", "x", limit=search.LIMIT_MAX + 1)).status_code == 422


async def test_the_limit_counts_conversations(server, db):
    made = [
        (await _conversation(db, "alice", f"c{i}", f"kiwi {i}", "kiwi again"))[0] for i in range(4)
    ]
    hits = await _found(server, "alice", "kiwi")
    assert sorted(h["id"] for h in hits) == sorted(made)
    two = (await _search(server, "alice", "kiwi", limit=2)).json()["conversations"]
    assert len(two) == 2 and len({h["id"] for h in two}) == 2


def test_the_text_becomes_quoted_words_only():
    from parley.search_text import parse

    assert parse("plumb pipe").tsquery() == "('plumb':*) & ('pipe':*)"
    assert parse('"red door" -open').tsquery() == "('red' <-> 'door') & !('open')"
    assert parse("a or b").tsquery() == "('a':* | 'b':*)"
    assert parse("it's 'x':* & !y").tsquery() == "('it' <-> 's':*) & ('x':*) & ('y':*)"
    assert parse("%_\\ - ''").tsquery() == ""
    assert re.fullmatch(r"[\w'():*&|!<> -]*", parse("ümlaut ÇA 🙂 x²").tsquery())


async def test_a_frequent_word_is_found_among_the_newest_messages_in_every_conversation(server, db):
    # Enough matches among the person's newest messages to answer from them alone
    # (messages store: RECENT, ENOUGH): the older conversation's match is still among them.
    older, old_ids = await _conversation(db, "alice", "Older", "a kiwi from before")
    busy, _ = await _conversation(
        db, "alice", "Busy", *[f"kiwi number {i}" for i in range(message_store.ENOUGH + 10)]
    )
    hits = await _found(server, "alice", "kiw")
    assert sorted(h["id"] for h in hits) == sorted([older, busy])
    assert {h["id"]: h["message"]["id"] for h in hits}[older] == old_ids[0]


async def test_only_the_shown_branch_is_searched_and_a_switch_back_finds_the_original(server):
    first = await server.chat("alice", "hi")
    conversation_id = first.json()["conversation_id"]
    assert (await server.chat("alice", "the plumber comes on monday", conversation_id)).is_success
    shown = await server.client.get(
        f"/api/alice/conversations/{conversation_id}/messages", headers=server.headers("alice")
    )
    [original] = [m for m in shown.json() if m["content"] == "the plumber comes on monday"]
    edited = await server.client.post(
        "/api/alice/chat",
        json={
            "conversation_id": conversation_id,
            "message": "the carpenter comes on monday",
            "replaces": original["id"],
        },
        headers=server.headers("alice"),
    )
    assert edited.status_code == 200, edited.text
    assert await _found(server, "alice", "plumb") == []
    [hit] = await _found(server, "alice", "carp")
    assert hit["id"] == conversation_id and "carpenter" in hit["message"]["snippet"]
    switched = await server.client.post(
        f"/api/alice/conversations/{conversation_id}/branch",
        json={"message_id": original["id"]},
        headers=server.headers("alice"),
    )
    assert switched.status_code == 200, switched.text
    [back] = await _found(server, "alice", "plumb")
    assert back["message"]["id"] == original["id"]
    assert await _found(server, "alice", "carp") == []
