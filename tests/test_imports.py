"""The project's import graph: every module imports, no circles, imports point down,
and the parts of ``host/`` stand on floors.

The packages, top first: ``quartet`` (the command line and batches, the only package that
knows ``host``, ``webapp`` and ``demo``), ``webapp``, ``demo``, ``host``, ``subagents``,
and beneath them ``research``, ``fs_service`` and ``schemas``.

The graph is read from the source with :mod:`ast`, so an import inside a function or
under ``TYPE_CHECKING`` counts as much as one at the top of a module: a circle that only
closes at run time is still a circle.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("fs_service", "research", "subagents", "host", "demo", "webapp", "quartet", "schemas")

#: The project's packages each package must never import.
FORBIDDEN = {
    "fs_service": {"research", "subagents", "host", "demo", "webapp", "quartet"},
    "research": {"fs_service", "subagents", "host", "demo", "webapp", "quartet"},
    "subagents": {"host", "demo", "webapp", "quartet"},
    "schemas": {"fs_service", "research", "subagents", "host", "demo", "webapp", "quartet"},
    "host": {"demo", "webapp", "quartet"},
    "demo": {"webapp", "quartet"},
    "webapp": {"quartet"},
}


def _name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def project_modules() -> dict[str, Path]:
    """Every module of the project's packages, by dotted name."""
    return {_name(p): p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))}


def _targets(module: str, path: Path, node: ast.Import | ast.ImportFrom) -> Iterator[str]:
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
        return
    if node.level:
        package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
        base = ".".join(package[: len(package) - node.level + 1])
        where = f"{base}.{node.module}" if node.module else base
    else:
        where = node.module or ""
    for alias in node.names:
        yield f"{where}.{alias.name}"  # a submodule, or a name in ``where``


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Which project modules each project module imports (anywhere in its source)."""
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        edges: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import | ast.ImportFrom):
                for target in _targets(module, path, node):
                    while target and target not in modules:
                        target = target.rpartition(".")[0]
                    if target and target != module:
                        edges.add(target)
        graph[module] = edges
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return import_graph(project_modules())


def test_every_module_of_the_project_imports():
    for module in project_modules():
        importlib.import_module(module)


def test_the_import_graph_has_no_circle(graph):
    assert circles(graph) == []


def test_the_checker_sees_a_circle_made_inside_a_function():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_graph_counts_imports_inside_functions_and_type_checking(graph):
    assert "quartet.batch.command" in graph["quartet.cli.questions"]  # inside cmd_batch
    assert "host.config" in graph["host.mcp.client"]  # imported under TYPE_CHECKING


#: Entry points kept by the names the specification gives them: ``python -m host`` runs
#: the command line, which lives above ``host/``. Each may import only its target.
ENTRY_POINTS = {"host.__main__": "quartet.cli"}


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """The imports of a package a module's package must never import (an entry point's
    import of its target aside)."""
    return [
        f"{module} imports {target}"
        for module, targets in sorted(graph.items())
        for target in sorted(targets)
        if target.split(".")[0] in FORBIDDEN.get(module.split(".")[0], set())
        and not (module in ENTRY_POINTS and _within(target, ENTRY_POINTS[module]))
    ]


def test_imports_point_down(graph):
    assert upward_imports(graph) == []


def test_the_down_rule_sees_host_importing_the_command_line():
    graph = {
        "host.orchestration.hub": {"quartet.cli.running", "host.durability.runs"},
        "quartet.cli.parser": {"webapp.command", "quartet.batch.command", "host.config"},
        "webapp.worker": {"host.display.progress", "demo.settings"},
        "demo.web": {"webapp.app"},
        "host.__main__": {"quartet.cli.main", "webapp.app"},
    }
    assert upward_imports(graph) == [
        "demo.web imports webapp.app",
        "host.__main__ imports webapp.app",  # an entry point imports its target alone
        "host.orchestration.hub imports quartet.cli.running",
    ]


#: The faces of ``host/`` (MCP serving, the live view of a run) sit on top of its parts
#: (orchestration, durability, brains, MCP client): only these may import each face
#: besides the face itself.
FACE_USERS = {
    "host.mcp.serving": {"quartet.cli"},
    "host.display": {"quartet.cli", "webapp"},
}


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def face_imports(graph: dict[str, set[str]]) -> list[str]:
    """The imports of a face of ``host/`` by a module that may not import it."""
    return [
        f"{module} imports {target}"
        for module, targets in sorted(graph.items())
        for target in sorted(targets)
        for face, users in FACE_USERS.items()
        if _within(target, face)
        and not _within(module, face)
        and not any(_within(module, user) for user in users)
    ]


def test_the_parts_of_host_never_import_its_faces(graph):
    assert face_imports(graph) == []


#: The floors of ``host/``, bottom first: each part (a sub-package or a module of its
#: own) imports only parts on lower floors, so no two parts import each other. The shared
#: names and records are the bottom floor; the faces (FACE_USERS) are the top one.
HOST_FLOORS = (
    ("host.core", "host.version", "host.printable", "host.sheets"),
    ("host.brains",),
    ("host.config", "host.sources", "host.prepared"),
    ("host.research", "host.durability", "host.mcp"),
    ("host.orchestration",),
    ("host.display", "host.mcp.serving"),
)


def host_part(module: str) -> str | None:
    """The part of ``host/`` a module belongs to: a face, else its sub-package or its own
    module (None outside ``host/`` and for the package itself)."""
    for face in FACE_USERS:
        if _within(module, face):
            return face
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "host" and len(parts) > 1 else None


def floor_violations(graph: dict[str, set[str]]) -> list[str]:
    """The imports between parts of ``host/`` that do not point to a lower floor."""
    floor = {part: i for i, parts in enumerate(HOST_FLOORS) for part in parts}
    found = []
    for module, targets in sorted(graph.items()):
        here = host_part(module)
        for target in sorted(targets):
            there = host_part(target)
            if here is None or there is None or here == there:
                continue
            if here not in floor or there not in floor or floor[there] >= floor[here]:
                found.append(f"{module} imports {target}")
    return found


def test_the_parts_of_host_stand_on_lower_floors(graph):
    assert floor_violations(graph) == []


def test_the_floor_rule_sees_a_part_importing_one_above_it():
    graph = {
        "host.durability.replay": {"host.orchestration.result"},
        "host.orchestration.hub": {"host.durability.runs", "host.core.stages"},
        "host.brains.offline": {"host.core.stages"},
        "host.newpart.thing": {"host.core.records"},
    }
    assert floor_violations(graph) == [
        "host.durability.replay imports host.orchestration.result",
        "host.newpart.thing imports host.core.records",  # a part not on any floor
    ]


def test_the_face_rule_sees_orchestration_importing_the_live_view():
    graph = {
        "host.orchestration.hub": {"host.display.progress"},
        "host.display.progress": {"host.display.part_labels"},
        "quartet.cli.tools": {"host.mcp.serving"},
        "webapp.worker": {"host.display.progress"},
        "quartet.batch.worker": {"host.orchestration.hub"},
    }
    assert face_imports(graph) == ["host.orchestration.hub imports host.display.progress"]
