"""`parley hook claude-code`: Claude Code's command hook, for Claude Code running outside
Parley (a person's own terminal, CI). Claude Code starts it before every tool call, so a call
a rule allows must cost little more than starting Python: it imports the standard library
alone (no pydantic, no httpx, nothing of the server) and reads its three variables itself
(`hook_environment`; `config.Settings` declares the same names and defaults, and a test holds
them equal). It always answers:

- `PreToolUse`: the call goes to `POST /api/{user}/permission-requests`; the person's rules
  decide at once, or the hook long-polls the question until the person does, re-attaching
  after a restart of Parley (the question is stored; the same `tool_use_id` finds it). It
  prints Claude Code's hook decision. A Parley it cannot reach gets the configured default
  (`PARLEY_HOOK_UNREACHABLE`, `ask`: Claude Code asks in the terminal) within 10 s.
- `Notification`, `Stop`: an inbox message (and so a push) saying the terminal needs the
  person, or what Claude Code said last.

Its key comes from `--key-file` (what `parley connect` writes: a 0600 file, so the key is in
no command line another local user could list) or `PARLEY_TOKEN`.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import signal
import socket
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import quote, urlsplit

CONNECT_S = 3.0  # one attempt to reach Parley
UNREACHABLE_S = 10.0  # at most this long before the default, when Parley cannot be reached
REATTACH_S = 120.0  # once asked: how long to keep trying through a restart of Parley
POLL_S = 25  # each long poll (below any server's PARLEY_LONG_POLL_MAX)
MAX_TEXT = 4000
TAIL_BYTES = 256 * 1024
VERDICTS = ("ask", "deny", "allow")


@dataclass(frozen=True)
class HookEnvironment:
    url: str
    token: str | None
    unreachable: str


def hook_environment(environ: Any = os.environ) -> HookEnvironment:
    """PARLEY_URL, PARLEY_TOKEN and PARLEY_HOOK_UNREACHABLE, with `config.Settings`' defaults."""
    unreachable = environ.get("PARLEY_HOOK_UNREACHABLE", "ask")
    return HookEnvironment(
        url=environ.get("PARLEY_URL", "http://127.0.0.1:8000"),
        token=environ.get("PARLEY_TOKEN") or None,
        unreachable=unreachable if unreachable in VERDICTS else "ask",
    )


class Unreachable(Exception):
    """Parley could not be reached, or refused the hook: the default applies."""


class Refused(Unreachable):
    """Parley answered with a refusal (a bad token, a bad event): trying again won't help."""


class Withdrawn(BaseException):
    """Claude Code ended the hook while it waited (Esc in the terminal, a stopped run)."""


def _withdraw_on_signals() -> None:
    def handler(signum: int, _frame: object) -> None:
        raise Withdrawn(signum)

    for name in ("SIGTERM", "SIGINT", "SIGHUP"):
        signal.signal(getattr(signal, name), handler)


def decision(verdict: str, reason: str) -> dict[str, Any]:
    out = {"hookEventName": "PreToolUse", "permissionDecision": verdict}
    if reason:
        out["permissionDecisionReason"] = reason
    return {"hookSpecificOutput": out}


class Parley:
    """The few calls the hook makes, as the token's person or agent, over one keep-alive
    connection (opened again after Parley went away)."""

    def __init__(self, url: str, token: str, *, user: str | None = None):
        parts = urlsplit(url.rstrip("/"))
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise Refused(f"PARLEY_URL must be Parley's http(s) address, not {url!r}")
        self.scheme, self.netloc, self.prefix = parts.scheme, parts.netloc, parts.path
        self.headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
        self.user = user
        self.connection: http.client.HTTPConnection | None = None

    def _connect(self) -> http.client.HTTPConnection:
        if self.connection is None:
            if self.scheme == "https":
                self.connection = http.client.HTTPSConnection(self.netloc, timeout=CONNECT_S)
            else:
                self.connection = http.client.HTTPConnection(self.netloc, timeout=CONNECT_S)
        return self.connection

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()
            self.connection = None

    def call(
        self, method: str, path: str, *, body: Any = None, read_s: float = CONNECT_S
    ) -> dict[str, Any]:
        headers = dict(self.headers)
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        for fresh in (self.connection is None, True):  # a kept-alive one may have been closed
            connection = self._connect()
            try:
                connection.request(method, self.prefix + path, body=data, headers=headers)
                if connection.sock is not None:
                    connection.sock.settimeout(read_s)
                response = connection.getresponse()
                raw = response.read()
                break
            except (OSError, http.client.HTTPException) as exc:
                self.close()
                if fresh:
                    raise Unreachable(f"Parley is unreachable ({type(exc).__name__})") from exc
        if response.getheader("Connection", "").lower() == "close":
            self.close()
        try:
            found = json.loads(raw)
        except ValueError:
            found = None
        if response.status >= 400:
            try:
                message = found["error"]["message"]
            except (KeyError, TypeError):
                message = raw[:200].decode("utf-8", "replace")
            error = Refused if response.status < 500 else Unreachable
            raise error(f"Parley refused ({response.status}): {message}")
        if not isinstance(found, dict):
            raise Unreachable("Parley's answer is not a JSON object")
        return found

    def api(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        """A call under the person's path (`--user`, or whom the token names: asked once)."""
        if self.user is None:
            self.user = str(self.call("GET", "/api/auth/me")["user_id"])
        return self.call(method, f"/api/{quote(self.user, safe='')}{path}", **kwargs)


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
            found = parley.api("POST", "/permission-requests", body=body)
            break
        except Refused:
            raise
        except Unreachable:
            if deadline - time.monotonic() < CONNECT_S + 0.5:  # no time for one more try
                raise
            time.sleep(0.5)
    if found["status"] == "pending":
        _withdraw_on_signals()
    try:
        return _waited(parley, found)
    except Withdrawn:
        # Nobody waits for this call any more: its question closes (one quick try).
        parley.close()
        with contextlib.suppress(Unreachable):
            parley.api("DELETE", f"/permission-requests/{int(found['id'])}", read_s=2.0)
        raise


def _waited(parley: Parley, found: dict[str, Any]) -> dict[str, Any]:
    lost_at: float | None = None
    while found["status"] == "pending":
        try:
            found = parley.api(
                "GET",
                f"/permission-requests/{int(found['id'])}?wait={POLL_S}",
                read_s=POLL_S + 15,
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
    user: str | None = None,
) -> int:
    """One hook event from `stdin`; Claude Code reads the decision from `stdout`. Exit 0
    always: a decision that could not be had is the configured default, never a crash."""
    machine = machine or socket.gethostname()
    try:
        event = json.load(stdin)
    except ValueError:
        print("parley hook: the hook event on stdin is not JSON", file=sys.stderr)
        return 0
    if not isinstance(event, dict):
        return 0
    name = event.get("hook_event_name")
    if not token:
        print("parley hook: no key (--key-file or PARLEY_TOKEN)", file=sys.stderr)
        if name == "PreToolUse":
            json.dump(decision(unreachable, "Parley: no key (--key-file or PARLEY_TOKEN)"), stdout)
            stdout.write("\n")
        return 0
    try:
        parley = Parley(url, token, user=user)
    except Refused as exc:
        print(f"parley hook: {exc}", file=sys.stderr)
        if name == "PreToolUse":
            json.dump(decision(unreachable, f"{exc}; the default is {unreachable}"), stdout)
            stdout.write("\n")
        return 0
    try:
        if name == "PreToolUse":
            try:
                out = pre_tool_use(parley, event, machine=machine)
            except Withdrawn:
                print("parley hook: ended while waiting: question withdrawn", file=sys.stderr)
                return 0
            except Unreachable as exc:
                print(f"parley hook: {exc}", file=sys.stderr)
                out = decision(unreachable, f"{exc}; the default is {unreachable}")
            json.dump(out, stdout)
            stdout.write("\n")
            return 0
        text = notice(event, machine=machine)
        if text is not None:
            try:
                parley.api("POST", "/inbox/messages", body={"text": text})
            except Unreachable as exc:
                print(f"parley hook: {exc}", file=sys.stderr)
        return 0
    finally:
        parley.close()


def read_key(path: Path) -> str | None:
    try:
        return path.read_text().strip() or None
    except OSError as exc:
        print(f"parley hook: cannot read the key file {path}: {exc.strerror}", file=sys.stderr)
        return None


def main(argv: list[str]) -> int:
    """`parley hook claude-code [options]`, parsed here so the command loads nothing else."""
    parser = argparse.ArgumentParser(prog="parley hook claude-code")
    parser.add_argument("--machine", help="this machine's name in Parley (default: hostname)")
    parser.add_argument("--url", help="Parley's address (default: PARLEY_URL)")
    parser.add_argument("--user", help="the person's id (default: asked of Parley)")
    parser.add_argument("--key-file", type=Path, help="the agent key (default: PARLEY_TOKEN)")
    args = parser.parse_args(argv)
    env = hook_environment()
    token = read_key(args.key_file) if args.key_file else env.token
    return run(
        sys.stdin,
        sys.stdout,
        url=args.url or env.url,
        token=token,
        machine=args.machine,
        unreachable=env.unreachable,
        user=args.user,
    )
