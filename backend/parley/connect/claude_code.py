"""`parley connect claude-code`: Claude Code on this machine reaches its person through Parley.

It signs in as the person (a device code approved in the web UI, or the person's token in
PARLEY_TOKEN for scripts), makes an agent key named after the machine (`claude-code-<host>`),
and writes into Claude Code's settings:

- Parley as an HTTP MCP server `parley` (`<url>/mcp`, the key as its bearer token) in
  `~/.claude.json`: for every project (`--scope user`) or only the current directory's
  (`project`: Claude Code's "local" scope, `projects[<dir>].mcpServers`);
- hooks (`PreToolUse` for every tool, `Notification`, `Stop`) running `parley hook
  claude-code --url <url> --user <person> --machine <host> --key-file <file>`: in
  `~/.claude/settings.json` (user) or the project's `.claude/settings.local.json` (project).
  CLAUDE_CONFIG_DIR moves the user files, as it does for Claude Code.

The key is written to a file of its own (0600, beside the state below) and named by path,
never put in a project's files (`.mcp.json` and `.claude/settings.json` are committed with the
project) nor in a command line (which any local user can list while the hook waits). What was
written is remembered in `~/.config/parley/connections.json` (the person's own, 0600), so
`parley disconnect claude-code` takes out exactly that, deletes the key file and revokes the key.
"""

from __future__ import annotations

import re
import shlex
import socket
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import urlsplit

import httpx
import platformdirs

from . import files, signin
from .signin import ConnectError

SERVER = "parley"
EVENTS = ("PreToolUse", "Notification", "Stop")
# Claude Code ends a hook that outlasts its timeout: a permission may wait for the person
# (Parley applies the rule's own default when it is time), a notice never waits long.
TIMEOUTS = {"PreToolUse": 24 * 3600, "Notification": 30, "Stop": 30}
LOOPBACK = {"localhost", "127.0.0.1", "::1"}
MACHINE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,39}")


@dataclass(frozen=True)
class Places:
    scope: str
    settings: Path  # hooks
    mcp: Path  # MCP servers: the person's own ~/.claude.json
    follow_links: bool  # the settings file: the person's own home yes, a project's never
    project: str | None = None  # project scope: the servers go in projects[project]

    @property
    def key(self) -> str:
        return self.scope if self.project is None else f"project:{self.project}"


def places(scope: str, *, cwd: Path, config_dir: Path | None) -> Places:
    base = config_dir if config_dir is not None else Path.home() / ".claude"
    mcp = config_dir / ".claude.json" if config_dir is not None else Path.home() / ".claude.json"
    if scope == "project":
        local = cwd / ".claude" / "settings.local.json"
        return Places(scope, local, mcp, False, project=str(cwd))
    return Places(scope, base / "settings.json", mcp, True)


def machine_name(hostname: str | None = None) -> str:
    """The host's name as Parley takes it: its first label, letters, digits, '.', '_', '-'."""
    name = (hostname or socket.gethostname()).split(".")[0].lower()
    name = re.sub(r"[^a-z0-9_-]+", "-", name).strip("-_")[:40]
    return name or "machine"


def checked_url(url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise ConnectError(f"--url must be Parley's http(s) address, not {url!r}")
    if parts.scheme == "http" and parts.hostname not in LOOPBACK:
        raise ConnectError("--url must be https (a key is sent to it), unless it is loopback")
    if parts.query or parts.fragment or parts.username or parts.password:
        raise ConnectError("--url takes no query, fragment or user info")
    return url.rstrip("/")


def parley_command() -> list[str]:
    """This very program, by an absolute path: Claude Code runs hooks from any directory,
    with whatever PATH it has."""
    program = Path(sys.argv[0]).resolve()
    if program.name == "parley" and program.is_file():
        return [str(program)]
    # Not resolved: a virtual environment's python is a link to the base interpreter, which
    # does not see the environment's packages.
    return [str(Path(sys.executable).absolute()), "-m", "parley.cli"]


def hook_command(
    *, url: str, user: str, machine: str, key_file: Path, program: list[str] | None = None
) -> str:
    words = [*(program or parley_command()), "hook", "claude-code", "--url", url, "--user", user]
    words += ["--machine", machine, "--key-file", str(key_file)]
    return " ".join(shlex.quote(word) for word in words)


def hook_groups(command: str) -> dict[str, dict[str, Any]]:
    groups: dict[str, dict[str, Any]] = {}
    for event in EVENTS:
        group: dict[str, Any] = {
            "hooks": [{"type": "command", "command": command, "timeout": TIMEOUTS[event]}]
        }
        if event == "PreToolUse":
            group = {"matcher": "*", **group}
        groups[event] = group
    return groups


def mcp_server(url: str, secret: str) -> dict[str, Any]:
    return {"type": "http", "url": f"{url}/mcp", "headers": {"Authorization": f"Bearer {secret}"}}


# --- merging in, and taking out exactly what was merged ---


def add_hooks(data: dict[str, Any], groups: dict[str, dict[str, Any]]) -> None:
    hooks = data.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise ConnectError("The settings' `hooks` is not a JSON object: fix it first")
    for event, group in groups.items():
        listed = hooks.setdefault(event, [])
        if not isinstance(listed, list):
            raise ConnectError(f"The settings' hooks.{event} is not a list: fix it first")
        listed.append(group)


def remove_hooks(data: dict[str, Any], groups: dict[str, dict[str, Any]], had: bool) -> None:
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        return
    for event, group in groups.items():
        listed = hooks.get(event)
        if isinstance(listed, list) and group in listed:
            listed.remove(group)
            if not listed:
                del hooks[event]
    if not hooks and not had:
        del data["hooks"]


def _holder(data: dict[str, Any], project: str | None) -> dict[str, Any]:
    """Where `mcpServers` lives: the file's top, or one project's entry in it."""
    if project is None:
        return data
    projects = data.setdefault("projects", {})
    if not isinstance(projects, dict) or not isinstance(projects.setdefault(project, {}), dict):
        raise ConnectError("The `projects` of ~/.claude.json is not a JSON object: fix it first")
    holder: dict[str, Any] = projects[project]
    return holder


def add_server(data: dict[str, Any], server: dict[str, Any]) -> Any:
    """Puts Parley's server in; returns what was named `parley` before (None: nothing)."""
    servers = data.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise ConnectError("`mcpServers` is not a JSON object: fix it first")
    previous = servers.get(SERVER)
    servers[SERVER] = server
    return previous


def remove_server(data: dict[str, Any], server: dict[str, Any], previous: Any, had: bool) -> None:
    servers = data.get("mcpServers")
    if not isinstance(servers, dict) or servers.get(SERVER) != server:
        return  # changed since: not Parley's to take out
    if previous is None:
        del servers[SERVER]
    else:
        servers[SERVER] = previous
    if not servers and not had:
        del data["mcpServers"]


# --- the state file, and the keys' files beside it ---


def state_path() -> Path:
    return platformdirs.user_config_path("parley") / "connections.json"


def key_path(key_id: object) -> Path:
    return platformdirs.user_config_path("parley") / "keys" / f"claude-code-{key_id}.key"


def load_state() -> dict[str, Any]:
    loaded = files.load(state_path(), follow_links=True)
    return loaded.data


def save_state(state: dict[str, Any]) -> None:
    files.write_json(state_path(), state)


# --- the commands ---


def connect(
    *,
    url: str,
    scope: str,
    token: str | None,
    machine: str,
    cwd: Path,
    config_dir: Path | None,
    out: TextIO,
) -> None:
    url = checked_url(url)
    if not MACHINE.fullmatch(machine):
        raise ConnectError("--machine must be 1-40 letters, digits, '.', '_' or '-'")
    where = places(scope, cwd=cwd, config_dir=config_dir)
    state = load_state()
    agent = f"claude-code-{machine}"[:64]
    try:
        with httpx.Client(base_url=url, timeout=signin.TIMEOUT) as http:
            if where.key in state.get("claude-code", {}):
                print("Already connected here: replacing that connection.", file=out)
                _disconnect(where=where, state=state, out=out)
            # Both files are read (and must be JSON objects) before anything is made.
            settings = files.load(where.settings, follow_links=where.follow_links)
            mcp = files.load(where.mcp, follow_links=True)  # the person's own file
            if token is None:
                token = signin.device_sign_in(http, machine=machine, out=out)
            person = signin.who(http, token)
            key = signin.create_key(http, person, agent=agent)
    except httpx.HTTPError as exc:
        raise ConnectError(f"Cannot reach Parley at {url} ({exc}): nothing was made") from exc
    secret = str(key["secret"])
    key_file = key_path(int(key["id"]))
    command = hook_command(url=url, user=person.user_id, machine=machine, key_file=key_file)
    groups = hook_groups(command)
    server = mcp_server(url, secret)
    had_project = where.project in (mcp.data.get("projects") or {})
    holder = _holder(mcp.data, where.project)
    had_hooks, had_servers = "hooks" in settings.data, "mcpServers" in holder
    add_hooks(settings.data, groups)
    previous = add_server(holder, server)
    record = {
        "url": url,
        "user_id": person.user_id,
        "agent": agent,
        "machine": machine,
        "key_id": key["id"],
        "key": secret,
        "key_file": str(key_file),
        "settings": {"path": str(where.settings), "hooks": groups, "had_hooks": had_hooks},
        "mcp": {
            "path": str(where.mcp),
            "project": where.project,
            "had_project": had_project,
            "server": server,
            "previous": previous,
            "had_servers": had_servers,
        },
        "before": {
            str(where.settings): files.snapshot(settings),
            str(where.mcp): files.snapshot(mcp),
        },
    }
    # Remembered first: a failure while writing the settings can still be disconnected.
    state.setdefault("claude-code", {})[where.key] = record
    save_state(state)
    files.write_bytes(key_file, secret.encode() + b"\n")
    files.write_json(where.settings, settings.data)
    files.write_json(where.mcp, mcp.data)
    print(f"✓ Signed in to {url} as {person.user_id}", file=out)
    print(f"✓ Agent key {key['prefix']}… for {agent}", file=out)
    print(f"✓ Claude Code's MCP server `{SERVER}` in {where.mcp}", file=out)
    print(f"✓ Hooks {', '.join(EVENTS)} in {where.settings}", file=out)
    print(f"✓ The key in {key_file} (yours alone to read)", file=out)


def _disconnect(*, where: Places, state: dict[str, Any], out: TextIO) -> bool:
    """Takes this connection's entries out, forgets it, and revokes its key at the server it
    was made at (the key gives itself up: no sign-in). False if revoking failed."""
    record = state["claude-code"].pop(where.key)
    settings_path = Path(record["settings"]["path"])
    mcp_path = Path(record["mcp"]["path"])
    settings = files.load(settings_path, follow_links=where.follow_links)
    mcp = files.load(mcp_path, follow_links=True)
    remove_hooks(settings.data, record["settings"]["hooks"], record["settings"]["had_hooks"])
    project = record["mcp"].get("project")
    projects = mcp.data.get("projects")
    if project is None or (isinstance(projects, dict) and isinstance(projects.get(project), dict)):
        holder = _holder(mcp.data, project)
        remove_server(
            holder, record["mcp"]["server"], record["mcp"]["previous"], record["mcp"]["had_servers"]
        )
        if project is not None and not holder and not record["mcp"].get("had_project"):
            del mcp.data["projects"][project]
            if not mcp.data["projects"]:
                del mcp.data["projects"]
    files.restore(settings_path, settings.data, record["before"][str(settings_path)])
    files.restore(mcp_path, mcp.data, record["before"][str(mcp_path)])
    if not state["claude-code"]:
        del state["claude-code"]
    save_state(state)
    if record.get("key_file"):
        Path(record["key_file"]).unlink(missing_ok=True)
    print(f"✓ Parley's MCP server and hooks taken out of {mcp_path} and {settings_path}", file=out)
    try:
        with httpx.Client(base_url=record["url"], timeout=signin.TIMEOUT) as client:
            signin.revoke_key(client, record["key"])
    except (httpx.HTTPError, ConnectError) as exc:
        print(
            f"! Could not revoke the agent key {record['agent']} at {record['url']} ({exc}):"
            " revoke it in the web UI (Account → Agent keys)",
            file=out,
        )
        return False
    print(f"✓ Agent key for {record['agent']} revoked", file=out)
    return True


def disconnect(*, scope: str, cwd: Path, config_dir: Path | None, out: TextIO) -> bool:
    where = places(scope, cwd=cwd, config_dir=config_dir)
    state = load_state()
    if where.key not in state.get("claude-code", {}):
        raise ConnectError(f"Claude Code is not connected here ({scope} scope): nothing to do")
    return _disconnect(where=where, state=state, out=out)
