"""Permission requests as questions in the conversation, and the person's answers.

A request waits in-band (inside Claude Code's own call) for at most the configured few
seconds; past that the tool call is deferred and the question, the exact call and the
session stay in PostgreSQL until the answer comes, however late (see session.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from typing import Any

from parley.config import Settings
from parley.conversations import StoredMessage
from parley.db import Database
from parley.work import store
from parley.work.events import describe_tool

ALLOW, DENY, ALLOW_ALWAYS = "allow", "deny", "allow always"
# Tools that change files or run things: asked about unless the mode or a rule allows them.
EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
COMMAND_TOOLS = frozenset({"Bash", "WebFetch", "KillShell", "KillBash"})
POLL_SECONDS = 0.5

_ALLOW_WORDS = re.compile(r"^(allow|yes|y|ok|okay|sure|approve|go ahead|do it)\b")
_ALWAYS = re.compile(r"\b(always|for this session|every time)\b")
_DENY_WORDS = re.compile(r"^(deny|no|n|don'?t|do not|stop|reject|refuse|cancel)\b")


def parse_answer(text: str) -> str | None:
    """ "allow"/"yes", "deny"/"no", "allow always": what a button, a typed or a spoken reply
    says; None when it is neither (it is then an ordinary message)."""
    flat = " ".join(text.lower().strip(" .!").split())
    if _DENY_WORDS.match(flat):
        return DENY
    if _ALLOW_WORDS.match(flat):
        return ALLOW_ALWAYS if _ALWAYS.search(flat) else ALLOW
    return None


def needs_asking(settings: Settings, tool: str, allowed: list[str]) -> bool:
    if settings.work_permission_mode == "none" or tool in allowed:
        return False
    if tool.startswith("mcp__") or tool in COMMAND_TOOLS:
        return True
    return tool in EDIT_TOOLS and settings.work_permission_mode == "ask"


def question_text(tool: str, tool_input: dict[str, Any]) -> str:
    if tool == "Bash" and "command" in tool_input:
        return f"Claude wants to run `{tool_input['command']}` — allow?"
    return f"Claude wants to use {describe_tool(tool, tool_input)} — allow?"


class Waiters:
    """Answers given on this instance wake their waiter at once; answers given on another
    instance are found by polling the question's row."""

    def __init__(self) -> None:
        self._events: dict[int, asyncio.Event] = {}

    def wake(self, question_id: int) -> None:
        event = self._events.get(question_id)
        if event is not None:
            event.set()

    async def wait(self, db: Database, question_id: int, seconds: float) -> str | None:
        event = self._events.setdefault(question_id, asyncio.Event())
        deadline = asyncio.get_running_loop().time() + seconds
        try:
            while True:
                answer = await store.question_answer(db, question_id=question_id)
                remaining = deadline - asyncio.get_running_loop().time()
                if answer is not None or remaining <= 0:
                    return answer
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(min(POLL_SECONDS, remaining)):
                        await event.wait()
        finally:
            self._events.pop(question_id, None)


async def ask(
    db: Database,
    *,
    conversation_id: int,
    user_id: str,
    tool: str,
    tool_input: dict[str, Any],
    tool_use_id: str | None,
) -> StoredMessage:
    """Store the question; the UI shows Allow / Deny under it."""
    permission = {"tool": tool, "input": tool_input, "tool_use_id": tool_use_id}
    return await store.store_question(
        db,
        conversation_id=conversation_id,
        user_id=user_id,
        content=question_text(tool, tool_input)[:4000],
        meta={"type": "permission", "permission": permission},
    )


def hook_output(decision: str, reason: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {"hookEventName": "PreToolUse", "permissionDecision": decision}
    if reason:
        out["permissionDecisionReason"] = reason
    return {"hookSpecificOutput": out}


DENIED = "The person denied this tool call."

# The PreToolUse hook of a resume after a deferred call: the stored decision for that exact
# call; defer again for any later call that needs asking; no opinion on the rest.
_HOOK_SCRIPT = """
import json, sys
spec = json.loads(sys.argv[1])
event = json.load(sys.stdin)
tool = event.get("tool_name", "")
if event.get("tool_use_id") == spec["tool_use_id"]:
    decision = spec["decision"]
elif tool in spec["ask"] or (tool.startswith("mcp__") and spec["ask_mcp"]):
    decision = "defer"
else:
    print("{}")
    sys.exit(0)
out = {"hookEventName": "PreToolUse", "permissionDecision": decision}
if decision == "deny":
    out["permissionDecisionReason"] = spec["reason"]
print(json.dumps({"hookSpecificOutput": out}))
"""


def resume_settings(
    settings: Settings, *, python: str, tool_use_id: str, decision: str, allowed: list[str]
) -> str:
    """Claude Code settings (JSON) whose command hook applies a stored decision."""
    import shlex

    ask = sorted(t for t in EDIT_TOOLS | COMMAND_TOOLS if needs_asking(settings, t, allowed))
    spec = {
        "tool_use_id": tool_use_id,
        "decision": "allow" if decision != DENY else "deny",
        "reason": DENIED,
        "ask": ask,
        "ask_mcp": settings.work_permission_mode != "none",
    }
    command = " ".join(shlex.quote(part) for part in (python, "-c", _HOOK_SCRIPT, json.dumps(spec)))
    hook = {"matcher": "*", "hooks": [{"type": "command", "command": command}]}
    return json.dumps({"hooks": {"PreToolUse": [hook]}})
