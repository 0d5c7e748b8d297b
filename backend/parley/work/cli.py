"""Which `claude` runs, whether it can, and the options every session starts it with."""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from claude_agent_sdk import __version__ as sdk_version

from parley.auth import USER_ID_RE
from parley.config import Settings, claude_environment
from parley.errors import ParleyError
from parley.work import ownership, sandbox
from parley.work.proctree import TAG

WORKSPACE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
MODES = {"ask": "default", "edits": "acceptEdits", "none": "bypassPermissions"}


class WorkUnavailable(ParleyError):
    """Work mode is off, or cannot run here: a setting, not a passing outage, so a 4xx that
    no client retries (a 503 says "try again")."""

    status = 409
    code = "work_unavailable"


class TooManySessions(ParleyError):
    status = 429
    code = "too_many_work_sessions"


def bundled_cli() -> Path | None:
    try:
        import claude_agent_sdk
    except ImportError:  # pragma: no cover - it is a dependency
        return None
    path = Path(claude_agent_sdk.__file__).parent / "_bundled" / "claude"
    return path if path.is_file() else None


def find_cli(settings: Settings) -> Path | None:
    if settings.claude_path:
        path = Path(settings.claude_path)
        if path.is_file():
            return path
        found = shutil.which(settings.claude_path)
        return Path(found) if found else None
    bundled = bundled_cli()
    if bundled is not None:
        return bundled
    found = shutil.which("claude")
    return Path(found) if found else None


def _relay_has_credentials(settings: Settings) -> bool:
    return bool(settings.anthropic_api_key or settings.anthropic_auth_token)


@dataclass(frozen=True)
class Availability:
    usable: bool
    reason: str | None
    cli: Path | None


def availability(settings: Settings) -> Availability:
    """Why work mode cannot run here, in words a person can act on; checked without
    starting anything (a process that exits at once is caught when a session starts)."""
    if not settings.work_enabled:
        return Availability(
            False, "Work mode is off on this server (set PARLEY_WORK_ENABLED=1 to enable it).", None
        )
    cli = find_cli(settings)
    if cli is None:
        where = settings.claude_path or "claude"
        return Availability(
            False,
            f"Claude Code was not found ({where}): install it or set PARLEY_CLAUDE_PATH.",
            None,
        )
    if not _relay_has_credentials(settings):
        return Availability(
            False,
            "Claude Code has no credentials: sessions reach the model through Parley's relay,"
            " which needs ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN.",
            cli,
        )
    problem = isolation_problem(settings)
    if problem is not None:
        return Availability(False, problem, cli)
    return Availability(True, None, cli)


def isolation_problem(settings: Settings) -> str | None:
    """What would keep a session from being isolated here, if anything: each `claude` runs
    in a bubblewrap sandbox (tried once, see `sandbox.problem`), led by a process in a group
    of its own that the server can kill and verify (POSIX, readable process start times), in
    a folder of its person's under a workspace root that holds nothing of the server's own
    (its data directory, with the database and every person's Claude Code home, is not
    inside). Blocking: looks at files, and may start the probe."""
    if os.name != "posix" or not hasattr(os, "killpg"):
        return "Work sessions need POSIX process groups, which this system does not have."
    if ownership.started_at(os.getpid()) is None:
        return "Work sessions need to read process start times (/proc), which is not possible here."
    root = settings.workspaces
    if root.exists() and not root.is_dir():
        return f"The workspace root {root} is not a folder: set PARLEY_WORKSPACE_ROOT to one."
    data = settings.data_dir.resolve()
    if data == root or data.is_relative_to(root):
        return (
            f"The workspace root {root} contains the server's data directory: set"
            " PARLEY_WORKSPACE_ROOT to a folder of its own."
        )
    return sandbox.problem(settings)


def require(settings: Settings) -> Path:
    found = availability(settings)
    if not found.usable or found.cli is None:
        raise WorkUnavailable(found.reason or "Work mode is not available")
    return found.cli


def user_folder(settings: Settings, user_id: str) -> Path:
    """The person's own folder under the workspace root: every workspace of theirs is in it."""
    if not USER_ID_RE.fullmatch(user_id):
        raise ParleyError("Not a user id", code="validation_error", status=422)
    return settings.workspaces / user_id


def workspace_dir(settings: Settings, *, user_id: str, name: str | None) -> Path:
    """The folder a session runs in: the person's own folder (no name), or a folder `name`
    directly inside it. The server names it; a name is one plain folder name, and the
    folder must really be inside the person's folder (a symlink planted there to leave it
    is refused). Blocking (touches the disk)."""
    home = user_folder(settings, user_id)
    if name and not WORKSPACE_NAME.match(name):
        raise ParleyError(
            "A workspace is a folder name inside your own folder: letters, digits, '.', '_'"
            " or '-', not starting with '.'",
            code="validation_error",
            status=422,
            details=[{"field": "workspace"}],
        )
    home.mkdir(parents=True, exist_ok=True)
    path = home / name if name else home
    if name and not path.is_symlink():
        path.mkdir(exist_ok=True)
    real_home = home.resolve()
    if (
        home.is_symlink()
        or real_home != settings.workspaces / user_id
        or not _inside(path, real_home)
    ):
        raise ParleyError(
            "This workspace leads outside your own folder", code="validation_error", status=422
        )
    return path


def _inside(path: Path, folder: Path) -> bool:
    real = path.resolve()
    return real == folder or real.is_relative_to(folder)


def stored_name(stored: str | None, *, user_id: str) -> str | None:
    """The workspace name a session row keeps ("<user id>" or "<user id>/<name>"), as
    `workspace_dir` takes it; anything else (an older row naming another folder) falls back
    to the person's own folder."""
    if stored and stored.startswith(user_id + "/"):
        return stored[len(user_id) + 1 :]
    return None


def display_name(settings: Settings, path: Path) -> str:
    """How a session row keeps its workspace: its path under the root."""
    return str(path.relative_to(settings.workspaces))


def command(settings: Settings, cli: Path, *, resume: str | None) -> list[str]:
    """The command line of a live session, as the SDK's own transport would build it for
    Parley's options (stream-json both ways, permission prompts over the control channel)."""
    argv = [str(cli), "--output-format", "stream-json", "--verbose", "--system-prompt", ""]
    if settings.work_permission_mode != "none":
        argv += ["--permission-prompt-tool", "stdio"]
    argv += ["--permission-mode", MODES[settings.work_permission_mode]]
    if resume:
        argv.append(f"--resume={resume}")
    return [*argv, "--include-partial-messages", "--input-format", "stream-json"]


def resume_command(
    settings: Settings, cli: Path, *, session_id: str, settings_json: str
) -> list[str]:
    """Resuming a session once to run (or skip) a deferred tool call: Claude Code runs the
    kept call as it resumes, with no prompt, and the hook in `settings_json` answers it."""
    return [
        str(cli),
        "--output-format",
        "stream-json",
        "--verbose",
        f"--resume={session_id}",
        "--include-partial-messages",
        "--permission-mode",
        MODES[settings.work_permission_mode],
        "--settings",
        settings_json,
        "--input-format",
        "stream-json",
    ]


def environment(settings: Settings, *, tag: str, token: str) -> dict[str, str]:
    """Everything the process starts with inside its sandbox: the allowlisted part of the
    server's environment, the sandbox's own paths, the relay token as its API key (the
    forwarder adds ANTHROPIC_BASE_URL), what the SDK's own transport adds, and the session's
    tag (how a command that left the process group is still found when the session ends)."""
    env = claude_environment()
    env |= {
        "PATH": sandbox.PATH,
        "HOME": sandbox.HOME,
        "USER": "work",
        "LOGNAME": "work",
        "SHELL": "/bin/bash",
        "TMPDIR": "/tmp",
        "CLAUDE_CONFIG_DIR": f"{sandbox.HOME}/.claude",
        "ANTHROPIC_API_KEY": token,
        # No network but the relay: nothing to wait for on the way.
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        # It is one (and Claude Code's bypass mode asks for it where the uid is root).
        "IS_SANDBOX": "1",
        "CLAUDE_CODE_ENTRYPOINT": "sdk-py",
        "CLAUDE_AGENT_SDK_VERSION": sdk_version,
        "CLAUDE_CODE_SDK_READS_SESSION_STATE": "1",
        TAG: tag,
    }
    return env
