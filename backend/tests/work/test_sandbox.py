"""The sandbox's command line (what a session's `claude` can see and be), the per-person
folders made theirs without following links, and work mode refused where no sandbox can be
made. (The attacks themselves: tests/security/test_work_sandbox.py.)"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

from parley.work import identity, sandbox
from parley.work.sandbox import Layout
from tests.conftest import settings_for

ROOT = Path("/srv/parley/workspaces")


def layout(**changes: Any) -> Layout:
    values: dict[str, Any] = {
        "bwrap": "/usr/bin/bwrap",
        "workspace": ROOT / "mallory",
        "cwd": ROOT / "mallory" / "site",
        "home": Path("/var/lib/parley/work-homes/mallory"),
        "readonly": (Path("/root/.pyenv/versions/3.11.7"), Path("/usr/lib/python3.11")),
        "relay_socket": Path("/tmp/parley-relay-1-x/7.sock"),
        "forwarder": Path("/opt/parley/work/forward.py"),
        "uid": 1_000_004,
    }
    return Layout(**(values | changes))


def options(argv: list[str]) -> list[str]:
    """bwrap's own options: everything before the `--` that starts the sandboxed command."""
    return argv[: argv.index("--")]


def binds(argv: list[str]) -> dict[str, list[tuple[str, str]]]:
    """Each kind of bind, as (host path, sandbox path) pairs."""
    found: dict[str, list[tuple[str, str]]] = {}
    args = options(argv)
    for i, arg in enumerate(args):
        if arg in ("--bind", "--ro-bind", "--dev-bind", "--bind-try", "--ro-bind-try"):
            found.setdefault(arg, []).append((args[i + 1], args[i + 2]))
    return found


@pytest.mark.unit
def test_the_sandbox_has_namespaces_of_its_own_and_dies_with_the_server() -> None:
    args = options(sandbox.command(layout(), ["claude"]))
    for flag in ("--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-net"):
        assert flag in args
    assert "--die-with-parent" in args and "--new-session" in args
    assert args[args.index("--proc") + 1] == "/proc"  # its own /proc: no server process in it
    assert args[args.index("--hostname") + 1] == "parley-work"
    # Nothing shares the host's network or is shared back.
    assert "--share-net" not in args and "--unshare-all" not in args


@pytest.mark.unit
def test_the_only_writable_places_are_the_persons_folder_home_tmp_and_relay_socket() -> None:
    argv = sandbox.command(layout(), ["claude"])
    found = binds(argv)
    assert sorted(found["--bind"]) == sorted(
        [
            (str(ROOT / "mallory"), str(ROOT / "mallory")),
            ("/var/lib/parley/work-homes/mallory", sandbox.HOME),
            ("/tmp/parley-relay-1-x/7.sock", sandbox.RELAY_SOCKET),
        ]
    )
    assert "--dev-bind" not in found and "--bind-try" not in found
    # The system, the Python runtime, the forwarder: read-only.
    readonly = dict(found["--ro-bind"])
    assert readonly["/usr"] == "/usr" and readonly["/etc"] == "/etc"
    assert readonly["/root/.pyenv/versions/3.11.7"] == "/root/.pyenv/versions/3.11.7"
    assert readonly["/opt/parley/work/forward.py"] == sandbox.FORWARDER
    assert "/usr/lib/python3.11" not in readonly  # under /usr already
    args = options(argv)
    tmpfs = [i for i, arg in enumerate(args) if arg == "--tmpfs"]
    assert [args[i + 1] for i in tmpfs] == ["/tmp", "/var/tmp"]
    assert all(args[i - 2 : i] == ["--perms", "1777"] for i in tmpfs)  # anyone's, sticky
    # The root's own tmpfs is read-only once every mount point is made.
    assert args[args.index("--remount-ro") + 1] == "/"
    assert args.index("--remount-ro") > max(i for i, a in enumerate(args) if a.endswith("bind"))
    assert args[args.index("--chdir") + 1] == str(ROOT / "mallory" / "site")


@pytest.mark.unit
def test_no_other_persons_folder_nor_the_data_directory_is_in_the_sandbox() -> None:
    argv = sandbox.command(layout(), ["claude"])
    sources = [src for pairs in binds(argv).values() for src, _ in pairs]
    assert str(ROOT) not in sources  # the root would show everyone's folders
    assert not [s for s in sources if s.startswith(str(ROOT)) and s != str(ROOT / "mallory")]
    assert "/var/lib/parley" not in sources and "/var/lib/parley/work-homes" not in sources
    assert not [s for s in sources if s == "/" or s == "/proc" or s.startswith("/proc/")]


@pytest.mark.unit
def test_the_parents_of_each_mount_point_are_made_open_before_it() -> None:
    """bwrap copies a host parent's mode (/root is 0700): the person's uid could not reach
    the Python runtime below it. Each parent is made 0755 first."""
    args = options(sandbox.command(layout(), ["claude"]))

    def made(folder: str) -> int:
        for i in range(len(args) - 3):
            if args[i : i + 4] == ["--perms", "0755", "--dir", folder]:
                return i
        raise AssertionError(f"{folder} is not made")

    python = args.index("/root/.pyenv/versions/3.11.7")
    for folder in ("/root", "/root/.pyenv", "/root/.pyenv/versions"):
        assert made(folder) < python
    workspace = args.index(str(ROOT / "mallory"))
    assert made("/srv") < made("/srv/parley") < made(str(ROOT)) < workspace
    assert made("/run") < made("/run/parley") < args.index(sandbox.RELAY_SOCKET)
    assert made("/home") < args.index(sandbox.HOME)


@pytest.mark.unit
def test_as_root_the_sandbox_drops_to_the_persons_uid_with_no_privileges_left() -> None:
    argv = sandbox.command(layout(uid=1_000_004), ["claude", "--verbose"])
    inner = argv[argv.index("--") + 1 :]
    assert inner == [
        "setpriv",
        "--reuid=1000004",
        "--regid=1000004",
        "--clear-groups",
        "--inh-caps=-all",
        "--bounding-set=-all",
        "--no-new-privs",
        "--",
        "claude",
        "--verbose",
    ]
    # Root's bwrap makes the mounts; no user namespace that would map the uid to root.
    assert "--unshare-user" not in options(argv)


@pytest.mark.unit
def test_not_as_root_the_sandbox_is_a_user_namespace_with_none_further_inside() -> None:
    argv = sandbox.command(layout(uid=None), ["claude"])
    assert "--unshare-user" in options(argv) and "--disable-userns" in options(argv)
    assert argv[argv.index("--") + 1 :] == ["claude"]
    assert "setpriv" not in argv


@pytest.mark.unit
def test_claude_starts_behind_the_forwarder_on_isolated_python() -> None:
    assert sandbox.forwarded("/py/bin/python3", ["/c/claude", "-p"]) == [
        "/py/bin/python3",
        "-I",
        "-S",
        sandbox.FORWARDER,
        sandbox.RELAY_SOCKET,
        "--",
        "/c/claude",
        "-p",
    ]


def test_a_missing_or_failing_bwrap_makes_work_mode_unusable() -> None:
    missing = sandbox.problem(settings_for(PARLEY_BWRAP="/nonexistent/bwrap"))
    assert missing is not None and "bubblewrap" in missing and "PARLEY_BWRAP" in missing
    refused = sandbox.problem(settings_for(PARLEY_BWRAP="/bin/false"))
    assert refused is not None and "cannot be made here" in refused
    assert sandbox.problem(settings_for()) is None  # the real one, here


@pytest.mark.unit
@pytest.mark.skipif(os.geteuid() != 0, reason="giving files to another uid takes root")
def test_a_persons_folder_is_made_theirs_without_following_any_link(tmp_path: Path) -> None:
    """mallory's folder holds links to bob's folder and to a file of the server's, and a
    hard link: making her folder hers changes none of what they name."""
    bob = tmp_path / "bob"
    bob.mkdir(mode=0o700)
    (bob / "secret.txt").write_text("bob's")
    server_file = tmp_path / "server.conf"
    server_file.write_text("server's")
    folder = tmp_path / "mallory"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "notes.txt").write_text("hers")
    (folder / "to-bob").symlink_to(bob)
    (folder / "sub" / "to-conf").symlink_to(server_file)
    os.link(server_file, folder / "hard-conf")
    settings = settings_for(PARLEY_DATA_DIR=tmp_path / "data")
    home = identity.prepare(settings, folder=folder, user_id="mallory", uid=1_000_777)
    for mine in (folder, folder / "sub", folder / "sub" / "notes.txt", home):
        assert os.stat(mine).st_uid == 1_000_777, mine
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(home).st_mode) == 0o700
    assert home == tmp_path / "data" / "work-homes" / "mallory"
    assert os.lstat(folder / "to-bob").st_uid == 1_000_777  # the link itself
    for untouched in (bob, bob / "secret.txt", server_file):
        assert os.stat(untouched).st_uid == 0, untouched


@pytest.mark.skipif(os.geteuid() != 0, reason="runs the sandbox as another, unprivileged user")
def test_not_as_root_the_mount_and_pid_namespaces_still_keep_people_apart(
    tmp_path: Path,
) -> None:
    """A server that is not root: bwrap runs unprivileged, as the server's own uid (here
    nobody's), in a user namespace. Bob's folder, sitting next to Mallory's and readable by
    that very uid, is still not in her sandbox; nor are the host's processes."""
    base = Path(tempfile.mkdtemp(prefix="parley-sandbox-"))  # reachable by nobody, unlike tmp
    try:
        nobody = 65534
        os.chmod(base, 0o755)
        for name in ("mallory", "bob", "home"):
            (base / name).mkdir()
            os.chown(base / name, nobody, nobody)
        (base / "bob" / "secret.txt").write_text("bob's")
        os.chmod(base / "bob" / "secret.txt", 0o644)  # the same uid could read it, if it saw it
        bwrap = shutil.which("bwrap")
        assert bwrap is not None
        argv = sandbox.command(
            Layout(
                bwrap=bwrap, workspace=base / "mallory", cwd=base / "mallory", home=base / "home"
            ),
            [
                "/bin/sh",
                "-c",
                f"id -u; cat {base}/bob/secret.txt; ls {base}; ls /proc | grep -c '^[0-9]'; "
                "echo mine > note.txt; echo no > /etc/x",
            ],
        )
        done = subprocess.run(
            argv,
            cwd="/",
            user=nobody,
            group=nobody,
            extra_groups=[],
            env={"PATH": sandbox.PATH},
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        lines = done.stdout.splitlines()
        assert lines[0] == str(nobody), done.stderr
        assert "No such file or directory" in done.stderr  # bob's folder is not there
        assert "bob's" not in done.stdout and lines[1] == "mallory"
        assert int(lines[2]) < 10  # its own few processes
        assert (base / "mallory" / "note.txt").read_text() == "mine\n"
        assert "Read-only file system" in done.stderr
    finally:
        shutil.rmtree(base, ignore_errors=True)
