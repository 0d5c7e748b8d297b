"""Which `claude` runs, whether it can, and the options every session starts it with."""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from parley.config import Settings
from parley.errors import ParleyError

WORKSPACE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


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


def _logged_in(settings: Settings) -> bool:
    if settings.anthropic_api_key or settings.anthropic_auth_token:
        return True
    config = settings.claude_config_dir or Path.home() / ".claude"
    return (config / ".credentials.json").is_file()


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
    if not _logged_in(settings):
        return Availability(
            False,
            "Claude Code has no credentials: set ANTHROPIC_API_KEY or log in with `claude`.",
            cli,
        )
    return Availability(True, None, cli)


def require(settings: Settings) -> Path:
    found = availability(settings)
    if not found.usable or found.cli is None:
        raise WorkUnavailable(found.reason or "Work mode is not available")
    return found.cli


def workspace_dir(settings: Settings, *, user_id: str, name: str | None) -> Path:
    """PARLEY_WORKSPACE_ROOT/<name>, by default a folder per person. Names are plain folder
    names: nothing can point outside the root."""
    chosen = name or re.sub(r"[^A-Za-z0-9._-]", "_", user_id).lstrip(".") or "default"
    if not WORKSPACE_NAME.match(chosen):
        raise ParleyError(
            "A workspace is a folder name: letters, digits, '.', '_' or '-'",
            code="validation_error",
            status=422,
        )
    path = settings.workspaces / chosen
    path.mkdir(parents=True, exist_ok=True)
    return path
