"""The structured outcome each delegation ends with (agentscope structured completion).

When the Host delegates, the subagent's finishing step is agentscope's
``generate_response`` with one of these models as its extended model: the subagent fills
it in, agentscope validates it, and the Host reads it from the reply. The Host checks
every claim in it (evidence ids against the ledger, paths against the file domain); the
outcome says what the subagent believes it did, the records say what it did.
"""

from __future__ import annotations

from pydantic import BaseModel, Field


class Outcome(BaseModel):
    """How a delegated task ended."""

    summary: str = Field(description="What was done and found, in one to three sentences.")
    evidence_ids: list[str] = Field(
        default_factory=list,
        description="Ids of the evidence items (ev-…) found for the task's sub-question, "
        "exactly as the tool results gave them.",
    )
    gaps: list[str] = Field(
        default_factory=list,
        description="What the task could not find or do, each in a few words; empty if none.",
    )


class SearchOutcome(Outcome):
    """How a search task ended."""

    urls: list[str] = Field(
        default_factory=list,
        description="The most promising result URLs for the sub-question, best first, copied "
        "from the results.",
    )


class BrowserOutcome(Outcome):
    """How a reading task ended."""

    pages: list[str] = Field(
        default_factory=list,
        description="Paths of the pages stored by viewer_fetch (/workspace/pages/…).",
    )


class FileOutcome(Outcome):
    """How a file-reading task ended."""

    files: list[str] = Field(default_factory=list, description="Paths of the files read.")


class GenerateOutcome(Outcome):
    """How a report-writing task ended."""

    outputs: list[str] = Field(
        default_factory=list, description="Paths of the report files written."
    )
