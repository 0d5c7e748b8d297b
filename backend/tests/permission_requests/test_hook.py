"""`parley hook claude-code` as Claude Code runs it: a process fed a hook event on stdin,
against a real server. PreToolUse blocks until the person answers and prints Claude Code's
decision; with Parley down it prints the default; Notification and Stop reach the inbox."""

from __future__ import annotations

import asyncio
import json
import os
import signal
from pathlib import Path
from typing import Any

import httpx

from parley.db import Database
from tests.conftest import PARLEY, Server, eventually, free_port, spawn_server, token_for
from tests.permission_requests.helpers import questions, write_call
from tests.runs.helpers import Actor


async def hook(
    event: dict[str, Any], *, url: str, token: str | None, **env: str
) -> asyncio.subprocess.Process:
    process = await asyncio.create_subprocess_exec(
        PARLEY,
        "hook",
        "claude-code",
        "--machine",
        "laptop",
        env={
            "PATH": os.environ["PATH"],
            "HOME": os.environ.get("HOME", "/tmp"),
            "PARLEY_URL": url,
            **({"PARLEY_TOKEN": token} if token else {}),
            **env,
        },
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stdin is not None
    process.stdin.write(json.dumps(event).encode())
    process.stdin.close()
    return process


def pre_tool_use(path: str) -> dict[str, Any]:
    call = write_call(path)
    return {
        "hook_event_name": "PreToolUse",
        "session_id": call["session_id"],
        "transcript_path": "/nonexistent",
        "cwd": call["cwd"],
        "permission_mode": "default",
        "tool_name": call["tool_name"],
        "tool_input": call["tool_input"],
        "tool_use_id": call["tool_use_id"],
    }


async def finished(process: asyncio.subprocess.Process, within: float = 60) -> dict[str, Any]:
    out, err = await asyncio.wait_for(process.communicate(), within)
    assert process.returncode == 0, err.decode()
    decided: dict[str, Any] = json.loads(out)["hookSpecificOutput"]
    assert decided["hookEventName"] == "PreToolUse"
    return decided


async def test_the_hook_waits_for_the_person_and_prints_their_decision(
    server: Server, db: Database
) -> None:
    ann, key = Actor(server, "ann"), token_for("ann", agent="laptop-cc")
    event = pre_tool_use("/home/ann/project/a.txt")
    process = await hook(event, url=server.base_url, token=key)

    async def asked() -> bool:
        return len(await questions(db)) == 1

    await eventually(asked, within=30)
    [question] = await questions(db)
    await server.waiting_for(question["message_id"])  # the hook is long-polling it
    assert process.returncode is None  # blocked until the person answers
    assert question["meta"]["permission"]["machine"] == "laptop"
    await ann.ok("POST", f"/questions/{question['message_id']}/answer", 201, json={"text": "yes"})
    decided = await finished(process)
    assert decided["permissionDecision"] == "allow", decided

    # A deny carries the person's words; the same event again re-attaches and asks nothing.
    other = pre_tool_use("/home/ann/project/b.txt")
    process = await hook(other, url=server.base_url, token=key)
    await eventually(lambda: _count(db, 2), within=30)
    second = (await questions(db))[-1]["message_id"]
    await ann.ok(
        "POST", f"/questions/{second}/answer", 201, json={"text": "no: not in b.txt, please"}
    )
    decided = await finished(process)
    assert decided["permissionDecision"] == "deny"
    assert "not in b.txt, please" in decided["permissionDecisionReason"], decided
    again = await finished(await hook(other, url=server.base_url, token=key))
    assert again["permissionDecision"] == "deny" and len(await questions(db)) == 2


async def _count(db: Database, n: int) -> bool:
    return len(await questions(db)) == n


async def test_a_rule_answers_the_hook_without_a_question(server: Server, db: Database) -> None:
    ann = Actor(server, "ann")
    await ann.ok(
        "POST", "/approval-rules", 201, json={"decision": "deny", "pattern": "Write(//etc/**)"}
    )
    process = await hook(
        pre_tool_use("/etc/passwd"), url=server.base_url, token=token_for("ann", agent="cc")
    )
    decided = await finished(process)
    assert decided["permissionDecision"] == "deny"
    assert "Write(//etc/**)" in decided["permissionDecisionReason"]
    assert await questions(db) == []


async def test_with_parley_down_the_hook_prints_the_default(tmp_path: Path) -> None:
    closed = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    event = pre_tool_use("/w/a.txt")
    asked = await finished(await hook(event, url=closed, token="pk_parley_x"), within=20)
    assert asked["permissionDecision"] == "ask", asked  # Claude Code asks in the terminal
    denied = await finished(
        await hook(event, url=closed, token="pk_parley_x", PARLEY_HOOK_UNREACHABLE="deny"),
        within=20,
    )
    assert (
        denied["permissionDecision"] == "deny"
        and "unreachable" in (denied["permissionDecisionReason"])
    )
    no_token = await finished(await hook(event, url=closed, token=None), within=20)
    assert no_token["permissionDecision"] == "ask"


async def test_a_refused_token_gets_the_default_at_once(server: Server, db: Database) -> None:
    process = await hook(pre_tool_use("/w/a"), url=server.base_url, token="pk_parley_forged")
    decided = await finished(process, within=20)
    assert decided["permissionDecision"] == "ask" and "401" in decided["permissionDecisionReason"]
    assert await questions(db) == []


async def test_notification_and_stop_reach_the_inbox(
    server: Server, db: Database, tmp_path: Path
) -> None:
    ann, key = Actor(server, "ann"), token_for("ann", agent="laptop-cc")
    transcript = tmp_path / "t.jsonl"
    lines = [
        {"type": "user", "message": {"role": "user", "content": "write it"}},
        {"type": "assistant", "message": {"content": [{"type": "text", "text": "Wrote a.txt."}]}},
        {"type": "assistant", "message": {"content": [{"type": "tool_use", "name": "Bash"}]}},
    ]
    transcript.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    events = [
        {
            "hook_event_name": "Notification",
            "message": "Claude needs your permission to use Bash",
            "session_id": "s",
            "transcript_path": str(transcript),
            "cwd": "/w",
        },
        {
            "hook_event_name": "Stop",
            "stop_hook_active": False,
            "session_id": "s",
            "transcript_path": str(transcript),
            "cwd": "/w",
        },
        {
            "hook_event_name": "Stop",
            "last_assistant_message": "All done: 3 files changed.",
            "session_id": "s",
            "transcript_path": str(transcript),
            "cwd": "/w",
        },
    ]
    for event in events:
        process = await hook(event, url=server.base_url, token=key)
        out, err = await asyncio.wait_for(process.communicate(), 30)
        assert process.returncode == 0 and out == b"", err.decode()
    inbox = await ann.ok("GET", "/inbox")
    said = await ann.ok("GET", f"/conversations/{inbox['id']}/messages")
    said = said if isinstance(said, list) else said["messages"]
    assert [(m["author"], m["content"]) for m in said] == [
        (
            "laptop-cc",
            "Claude Code on laptop is waiting for you: Claude needs your permission to use Bash",
        ),
        ("laptop-cc", "Claude Code on laptop finished: Wrote a.txt."),
        ("laptop-cc", "Claude Code on laptop finished: All done: 3 files changed."),
    ]


async def test_the_hook_re_attaches_across_a_parley_restart(migrated: str, db: Database) -> None:
    """The question is stored: the hook keeps polling through the restart, and the answer
    given to the new server reaches it; nothing is asked twice."""
    first, base = await spawn_server(migrated)
    process = await hook(pre_tool_use("/w/a.txt"), url=base, token=token_for("ann", agent="cc"))
    await eventually(lambda: _count(db, 1), within=30)
    [question] = await questions(db)
    os.killpg(first.pid, signal.SIGKILL)
    await first.wait()
    _second, again = await spawn_server(migrated, port=int(base.rsplit(":", 1)[1]))
    assert process.returncode is None
    async with httpx.AsyncClient(base_url=again, timeout=30) as rest:
        answered = await rest.post(
            f"/api/ann/questions/{question['message_id']}/answer",
            json={"decision": "allow"},
            headers={"Authorization": f"Bearer {token_for('ann')}"},
        )
    assert answered.status_code == 201, answered.text
    decided = await finished(process, within=120)
    assert decided["permissionDecision"] == "allow"
    assert len(await questions(db)) == 1


async def test_a_hook_claude_code_ends_while_it_waits_withdraws_its_question(
    server: Server, db: Database
) -> None:
    """Esc in Claude Code's terminal ends the waiting hook: its question closes, so the
    person is not asked about a call nothing waits for any more."""
    key = token_for("ann", agent="laptop-cc")
    for signum in (signal.SIGTERM, signal.SIGINT):
        process = await hook(pre_tool_use(f"/w/{signum}.txt"), url=server.base_url, token=key)
        await eventually(lambda: _open(db, 1), within=30)
        [asked] = [q for q in await questions(db) if q["status"] == "open"]
        await server.waiting_for(asked["message_id"])  # the hook is parked on its long poll
        process.send_signal(signum)
        await asyncio.wait_for(process.wait(), 30)
        assert await _open(db, 0)
        closed = [q for q in await questions(db) if q["message_id"] == asked["message_id"]]
        assert closed[0]["status"] == "closed"
    # the trail says the agent took each back
    trail = (await Actor(server, "ann").ok("GET", "/audit"))["events"]
    assert (
        sorted((e["decision"], e["decided_by"], e["decider"]) for e in trail)
        == [("withdrawn", "agent", "laptop-cc")] * 2
    )
    # a decided request stays decided; another agent of hers, or another person, gets 404
    ann, other = Actor(server, "ann", "laptop-cc"), Actor(server, "ann", "ci")
    gone = await ann.ok("DELETE", f"/permission-requests/{asked['message_id']}")
    assert (gone["status"], gone["decision"], gone["decided_by"]) == ("decided", "deny", "closed")
    for actor in (other, Actor(server, "bob")):
        refused = await actor.call("DELETE", f"/permission-requests/{asked['message_id']}")
        assert refused.status_code == 404, refused.text


async def _open(db: Database, n: int) -> bool:
    return len([q for q in await questions(db) if q["status"] == "open"]) == n
