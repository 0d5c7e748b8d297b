"""Acting as a person or an agent over REST, for the runs/inbox/questions tests."""

from __future__ import annotations

from typing import Any

import httpx

from tests.conftest import Server


class Actor:
    """One token's view of the API: a person (`agent=None`) or one of their agents."""

    def __init__(self, server: Server, user: str, agent: str | None = None) -> None:
        self.server = server
        self.user = user
        self.headers = server.headers(user, agent=agent)

    async def call(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        return await self.server.client.request(
            method, f"/api/{self.user}{path}", headers=self.headers, **kwargs
        )

    async def ok(self, method: str, path: str, status: int = 200, **kwargs: Any) -> Any:
        response = await self.call(method, path, **kwargs)
        assert response.status_code == status, response.text
        return response.json()

    async def start_run(self, title: str = "work") -> dict[str, Any]:
        run: dict[str, Any] = await self.ok("POST", "/runs", 201, json={"title": title})
        return run

    async def post(self, path: str, text: str, **body: Any) -> dict[str, Any]:
        posted: dict[str, Any] = await self.ok("POST", path, 201, json={"text": text, **body})
        return posted

    async def ask(self, path: str, text: str, **body: Any) -> int:
        return int((await self.post(path, text, kind="question", **body))["id"])


def error_code(response: httpx.Response) -> str:
    code: str = response.json()["error"]["code"]
    return code


async def delegate(architect: Actor, run: dict[str, Any], task: str, **body: Any) -> int:
    """From `run`, hand `task` to the coder; the pending thread's id."""
    made = await architect.ok(
        "POST", f"/runs/{run['id']}/delegations", 201, json={"agent": "coder", "task": task, **body}
    )
    assert made["status"] == "pending" and made["child_agent"] == "coder"
    return int(made["thread_id"])


async def claimed(coder: Actor, thread: int, **params: Any) -> dict[str, Any]:
    """The coder claims the next delegation, which must be `thread`."""
    got: dict[str, Any] = (await coder.ok("GET", "/delegations/next", params=params))["delegation"]
    assert got is not None and got["thread_id"] == thread, got
    return got
