"""One `claude` command made ready to run in its person's sandbox: their uid and folders, a
relay channel of its own, the bwrap command line and the environment inside."""

from __future__ import annotations

import asyncio
import shutil
from dataclasses import dataclass
from pathlib import Path

from parley.config import Settings
from parley.db import Database
from parley.work import cli, identity, sandbox
from parley.work.relay import Channel, Relay


@dataclass(frozen=True)
class Jailed:
    argv: list[str]
    env: dict[str, str]
    channel: Channel  # closed when the process is gone


async def enter(
    *,
    db: Database,
    settings: Settings,
    relay: Relay,
    user_id: str,
    conversation_id: int,
    cwd: Path,
    claude: list[str],
    tag: str,
) -> Jailed:
    uid = await identity.uid_for(db, settings, user_id=user_id)
    channel = await relay.open(user_id=user_id, conversation_id=conversation_id, uid=uid)
    try:
        argv = await asyncio.to_thread(
            _command,
            settings,
            user_id=user_id,
            uid=uid,
            cwd=cwd,
            claude=claude,
            relay_socket=channel.socket,
        )
    except BaseException:
        await relay.close(channel)
        raise
    env = cli.environment(settings, tag=tag, token=channel.token)
    return Jailed(argv=argv, env=env, channel=channel)


def _command(
    settings: Settings,
    *,
    user_id: str,
    uid: int | None,
    cwd: Path,
    claude: list[str],
    relay_socket: Path,
) -> list[str]:
    """The person's folders made ready, and the full command line. Blocking: walks the
    folders and looks at the host's paths."""
    folder = cli.user_folder(settings, user_id)
    home = identity.prepare(settings, folder=folder, user_id=user_id, uid=uid)
    python, _prefix = sandbox.python_runtime()
    layout = sandbox.Layout(
        bwrap=shutil.which(settings.bwrap_path) or settings.bwrap_path,
        workspace=folder,
        cwd=cwd,
        home=home,
        readonly=sandbox.readonly_paths(Path(claude[0])),
        relay_socket=relay_socket,
        forwarder=sandbox.forwarder_file(),
        uid=uid,
    )
    return sandbox.command(layout, sandbox.forwarded(python, claude))
