"""``quartet explain RUN_ID``: why each part's best sentences scored as they did."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from host.config import runs_dir_setting
from host.durability.run_files import read_text
from host.durability.runs import find_run, glossary_of, plan_of
from host.printable import printable
from subagents.evidence import PageRecord, sidecar_path

#: The most bytes of one stored page or its record read.
MAX_PAGE_BYTES = 32 * 1024 * 1024


def _pages(run: Path) -> list[tuple[str, str, str]]:
    """Every stored page and file extract of a run: ``(address, title, text)``. Each is
    read without following a link at any level (a run folder may come from elsewhere);
    a page that cannot be read so is left out."""
    out = []
    stored = [
        *(run / "workspace" / "pages").glob("*.md"),
        *(run / "workspace" / "sources").glob("*.md"),
    ]
    for page in sorted(stored):
        where = page.relative_to(run).as_posix()
        try:
            text = read_text(run, where, MAX_PAGE_BYTES)
        except OSError:
            continue
        try:
            record = PageRecord.from_json(read_text(run, sidecar_path(where), MAX_PAGE_BYTES))
        except (OSError, ValueError, TypeError, KeyError):
            out.append((page.name, "", text))
            continue
        out.append((record.final_url or record.url, record.title, text))
    return out


def cmd_explain(args: argparse.Namespace) -> int:
    """``quartet explain RUN_ID [--part ID] [--top N]``: for each part of a run's plan,
    its best sentences over the pages the run stored, with every feature the model
    weighed and what each added."""
    from research.lang import asked_in
    from research.plan import Plan
    from research.text import reading

    run = find_run(runs_dir_setting(args.runs_dir), args.run_id)
    plan_dict = plan_of(run)
    if not plan_dict:
        print(f"quartet explain: run {run.name} has no plan recorded")
        return 1
    plan = Plan.from_dict(plan_dict)
    parts = [s for s in plan.subquestions if not args.part or s.id == args.part]
    if not parts:
        known = ", ".join(s.id for s in plan.subquestions)
        print(f"quartet explain: no part {args.part!r} in run {run.name} (parts: {known})")
        return 2
    code = plan.read_as["code"]
    with reading(code), asked_in(code):  # words and parts read as the run read them
        _explain_parts(run, plan, parts, args.top)
    return 0


def _explain_parts(run: Path, plan: Any, parts: list[Any], top: int) -> None:
    """Print each of ``parts`` with its ``top`` sentences over the run's stored pages."""
    from host.sources import read_as
    from research.document import Document
    from research.explain import explain, explained_text
    from research.relevance import LEARNED, answer_threshold, evidence_threshold

    glossary = _glossary(run)
    focus = {s.id: plan.focus(s, glossary) for s in plan.subquestions}
    pages = _pages(run)
    cores = [f.core for f in focus.values()]
    titles = read_as(plan.question, pages, cores)  # the user's files, as the run read them
    docs = [
        (address, Document.of(text, title))
        for (address, _, text), title in zip(pages, titles, strict=True)
    ]
    for sub in parts:
        found = explain(focus, sub.id, docs, top)
        bar = (answer_threshold if LEARNED else evidence_threshold)(focus[sub.id])
        print(printable(explained_text(f"{sub.id}  {sub.text}", found, bar), keep_lines=True))
        print()


def _glossary(run: Path) -> Any:
    """The glossary the run compared words with (its recorded settings'); an empty one
    when the record holds none that reads."""
    from host.config import ConfigError, parse_glossary
    from research.question import Glossary

    try:
        return Glossary.of(parse_glossary(glossary_of(run)))
    except ConfigError:
        return Glossary()
