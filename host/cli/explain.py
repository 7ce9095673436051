"""``quartet explain RUN_ID``: why each part's best sentences scored as they did."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ..config import runs_dir_setting
from ..durability.runs import PLAN_JSON, RUN_JSON, find_run
from ..printable import printable


def _pages(run: Path) -> list[tuple[str, str, str]]:
    """Every stored page and file extract of a run: ``(address, title, text)``."""
    out = []
    for page in sorted((run / "workspace" / "pages").glob("*.md")):
        try:
            record = json.loads(page.with_suffix(".json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            record = {}
        address = str(record.get("final_url") or record.get("url") or page.name)
        out.append((address, str(record.get("title") or ""), page.read_text(encoding="utf-8")))
    return out


def cmd_explain(args: argparse.Namespace) -> int:
    """``quartet explain RUN_ID [--part ID] [--top N]``: for each part of a run's plan,
    its best sentences over the pages the run stored, with every feature the model
    weighed and what each added."""
    from research.explain import explain, explained_text
    from research.plan import Plan
    from research.relevance import Document

    run = find_run(runs_dir_setting(args.runs_dir), args.run_id)
    plan_dict = _plan_json(run)
    if not plan_dict:
        print(f"quartet explain: run {run.name} has no plan recorded")
        return 1
    plan = Plan.from_dict(plan_dict)
    docs = [(address, Document.of(text, title)) for address, title, text in _pages(run)]
    parts = [s for s in plan.subquestions if not args.part or s.id == args.part]
    if not parts:
        known = ", ".join(s.id for s in plan.subquestions)
        print(f"quartet explain: no part {args.part!r} in run {run.name} (parts: {known})")
        return 2
    for sub in parts:
        found = explain(plan.focus(sub), docs, args.top)
        print(printable(explained_text(f"{sub.id}  {sub.text}", found), keep_lines=True))
        print()
    return 0


def _plan_json(run: Path) -> dict:
    """The run's plan, from its run record or its plan file."""
    for name in (RUN_JSON, PLAN_JSON):
        try:
            raw = json.loads((run / name).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        plan = raw.get("plan", raw) if isinstance(raw, dict) else None
        if isinstance(plan, dict) and isinstance(plan.get("subquestions"), list):
            return plan
    return {}
