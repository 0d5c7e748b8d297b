#!/usr/bin/env python3
"""Adds up passed, failed and skipped tests from each runner's own closing summary.

Why a parser per runner: a grep for "N passed" counted pytest's and Playwright's passes but
let skipped and flaky tests vanish from the closing line. Each runner's last summary is the
truth for its layer; a log with none (lint, the bench) adds nothing.

Usage: count-tests.py LOG... → prints "N passed, N failed, N skipped".
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ANSI = re.compile(r"\x1b\[[0-9;]*m")
# pytest -q: "247 passed, 3 skipped, 1 xfailed in 189.00s" (possibly inside "=== … ===").
PYTEST = re.compile(r"^=*\s*(\d+ \w+(?:, \d+ \w+)*) in [\d.]+s")
# vitest: " Tests  36 passed | 1 skipped (37)".
VITEST = re.compile(r"^\s*Tests\s+(.+?)\s+\(\d+\)\s*$")
# Playwright's list reporter: one line per outcome ("  43 passed (2.1m)", "  2 skipped").
PLAYWRIGHT = re.compile(r"^\s+(\d+) (passed|failed|skipped|flaky|interrupted|did not run)\b")

KIND = {
    "passed": "passed",
    "failed": "failed",
    "error": "failed",
    "errors": "failed",
    "interrupted": "failed",
    "flaky": "failed",  # retries are off: a flaky test is a failure to fix, not a pass
    "skipped": "skipped",
    "deselected": None,
    "xfailed": "skipped",
    "xpassed": "failed",
    "did not run": "skipped",
    "todo": "skipped",
    "warning": None,
    "warnings": None,
}


def _add(totals: dict[str, int], count: int, word: str) -> None:
    kind = KIND.get(word)
    if kind:
        totals[kind] += count


def count(text: str) -> dict[str, int]:
    """The counts of the last summary found in one log (a runner prints one per run)."""
    lines = [ANSI.sub("", line) for line in text.splitlines()]
    for line in reversed(lines):
        if m := PYTEST.match(line.strip()):
            totals = dict.fromkeys(("passed", "failed", "skipped"), 0)
            for part in m.group(1).split(", "):
                n, word = part.split(" ", 1)
                _add(totals, int(n), word)
            return totals
        if m := VITEST.match(line):
            totals = dict.fromkeys(("passed", "failed", "skipped"), 0)
            for part in m.group(1).split("|"):
                n, word = part.strip().split(" ", 1)
                _add(totals, int(n), word)
            return totals
    totals = dict.fromkeys(("passed", "failed", "skipped"), 0)
    found = False
    for line in lines:
        if m := PLAYWRIGHT.match(line):
            found = True
            _add(totals, int(m.group(1)), m.group(2))
    return totals if found else dict.fromkeys(totals, 0)


def main(paths: list[str]) -> int:
    totals = dict.fromkeys(("passed", "failed", "skipped"), 0)
    for path in paths:
        for kind, n in count(Path(path).read_text(errors="replace")).items():
            totals[kind] += n
    print(f"{totals['passed']} passed, {totals['failed']} failed, {totals['skipped']} skipped")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
