"""Uploading and sending attachments through the real API."""

from __future__ import annotations

from typing import Any

import httpx

from tests.conftest import Server

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + bytes(range(64))
ELF = b"\x7fELF\x02\x01\x01\x00" + bytes(120)
SVG = b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'


async def upload(
    server: Server,
    user: str,
    name: str,
    data: bytes,
    content_type: str = "text/plain",
    headers: dict[str, str] | None = None,
) -> httpx.Response:
    return await server.client.post(
        f"/api/{user}/attachments",
        params={"name": name},
        content=data,
        headers={"Content-Type": content_type, **(headers or server.headers(user))},
    )


async def uploaded(server: Server, user: str, name: str, data: bytes, **kw: Any) -> int:
    response = await upload(server, user, name, data, **kw)
    assert response.status_code == 201, response.text
    attachment_id: int = response.json()["id"]
    return attachment_id


async def send(
    server: Server,
    user: str,
    message: str,
    attachments: list[int],
    conversation_id: int | None = None,
) -> httpx.Response:
    return await server.client.post(
        f"/api/{user}/chat",
        json={"conversation_id": conversation_id, "message": message, "attachments": attachments},
        headers=server.headers(user),
    )


def error_code(response: httpx.Response) -> str:
    code: str = response.json()["error"]["code"]
    return code
