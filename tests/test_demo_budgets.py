"""The run's budgets hold in a whole demo run through the command line: ``--max-pages``
with a value other than its default caps the pages fetched and stored."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import shared_cache

from host.cli import main

PAGES = 5  # the default is 24, and the demo reads more than 5 pages when it may


@pytest.fixture(scope="module")
def budget_run() -> Path:
    """One demo run with a page budget of :data:`PAGES`; its folder (in the session's
    shared runs folder, whose demo site is built once)."""
    runs = shared_cache()
    before = set(runs.iterdir())
    code = main(
        ["demo", "--formats", "md", "--max-pages", str(PAGES), "--runs-dir", str(runs), "--quiet"]
    )
    assert code == 0
    (folder,) = [p for p in set(runs.iterdir()) - before if (p / "internal").is_dir()]
    return folder


def test_the_page_budget_caps_the_pages_read_and_stored(budget_run):
    record = json.loads((budget_run / "internal" / "run.json").read_text(encoding="utf-8"))
    assert record["settings"]["max_pages"] == PAGES
    fetched = [c for c in record["tool_calls"] if c["tool"] == "viewer_fetch"]
    assert 0 < len([c for c in fetched if c["ok"]]) <= PAGES
    assert any(c["refused"] or c["status"] != "ok" for c in fetched)  # the budget was met
    assert 0 < record["pages_read"] <= PAGES
    stored = list((budget_run / "workspace" / "pages").glob("*.md"))
    assert 0 < len(stored) <= PAGES
