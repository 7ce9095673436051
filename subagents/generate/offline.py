"""The Generate subagent's offline plan: one generator call per requested format."""

from __future__ import annotations

import json
import re
from typing import Any

from ..offline import Call, CallResult, succeeded

#: Each format's generator, by the format's name (also its file suffix).
FORMAT_TOOLS = {
    "md": "generate_markdown",
    "html": "generate_html",
    "pdf": "generate_pdf",
    "pptx": "generate_pptx",
}
#: The name of the report's files when the context gives none.
DEFAULT_NAME = "report"
_FACTS = re.compile(r"```json\n(\{.*?\})\n```", re.S)


def plan(ctx: dict[str, Any], done: list[CallResult], tools: set[str]) -> list[Call]:
    """Each requested format not written yet, from the context's requirements and paths,
    to ``/workspace/reports/<name>.<format>`` (``name``: the context's, see
    :func:`.stage.prepare`)."""
    if done:
        return []
    requirements = str(ctx.get("requirements") or ctx.get("question") or "")
    name = str(ctx.get("name") or DEFAULT_NAME)
    from_paths = [str(p) for p in ctx.get("from_paths") or []]
    calls: list[Call] = []
    for fmt in ctx.get("formats") or list(FORMAT_TOOLS):
        if fmt not in FORMAT_TOOLS:
            continue
        tool = FORMAT_TOOLS[fmt]
        if tool in tools:
            args: dict[str, Any] = {
                "requirements": requirements,
                "out_path": f"/workspace/reports/{name}.{fmt}",
            }
            if from_paths:
                args["from_paths"] = from_paths
            calls.append((tool, args))
    return calls


def facts(rec: CallResult) -> dict[str, Any]:
    """The JSON facts block at the end of a generator's result."""
    found = _FACTS.findall(rec.text)
    try:
        return json.loads(found[-1]) if found else {}
    except json.JSONDecodeError:
        return {}


def outcome(ctx: dict[str, Any], done: list[CallResult]) -> dict[str, Any]:
    written = [facts(r) for r in done if r.name.startswith("generate_") and r.ok]
    outputs = [str(f["path"]) for f in written if f.get("path")]
    failed = [r.name for r in done if r.name.startswith("generate_") and not r.ok]
    cited = max((int(f.get("citations", 0)) for f in written), default=0)
    return {
        "summary": f"Wrote {len(outputs)} report file(s) with {cited} citations.",
        "evidence_ids": [],
        "gaps": [f"{name} failed" for name in failed],
        "outputs": outputs,
    }


__all__ = ["DEFAULT_NAME", "FORMAT_TOOLS", "facts", "outcome", "plan", "succeeded"]
