"""Acting as a browser or a program against a running server: sign-up, sign-in, keys."""

from __future__ import annotations

from typing import Any

import httpx

ORIGIN = "http://127.0.0.1:3000"  # the web UI's origin in the default PARLEY_WEB_ORIGINS
PASSWORD = "correct horse battery"


def browser(base_url: str) -> httpx.AsyncClient:
    """A client that keeps cookies and sends the web UI's Origin, as the UI's proxy does."""
    return httpx.AsyncClient(base_url=base_url, headers={"Origin": ORIGIN}, timeout=30)


async def signup(client: httpx.AsyncClient, user: str, **extra: Any) -> httpx.Response:
    body = {"user_id": user, "password": PASSWORD, **extra}
    response = await client.post("/api/auth/signup", json=body)
    assert response.status_code == 201, response.text
    return response


async def make_key(client: httpx.AsyncClient, user: str, agent: str = "planner") -> dict[str, Any]:
    response = await client.post(f"/api/{user}/agent-keys", json={"agent": agent})
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def bearer(secret: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}
