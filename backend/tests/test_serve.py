"""`parley serve` as a newcomer runs it: several workers, one secret, one database."""

from __future__ import annotations

import asyncio
import os

import httpx

from tests.conftest import _SPAWNED, PARLEY, eventually, free_port


async def test_several_workers_share_the_database_and_one_ephemeral_secret(migrated):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "PARLEY_AUTH_SECRET"}
    env.update(DATABASE_URL=migrated, PARLEY_DEV_LOGIN="1", PARLEY_RATE_LIMIT_PER_MINUTE="0")
    process = await asyncio.create_subprocess_exec(
        PARLEY,
        "serve",
        "--port",
        str(port),
        "--workers",
        "2",
        "--log-level",
        "warning",
        env=env,
        start_new_session=True,
    )
    _SPAWNED.append(process)
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:

        async def up() -> bool:
            try:
                return (await client.get("/api/health")).status_code == 200
            except httpx.HTTPError:
                return False

        await eventually(up, within=120)  # two workers starting on a loaded machine
        token = (await client.post("/api/auth/dev-login", json={"user_id": "wanda"})).json()[
            "token"
        ]
        headers = {"Authorization": f"Bearer {token}"}
        # New connections spread over both workers; every one must accept the token.
        for i in range(12):
            async with httpx.AsyncClient(base_url=client.base_url, headers=headers) as fresh:
                response = await fresh.post(
                    "/api/wanda/chat", json={"message": f"add a task to t{i}"}
                )
                assert response.status_code == 200, response.text
        tasks = (await client.get("/api/wanda/tasks", headers=headers)).json()
    assert sorted(t["title"] for t in tasks) == sorted(f"t{i}" for i in range(12))
