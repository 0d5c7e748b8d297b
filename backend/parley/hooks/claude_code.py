"""`parley hook claude-code`: Claude Code's command hook, for Claude Code running outside
Parley (a person's own terminal, CI). Claude Code runs it before every tool call, so it
reaches Parley over HTTP alone (no database, nothing heavy imported) and always answers:

- `PreToolUse`: the call goes to `POST /api/{user}/permission-requests`; the person's rules
  decide at once, or the hook long-polls the question until the person does, re-attaching
  after a restart of Parley (the question is stored; the same `tool_use_id` finds it). It
  prints Claude Code's hook decision. A Parley it cannot reach gets the configured default
  (`PARLEY_HOOK_UNREACHABLE`, `ask`: Claude Code asks in the terminal) within 10 s.
- `Notification`, `Stop`: an inbox message (and so a push) saying the terminal needs the
  person, or what Claude Code said last.
"""

from __future__ import annotations

import json
import logging
import socket
import sys
import time
from pathlib import Path
from typing import Any, TextIO

import httpx

CONNECT_S = 3.0  # one attempt to reach Parley
UNREACHABLE_S = 10.0  # at most this long before the default, when Parley cannot be reached
REATTACH_S = 120.0  # once asked: how long to keep trying through a restart of Parley
POLL_S = 25  # each long poll (below any server's PARLEY_LONG_POLL_MAX)
MAX_TEXT = 4000
TAIL_BYTES = 256 * 1024


class Unreachable(Exception):
    """Parley could not be reached, or refused the hook: the default applies."""


class Refused(Unreachable):
    """Parley answered with a refusal (a bad token, a bad event): trying again won't help."""


def decision(verdict: str, reason: str) -> dict[str, Any]:
    out = {"hookEventName": "PreToolUse", "permissionDecision": verdict}
    if reason:
        out["permissionDecisionReason"] = reason
    return {"hookSpecificOutput": out}


class Parley:
    """The few calls the hook makes, as the token's person or agent."""

    def __init__(self, url: str, token: str, *, transport: httpx.BaseTransport | None = None):
        self.client = httpx.Client(
            base_url=url.rstrip("/"),
            headers={"Authorization": f"Bearer {token}"},
            timeout=httpx.Timeout(CONNECT_S, read=POLL_S + 15),
            transport=transport,
        )
        self.user: str | None = None

    def call(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        try:
            response = self.client.request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            raise Unreachable(f"Parley is unreachable ({type(exc).__name__})") from exc
        if response.status_code >= 400:
            try:
                message = response.json()["error"]["message"]
            except (ValueError, KeyError, TypeError):
                message = response.text[:200]
            error = Refused if response.status_code < 500 else Unreachable
            raise error(f"Parley refused ({response.status_code}): {message}")
        found: dict[str, Any] = response.json()
        return found

    def api(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        """A call under the person's path (whose user the token names: asked once)."""
        if self.user is None:
            self.user = str(self.call("GET", "/api/auth/me")["user_id"])
        return self.call(method, f"/api/{self.user}{path}", **kwargs)


def pre_tool_use(parley: Parley, event: dict[str, Any], *, machine: str) -> dict[str, Any]:
    """The decision for one tool call: the person's (or a rule's), once it is made."""
    body = {
        "tool_name": event.get("tool_name") or "",
        "tool_input": event.get("tool_input") or {},
        "tool_use_id": event.get("tool_use_id") or "",
        "cwd": event.get("cwd") or "",
        "session_id": event.get("session_id") or "",
        "machine": machine,
        "home": str(Path.home()),
    }
    deadline = time.monotonic() + UNREACHABLE_S
    while True:  # until the request is stored: only Parley's being away is retried
        try:
            found = parley.api("POST", "/permission-requests", json=body)
            break
        except Refused:
            raise
        except Unreachable:
            if deadline - time.monotonic() < CONNECT_S + 0.5:  # no time for one more try
                raise
            time.sleep(0.5)
    lost_at: float | None = None
    while found["status"] == "pending":
        try:
            found = parley.api(
                "GET", f"/permission-requests/{found['id']}", params={"wait": POLL_S}
            )
            lost_at = None
        except Refused:
            raise
        except Unreachable:  # Parley restarting: the question waits for us
            lost_at = lost_at or time.monotonic()
            if time.monotonic() - lost_at > REATTACH_S:
                raise
            time.sleep(1.0)
    return decision(found["decision"], found["reason"])


def _last_message(event: dict[str, Any]) -> str:
    """What Claude Code said last: the event's, else the transcript's last assistant text."""
    said = event.get("last_assistant_message")
    if isinstance(said, str) and said.strip():
        return said.strip()
    path = event.get("transcript_path")
    if not isinstance(path, str) or not path:
        return ""
    try:
        with open(path, "rb") as transcript:
            transcript.seek(0, 2)
            transcript.seek(max(0, transcript.tell() - TAIL_BYTES))
            lines = transcript.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return ""
    for line in reversed(lines):
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        message = entry.get("message") if isinstance(entry, dict) else None
        if entry.get("type") != "assistant" or not isinstance(message, dict):
            continue
        content = message.get("content")
        if isinstance(content, str):
            text = content.strip()
        elif isinstance(content, list):
            blocks = [b for b in content if isinstance(b, dict) and b.get("type") == "text"]
            text = "\n".join(str(b.get("text") or "") for b in blocks).strip()
        else:
            text = ""
        if text:
            return text
    return ""


def notice(event: dict[str, Any], *, machine: str) -> str | None:
    """The inbox message for a Notification or Stop event (None for any other)."""
    name = event.get("hook_event_name")
    if name == "Notification":
        said = str(event.get("message") or "").strip() or "it needs you"
        text = f"Claude Code on {machine} is waiting for you: {said}"
    elif name == "Stop":
        said = _last_message(event)
        text = f"Claude Code on {machine} finished" + (f": {said}" if said else ".")
    else:
        return None
    return text[:MAX_TEXT]


def run(
    stdin: TextIO,
    stdout: TextIO,
    *,
    url: str,
    token: str | None,
    machine: str | None,
    unreachable: str,
    transport: httpx.BaseTransport | None = None,
) -> int:
    """One hook event from `stdin`; Claude Code reads the decision from `stdout`. Exit 0
    always: a decision that could not be had is the configured default, never a crash."""
    machine = machine or socket.gethostname()
    logging.getLogger("httpx").setLevel(logging.WARNING)  # stderr is for what went wrong
    try:
        event = json.load(stdin)
    except ValueError:
        print("parley hook: the hook event on stdin is not JSON", file=sys.stderr)
        return 0
    if not isinstance(event, dict):
        return 0
    name = event.get("hook_event_name")
    if not token:
        print("parley hook: PARLEY_TOKEN is not set", file=sys.stderr)
        if name == "PreToolUse":
            json.dump(decision(unreachable, "Parley: PARLEY_TOKEN is not set"), stdout)
        return 0
    parley = Parley(url, token, transport=transport)
    try:
        if name == "PreToolUse":
            try:
                out = pre_tool_use(parley, event, machine=machine)
            except Unreachable as exc:
                print(f"parley hook: {exc}", file=sys.stderr)
                out = decision(unreachable, f"{exc}; the default is {unreachable}")
            json.dump(out, stdout)
            stdout.write("\n")
            return 0
        text = notice(event, machine=machine)
        if text is not None:
            try:
                parley.api("POST", "/inbox/messages", json={"text": text})
            except Unreachable as exc:
                print(f"parley hook: {exc}", file=sys.stderr)
        return 0
    finally:
        parley.client.close()
