"""An OpenAI Agents SDK agent whose risky tool waits for the person's approval through Parley.

The tool `delete_task` is declared with `needs_approval=True`, so the SDK stops the run before
calling it and hands back an interruption. This script sends that call to Parley as a
permission request (`POST /api/{user}/permission-requests`): the person's approval rules
answer the routine ones at once, anything else becomes a card in their inbox (and a push)
with Allow / Deny / Always allow this. Their decision resumes the run with
`RunState.approve` or `RunState.reject` (the person's reason reaches the model).

It survives its own restart: the paused run (`RunState.to_string()`) is written to
`--state` before it waits, and a new process given the same file picks the run up, asks the
same request again (the same `tool_use_id`, so Parley hands back the same question instead of
asking twice) and carries on once it is decided.

    .venv/bin/python examples/openai_agents_approval.py --user me \\
        --token "$(.venv/bin/python examples/agent_key.py --user me --agent janitor)" \\
        "delete task 3"

With `OPENAI_API_KEY` set it runs on an OpenAI model; `--offline` (what the tests use)
scripts the model instead: it asks to delete the task the prompt names, then says what
happened. Each step is printed as one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import socket
import sys
from pathlib import Path
from typing import Any

import httpx
from agents import Agent, RunContextWrapper, Runner, RunState, function_tool
from agents.items import ToolApprovalItem

DEFAULT_URL = "http://127.0.0.1:8000"
WAIT_S = 25  # one long poll; the server caps it at PARLEY_LONG_POLL_MAX


def say(step: str, **fields: Any) -> None:
    print(json.dumps({"step": step, **fields}), flush=True)


class Parley:
    """The few REST calls this agent makes, as its agent key."""

    def __init__(self, url: str, user: str, token: str) -> None:
        self.base = f"{url.rstrip('/')}/api/{user}"
        self.http = httpx.AsyncClient(
            headers={"Authorization": f"Bearer {token}"}, timeout=WAIT_S + 20
        )

    async def call(self, method: str, path: str, **kwargs: Any) -> Any:
        response = await self.http.request(method, self.base + path, **kwargs)
        if response.status_code >= 400:
            raise RuntimeError(
                f"{method} {path}: {response.status_code} {response.text}"
            )
        return response.json() if response.content else None

    async def decision(self, item: ToolApprovalItem) -> dict[str, Any]:
        """Parley's decision on one paused tool call: a rule's at once, else the person's,
        long-polled; a Parley restart in between costs a retry, not the question."""
        request = {
            "tool_name": item.tool_name or "",
            "tool_input": json.loads(item.arguments or "{}"),
            "tool_use_id": item.call_id or "",
            "machine": socket.gethostname(),
            "cwd": os.getcwd(),
        }
        while True:
            try:
                found = await self.call("POST", "/permission-requests", json=request)
                while found["status"] == "pending":
                    say("waiting", request_id=found["id"], tool=request["tool_name"])
                    found = await self.call(
                        "GET",
                        f"/permission-requests/{found['id']}",
                        params={"wait": WAIT_S},
                    )
                return dict(found)
            except (
                httpx.ConnectError,
                httpx.ReadError,
                httpx.RemoteProtocolError,
            ) as exc:
                say("reconnecting", error=type(exc).__name__)
                await asyncio.sleep(1)


def build_agent(api: Parley, *, offline: bool) -> Agent[Any]:
    @function_tool(needs_approval=True)
    async def delete_task(ctx: RunContextWrapper[Any], task_number: int) -> str:
        """Delete one of the person's tasks for good, by its number."""
        await api.call("DELETE", f"/tasks/{task_number}")
        return f"Deleted task {task_number}."

    model: Any = (
        scripted_model()
        if offline
        else os.environ.get("PARLEY_EXAMPLE_MODEL", "gpt-4.1")
    )
    return Agent(
        name="janitor",
        instructions="You tidy the person's task list. Deleting needs their approval.",
        tools=[delete_task],
        model=model,
    )


def scripted_model() -> Any:
    """A model for running without an API key: it asks to delete the task the prompt names,
    then reports the tool's result, whichever of the two a call is (so a run resumed by a new
    process gets the second answer first)."""
    from agents.testing import (
        ModelStep,
        ScriptedModel,
        assistant_message,
        function_call,
    )

    def respond(call: Any) -> list[Any]:
        items = call.input if isinstance(call.input, list) else [call.input]
        outputs = [
            i
            for i in items
            if isinstance(i, dict) and i.get("type") == "function_call_output"
        ]
        if outputs:
            return [assistant_message(f"Done: {outputs[-1]['output']}")]
        text = json.dumps(items)
        number = re.search(r"task\D*(\d+)", text)
        return [
            function_call(
                "delete_task",
                {"task_number": int(number[1]) if number else 1},
                call_id=f"call_{os.getpid()}",
            )
        ]

    return ScriptedModel([ModelStep.respond(respond) for _ in range(8)])


async def run(args: argparse.Namespace) -> int:
    api = Parley(args.url, args.user, args.token)
    agent = build_agent(api, offline=args.offline)
    state_file = Path(args.state)
    if state_file.exists():  # a run paused by an earlier process
        state = await RunState.from_string(
            agent, state_file.read_text(encoding="utf-8")
        )
        say("resumed", state=str(state_file))
        result = (
            await Runner.run(agent, state) if not state.get_interruptions() else None
        )
    else:
        if not args.prompt:
            print('error: say what to do, e.g. "delete task 3"', file=sys.stderr)
            return 2
        result = await Runner.run(agent, args.prompt)
        state = result.to_state()
    while True:
        pending = (
            result.interruptions if result is not None else state.get_interruptions()
        )
        if not pending:
            break
        if result is not None:
            state = result.to_state()
        # Written before waiting: a restart from here on resumes this very run.
        state_file.write_text(state.to_string(), encoding="utf-8")
        for item in pending:
            found = await api.decision(item)
            say(
                "decided",
                tool=item.tool_name,
                decision=found["decision"],
                by=found.get("decided_by"),
            )
            if found["decision"] == "allow":
                state.approve(item)
            else:
                state.reject(
                    item, rejection_message=found.get("reason") or "The person said no."
                )
        result = await Runner.run(agent, state)
    state_file.unlink(missing_ok=True)
    assert result is not None
    say("finished", output=str(result.final_output))
    await api.http.aclose()
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("prompt", nargs="?", help='what to do, e.g. "delete task 3"')
    parser.add_argument("--url", default=os.environ.get("PARLEY_URL", DEFAULT_URL))
    parser.add_argument("--user", required=True)
    parser.add_argument("--token", default=os.environ.get("PARLEY_TOKEN"))
    parser.add_argument(
        "--state", default="approval-run.json", help="where a paused run waits"
    )
    parser.add_argument(
        "--offline", action="store_true", help="a scripted model, no API key"
    )
    args = parser.parse_args()
    if not args.token:
        parser.error(
            "give --token (or PARLEY_TOKEN): an agent key, see examples/agent_key.py"
        )
    return asyncio.run(run(args))


if __name__ == "__main__":
    sys.exit(main())
