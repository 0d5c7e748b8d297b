"""Claude Code outside Parley: what `parley hook claude-code` costs before each tool call.

The hook runs exactly as `parley connect claude-code` writes it into Claude Code's settings
(`parley.connect.claude_code.hook_command`: the absolute `parley`, `--url`, `--user`,
`--machine`, `--key-file`), started through `sh -c` as Claude Code starts hooks, with a
`PreToolUse` event on stdin and a real agent key.

(a) A call an approval rule allows: wall time from starting the shell to the hook's exit with
    its decision printed, process start included (what Claude Code waits before the tool runs).
(b) A call the person answers: the hook waits (long-polling its question); the person answers
    through the API; delay = from sending the answer to the hook's exit with `allow` printed,
    which is when Claude Code goes on.

Run alone: `.venv/bin/python bench/hooks.py`.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from lib import VENV_BIN, BenchDatabase, ServerProcess, auth, ms, pct, run_alone

USER = "bench-hook"


def _event(n: int, path: str) -> bytes:
    return json.dumps(
        {
            "hook_event_name": "PreToolUse",
            "tool_name": "Write",
            "tool_input": {"file_path": path, "content": "x"},
            "tool_use_id": f"toolu_bench_{n}_{time.monotonic_ns()}",
            "session_id": "bench",
            "cwd": "/tmp",
        }
    ).encode()


def _setup(base: str, tmp: Path) -> str:
    """The person's agent key (in a 0600 file) and an allow rule for /tmp/bench-allowed/**;
    returns the hook command as `parley connect` writes it."""
    from parley.connect.claude_code import hook_command

    with httpx.Client(base_url=base, timeout=30, headers=auth(USER)) as http:
        key = http.post(f"/api/{USER}/agent-keys", json={"agent": "claude-code-bench"})
        key.raise_for_status()
        rule = http.post(
            f"/api/{USER}/approval-rules",
            json={"decision": "allow", "pattern": "Write(//tmp/bench-allowed/**)"},
        )
        rule.raise_for_status()
    key_file = tmp / "hook.key"
    key_file.write_text(key.json()["secret"] + "\n")
    key_file.chmod(0o600)
    program = [str(VENV_BIN / "parley")]  # the installed command, as connect finds it
    return hook_command(url=base, user=USER, machine="bench", key_file=key_file, program=program)


def _hook(command: str, n: int, path: str) -> tuple[float, dict[str, Any]]:
    started = time.perf_counter()
    done = subprocess.run(
        ["/bin/sh", "-c", command], input=_event(n, path), capture_output=True, check=True
    )
    took = time.perf_counter() - started
    return took, json.loads(done.stdout)["hookSpecificOutput"]


async def _answered(base: str, command: str, n: int) -> float:
    """One asked call: the hook waits; the person allows; seconds from answer to exit."""
    process = await asyncio.create_subprocess_exec(
        "/bin/sh",
        "-c",
        command,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(_event(n, f"/tmp/bench-asked/{n}.txt"))
    process.stdin.close()
    async with httpx.AsyncClient(base_url=base, timeout=30, headers=auth(USER)) as http:
        while True:  # until its question is open (the hook then long-polls it)
            listed = await http.get(f"/api/{USER}/questions")
            listed.raise_for_status()
            if listed.json():
                break
            await asyncio.sleep(0.01)
        started = time.perf_counter()
        answer = await http.post(
            f"/api/{USER}/questions/{listed.json()[0]['question']['id']}/answer",
            json={"decision": "allow"},
        )
        answer.raise_for_status()
        out = await process.stdout.read()
        await process.wait()
        took = time.perf_counter() - started
    decided = json.loads(out)["hookSpecificOutput"]
    if decided["permissionDecision"] != "allow":
        raise RuntimeError(f"the hook printed {decided}")
    return took


def measure_hooks(db: BenchDatabase, quick: bool) -> dict[str, Any]:
    ruled_n, asked_n = (10, 5) if quick else (60, 30)
    with ServerProcess(db, name="hooks") as server:
        command = _setup(server.base_url, db.tmp)
        _hook(command, -1, "/tmp/bench-allowed/warm.txt")  # the OS's file cache, the pool
        ruled: list[float] = []
        for n in range(ruled_n):
            took, decided = _hook(command, n, f"/tmp/bench-allowed/{n}.txt")
            if decided["permissionDecision"] != "allow":
                raise RuntimeError(f"the rule did not allow: {decided}")
            ruled.append(took)
        asked = [asyncio.run(_answered(server.base_url, command, n)) for n in range(asked_n)]
    python = []
    for _ in range(ruled_n):  # the floor: starting this Python and doing nothing
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        python.append(time.perf_counter() - started)
    return {"ruled": ruled, "asked": asked, "python": python}


def show(found: dict[str, Any]) -> None:
    for name in ("ruled", "asked", "python"):
        values = found[name]
        print(f"{name:>6}: n={len(values)} p50 {ms(pct(values, 50))} p99 {ms(pct(values, 99))}")


if __name__ == "__main__":
    sys.exit(run_alone(__doc__, measure_hooks, show))
