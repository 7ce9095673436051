"""The project's import graph: every module imports, no circles, imports point down.

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
PACKAGES = ("fs_service", "research", "subagents", "host", "demo", "schemas")

#: The project's packages each package must never import.
FORBIDDEN = {
    "fs_service": {"research", "subagents", "host", "demo"},
    "research": {"fs_service", "subagents", "host", "demo"},
    "subagents": {"host", "demo"},
    "schemas": {"fs_service", "research", "subagents", "host", "demo"},
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
    assert "host.batch.command" in graph["host.cli.questions"]  # inside cmd_batch
    assert "host.config" in graph["host.mcp.client"]  # imported under TYPE_CHECKING


def test_imports_point_down(graph):
    upward = [
        f"{module} imports {target}"
        for module, targets in sorted(graph.items())
        for target in sorted(targets)
        if target.split(".")[0] in FORBIDDEN.get(module.split(".")[0], set())
    ]
    assert upward == []


#: The faces of ``host/`` (the command line, batches, MCP serving) sit on top of its
#: parts (orchestration, durability, brains, MCP client): only these may import each face
#: besides the face itself.
FACE_USERS = {
    "host.cli": {"host.__main__"},
    "host.batch": {"host.cli"},
    "host.mcp.serving": {"host.cli"},
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


def test_the_face_rule_sees_orchestration_importing_the_command_line():
    graph = {
        "host.orchestration.hub": {"host.cli.running"},
        "host.cli.entry": {"host.batch.command", "host.mcp.serving"},
        "host.batch.worker": {"host.orchestration.hub"},
    }
    assert face_imports(graph) == ["host.orchestration.hub imports host.cli.running"]
