"""House rules for the research core: no function in ``research/*.py`` is too long or
branches too much.

A function fails when it spans more than :data:`MAX_LINES` lines or holds more than
:data:`MAX_BRANCHES` branches: the ``if``, ``for``, ``while`` and ``try`` statements,
conditional expressions, ``and``/``or`` chains and comprehension loops inside it, those of
its nested functions included.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_LINES = 60
MAX_BRANCHES = 15
_BRANCHES = (ast.If, ast.For, ast.While, ast.Try, ast.IfExp, ast.BoolOp, ast.comprehension)

#: Functions still over the limits, as ``(path, name)``: each is being split into helpers
#: and leaves this set when it is.
BEING_SPLIT: set[tuple[str, str]] = set()


def _offenders() -> list[str]:
    """Every function of ``research/*.py`` over the limits, as ``path name: lines,
    branches``, those in :data:`BEING_SPLIT` excepted."""
    out = []
    for path in sorted((ROOT / "research").glob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            if (rel, node.name) in BEING_SPLIT:
                continue
            lines = (node.end_lineno or node.lineno) - node.lineno + 1
            branches = sum(isinstance(n, _BRANCHES) for n in ast.walk(node))
            if lines > MAX_LINES or branches > MAX_BRANCHES:
                out.append(f"{rel} {node.name}: {lines} lines, {branches} branches")
    return out


def test_research_functions_are_small() -> None:
    offenders = _offenders()
    assert not offenders, (
        f"functions over {MAX_LINES} lines or {MAX_BRANCHES} branches:\n" + "\n".join(offenders)
    )
