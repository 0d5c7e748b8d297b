"""The bubblewrap sandbox each work session's `claude` (and everything it runs) lives in.

`claude` runs commands for whoever writes in the conversation: without a wall of its own it
could read every other person's workspace, the server's database files and, through
`/proc/<server pid>/environ`, the server's secrets. Here it gets new mount, PID, IPC, UTS,
network and cgroup namespaces; the only things it sees are the system (read-only), the
Python runtime and the CLI (read-only), a private /tmp, its person's own folder and Claude
Code home (read-write), and the model relay's socket. Nothing of the data directory, no other
workspace, no process of the host.

A server running as root starts bwrap as root (it can then bind folders a person's uid could
not reach, /root among them) and drops to the person's own uid before anything of the
session runs (`setpriv`, no capabilities, no_new_privs); otherwise bwrap runs unprivileged
in a user namespace of its own, as the server's user. The argument lists are built here
and nowhere else; `probe` tries the real thing once.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from parley.config import Settings

HOME = "/home/work"
RUN = "/run/parley"
RELAY_SOCKET = f"{RUN}/relay.sock"
FORWARDER = f"{RUN}/forward.py"
PATH = "/usr/local/bin:/usr/bin:/bin"
HOSTNAME = "parley-work"
# The system, read-only, at its own paths.
SYSTEM = ("/usr", "/etc")
# Top-level names that are links into /usr on a merged-/usr system (bound as they are).
_TOP_LEVEL = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
PROBE_SECONDS = 20.0


@dataclass(frozen=True)
class Layout:
    """What one sandbox is made of."""

    bwrap: str
    workspace: Path  # the person's own folder: read-write, at its own path
    cwd: Path  # where the command starts: the workspace or a folder inside it
    home: Path  # the person's Claude Code home: read-write, at HOME
    readonly: tuple[Path, ...] = ()  # the Python runtime, the CLI's folder: at their own paths
    relay_socket: Path | None = None  # the session's model relay: at RELAY_SOCKET
    forwarder: Path | None = None  # forward.py: at FORWARDER
    uid: int | None = None  # the person's own host uid (the server runs as root)


def _under(path: str, roots: list[str]) -> bool:
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)


class _Args:
    """bwrap's options, creating the parents of each mount point as plain 0755 folders (bwrap
    would otherwise copy a host parent's mode: /root's 0700 shuts the person's uid out)."""

    def __init__(self) -> None:
        self.args: list[str] = []
        self.made = {"/"}

    def parents(self, dest: str) -> None:
        for parent in reversed(PurePosixPath(dest).parents):
            name = str(parent)
            if name not in self.made:
                self.args += ["--perms", "0755", "--dir", name]
                self.made.add(name)

    def mount(self, option: str, *sources_and_dest: str) -> None:
        dest = sources_and_dest[-1]
        self.parents(dest)
        self.args += [option, *sources_and_dest]
        self.made.add(dest)


def _top_level() -> list[list[str]]:
    """Links (/bin -> usr/bin) as links, real folders read-only: whatever this host has."""
    found = []
    for name in _TOP_LEVEL:
        path = f"/{name}"
        if os.path.islink(path):
            found.append(["--symlink", os.readlink(path), path])
        elif os.path.isdir(path):
            found.append(["--ro-bind", path, path])
    return found


def command(layout: Layout, inner: list[str]) -> list[str]:
    """The full command line: bwrap, its namespaces and mounts, the drop to the person's uid,
    then `inner`."""
    args = _Args()
    args.args += [
        layout.bwrap,
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-net",
        "--unshare-cgroup-try",
    ]
    if layout.uid is None:
        # Unprivileged: a user namespace of its own, and none further inside it.
        args.args += ["--unshare-user", "--disable-userns"]
    args.args += ["--die-with-parent", "--new-session", "--hostname", HOSTNAME]
    for system in SYSTEM:
        args.mount("--ro-bind", system, system)
    for link in _top_level():
        args.mount(link[0], *link[1:])
    args.mount("--proc", "/proc")
    args.mount("--dev", "/dev")
    for tmp in ("/tmp", "/var/tmp"):
        args.parents(tmp)
        args.args += ["--perms", "1777"]
        args.mount("--tmpfs", tmp)
    covered = list(SYSTEM)
    for path in sorted({str(p) for p in layout.readonly}, key=len):
        if not _under(path, covered):
            args.mount("--ro-bind", path, path)
            covered.append(path)
    if layout.forwarder is not None:
        args.mount("--ro-bind", str(layout.forwarder), FORWARDER)
    if layout.relay_socket is not None:
        args.mount("--bind", str(layout.relay_socket), RELAY_SOCKET)
    args.mount("--bind", str(layout.home), HOME)
    args.mount("--bind", str(layout.workspace), str(layout.workspace))
    # The root's own tmpfs (the folders made for mount points) takes no writes either.
    args.args += ["--remount-ro", "/", "--chdir", str(layout.cwd), "--"]
    if layout.uid is not None:
        args.args += [
            "setpriv",
            f"--reuid={layout.uid}",
            f"--regid={layout.uid}",
            "--clear-groups",
            "--inh-caps=-all",
            "--bounding-set=-all",
            "--no-new-privs",
            "--",
        ]
    return [*args.args, *inner]


def forwarded(python: str, claude: list[str]) -> list[str]:
    """`claude` started behind the in-sandbox forwarder to the model relay (forward.py)."""
    return [python, "-I", "-S", FORWARDER, RELAY_SOCKET, "--", *claude]


def python_runtime() -> tuple[str, Path]:
    """The server's own Python (its executable and its prefix, with the standard library
    and libpython): the forwarder and the resume hook run on it, read-only."""
    base = getattr(sys, "_base_executable", None) or sys.executable
    return os.path.realpath(base), Path(os.path.realpath(sys.base_prefix))


def readonly_paths(cli: Path) -> tuple[Path, ...]:
    """What a session needs beyond the system: the Python runtime and the CLI's folder."""
    executable, prefix = python_runtime()
    paths = [prefix, Path(os.path.realpath(cli)).parent]
    if not Path(executable).is_relative_to(prefix):
        paths.append(Path(executable).parent)
    return tuple(paths)


def forwarder_file() -> Path:
    return Path(__file__).with_name("forward.py")


def runs_as_root() -> bool:
    """Whether sessions get uids of their own (only root can start them as another uid)."""
    return os.geteuid() == 0


# -- probing once ---------------------------------------------------------------------

_probed: dict[tuple[str, int | None], str | None] = {}
_probe_lock = threading.Lock()


def problem(settings: Settings) -> str | None:
    """Why no sandbox can be made here, in words an operator can act on; None when one can.
    The real thing is tried once per server process (blocking: call it off the event loop)."""
    bwrap = shutil.which(settings.bwrap_path)
    if bwrap is None:
        return (
            f"Work sessions run in a bubblewrap sandbox, and {settings.bwrap_path} was not found:"
            " install bubblewrap (apt-get install bubblewrap) or set PARLEY_BWRAP."
        )
    uid = settings.work_uid_min if runs_as_root() else None
    with _probe_lock:
        if (bwrap, uid) not in _probed:
            _probed[(bwrap, uid)] = _probe(bwrap, uid)
        return _probed[(bwrap, uid)]


def _probe(bwrap: str, uid: int | None) -> str | None:
    python, prefix = python_runtime()
    with tempfile.TemporaryDirectory(prefix="parley-probe-") as tmp:
        workspace, home = Path(tmp) / "w", Path(tmp) / "h"
        for folder in (workspace, home):
            folder.mkdir(mode=0o700)
            if uid is not None:
                os.chown(folder, uid, uid)
        layout = Layout(
            bwrap=bwrap, workspace=workspace, cwd=workspace, home=home, readonly=(prefix,), uid=uid
        )
        check = "import os; os.listdir('.'); open('probe', 'w').close()"
        argv = command(layout, [python, "-I", "-S", "-c", check])
        try:
            done = subprocess.run(
                argv,
                cwd="/",
                env={"PATH": PATH},
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=PROBE_SECONDS,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            return _refused(str(exc))
        if done.returncode != 0 or not (workspace / "probe").exists():
            detail = done.stderr.decode(errors="replace").strip().splitlines()
            return _refused(detail[-1] if detail else f"exit code {done.returncode}")
    return None


def _refused(detail: str) -> str:
    return (
        "Work sessions run in a bubblewrap sandbox, which cannot be made here"
        f" ({detail[:300]}): user namespaces or mounts are refused (in a container, see"
        " docker-compose.yml)."
    )
