"""A small agent that talks to a person through Parley over MCP (streamable HTTP, the
official `mcp` client): it says hello in their inbox, starts a run, asks which task to do
first, waits for the answer (across reconnects and server restarts) and acts on it with the
task tools.

    .venv/bin/python examples/mcp_agent.py \
        --token "$(.venv/bin/python examples/agent_key.py --user me --agent planner)"

Each step is printed as one JSON line, so other programs (the tests) can follow along.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
from collections.abc import Callable, Coroutine
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client


DEFAULT_URL = "http://127.0.0.1:8000"


def _unreachable(exc: BaseException) -> BaseException | None:
    """The connection failure inside `exc` (an MCP client wraps it in exception groups)."""
    if isinstance(exc, (httpx2.ConnectError, httpx2.ConnectTimeout, ConnectionError)):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            if (found := _unreachable(inner)) is not None:
                return found
    cause = exc.__cause__ or exc.__context__
    return _unreachable(cause) if cause is not None and cause is not exc else None


def run(main: Callable[[], Coroutine[Any, Any, int]]) -> int:
    """Run an example; a Parley that cannot be reached is one line on stderr, not a traceback."""
    try:
        return asyncio.run(main())
    except BaseException as exc:
        found = _unreachable(exc) if not isinstance(exc, (SystemExit, KeyboardInterrupt)) else None
        if found is None:
            raise
        url = os.environ.get("PARLEY_URL", DEFAULT_URL)
        if "--url" in sys.argv[:-1]:
            url = sys.argv[sys.argv.index("--url") + 1]
        print(
            f"error: cannot reach Parley at {url} ({type(found).__name__}). Is it running?"
            " Give its address with --url or PARLEY_URL.",
            file=sys.stderr,
        )
        return 2


def say(step: str, **data: Any) -> None:
    print(json.dumps({"step": step, **data}), flush=True)


class Parley:
    """One MCP session per call: a server restart between calls costs nothing."""

    def __init__(self, url: str, token: str) -> None:
        self.url = url.rstrip("/") + "/mcp"
        self.headers = {"Authorization": f"Bearer {token}"}

    async def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        async with httpx2.AsyncClient(headers=self.headers, timeout=70) as http:
            async with Client(streamable_http_client(self.url, http_client=http)) as client:
                result = await client.call_tool(tool, arguments)
        if result.is_error:
            text = " ".join(getattr(c, "text", "") for c in result.content)
            raise RuntimeError(f"{tool}: {text}")
        assert result.structured_content is not None
        return dict(result.structured_content)

    async def call_retrying(self, tool: str, **arguments: Any) -> dict[str, Any]:
        """For waits: if the server goes away (a restart), keep trying for a minute."""
        for _attempt in range(120):
            try:
                return await self.call(tool, **arguments)
            except RuntimeError:
                raise  # the tool itself said no: waiting longer will not help
            except Exception as exc:  # the connection: refused, dropped mid-call...
                say("reconnecting", error=type(exc).__name__)
                await asyncio.sleep(0.5)
        raise RuntimeError(f"{tool}: the server did not come back")


def number_of(task: dict[str, Any]) -> int:
    """A task's number: `task_id` in the MCP tools' results, `number` over REST."""
    return int(task.get("task_id", task.get("number", 0)))


def pick(answer: str, tasks: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The task the answer names: by number ("2", "task 2") or by words of its title."""
    for number in re.findall(r"\d+", answer):
        for task in tasks:
            if str(number_of(task)) == number:
                return task
    lowered = answer.lower()
    for task in tasks:
        if task["title"].lower() in lowered or lowered in task["title"].lower():
            return task
    return None


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--url",
        default=os.environ.get("PARLEY_URL", DEFAULT_URL),
        help="where Parley's API listens (default: %(default)s; or set PARLEY_URL)",
    )
    parser.add_argument("--token", default=os.environ.get("PARLEY_TOKEN"), required=False)
    parser.add_argument("--timeout", type=float, default=600, help="how long the question waits")
    args = parser.parse_args()
    if not args.token:
        parser.error("give --token (or PARLEY_TOKEN): an agent key (examples/agent_key.py)")
    parley = Parley(args.url, args.token)

    await parley.call(
        "post_message", text="Hello! I'm your planning agent; I'll ask you something."
    )
    say("posted")
    run = await parley.call("start_run", title="Pick the first task of the day")
    say("run_started", run_id=run["id"])
    tasks = (await parley.call("list_tasks", status="pending"))["tasks"]
    if not tasks:
        await parley.call("add_task", title="Write the weekly report")
        tasks = (await parley.call("list_tasks", status="pending"))["tasks"]
    options = "; ".join(f"#{number_of(t)} {t['title']}" for t in tasks)
    await parley.call("report_status", run_id=run["id"], text="Looked at your tasks", progress=30)

    reply = await parley.call(
        "ask_user",
        question=f"Which task should I do first? {options}",
        run_id=run["id"],
        timeout_s=args.timeout,
    )
    say("asked", question_id=reply["question_id"], status=reply["status"])
    while reply["status"] == "waiting":
        reply = await parley.call_retrying("wait_for_answer", question_id=reply["question_id"])
        say("waited", status=reply["status"])
    if reply["status"] != "answered":
        await parley.call("finish_run", run_id=run["id"], status="failed", summary="No answer")
        say("finished", status="failed", reason=reply["status"])
        return 1
    say("answered", answer=reply["answer"])

    task = pick(reply["answer"], tasks)
    if task is None:
        await parley.call(
            "post_message", run_id=run["id"], text=f"I could not match '{reply['answer']}'."
        )
        await parley.call("finish_run", run_id=run["id"], status="failed", summary="No match")
        say("finished", status="failed", reason="no match")
        return 1
    done = await parley.call("complete_task", task_id=number_of(task))
    await parley.call("report_status", run_id=run["id"], text=f"Did {task['title']}", progress=100)
    await parley.call(
        "finish_run", run_id=run["id"], status="completed", summary=f"Completed '{done['title']}'"
    )
    say("finished", status="completed", task=done["task_id"])
    return 0


if __name__ == "__main__":
    sys.exit(run(main))
