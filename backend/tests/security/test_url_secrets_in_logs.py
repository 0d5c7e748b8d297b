"""Secrets that travel in URLs never reach the access log: an emailed question link's token
(it was logged whole, usable by whoever reads the log until the link expires), an invite's,
an OAuth authorization request's, an OIDC callback's code and state, an invite handed to
sign-in, an OAuth client's state, a `?token=`. Read from the log of a real `parley serve`,
for the exact paths and for the variants a client may send (trailing slash, doubled
slashes, other case)."""

from __future__ import annotations

import os
import re
import secrets
import signal
from pathlib import Path

import httpx

from parley.db import Database
from parley.questions import escalation
from tests.conftest import spawn_server, token_for


async def test_secrets_in_paths_and_queries_are_not_in_the_access_log(
    migrated: str, db: Database, tmp_path: Path
) -> None:
    link = secrets.token_urlsafe(32)  # a real emailed link, as the reminder stores it
    async with db.connection() as conn:
        await conn.execute(
            "INSERT INTO auth_challenges (id, purpose, user_id, data, expires_at)"
            " VALUES ($1, $2, 'alice', $3::jsonb, now() + interval '10 minutes')",
            escalation._hash(link),
            escalation.LINK_PURPOSE,
            {"question_id": 7, "conversation_id": 3},
        )
    hidden = {name: secrets.token_urlsafe(24) for name in "abcdefghijk"}
    log_path = tmp_path / "server.log"
    with log_path.open("wb") as log_file:
        process, base = await spawn_server(migrated, log_level="info", output=log_file)
    bearer = {"Authorization": f"Bearer {token_for('alice')}"}
    async with httpx.AsyncClient(base_url=base, timeout=30, follow_redirects=False) as client:
        opened = await client.get(f"/api/question-links/{link}")
        assert opened.status_code == 303  # the link worked: this is the request that leaked
        assert (await client.get(f"/api/question-links/{link}")).status_code == 404
        for url in (
            f"/api/question-links/{hidden['a']}/",
            f"{base}//api//question-links//{hidden['b']}",
            f"/API/Question-Links/{hidden['c']}",
            f"/api/auth/invites/{hidden['d']}",
            f"/api/oauth/requests/{hidden['e']}",
            f"/api/auth/oidc/login?next=/c/1&invite={hidden['f']}",
            f"/api/auth/oidc/callback?code={hidden['g']}&state={hidden['h']}",
            f"/authorize?response_type=code&client_id=x&state={hidden['i']}",
            f"/api/alice/tasks?token={hidden['j']}",
            f"/api/alice/conversations/1/messages?after=5&limit=20&x={hidden['k']}",
        ):
            response = await client.get(url, headers=bearer)
            assert response.status_code < 500, (url, response.text)
    os.killpg(process.pid, signal.SIGTERM)
    await process.wait()
    log = log_path.read_text()
    access = [line for line in log.splitlines() if "HTTP/1.1" in line and "/health" not in line]
    assert len(access) == 12, log[-3000:]  # the requests are in the log, only redacted
    leaked = [name for name, value in {"link": link, **hidden}.items() if value in log]
    assert leaked == [], f"secrets in the access log: {leaked}"
    assert re.search(r'"GET /api/question-links/… HTTP/1.1" 303', log), log[-3000:]
    # What is no secret stays readable: the route, the numbers.
    assert "/api/alice/conversations/1/messages?after=5&limit=20&x=…" in log
    assert "/api/auth/oidc/callback?code=…&state=…" in log
