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
    folder = cli.user_folder(settings, user_id)
    home = await asyncio.to_thread(
        identity.prepare, settings, folder=folder, user_id=user_id, uid=uid
    )
    channel = await relay.open(user_id=user_id, conversation_id=conversation_id, uid=uid)
    python, _prefix = sandbox.python_runtime()
    layout = sandbox.Layout(
        bwrap=shutil.which(settings.bwrap_path) or settings.bwrap_path,
        workspace=folder,
        cwd=cwd,
        home=home,
        readonly=sandbox.readonly_paths(Path(claude[0])),
        relay_socket=channel.socket,
        forwarder=sandbox.forwarder_file(),
        uid=uid,
    )
    return Jailed(
        argv=sandbox.command(layout, sandbox.forwarded(python, claude)),
        env=cli.environment(settings, tag=tag, token=channel.token),
        channel=channel,
    )
