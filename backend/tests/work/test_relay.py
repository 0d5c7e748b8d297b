"""The model relay on its own: a real relay on real Unix sockets, the fake Messages API as its
upstream, real PostgreSQL for the usage it counts. What a sandboxed session may send through
it, with which token, and what the person is counted for."""

from __future__ import annotations

import asyncio
import json
import os
import stat
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest

from parley.db import Database
from parley.work import usage
from parley.work.relay import MAX_CONNECTIONS, Channel, Relay
from parley.work.usage import Meter, Tokens
from tests.conftest import Server, eventually, settings_for
from tests.work.conftest import OPERATOR_KEY
from tests.work.fake_anthropic import Fail, FakeAnthropic

MESSAGE = {
    "model": "claude-fake",
    "max_tokens": 100,
    "messages": [{"role": "user", "content": "hello"}],
}


@pytest.fixture
async def relay(db: Database, fake_api: FakeAnthropic) -> AsyncIterator[Relay]:
    settings = settings_for(ANTHROPIC_API_KEY=OPERATOR_KEY, ANTHROPIC_BASE_URL=fake_api.url)
    running = Relay(db=db, settings=settings)
    yield running
    await running.shutdown()


def through(channel: Channel) -> httpx.AsyncClient:
    """An HTTP client whose every request goes to the channel's socket, as the sandbox's
    forwarder hands them over."""
    transport = httpx.AsyncHTTPTransport(uds=str(channel.socket))
    return httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:1", timeout=30)


async def post(
    channel: Channel, path: str = "/v1/messages?beta=true", **kwargs: Any
) -> httpx.Response:
    headers = {"x-api-key": channel.token, "anthropic-version": "2023-06-01"}
    headers |= kwargs.pop("headers", {})
    async with through(channel) as client:
        return await client.post(path, json=kwargs.pop("json", MESSAGE), headers=headers, **kwargs)


async def counted(db: Database, user_id: str) -> dict[int, dict[str, Any]]:
    """What the relay counted for the person so far (it counts once an answer has passed)."""
    return {
        row.conversation_id: {
            "input": row.input_tokens,
            "output": row.output_tokens,
            "requests": row.requests,
        }
        for row in await usage.of_person(db, user_id=user_id)
    }


async def counted_as(db: Database, user_id: str, expected: dict[int, dict[str, Any]]) -> None:
    """Until the relay has counted `expected` (a count lands just after its answer ends)."""

    async def done() -> bool:
        return await counted(db, user_id) == expected

    await eventually(done)


async def test_a_streamed_answer_passes_through_with_the_operators_key_and_is_counted(
    relay: Relay, fake_api: FakeAnthropic, db: Database
) -> None:
    channel = await relay.open(user_id="ann", conversation_id=7, uid=None)
    answer = await post(channel, json=MESSAGE | {"stream": True})
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("text/event-stream")
    events = [json.loads(line[5:]) for line in answer.text.splitlines() if line.startswith("data:")]
    assert events[0]["type"] == "message_start"
    assert events[-1]["type"] == "message_stop"
    assert "Side reply" in answer.text  # the upstream's own answer, whole
    # Upstream saw the operator's key, never the session's token; on the path it was sent.
    assert fake_api.credentials == [OPERATOR_KEY]
    assert fake_api.paths == ["/v1/messages?beta=true"]
    # The fake's usage: 12 tokens in (message_start), 5 out (message_delta's running total).
    await counted_as(db, "ann", {7: {"input": 12, "output": 5, "requests": 1}})


async def test_a_json_answer_is_counted_as_well(
    relay: Relay, fake_api: FakeAnthropic, db: Database
) -> None:
    channel = await relay.open(user_id="ann", conversation_id=8, uid=None)
    answer = await post(channel)
    assert answer.status_code == 200 and answer.json()["usage"]["input_tokens"] == 12
    await counted_as(db, "ann", {8: {"input": 12, "output": 5, "requests": 1}})


async def test_a_bearer_token_is_the_same_credential(relay: Relay, fake_api: FakeAnthropic) -> None:
    channel = await relay.open(user_id="ann", conversation_id=1, uid=None)
    async with through(channel) as client:
        answer = await client.post(
            "/v1/messages", json=MESSAGE, headers={"authorization": f"Bearer {channel.token}"}
        )
    assert answer.status_code == 200, answer.text
    assert fake_api.credentials == [OPERATOR_KEY]


@pytest.mark.parametrize(
    "credential",
    [
        lambda own, other: {},
        lambda own, other: {"x-api-key": ""},
        lambda own, other: {"x-api-key": OPERATOR_KEY},  # the operator's key is no token here
        lambda own, other: {"x-api-key": other},  # another session's token
        lambda own, other: {"authorization": f"Bearer {other}"},
        lambda own, other: {"x-api-key": own.upper()},
        lambda own, other: {"x-api-key": own + "x"},
        lambda own, other: {"x-api-key": own[:-1]},
        # Two credentials: the key is what counts.
        lambda own, other: {"x-api-key": other, "authorization": f"Bearer {own}"},
        lambda own, other: {"api-key": own},
        lambda own, other: {"authorization": f"Basic {own}"},
    ],
)
async def test_anything_but_the_sockets_own_token_is_refused_and_nothing_goes_upstream(
    relay: Relay,
    fake_api: FakeAnthropic,
    db: Database,
    credential: Callable[[str, str], dict[str, str]],
) -> None:
    mine = await relay.open(user_id="mallory", conversation_id=1, uid=None)
    bobs = await relay.open(user_id="bob", conversation_id=2, uid=None)
    headers = credential(mine.token, bobs.token)
    async with through(mine) as client:
        answer = await client.post("/v1/messages", json=MESSAGE, headers=headers)
    assert answer.status_code == 401
    assert answer.json()["error"]["type"] == "authentication_error"
    assert fake_api.credentials == [] and await counted(db, "bob") == {}


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/v1/messages"),
        ("POST", "/v1/models"),
        ("GET", "/v1/models"),
        ("POST", "/v1/messages/batches"),
        ("POST", "/v1/complete"),
        ("POST", "/v1/files"),
        ("POST", "/v1/messages/../files"),
        ("POST", "/v1/messages/%2e%2e/files"),
        ("POST", "/v1/messages%2Fbatches"),
        ("POST", "/V1/MESSAGES"),
        ("POST", "/v1/messages/"),
        ("POST", "//evil.example/v1/messages"),
        ("POST", "http://evil.example/v1/messages"),
    ],
)
async def test_only_messages_are_passed_on(
    relay: Relay, fake_api: FakeAnthropic, method: str, path: str
) -> None:
    channel = await relay.open(user_id="ann", conversation_id=1, uid=None)
    body = json.dumps(MESSAGE).encode()
    reader, writer = await asyncio.open_unix_connection(str(channel.socket))
    writer.write(
        f"{method} {path} HTTP/1.1\r\nHost: relay\r\nx-api-key: {channel.token}\r\n"
        f"content-type: application/json\r\ncontent-length: {len(body)}\r\n\r\n".encode()
        + body
    )
    status_line = await reader.readline()
    writer.close()
    assert status_line.split()[1] == b"404", (path, status_line)
    assert fake_api.credentials == []


async def test_counting_tokens_is_passed_on_but_not_counted(
    relay: Relay, fake_api: FakeAnthropic, db: Database
) -> None:
    channel = await relay.open(user_id="ann", conversation_id=3, uid=None)
    answer = await post(channel, "/v1/messages/count_tokens?beta=true")
    assert answer.status_code == 200 and answer.json() == {"input_tokens": 10}
    assert fake_api.credentials == [OPERATOR_KEY]
    # A message after it is counted, and it alone.
    assert (await post(channel)).status_code == 200
    await counted_as(db, "ann", {3: {"input": 12, "output": 5, "requests": 1}})


async def test_an_error_of_the_api_is_passed_on_and_not_counted(
    relay: Relay, fake_api: FakeAnthropic, db: Database
) -> None:
    fake_api.script(Fail(429, "slow down"))
    channel = await relay.open(user_id="ann", conversation_id=3, uid=None)
    answer = await post(channel, json=MESSAGE | {"tools": [{"name": "t"}]})
    assert answer.status_code == 429 and answer.json()["error"]["message"] == "slow down"
    assert (await post(channel)).status_code == 200
    await counted_as(db, "ann", {3: {"input": 12, "output": 5, "requests": 1}})


async def test_an_api_out_of_reach_is_a_clear_502(db: Database) -> None:
    settings = settings_for(ANTHROPIC_API_KEY=OPERATOR_KEY, ANTHROPIC_BASE_URL="http://127.0.0.1:9")
    relay = Relay(db=db, settings=settings)
    try:
        channel = await relay.open(user_id="ann", conversation_id=3, uid=None)
        answer = await post(channel)
    finally:
        await relay.shutdown()
    assert answer.status_code == 502 and answer.json()["error"]["type"] == "api_error"


async def test_a_body_over_the_apis_limit_is_refused(relay: Relay, fake_api: FakeAnthropic) -> None:
    channel = await relay.open(user_id="ann", conversation_id=3, uid=None)
    big = {"messages": [{"role": "user", "content": "x" * (33 << 20)}]}
    answer = await post(channel, json=big)
    assert answer.status_code == 413
    assert fake_api.credentials == []


async def test_once_its_process_is_gone_a_token_works_nowhere(
    relay: Relay, fake_api: FakeAnthropic
) -> None:
    ended = await relay.open(user_id="bob", conversation_id=2, uid=None)
    other = await relay.open(user_id="mallory", conversation_id=1, uid=None)
    async with through(ended) as client:  # a connection kept open across the end
        assert (
            await client.post("/v1/messages", json=MESSAGE, headers={"x-api-key": ended.token})
        ).status_code == 200
        await relay.close(ended)
        assert not ended.socket.exists()
        with pytest.raises(httpx.TransportError):
            await client.post("/v1/messages", json=MESSAGE, headers={"x-api-key": ended.token})
    with pytest.raises(httpx.TransportError):
        await post(ended)  # no socket any more
    refused = await post(other, headers={"x-api-key": ended.token})
    assert refused.status_code == 401
    assert fake_api.credentials == [OPERATOR_KEY]  # the one request before the end


async def test_a_burst_of_requests_is_each_passed_on_and_counted(
    relay: Relay, fake_api: FakeAnthropic, db: Database
) -> None:
    channel = await relay.open(user_id="ann", conversation_id=4, uid=None)
    answers = await asyncio.gather(
        *(post(channel, json=MESSAGE | {"stream": i % 2 == 0}) for i in range(10))
    )
    assert [a.status_code for a in answers] == [200] * 10
    await counted_as(db, "ann", {4: {"input": 120, "output": 50, "requests": 10}})


async def test_a_session_holds_a_bounded_number_of_connections(
    relay: Relay, fake_api: FakeAnthropic
) -> None:
    """Each held connection is a file descriptor of the server's: a sandbox opening
    thousands would starve everyone's. Past the cap it is closed at once."""
    channel = await relay.open(user_id="mallory", conversation_id=1, uid=None)
    held = [await asyncio.open_unix_connection(str(channel.socket)) for _ in range(MAX_CONNECTIONS)]

    async def registered() -> bool:
        return len(channel.writers) == MAX_CONNECTIONS

    await eventually(registered)
    reader, writer = await asyncio.open_unix_connection(str(channel.socket))
    assert await reader.read() == b""  # closed without an answer
    writer.close()
    held[0][1].close()

    async def one_freed() -> bool:
        return len(channel.writers) < MAX_CONNECTIONS

    await eventually(one_freed)
    assert (await post(channel)).status_code == 200
    for _, held_writer in held[1:]:
        held_writer.close()


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a socket to another uid takes root")
async def test_a_socket_is_only_its_persons(relay: Relay) -> None:
    channel = await relay.open(user_id="ann", conversation_id=1, uid=1_000_321)
    found = os.stat(channel.socket)
    assert stat.S_IMODE(found.st_mode) == 0o600 and found.st_uid == 1_000_321
    assert stat.S_IMODE(os.stat(channel.socket.parent).st_mode) == 0o700


async def test_the_person_reads_their_own_usage(server: Server, db: Database) -> None:
    async with db.connection() as conn:
        kept = await conn.fetchval(
            "INSERT INTO conversations (user_id, mode, title) VALUES ('ann', 'work', 'site')"
            " RETURNING id"
        )
    for user, conversation in (("ann", kept), ("ann", kept), ("ann", 999), ("bob", 5)):
        tokens = Tokens(input_tokens=10, output_tokens=3, cache_read_input_tokens=2)
        await usage.add(db, user_id=user, conversation_id=conversation, tokens=tokens)
    answer = await server.client.get("/api/ann/work/usage", headers=server.headers("ann"))
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["total"] == {
        "input_tokens": 30,
        "output_tokens": 9,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 6,
        "requests": 3,
    }
    by_id = {c["conversation_id"]: c for c in body["conversations"]}
    assert set(by_id) == {kept, 999}  # never bob's
    assert by_id[kept]["title"] == "site" and by_id[kept]["requests"] == 2
    assert by_id[999]["title"] is None  # deleted: what was spent stays


# -- reading usage from the bytes as they pass ------------------------------------------


def sse(*events: dict[str, Any], newline: str = "\n") -> bytes:
    text = "".join(
        f"event: {e['type']}{newline}data: {json.dumps(e)}{newline}{newline}" for e in events
    )
    return text.encode()


STREAM = [
    {
        "type": "message_start",
        "message": {
            "usage": {
                "input_tokens": 40,
                "output_tokens": 1,
                "cache_creation_input_tokens": 7,
                "cache_read_input_tokens": 100,
            }
        },
    },
    {"type": "content_block_delta", "delta": {"type": "text_delta", "text": "data: {usage}"}},
    {"type": "message_delta", "usage": {"output_tokens": 30}},
    {"type": "message_delta", "usage": {"output_tokens": 55, "input_tokens": 41}},
    {"type": "message_stop"},
]


@pytest.mark.unit
@pytest.mark.parametrize("size", [1, 3, 17, 4096])
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_the_usage_of_a_stream_is_read_however_its_bytes_are_cut(size: int, newline: str) -> None:
    data = sse(*STREAM, newline=newline)
    meter = Meter(streaming=True)
    for start in range(0, len(data), size):
        meter.feed(data[start : start + size])
    assert meter.tokens() == Tokens(
        input_tokens=41,
        output_tokens=55,
        cache_creation_input_tokens=7,
        cache_read_input_tokens=100,
    )


@pytest.mark.unit
def test_junk_in_a_stream_counts_nothing_and_breaks_nothing() -> None:
    meter = Meter(streaming=True)
    for junk in (
        b"data: not json\n",
        b"data: [1, 2]\n",
        b'data: {"type": "message_delta", "usage": {"output_tokens": -5}}\n',
        b'data: {"type": "message_delta", "usage": {"output_tokens": "9"}}\n',
        b'data: {"type": "message_delta", "usage": {"output_tokens": true}}\n',
        b'data: {"type": "message_start", "message": "x"}\n',
        b"x" * (2 << 20) + b"\n",  # an over-long line is skipped whole
        b'data: {"type": "message_delta", "usage": {"output_tokens": 4}}',  # no newline: last
    ):
        meter.feed(junk)
    assert meter.tokens() == Tokens(output_tokens=4)


@pytest.mark.unit
def test_the_usage_of_a_json_answer_is_read_at_its_end() -> None:
    body = json.dumps({"content": [], "usage": {"input_tokens": 3, "output_tokens": 2}}).encode()
    meter = Meter(streaming=False)
    for i in range(0, len(body), 5):
        meter.feed(body[i : i + 5])
    assert meter.tokens() == Tokens(input_tokens=3, output_tokens=2)
    broken = Meter(streaming=False)
    broken.feed(b'{"usage": {"input_tokens": 3')
    assert broken.tokens().empty
