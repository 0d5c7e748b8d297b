"""Who a person's sandbox runs as, and the folders that person owns.

On a server running as root each person gets a host uid of their own (and the group of the
same number), allocated once in `work_uids` from PARLEY_WORK_UID_MIN..MAX and never reused:
two people's sessions then differ in uid as well as in namespaces, so even a way out of one
sandbox finds the other's folders (0700, someone else's) closed. Their workspace folder and
Claude Code home are made theirs before each start. Not root: there is one uid, the
server's, and the namespaces alone keep people apart.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from parley.config import Settings
from parley.db import Database
from parley.errors import ParleyError
from parley.work import sandbox, store_hosts


class NoUidLeft(ParleyError):
    status = 409
    code = "work_unavailable"


async def uid_for(db: Database, settings: Settings, *, user_id: str) -> int | None:
    """The person's own host uid (allocated on first use), or None when the server cannot
    start processes as another uid (it does not run as root)."""
    if not sandbox.runs_as_root():
        return None
    async with db.connection() as conn:
        uid = await store_hosts.uid(conn, user_id=user_id)
    if uid is not None:
        return uid
    async with db.transaction() as conn:
        # One allocation at a time across instances: the next free uid is then free.
        await store_hosts.lock_uids(conn)
        uid = await store_hosts.uid(conn, user_id=user_id)
        if uid is None:
            uid = await store_hosts.next_uid(
                conn, first=settings.work_uid_min, last=settings.work_uid_max
            )
            if uid > settings.work_uid_max:
                raise NoUidLeft(
                    "Every uid of PARLEY_WORK_UID_MIN..PARLEY_WORK_UID_MAX is taken: widen the"
                    " range to let more people start work sessions"
                )
            await store_hosts.keep_uid(conn, user_id=user_id, uid=uid)
    return uid


def prepare(settings: Settings, *, folder: Path, user_id: str, uid: int | None) -> Path:
    """Make the person's workspace folder and Claude Code home exist, be theirs (uid) and be
    closed to everyone else (0700); returns the home. Blocking: walks both folders."""
    homes = settings.work_homes
    homes.mkdir(mode=0o700, parents=True, exist_ok=True)
    home = homes / user_id
    home.mkdir(mode=0o700, exist_ok=True)
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    for path in (folder, home):
        if path.is_symlink() or not path.is_dir():
            raise ParleyError(f"{path} is not a folder of its own", code="work_unavailable")
        if uid is not None:
            own(path, uid)
        os.chmod(path, 0o700, follow_symlinks=False)
    return home


def own(top: Path, uid: int) -> None:
    """Give everything in `top` to `uid` without following any link: a link is changed
    itself (never what it names), a folder swapped for a link mid-walk is not entered
    (`os.fwalk`), and a file with other names (a hard link) is left alone."""
    _own_entry(str(top), None, uid)
    for _root, dirs, files, fd in os.fwalk(top, follow_symlinks=False):
        for name in (*dirs, *files):
            _own_entry(name, fd, uid)


def _own_entry(name: str, dir_fd: int | None, uid: int) -> None:
    try:
        found = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:  # removed meanwhile
        return
    if found.st_uid == uid and found.st_gid == uid:
        return
    if stat.S_ISREG(found.st_mode) and found.st_nlink > 1:
        return
    os.chown(name, uid, uid, dir_fd=dir_fd, follow_symlinks=False)
