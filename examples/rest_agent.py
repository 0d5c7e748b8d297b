"""The same agent as mcp_agent.py over plain REST (for agents that do not speak MCP):
inbox post, a run, a question long-polled for its answer, then the task it names is done.

    .venv/bin/python examples/rest_agent.py --user me \
        --token "$(.venv/bin/python examples/agent_key.py --user me --agent planner)"
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from typing import Any

import httpx

from mcp_agent import (  # type: ignore[import-not-found]
    DEFAULT_URL,
    number_of,
    pick,
    run,
    say,
)


class Rest:
    def __init__(self, url: str, user: str, token: str) -> None:
        self.base = f"{url.rstrip('/')}/api/{user}"
        self.headers = {"Authorization": f"Bearer {token}"}

    async def request(self, method: str, path: str, **kwargs: Any) -> Any:
        try:
            async with httpx.AsyncClient(headers=self.headers, timeout=70) as http:
                response = await http.request(method, self.base + path, **kwargs)
        except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
            raise ConnectionError(str(exc)) from exc  # said in one line by `run`
        if response.status_code >= 400:
            raise RuntimeError(f"{method} {path}: {response.status_code} {response.text}")
        return response.json() if response.content else None

    async def wait_answer(self, question_id: int) -> dict[str, Any]:
        """Long-poll until answered or timed out; a restart in between costs a retry."""
        while True:
            try:
                state = await self.request("GET", f"/questions/{question_id}", params={"wait": 50})
            except (OSError, httpx.HTTPError) as exc:
                say("reconnecting", error=type(exc).__name__)
                await asyncio.sleep(0.5)
                continue
            if state["status"] != "open":
                return dict(state)


async def fail(api: Rest, run_id: int, reason: str) -> None:
    """End the run as failed with its reason, where the person sees it (the run's summary),
    and say it on stderr too."""
    await api.request(
        "POST", f"/runs/{run_id}/finish", json={"status": "failed", "summary": reason}
    )
    say("finished", status="failed", reason=reason)
    print(f"error: {reason}", file=sys.stderr)


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--url",
        default=os.environ.get("PARLEY_URL", DEFAULT_URL),
        help="where Parley's API listens (default: %(default)s; or set PARLEY_URL)",
    )
    parser.add_argument("--user", required=True)
    parser.add_argument("--token", default=os.environ.get("PARLEY_TOKEN"))
    args = parser.parse_args()
    if not args.token:
        parser.error("give --token (or PARLEY_TOKEN): `parley token --user U --agent NAME`")
    api = Rest(args.url, args.user, args.token)

    await api.request("POST", "/inbox/messages", json={"text": "Hello from your REST agent."})
    say("posted")
    run = await api.request("POST", "/runs", json={"title": "Pick the first task (REST)"})
    say("run_started", run_id=run["id"])
    tasks = await api.request("GET", "/tasks", params={"status": "pending"})
    tasks = tasks["tasks"] if isinstance(tasks, dict) else tasks
    options = "; ".join(f"#{number_of(t)} {t['title']}" for t in tasks)
    await api.request(
        "POST", f"/runs/{run['id']}/status", json={"text": "Looked at your tasks", "progress": 30}
    )
    question = await api.request(
        "POST",
        f"/runs/{run['id']}/messages",
        json={"text": f"Which task should I do first? {options}", "kind": "question"},
    )
    say("asked", question_id=question["id"], status="waiting")
    state = await api.wait_answer(question["id"])
    if state["status"] != "answered":
        reason = f"The question was {state['status']} without an answer"
        await fail(api, run["id"], reason)
        return 1
    answer = state["answer"]["content"]
    say("answered", answer=answer)
    task = pick(answer, tasks)
    if task is None:
        await fail(api, run["id"], f"No task matches the answer '{answer}'")
        return 1
    key = number_of(task)
    await api.request("PATCH", f"/tasks/{key}", json={"completed": True})
    await api.request(
        "POST", f"/runs/{run['id']}/status", json={"text": f"Did {task['title']}", "progress": 100}
    )
    await api.request(
        "POST",
        f"/runs/{run['id']}/finish",
        json={"status": "completed", "summary": f"Completed '{task['title']}'"},
    )
    say("finished", status="completed", task=key)
    print(json.dumps({"done": True}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(run(main))
