"""What a session's `claude` can reach: its own process group, an allowlisted environment,
and its person's own folder; and /api/health says work mode is usable only when that holds."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from parley.config import Settings
from parley.db import Database
from parley.errors import ParleyError
from parley.work import cli
from tests.conftest import settings_for, token_for
from tests.tools.results import data
from tests.tools.test_mcp_http import mcp_client
from tests.work.conftest import (
    is_result,
    messages,
    needs_cli,
    new_work,
    of_type,
    wait_for_message,
)
from tests.work.fake_anthropic import FakeAnthropic, bash, say


def _settings(tmp_path: Path, **extra: Any) -> Settings:
    return settings_for(PARLEY_WORKSPACE_ROOT=tmp_path / "workspaces", **extra)


@pytest.mark.slow
@needs_cli
async def test_claude_sees_no_server_secret_and_leads_its_own_process_group(
    work_server: Any, fake_api: FakeAnthropic, db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PARLEY_AUTH_SECRET", "the-servers-signing-secret")
    monkeypatch.setenv("DATABASE_URL", "postgresql://parley:db-password@localhost/parley")
    monkeypatch.setenv("SOME_CLOUD_SECRET", "cloud-secret-value")
    fake_api.script(bash("env; echo end-of-env"), say("Listed"))
    async with work_server(PARLEY_WORK_PERMISSION_MODE="none") as server:
        conversation = await new_work(server, "ann")
        reply = await server.chat("ann", "show your environment", conversation)
        assert reply.status_code == 200, reply.text
        found = await messages(server, "ann", conversation)
        (listing,) = [m["content"] for m in found if of_type(m) == "tool_result"]
        assert "end-of-env" in listing and "ANTHROPIC_BASE_URL=" in listing  # env really ran
        assert "PATH=" in listing and "HOME=" in listing
        for secret in ("PARLEY_", "DATABASE_URL", "db-password", "signing-secret", "cloud-secret"):
            assert secret not in listing
        async with db.connection() as conn:
            pid = await conn.fetchval("SELECT pid FROM agent_runs")
        assert os.getpgid(pid) == pid != os.getpgid(0)


@pytest.mark.unit
def test_a_workspace_is_always_inside_its_persons_own_folder(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    bob = cli.workspace_dir(settings, user_id="bob", name=None)
    (bob / "notes.txt").write_text("bob's")
    root = settings.workspaces
    assert bob == root / "bob"
    # Naming another person's folder names a folder of one's own.
    assert cli.workspace_dir(settings, user_id="mallory", name="bob") == root / "mallory" / "bob"
    assert not (root / "mallory" / "bob" / "notes.txt").exists()
    for name in ("../bob", "..", "/etc", "bob/notes", ".hidden", "a" * 65, "x\x00y"):
        with pytest.raises(ParleyError):
            cli.workspace_dir(settings, user_id="mallory", name=name)
    # A link planted in one's own folder does not lead out of it.
    (root / "mallory" / "out").symlink_to(bob)
    with pytest.raises(ParleyError):
        cli.workspace_dir(settings, user_id="mallory", name="out")
    inside = root / "mallory" / "inside"
    inside.symlink_to(root / "mallory" / "bob")
    assert cli.workspace_dir(settings, user_id="mallory", name="inside") == inside
    # Nor does a person's own folder made into a link.
    (root / "eve").symlink_to(bob)
    with pytest.raises(ParleyError):
        cli.workspace_dir(settings, user_id="eve", name=None)


@pytest.mark.unit
def test_a_session_keeps_its_workspace_by_its_path_under_the_root(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    named = cli.workspace_dir(settings, user_id="ann", name="site")
    assert cli.display_name(settings, named) == "ann/site"
    assert cli.stored_name("ann/site", user_id="ann") == "site"
    assert cli.stored_name("ann", user_id="ann") is None
    assert cli.stored_name("bob/site", user_id="ann") is None  # never another's folder


@pytest.mark.slow
@needs_cli
async def test_a_session_named_after_another_persons_folder_cannot_read_it(
    work_server: Any, fake_api: FakeAnthropic
) -> None:
    """mallory starts a session in a workspace called `bob`: it is her own folder `bob`."""
    fake_api.script(bash("cat notes.txt; pwd"), say("Read it"))
    async with work_server(PARLEY_WORK_PERMISSION_MODE="none") as server:
        bob = server.settings.workspaces / "bob"
        bob.mkdir(parents=True)
        (bob / "notes.txt").write_text("bob's private notes")
        async with mcp_client(server.base_url, token_for("mallory")) as client:
            started = data(
                await client.call_tool("start_work_session", {"prompt": "read", "workspace": "bob"})
            )
        conversation = started["conversation_id"]
        await wait_for_message(server, "mallory", conversation, is_result)
        found = await messages(server, "mallory", conversation)
        (output,) = [m["content"] for m in found if of_type(m) == "tool_result"]
        assert "bob's private notes" not in output
        assert str(server.settings.workspaces / "mallory" / "bob") in output


@pytest.mark.unit
def test_work_mode_is_unusable_where_sessions_cannot_be_isolated(tmp_path: Path) -> None:
    usable = _settings(tmp_path, PARLEY_WORK_ENABLED=True, ANTHROPIC_API_KEY="x")
    assert cli.isolation_problem(usable) is None
    a_file = tmp_path / "file"
    a_file.write_text("")
    for settings in (
        settings_for(PARLEY_WORKSPACE_ROOT=a_file, PARLEY_WORK_ENABLED=True),
        # The root holding the server's own data (its database among it).
        settings_for(
            PARLEY_WORKSPACE_ROOT=tmp_path,
            PARLEY_DATA_DIR=tmp_path / "data",
            PARLEY_WORK_ENABLED=True,
        ),
    ):
        problem = cli.isolation_problem(settings)
        assert problem is not None and "PARLEY_WORKSPACE_ROOT" in problem


@needs_cli
async def test_health_reports_work_mode_unusable_when_its_root_holds_the_servers_data(
    make_server: Any, tmp_path: Path
) -> None:
    async with make_server(
        PARLEY_WORK_ENABLED=True,
        ANTHROPIC_API_KEY="x",
        PARLEY_DATA_DIR=tmp_path / "data",
        PARLEY_WORKSPACE_ROOT=tmp_path,
    ) as server:
        health = (await server.client.get("/api/health")).json()
    assert health["work"]["available"] is False
    assert "data directory" in health["work"]["reason"]


@needs_cli
@pytest.mark.parametrize(
    ("overrides", "reason"),
    [
        ({"PARLEY_BWRAP": "/nonexistent/bwrap"}, "bubblewrap"),
        ({"PARLEY_BWRAP": "/bin/false"}, "cannot be made here"),  # namespaces refused, say
        ({"ANTHROPIC_API_KEY": None}, "ANTHROPIC_API_KEY"),  # nothing for the relay to add
    ],
)
async def test_without_a_sandbox_or_relay_credentials_work_mode_is_unusable_and_nothing_runs(
    work_server: Any,
    db: Database,
    monkeypatch: pytest.MonkeyPatch,
    overrides: dict[str, Any],
    reason: str,
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    async with work_server(**overrides) as server:
        health = (await server.client.get("/api/health")).json()
        assert health["work"]["available"] is False and reason in health["work"]["reason"]
        conversation = await new_work(server, "ann")
        reply = await server.chat("ann", "run something", conversation)
        assert reply.status_code == 502 and reason in reply.json()["error"]["message"]
        stored = await messages(server, "ann", conversation)
        assert any(m["error"] and reason in m["content"] for m in stored)
    async with db.connection() as conn:  # never started unsandboxed: no process at all
        assert await conn.fetchval("SELECT pid FROM agent_runs") is None
