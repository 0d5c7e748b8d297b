"""A revoked agent key, an ended web session and a disabled account are refused on every
transport (REST, an event stream's reconnect, /mcp, `parley mcp` over stdio) on both of two
instances sharing one PostgreSQL, within a second of the revocation."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path

import httpx

from parley.auth import mint_token
from tests.accounts.helpers import bearer, browser, make_key, signup
from tests.conftest import SECRET
from tests.tools.results import INITIALIZE, data, text
from tests.tools.test_mcp_http import MCP_HEADERS, mcp_client
from tests.tools.test_mcp_stdio import stdio_client

Check = Callable[[], Awaitable[bool]]  # True once the credential is refused
WITHIN = 1.0


async def refused_within(checks: dict[str, Check], revoke: Callable[[], Awaitable[None]]) -> None:
    """Revoke, then poll each check until it sees a refusal. No request sent more than WITHIN s
    after the revocation may still be accepted (measured at sending, so a slow response on a
    loaded machine does not count against the server's revocation)."""
    for name, check in checks.items():
        assert not await check(), f"{name}: refused before the revocation"
    await revoke()
    started = time.monotonic()

    async def last_accepted(name: str, check: Check) -> tuple[str, float]:
        accepted_at = 0.0
        while True:
            sent = time.monotonic() - started
            if await check():
                return name, accepted_at
            accepted_at = sent
            assert sent < 10, f"{name}: still accepted {sent:.1f} s after the revocation"
            await asyncio.sleep(0.02)

    took = dict(await asyncio.gather(*(last_accepted(n, c) for n, c in checks.items())))
    late = {name: round(t, 3) for name, t in took.items() if t > WITHIN}
    assert late == {}, f"accepted this long after the revocation (s): {late}; all: {took}"


def rest(base: str, headers: dict[str, str], cookies: dict[str, str] | None = None) -> Check:
    async def check() -> bool:
        async with httpx.AsyncClient(base_url=base, cookies=cookies, timeout=10) as client:
            r = await client.get("/api/alice/tasks", headers=headers)
        assert r.status_code in (200, 401), r.text
        return r.status_code == 401

    return check


def sse_reconnect(
    base: str, headers: dict[str, str], cookies: dict[str, str] | None = None
) -> Check:
    """An event stream reconnecting from where it was (Last-Event-ID)."""

    async def check() -> bool:
        async with (
            httpx.AsyncClient(base_url=base, cookies=cookies, timeout=10) as client,
            client.stream(
                "GET", "/api/alice/events", headers={**headers, "Last-Event-ID": "0"}
            ) as r,
        ):
            assert r.status_code in (200, 401)
            return r.status_code == 401

    return check


def mcp_http(base: str, secret: str) -> Check:
    async def check() -> bool:
        async with httpx.AsyncClient(timeout=10) as client:
            r = await client.post(
                f"{base}/mcp", json=INITIALIZE, headers={**MCP_HEADERS, **bearer(secret)}
            )
        assert r.status_code in (200, 401), r.text
        return r.status_code == 401

    return check


def stdio_tool(client) -> Check:
    async def check() -> bool:
        result = await client.call_tool("list_tasks", {})
        if result.is_error:
            assert "no longer valid" in text(result), text(result)
        return bool(result.is_error)

    return check


async def _two_instances(stack: AsyncExitStack, make_server):
    a = await stack.enter_async_context(make_server(PARLEY_SIGNUP="open"))
    b = await stack.enter_async_context(make_server(PARLEY_SIGNUP="open"))
    web = await stack.enter_async_context(browser(a.base_url))
    await signup(web, "alice")
    return a, b, web


async def test_a_revoked_agent_key_is_refused_everywhere_within_a_second(
    make_server, migrated: str, tmp_path: Path
):
    async with AsyncExitStack() as stack:
        a, b, web = await _two_instances(stack, make_server)
        key = await make_key(web, "alice", agent="planner")
        other = await make_key(web, "alice", agent="coder")
        secret = key["secret"]
        assert secret.startswith("pk_parley_") and key["prefix"] in secret
        # an open MCP session and an open stdio server, both authenticated by the key
        mcp = await stack.enter_async_context(mcp_client(b.base_url, secret))
        added = data(await mcp.call_tool("add_task", {"title": "from the key"}))
        stdio = await stack.enter_async_context(
            stdio_client(migrated, tmp_path, PARLEY_TOKEN=secret)
        )
        assert (
            data(await stdio.call_tool("list_tasks", {}))["tasks"][0]["task_id"] == added["task_id"]
        )
        checks = {
            f"{where} {kind}": make(base, bearer(secret))
            for where, base in (("A", a.base_url), ("B", b.base_url))
            for kind, make in (("REST", rest), ("SSE reconnect", sse_reconnect))
        }
        checks |= {"A /mcp": mcp_http(a.base_url, secret), "B /mcp": mcp_http(b.base_url, secret)}
        checks["stdio"] = stdio_tool(stdio)

        async def revoke() -> None:
            r = await web.delete(f"/api/alice/agent-keys/{key['id']}")
            assert r.status_code == 204

        await refused_within(checks, revoke)
        # the open MCP session's next call is refused too; another key is untouched
        assert not await rest(b.base_url, bearer(other["secret"]))()
        listed = (await web.get("/api/alice/agent-keys")).json()
        assert [k["agent"] for k in listed] == ["coder"] and "secret" not in listed[0]


async def test_an_ended_session_is_refused_on_both_instances_within_a_second(make_server):
    async with AsyncExitStack() as stack:
        a, b, web = await _two_instances(stack, make_server)
        phone = await stack.enter_async_context(browser(a.base_url))
        r = await phone.post(
            "/api/auth/login", json={"login": "alice", "password": "correct horse battery"}
        )
        assert r.status_code == 200
        cookie = {"parley_session": phone.cookies["parley_session"]}
        checks = {
            f"{where} {kind}": make(base, {}, cookie)
            for where, base in (("A", a.base_url), ("B", b.base_url))
            for kind, make in (("REST", rest), ("SSE reconnect", sse_reconnect))
        }
        phone_id = next(
            s["id"] for s in (await web.get("/api/alice/sessions")).json() if not s["current"]
        )

        async def end() -> None:
            assert (await web.delete(f"/api/alice/sessions/{phone_id}")).status_code == 204

        await refused_within(checks, end)
        assert (await web.get("/api/auth/me")).status_code == 200


async def test_a_disabled_account_is_refused_everywhere_within_a_second(
    make_server, migrated: str, tmp_path: Path, db
):
    async with AsyncExitStack() as stack:
        a, b, web = await _two_instances(stack, make_server)
        key = (await make_key(web, "alice"))["secret"]
        token = mint_token(secret=SECRET, user_id="alice", ttl_seconds=600)
        cookie = {"parley_session": web.cookies["parley_session"]}
        async with db.connection() as conn:
            await conn.execute("INSERT INTO accounts (user_id, is_admin) VALUES ('root', true)")
        admin = bearer(mint_token(secret=SECRET, user_id="root", ttl_seconds=600))
        stdio = await stack.enter_async_context(stdio_client(migrated, tmp_path, PARLEY_TOKEN=key))
        checks: dict[str, Check] = {}
        for where, base in (("A", a.base_url), ("B", b.base_url)):
            checks[f"{where} REST key"] = rest(base, bearer(key))
            checks[f"{where} REST token"] = rest(base, bearer(token))
            checks[f"{where} REST cookie"] = rest(base, {}, cookie)
            checks[f"{where} SSE reconnect key"] = sse_reconnect(base, bearer(key))
            checks[f"{where} SSE reconnect cookie"] = sse_reconnect(base, {}, cookie)
            checks[f"{where} /mcp key"] = mcp_http(base, key)
            checks[f"{where} /mcp token"] = mcp_http(base, token)
        checks["stdio key"] = stdio_tool(stdio)

        async def disable() -> None:
            r = await b.client.post("/api/admin/users/alice/disable", headers=admin)
            assert r.status_code == 204, r.text

        await refused_within(checks, disable)
        # and nobody signs in as alice any more, until an admin enables the account again
        async with browser(a.base_url) as again:
            login = {"login": "alice", "password": "correct horse battery"}
            assert (await again.post("/api/auth/login", json=login)).status_code == 401
            r = await a.client.post("/api/admin/users/alice/enable", headers=admin)
            assert r.status_code == 204
            assert (await again.post("/api/auth/login", json=login)).status_code == 200
        assert not await rest(a.base_url, bearer(key))()


async def test_revoked_parley_tokens_are_refused_and_new_ones_work(make_server, db):
    async with make_server() as a, make_server() as b:
        old = mint_token(secret=SECRET, user_id="erin", ttl_seconds=600)

        async def revoke() -> None:
            from parley.accounts.store import revoke_tokens

            await revoke_tokens(db, user_id="erin")

        checks = {
            "A": _tasks_of("erin", a.base_url, old),
            "B": _tasks_of("erin", b.base_url, old),
        }
        await refused_within(checks, revoke)
        await asyncio.sleep(1.01)  # `iat` has whole seconds: a token of the next second
        new = mint_token(secret=SECRET, user_id="erin", ttl_seconds=600)
        assert not await _tasks_of("erin", b.base_url, new)()


def _tasks_of(user: str, base: str, token: str) -> Check:
    async def check() -> bool:
        async with httpx.AsyncClient(base_url=base, timeout=10) as client:
            r = await client.get(f"/api/{user}/tasks", headers=bearer(token))
        assert r.status_code in (200, 401), r.text
        return r.status_code == 401

    return check
