"""Acting as `parley connect` against the device authorization endpoints, and as the person
at the web UI's device page."""

from __future__ import annotations

from typing import Any

import httpx

GRANT = "urn:ietf:params:oauth:grant-type:device_code"


async def start(base: str, machine: str = "laptop", **form: str) -> httpx.Response:
    values = {"client_id": "parley-cli", "application": "claude-code", "machine": machine, **form}
    async with httpx.AsyncClient(timeout=30) as http:
        return await http.post(f"{base}/oauth/device_authorization", data=values)


async def started(base: str, machine: str = "laptop") -> dict[str, Any]:
    r = await start(base, machine)
    assert r.status_code == 200, r.text
    assert r.headers["cache-control"] == "no-store"
    body: dict[str, Any] = r.json()
    return body


async def poll(base: str, device_code: str, client_id: str = "parley-cli") -> httpx.Response:
    form = {"grant_type": GRANT, "device_code": device_code, "client_id": client_id}
    async with httpx.AsyncClient(timeout=30) as http:
        return await http.post(f"{base}/token", data=form)


def error_of(response: httpx.Response) -> str:
    assert response.status_code == 400, response.text
    error: str = response.json()["error"]
    return error


async def lookup(web: httpx.AsyncClient, user_code: str) -> httpx.Response:
    return await web.post("/api/device/lookup", json={"user_code": user_code})


async def decide(web: httpx.AsyncClient, user_code: str, allow: bool = True) -> httpx.Response:
    body = {"user_code": user_code, "decision": "allow" if allow else "deny"}
    return await web.post("/api/device/decision", json=body)
