"""Which tool calls a work session asks the person about, in what words, and how a stored
decision reaches Claude Code (its hooks).

A request is a question like any other (`questions.ask`, answered through
`questions.answer`). It waits in-band (inside Claude Code's own call) for at most the
configured few seconds; past that the tool call is deferred and the question, the exact call
and the session stay in PostgreSQL until the answer comes, however late (see session.py).
"""

from __future__ import annotations

import json
import shlex
from functools import partial
from typing import Any

from parley import audit
from parley.approvals import decide as approvals
from parley.approvals.store import Rule
from parley.auth import Caller
from parley.config import Settings
from parley.db import Database
from parley.messages.store import StoredMessage
from parley.questions import ask as asking
from parley.questions import store as questions
from parley.questions.escalation import Escalation, OnTimeout
from parley.questions.status import QuestionStatus
from parley.questions.words import Decision
from parley.realtime.waits import Waits
from parley.work import sandbox, store
from parley.work.events import describe_tool

# Tools that change files or run things: asked about unless the mode or a rule allows them.
EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
COMMAND_TOOLS = frozenset({"Bash", "WebFetch", "KillShell", "KillBash"})


def needs_asking(settings: Settings, tool: str, allowed: list[str]) -> bool:
    if settings.work_permission_mode == "none" or tool in allowed:
        return False
    if tool.startswith("mcp__") or tool in COMMAND_TOOLS:
        return True
    return tool in EDIT_TOOLS and settings.work_permission_mode == "ask"


async def ruled(
    db: Database, *, user_id: str, tool: str, tool_input: dict[str, Any], cwd: str
) -> Rule | None:
    """The person's approval rule that decides this call, if one does (specs/approvals.md).
    A work session is the agent `claude-code` on no named machine (machine rules are for
    connected agents); `~` in a rule is the sandbox's home. An allow or deny rule's decision
    is put in the audit trail as it is made."""
    rule = await approvals.decide(
        db,
        user_id=user_id,
        agent=store.RUN_AGENT,
        machine=None,
        tool=tool,
        tool_input=tool_input,
        cwd=cwd,
        home=sandbox.HOME,
    )
    if rule is not None and rule.decision != "ask":
        await audit.record(
            db,
            user_id=user_id,
            kind="permission",
            asked=question_text(tool, tool_input),
            tool=tool,
            tool_input=tool_input,
            agent=store.RUN_AGENT,
            decision=rule.decision,
            decided_by="rule",
            rule_id=rule.id,
            rule_pattern=rule.pattern,
            via="rule",
        )
    return rule


def ruled_output(rule: Rule) -> dict[str, Any]:
    """An allow or deny rule's decision, with the rule named for Claude Code (and so for
    the model: a denied call says which rule denied it)."""
    return hook_output(rule.decision, approvals.reason(rule))


def question_text(tool: str, tool_input: dict[str, Any]) -> str:
    if tool == "Bash" and "command" in tool_input:
        return f"Claude wants to run `{tool_input['command']}` — allow?"
    return f"Claude wants to use {describe_tool(tool, tool_input)} — allow?"


async def wait(
    db: Database, waits: Waits, *, user_id: str, question_id: int, seconds: float
) -> Decision | None:
    """The person's decision, waited for the way an agent waits for its answer (woken by
    the question's event from any instance); None if none came within `seconds`."""
    state = await asking.wait_for_answer(
        db,
        waits,
        caller=Caller(user_id, store.RUN_AGENT),
        question_id=question_id,
        wait_s=seconds,
    )
    return asking.decision_of(state)


async def timed_out(db: Database, *, user_id: str, question_id: int) -> None:
    """An in-band wait ran out and its call was denied: the question takes no answer now
    (and the audit trail says the timeout denied it)."""
    await questions.close_recorded(
        db,
        user_id=user_id,
        question_ids=[question_id],
        status=QuestionStatus.timed_out,
        decided_by="timeout_default",
        via="timeout",
        decision="deny",
    )


async def ask(
    db: Database,
    *,
    conversation_id: int,
    user_id: str,
    tool: str,
    tool_input: dict[str, Any],
    tool_use_id: str | None,
    on_timeout: OnTimeout = OnTimeout.deny,
) -> StoredMessage:
    """Ask the person; the UI shows Allow / Deny under the question. Nobody answering
    means no: it is then answered "deny" (or what an ask rule's `on_timeout` says)."""
    permission = {"tool": tool, "input": tool_input, "tool_use_id": tool_use_id}
    return await asking.ask(
        db,
        user_id=user_id,
        conversation_id=conversation_id,
        place=partial(
            questions.open_permission,
            user_id=user_id,
            asked_by=store.RUN_AGENT,
            author=store.AUTHOR,
            meta={"type": "permission", "permission": permission},
        ),
        text=question_text(tool, tool_input)[:4000],
        max_chars=None,
        timeout_s=store.QUESTION_TIMEOUT,
        default_timeout=store.QUESTION_TIMEOUT,
        escalation=Escalation(on_timeout),
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
    settings: Settings, *, python: str, tool_use_id: str, decision: Decision, allowed: list[str]
) -> str:
    """Claude Code settings (JSON) whose command hook applies a stored decision."""
    ask = sorted(t for t in EDIT_TOOLS | COMMAND_TOOLS if needs_asking(settings, t, allowed))
    spec = {
        "tool_use_id": tool_use_id,
        "decision": "allow" if decision != Decision.deny else "deny",
        "reason": DENIED,
        "ask": ask,
        "ask_mcp": settings.work_permission_mode != "none",
    }
    # Isolated (-I): a json.py the session wrote in its workspace is never what it imports.
    parts = (python, "-I", "-c", _HOOK_SCRIPT, json.dumps(spec))
    command = " ".join(shlex.quote(part) for part in parts)
    hook = {"matcher": "*", "hooks": [{"type": "command", "command": command}]}
    return json.dumps({"hooks": {"PreToolUse": [hook]}})
