"""Two agents delegating through Parley, each a plain program with the official `mcp`
client over HTTP: an architect hands "Refactor auth to OAuth2" to a coder, the coder asks
"authlib or python-oauth2?", the architect answers, the coder reports 20% and 50% and
completes, and the thread closes. The person can watch (and write into) the thread in the UI.

    .venv/bin/python examples/delegation_demo.py \\
        --architect-token "$(.venv/bin/python examples/agent_key.py --user me --agent architect)" \\
        --coder-token "$(.venv/bin/python examples/agent_key.py --user me --agent coder)"

With both tokens it starts the two agents as two processes (`--role architect|coder` runs
one). Each step is printed as one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from typing import Any

from mcp_agent import Parley, say  # type: ignore[import-not-found]


async def architect(parley: Parley) -> int:
    run = await parley.call("start_run", title="Auth overhaul")
    thread = await parley.call(
        "delegate_task", run_id=run["id"], agent="coder", task="Refactor auth to OAuth2"
    )
    say("delegated", thread_id=thread["thread_id"])
    while True:
        state = await parley.call_retrying("wait_for_child", thread_id=thread["thread_id"])
        question = state.get("open_question")
        if question is not None:
            say("question", text=question["content"])
            await parley.call(
                "answer_child",
                thread_id=thread["thread_id"],
                question_id=question["id"],
                text="authlib",
            )
            continue
        if state["status"] not in ("pending", "claimed"):
            break
    say("finished", status=state["status"], result=state["result"])
    outcome = "completed" if state["status"] == "completed" else "failed"
    await parley.call("finish_run", run_id=run["id"], status=outcome, summary=state["result"])
    return 0 if outcome == "completed" else 1


async def coder(parley: Parley) -> int:
    found: dict[str, Any] | None = None
    while found is None:
        found = (await parley.call_retrying("next_delegation", wait_s=50))["delegation"]
    thread = found["thread_id"]
    say("claimed", thread_id=thread, task=found["task"])
    reply = await parley.call("ask_parent", thread_id=thread, question="authlib or python-oauth2?")
    while reply["status"] == "waiting":
        reply = await parley.call_retrying("wait_for_answer", question_id=reply["question_id"])
    if reply["status"] != "answered":
        await parley.call("fail", thread_id=thread, text="No answer to my question")
        return 1
    say("answered", answer=reply["answer"])
    for progress in (20, 50):
        await parley.call(
            "report_status", thread_id=thread, text=f"{progress}% done", progress=progress
        )
    await parley.call("complete", thread_id=thread, text=f"Auth uses OAuth2 via {reply['answer']}")
    say("completed", thread_id=thread)
    return 0


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default=os.environ.get("PARLEY_URL", "http://127.0.0.1:8000"))
    parser.add_argument("--role", choices=["architect", "coder"])
    parser.add_argument("--token", help="with --role: that agent's token")
    parser.add_argument("--architect-token")
    parser.add_argument("--coder-token")
    args = parser.parse_args()
    if args.role:
        if not args.token:
            parser.error("--role needs --token")
        agent = architect if args.role == "architect" else coder
        return await agent(Parley(args.url, args.token))
    if not (args.architect_token and args.coder_token):
        parser.error("give --architect-token and --coder-token (or --role and --token)")
    me = [sys.executable, __file__, "--url", args.url]
    processes = [
        await asyncio.create_subprocess_exec(*me, "--role", "coder", "--token", args.coder_token),
        await asyncio.create_subprocess_exec(
            *me, "--role", "architect", "--token", args.architect_token
        ),
    ]
    codes = [await p.wait() for p in processes]
    return max(codes)


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
