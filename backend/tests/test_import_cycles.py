"""No import cycle in `parley`, between modules or between packages, type-only imports included.

A cycle between packages means neither can be read, tested or replaced without the other; the
runtime hides most of them (a lazy import inside a function, an import under `TYPE_CHECKING`), so
the graph is read from the source with `ast`: every `import` anywhere in a module counts.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[1] / "parley"


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def imported(name: str, path: Path, known: set[str]) -> set[str]:
    """The `parley` modules `name` imports; `from p import x` counts `p.x` when it is a module."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                here = name.split(".") if is_package else name.split(".")[:-1]
                here = here[: len(here) - (node.level - 1)]
                base = ".".join([*here, base] if base else here)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                targets.append(sub if sub in known else base)
        for target in targets:
            while target and target not in known:  # `import a.b.c` with c a name, not a module
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def module_graph() -> dict[str, set[str]]:
    found = modules()
    known = set(found)
    return {name: imported(name, path, known) for name, path in found.items()}


def package_graphs(graph: dict[str, set[str]]) -> dict[str, dict[str, set[str]]]:
    """For each package, the graph between its direct children (subpackages and modules).

    An import from anywhere inside child A to anywhere inside sibling B is an edge A → B."""
    packages = {m for m, p in modules().items() if p.name == "__init__.py"}
    out: dict[str, dict[str, set[str]]] = {p: {} for p in packages}

    def child(package: str, module: str) -> str | None:
        if not module.startswith(package + "."):
            return None
        return f"{package}.{module[len(package) + 1 :].split('.')[0]}"

    for source, targets in graph.items():
        for target in targets:
            for package in packages:
                a, b = child(package, source), child(package, target)
                if a and b and a != b:
                    out[package].setdefault(a, set()).add(b)
    return out


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Each strongly connected component of more than one node, as one concrete cycle in it."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []
    nodes = sorted(set(graph) | {t for ts in graph.values() for t in ts})

    def connect(v: str) -> None:  # Tarjan, iterative so deep graphs cannot hit the recursion limit
        work: list[tuple[str, Iterable[str]]] = [(v, iter(sorted(graph.get(v, ()))))]
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        while work:
            node, edges = work[-1]
            for w in edges:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    break
                if w in on_stack:
                    low[node] = min(low[node], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component: set[str] = set()
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        component.add(w)
                        if w == node:
                            break
                    if len(component) > 1:
                        components.append(component)

    for v in nodes:
        if v not in index:
            connect(v)
    found: list[list[str]] = []
    for component in components:  # a shortest cycle through each member, so each is printed
        for start in sorted(component):
            cycle = shortest_cycle(graph, component, start)
            if not any(set(cycle) <= set(seen) and len(cycle) == len(seen) for seen in found):
                found.append(cycle)
    return found


def shortest_cycle(graph: dict[str, set[str]], component: set[str], start: str) -> list[str]:
    """A shortest cycle from `start` back to itself inside the component (breadth first)."""
    previous: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following: list[str] = []
        for v in frontier:
            for w in sorted(graph.get(v, ())):
                if w not in component:
                    continue
                if w == start:
                    path = [v]
                    while path[-1] != start:
                        path.append(previous[path[-1]])
                    return [*reversed(path), start]
                if w not in previous:
                    previous[w] = v
                    following.append(w)
        frontier = following
    raise AssertionError(f"no cycle through {start} in {component}")


def describe(found: list[list[str]]) -> str:
    return "\n".join(" -> ".join(c) for c in found)


def test_the_graph_is_read() -> None:
    """The reader sees real edges, so an empty cycle list is not vacuous."""
    graph = module_graph()
    assert "parley.api.app" in graph
    assert "parley.config" in graph["parley.api.deps"] | graph["parley.api.app"]
    assert any("parley.models" in targets for targets in graph.values())


def test_cycles_are_found() -> None:
    """The detector reports a cycle, including one a package sees only through its members."""
    graph = {"p.a.x": {"p.b.y"}, "p.b.y": {"p.a.z"}, "p.a.z": set()}
    assert cycles(graph) == []
    by_package: dict[str, set[str]] = {"p.a": {"p.b"}, "p.b": {"p.a"}}
    assert cycles(by_package) == [["p.a", "p.b", "p.a"]]
    assert cycles({"m": {"n"}, "n": {"o"}, "o": {"m"}}) == [["m", "n", "o", "m"]]


def test_no_cycle_between_modules() -> None:
    found = cycles(module_graph())
    assert not found, "import cycles between modules:\n" + describe(found)


def test_no_cycle_between_packages() -> None:
    found = [cycle for graph in package_graphs(module_graph()).values() for cycle in cycles(graph)]
    assert not found, "import cycles between packages:\n" + describe(found)


# What realtime may never import: it moves rows and turn events, whatever they are about.
DOMAINS = ("accounts", "api", "assistant", "chat", "runs", "search", "tasks", "tools", "work")


def test_realtime_imports_no_domain() -> None:
    graph = module_graph()
    found = sorted(
        f"{source} -> {target}"
        for source, targets in graph.items()
        if source.startswith("parley.realtime")
        for target in targets
        if target.split(".")[1] in DOMAINS
    )
    assert not found, "realtime imports a domain:\n" + "\n".join(found)
