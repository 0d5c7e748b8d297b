"""The pieces of the one launch path, alone: the bounded NUL-safe reader, the allowlisted
environment and command line, and the status machine."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from parley.config import claude_environment
from parley.work import cli
from parley.work.status import IllegalMove, WorkStatus, move
from parley.work.transport import NUL_SHOWN_AS, parse_line, read_lines, scrub
from tests.conftest import settings_for

pytestmark = pytest.mark.unit


async def lines_of(data: bytes, *, max_line: int, chunk: int = 7) -> tuple[list[bytes], list[int]]:
    stream = asyncio.StreamReader()
    for start in range(0, len(data), chunk):
        stream.feed_data(data[start : start + chunk])
    stream.feed_eof()
    dropped: list[int] = []
    found = [
        line async for line in read_lines(stream, max_line=max_line, on_dropped=dropped.append)
    ]
    return found, dropped


async def test_lines_longer_than_the_limit_are_skipped_and_reading_goes_on() -> None:
    found, dropped = await lines_of(b"short\n" + b"x" * 50 + b"\nafter\nlast", max_line=20)
    assert found == [b"short", b"after", b"last"]
    assert dropped == [50]


async def test_a_line_over_a_mebibyte_is_read_whole() -> None:
    big = json.dumps({"type": "assistant", "text": "w" * (3 << 20)}).encode()
    found, dropped = await lines_of(big + b"\n{}\n", max_line=64 << 20, chunk=65536)
    assert found == [big, b"{}"] and dropped == []


def test_nul_characters_become_visible_in_every_string_of_a_message() -> None:
    line = json.dumps({"content": [{"text": "a\u0000b", "k\u0000": ["\u0000"]}]}).encode()
    assert parse_line(line) == {
        "content": [{"text": f"a{NUL_SHOWN_AS}b", f"k{NUL_SHOWN_AS}": [NUL_SHOWN_AS]}]
    }
    assert parse_line(b"\x00not json") is None
    assert parse_line(b'{"cut": "shor') is None


def test_the_environment_is_an_allowlist(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {
        "PARLEY_AUTH_SECRET": "s",
        "DATABASE_URL": "postgresql://u:p@h/d",
        "AWS_SECRET_ACCESS_KEY": "k",
        "OPENAI_API_KEY": "o",
        "ANTHROPIC_API_KEY": "the-operators-key",
        "ANTHROPIC_BASE_URL": "http://fake",
        "CLAUDE_CODE_USE_BEDROCK": "0",
        "LC_ALL": "C.UTF-8",
        "PATH": "/opt/server/bin:/usr/bin",
        "HOME": "/root",
    }.items():
        monkeypatch.setenv(name, value)
    settings = settings_for(ANTHROPIC_API_KEY="from-settings")
    env = cli.environment(settings, tag="t", token="relay-token")
    assert not [name for name in env if name.startswith("PARLEY_")]
    for name in ("DATABASE_URL", "AWS_SECRET_ACCESS_KEY", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL"):
        assert name not in env
    # The session's key is its relay token, never the operator's (from the settings or not).
    assert env["ANTHROPIC_API_KEY"] == "relay-token"
    assert "from-settings" not in env.values() and "the-operators-key" not in env.values()
    assert env["LC_ALL"] == "C.UTF-8" and env["CLAUDE_CODE_USE_BEDROCK"] == "0"
    # The sandbox's own paths, not the server's.
    assert env["PATH"] == "/usr/local/bin:/usr/bin:/bin" and env["HOME"] == "/home/work"
    assert set(claude_environment()) <= set(env)


def test_the_command_line_is_the_sdks_for_parleys_options() -> None:
    asking = cli.command(settings_for(), Path("/c"), resume="abc")
    assert asking[:4] == ["/c", "--output-format", "stream-json", "--verbose"]
    assert "--permission-prompt-tool" in asking and "--resume=abc" in asking
    assert asking[-2:] == ["--input-format", "stream-json"]
    never = cli.command(settings_for(PARLEY_WORK_PERMISSION_MODE="none"), Path("/c"), resume=None)
    assert "--permission-prompt-tool" not in never
    assert never[never.index("--permission-mode") + 1] == "bypassPermissions"


def test_an_ended_session_stays_ended() -> None:
    assert move(WorkStatus.idle, WorkStatus.working) is WorkStatus.working
    assert move(WorkStatus.working, WorkStatus.ended) is WorkStatus.ended
    with pytest.raises(IllegalMove):
        move(WorkStatus.ended, WorkStatus.working)
    with pytest.raises(IllegalMove):
        move(WorkStatus.idle, WorkStatus.waiting_permission)


async def test_a_line_exactly_at_the_limit_is_kept_one_byte_over_is_dropped() -> None:
    found, dropped = await lines_of(b"x" * 20 + b"\n" + b"y" * 21 + b"\nz\n", max_line=20)
    assert found == [b"x" * 20, b"z"] and dropped == [21]


async def test_an_over_long_line_split_across_reads_is_dropped_whole() -> None:
    """The limit holds however the bytes arrive: a line fed a few bytes at a time is
    counted across every read, and the line after it starts clean."""
    data = b"a" * 100 + b"\n" + b'{"ok": 1}\n'
    for chunk in (1, 3, 64, 1000):
        found, dropped = await lines_of(data, max_line=50, chunk=chunk)
        assert (found, dropped) == ([b'{"ok": 1}'], [100]), chunk


async def test_an_over_long_last_line_without_newline_is_dropped_and_reported() -> None:
    found, dropped = await lines_of(b"first\n" + b"q" * 80, max_line=10)
    assert found == [b"first"] and dropped == [80]


async def test_empty_lines_are_lines_and_nul_bytes_pass_through_the_reader() -> None:
    found, _ = await lines_of(b"\n\x00a\x00\n\n", max_line=10)
    assert found == [b"", b"\x00a\x00", b""]
    assert [parse_line(line) for line in found] == [None, None, None]


def test_a_nul_escaped_in_json_is_scrubbed_and_lines_that_are_not_objects_are_skipped() -> None:
    assert parse_line(b'  {"t": "x\\u0000y"}  ') == {"t": f"x{NUL_SHOWN_AS}y"}
    assert parse_line(b"[1, 2]") is None  # JSON, but not a message
    assert parse_line(b"Warning: something on stdout") is None
    assert parse_line('{"t": "caf\xe9"}'.encode("latin-1")) == {"t": "caf\ufffd"}


def test_scrub_leaves_other_values_and_clean_strings_alone() -> None:
    value = {"n": 1, "f": 1.5, "b": True, "none": None, "s": "clean", "l": [1, "a"]}
    assert scrub(value) == value
    assert scrub(["\x00", {"\x00": "\x00"}]) == [NUL_SHOWN_AS, {NUL_SHOWN_AS: NUL_SHOWN_AS}]


@pytest.mark.parametrize(
    "name", ["LANG", "TZ", "TERM", "ANTHROPIC_MODEL", "CLAUDE_CODE_X", "LC_CTYPE"]
)
def test_an_allowlisted_name_reaches_claude(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.setenv(name, "v")
    assert cli.environment(settings_for(), tag="t", token="k")[name] == "v"


@pytest.mark.parametrize(
    "name",
    [
        "PARLEY_DATABASE_URL",
        "DATABASE_URL",
        "PGPASSWORD",
        "GITHUB_TOKEN",
        "PYTHONPATH",
        "LD_PRELOAD",
        "SSH_AUTH_SOCK",
        "XANTHROPIC_API_KEY",  # a prefix is matched at the start only
        # Credentials and ways out: the relay is the only way to the model, and the only
        # network there is.
        "ANTHROPIC_AUTH_TOKEN",
        "ANTHROPIC_CUSTOM_HEADERS",
        "CLAUDE_CODE_OAUTH_TOKEN",
        "CLAUDE_CODE_API_KEY_HELPER_TTL_MS",
        "HTTPS_PROXY",
        "HTTP_PROXY",
    ],
)
def test_anything_else_stays_with_the_server(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.setenv(name, "secret")
    env = cli.environment(settings_for(ANTHROPIC_AUTH_TOKEN="secret"), tag="t", token="k")
    assert name not in env and "secret" not in env.values()


def test_the_session_tag_and_the_sandbox_flag_are_parleys_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("WORK_SESSION_TAG", "forged")
    env = cli.environment(settings_for(), tag="host/abc/7", token="k")
    assert env["WORK_SESSION_TAG"] == "host/abc/7" and env["IS_SANDBOX"] == "1"
