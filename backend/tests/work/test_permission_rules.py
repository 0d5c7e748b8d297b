"""What a work session asks the person about, and the hook that applies a stored answer on
resume, decided without a process or a database."""

from __future__ import annotations

import contextlib
import io
import json
import shlex
import sys
from typing import Any

import pytest

from parley.questions.words import Decision
from parley.work import permissions
from parley.work.permissions import needs_asking, resume_settings
from tests.conftest import settings_for

pytestmark = pytest.mark.unit

ASK = settings_for()
EDITS = settings_for(PARLEY_WORK_PERMISSION_MODE="edits")
NONE = settings_for(PARLEY_WORK_PERMISSION_MODE="none")


@pytest.mark.parametrize(
    ("tool", "ask", "edits", "none"),
    [
        ("Bash", True, True, False),
        ("WebFetch", True, True, False),
        ("Edit", True, False, False),
        ("Write", True, False, False),
        ("NotebookEdit", True, False, False),
        ("mcp__parley__add_task", True, True, False),
        ("Read", False, False, False),
        ("Grep", False, False, False),
    ],
)
def test_who_asks_about_which_tool_in_each_mode(
    tool: str, ask: bool, edits: bool, none: bool
) -> None:
    assert [needs_asking(s, tool, []) for s in (ASK, EDITS, NONE)] == [ask, edits, none]


def test_a_tool_allowed_for_the_session_is_never_asked_about_again() -> None:
    assert needs_asking(ASK, "Bash", ["Edit"])
    assert not needs_asking(ASK, "Bash", ["Bash"])
    assert not needs_asking(ASK, "mcp__x__y", ["mcp__x__y"])


def test_the_question_names_the_command_or_the_file() -> None:
    assert permissions.question_text("Bash", {"command": "rm a"}) == (
        "Claude wants to run `rm a` — allow?"
    )
    assert permissions.question_text("Edit", {"file_path": "src/a.py"}) == (
        "Claude wants to use Edit: src/a.py — allow?"
    )


def test_hook_output_carries_a_reason_only_when_given() -> None:
    assert permissions.hook_output("allow") == {
        "hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}
    }
    denied = permissions.hook_output("deny", permissions.DENIED)["hookSpecificOutput"]
    assert denied["permissionDecisionReason"] == "The person denied this tool call."


def hook_of(settings_json: str) -> tuple[str, dict[str, Any]]:
    """The resume hook's script and its spec, as Claude Code would run them."""
    [matcher] = json.loads(settings_json)["hooks"]["PreToolUse"]
    assert matcher["matcher"] == "*"
    _python, isolated, flag, script, spec = shlex.split(matcher["hooks"][0]["command"])
    # Isolated: a module the session wrote in its workspace is never imported.
    assert (isolated, flag) == ("-I", "-c")
    return script, json.loads(spec)


def run_hook(settings_json: str, event: dict[str, Any]) -> dict[str, Any]:
    """Run the hook's script in this process, fed the event Claude Code would send it."""
    script, spec = hook_of(settings_json)
    out = io.StringIO()
    argv, stdin = sys.argv, sys.stdin
    sys.argv, sys.stdin = ["-c", json.dumps(spec)], io.StringIO(json.dumps(event))
    try:
        with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
            exec(compile(script, "<hook>", "exec"), {})
    finally:
        sys.argv, sys.stdin = argv, stdin
    decided: dict[str, Any] = json.loads(out.getvalue())
    return decided


def decision(hook: dict[str, Any]) -> str | None:
    specific = hook.get("hookSpecificOutput")
    return None if specific is None else str(specific["permissionDecision"])


@pytest.mark.parametrize(
    ("answer", "applied"),
    [(Decision.allow, "allow"), (Decision.allow_session, "allow"), (Decision.deny, "deny")],
)
def test_the_resume_hook_applies_the_stored_answer_to_that_call_only(
    answer: Decision, applied: str
) -> None:
    settings_json = resume_settings(
        ASK, python="python3", tool_use_id="toolu_1", decision=answer, allowed=[]
    )
    hook = run_hook(settings_json, {"tool_name": "Bash", "tool_use_id": "toolu_1"})
    assert decision(hook) == applied
    reason = hook["hookSpecificOutput"].get("permissionDecisionReason")
    assert reason == (permissions.DENIED if applied == "deny" else None)
    # A later call that needs asking is deferred again (the person is asked anew)...
    later = run_hook(settings_json, {"tool_name": "Bash", "tool_use_id": "toolu_2"})
    assert decision(later) == "defer"
    # ...and one that needs no asking gets no opinion from the hook.
    assert run_hook(settings_json, {"tool_name": "Read", "tool_use_id": "toolu_3"}) == {}


def test_the_resume_hook_asks_what_the_mode_and_the_sessions_rules_ask() -> None:
    _, asking = hook_of(
        resume_settings(
            EDITS, python="p", tool_use_id="t", decision=Decision.allow, allowed=["WebFetch"]
        )
    )
    assert "Bash" in asking["ask"] and "WebFetch" not in asking["ask"]
    assert not {"Edit", "Write"} & set(asking["ask"]) and asking["ask_mcp"]
    _, never = hook_of(
        resume_settings(NONE, python="p", tool_use_id="t", decision=Decision.allow, allowed=[])
    )
    assert never["ask"] == [] and never["ask_mcp"] is False
    settings_json = resume_settings(
        ASK, python="p", tool_use_id="t", decision=Decision.allow, allowed=[]
    )
    mcp = run_hook(settings_json, {"tool_name": "mcp__parley__add_task", "tool_use_id": "x"})
    assert decision(mcp) == "defer"
