"""Claude Code's JSON settings files, changed in place: what Parley adds is merged in beside
everything else (no other key or hook is touched), and later taken out again exactly. A file
that was not changed otherwise in between gets its very bytes back.

Files are written whole to a temporary file beside them and renamed over them (a crash leaves
the old file or the new one, never half), readable by their owner only (they hold a key).
A project's files come from a repository someone else may have written: there a symbolic link
is refused rather than followed (a `.mcp.json` pointing at another file would have the key
written there)."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .signin import ConnectError


@dataclass
class Loaded:
    path: Path
    data: dict[str, Any]
    raw: bytes | None  # None: there was no file
    mode: int | None


def load(path: Path, *, follow_links: bool) -> Loaded:
    if not follow_links:
        for part in (path, path.parent):
            if part.is_symlink():
                raise ConnectError(f"{part} is a symbolic link: refusing to write through it")
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return Loaded(path, {}, None, None)
    except OSError as exc:
        raise ConnectError(f"Cannot read {path}: {exc}") from exc
    try:
        data = json.loads(raw) if raw.strip() else {}
    except ValueError as exc:
        raise ConnectError(
            f"{path} is not JSON ({exc}): fix it first; nothing was changed"
        ) from exc
    if not isinstance(data, dict):
        raise ConnectError(f"{path} is not a JSON object: fix it first; nothing was changed")
    return Loaded(path, data, raw, path.stat().st_mode & 0o7777)


def write_bytes(path: Path, raw: bytes, *, mode: int = 0o600) -> None:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(raw)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


def write_json(path: Path, data: dict[str, Any]) -> None:
    write_bytes(path, (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode())


def snapshot(loaded: Loaded) -> dict[str, Any]:
    """What a file was before Parley changed it, for the state file."""
    return {
        "raw": None if loaded.raw is None else base64.b64encode(loaded.raw).decode(),
        "mode": loaded.mode,
    }


def restore(path: Path, data: dict[str, Any], before: dict[str, Any]) -> None:
    """Writes `data` (the file with Parley's entries taken out): the original bytes when it
    reads the same as before, no file when there was none and nothing else is left."""
    raw = None if before.get("raw") is None else base64.b64decode(before["raw"])
    if raw is None:
        if data:
            write_json(path, data)
        else:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
        return
    try:
        original = json.loads(raw) if raw.strip() else {}
    except ValueError:
        original = None
    if original == data:
        write_bytes(path, raw, mode=before.get("mode") or 0o600)
    else:
        write_json(path, data)
