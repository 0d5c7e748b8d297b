"""The first admin from the operator's CLI, invites, disabling accounts, and the server's log
holding no secret through all of it."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

from parley.auth import mint_token
from tests.accounts.helpers import PASSWORD, bearer, browser, make_key
from tests.conftest import PARLEY, SECRET, eventually, spawn_server


async def _parley_user(migrated: str, *args: str) -> str:
    process = await asyncio.create_subprocess_exec(
        PARLEY,
        "user",
        *args,
        env={**os.environ, "DATABASE_URL": migrated, "PARLEY_WEB_ORIGINS": "https://chat.example"},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await process.communicate()
    assert process.returncode == 0, err.decode()
    return out.decode()


async def test_the_operator_makes_the_first_admin_who_invites_and_disables(server, migrated, db):
    printed = await _parley_user(migrated, "create", "boss", "--admin")
    link = printed.split()[-1]
    assert link.startswith("https://chat.example/invite/"), printed
    token = link.rsplit("/", 1)[1]
    async with browser(server.base_url) as boss, browser(server.base_url) as newcomer:
        info = await boss.get(f"/api/auth/invites/{token}")
        assert info.json() == {"email": None, "user_id": "boss"}
        wrong = await boss.post(
            "/api/auth/signup", json={"user_id": "notboss", "password": PASSWORD, "invite": token}
        )
        assert wrong.status_code == 403 and wrong.json()["error"]["code"] == "invite_mismatch"
        made = await boss.post(
            "/api/auth/signup", json={"user_id": "boss", "password": PASSWORD, "invite": token}
        )
        assert made.status_code == 201 and made.json()["is_admin"] is True, made.text
        assert (await boss.get(f"/api/auth/invites/{token}")).status_code == 404  # used

        invite = await boss.post("/api/admin/invites", json={"email": "new@example.com"})
        assert invite.status_code == 201, invite.text
        assert invite.json()["url"].startswith("http://127.0.0.1:3000/invite/")
        new_token = invite.json()["url"].rsplit("/", 1)[1]
        assert (await newcomer.get(f"/api/auth/invites/{new_token}")).json()["email"] == (
            "new@example.com"
        )
        signed = await newcomer.post(
            "/api/auth/signup", json={"user_id": "nina", "password": PASSWORD, "invite": new_token}
        )
        assert signed.json() == {"user_id": "nina", "email": "new@example.com", "is_admin": False}
        reuse = await browser(server.base_url).post(
            "/api/auth/signup", json={"user_id": "nino", "password": PASSWORD, "invite": new_token}
        )
        assert reuse.status_code == 404

        # not an admin: no invites, no disabling
        assert (await newcomer.post("/api/admin/invites", json={})).status_code == 403
        assert (await newcomer.post("/api/admin/users/boss/disable")).status_code == 403
        assert (await boss.post("/api/admin/users/nobody/disable")).status_code == 404
        assert (await boss.post("/api/admin/users/nina/disable")).status_code == 204
        assert (await newcomer.get("/api/auth/me")).status_code == 401

    # the operator can revoke every `parley token` of a user
    token_before = mint_token(secret=SECRET, user_id="boss", ttl_seconds=600)
    assert (await server.client.get("/api/boss/tasks", headers=bearer(token_before))).is_success
    await _parley_user(migrated, "revoke-tokens", "boss")

    async def refused() -> bool:
        r = await server.client.get("/api/boss/tasks", headers=bearer(token_before))
        return r.status_code == 401

    await eventually(refused, within=1)


async def test_nothing_secret_appears_in_the_server_log(migrated, db, tmp_path: Path):
    log_path = tmp_path / "server.log"
    with log_path.open("wb") as log_file:
        process, base = await spawn_server(
            migrated,
            log_level="debug",
            output=log_file,
            PARLEY_SIGNUP="open",
            PARLEY_DEV_LOGIN="1",
        )
    secrets: list[str] = [PASSWORD, "wrong-password-123", "a brand new one"]
    async with browser(base) as web:
        r = await web.post("/api/auth/signup", json={"user_id": "alice", "password": PASSWORD})
        assert r.status_code == 201
        secrets.append(web.cookies["parley_session"])
        await web.post("/api/auth/login", json={"login": "alice", "password": "wrong-password-123"})
        key = await make_key(web, "alice")
        secrets.append(key["secret"])
        assert (await web.get("/api/alice/tasks", headers=bearer(key["secret"]))).is_success
        async with db.connection() as conn:
            await conn.execute("UPDATE accounts SET is_admin = true")

        async def admin() -> bool:
            return bool((await web.get("/api/auth/me")).json()["is_admin"])

        await eventually(admin, within=2)  # the instance's credential cache catches up
        invite = (await web.post("/api/admin/invites", json={})).json()["url"].rsplit("/", 1)[1]
        secrets.append(invite)
        assert (await web.get(f"/api/auth/invites/{invite}")).is_success
        changed = await web.post(
            "/api/auth/password",
            json={"current_password": PASSWORD, "new_password": "a brand new one"},
        )
        assert changed.status_code == 204
        dev = await web.post("/api/auth/dev-login", json={"user_id": "dev"})
        secrets.append(dev.json()["token"])
        secrets.append(web.cookies["parley_session"])
    os.killpg(process.pid, signal.SIGTERM)
    await process.wait()
    log = log_path.read_text()
    assert "/api/auth/invites/" in log and "POST /api/auth/login" in log, log[-2000:]
    leaked = [s[:12] + "…" for s in secrets if s in log]
    assert leaked == [], f"secrets in the server log: {leaked}"
