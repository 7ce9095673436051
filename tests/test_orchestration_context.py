"""The Host's parts share one immutable context, and a run's state is whole from its start:
its folder, its result and the Host's agent are there before the run is planned."""

from __future__ import annotations

from dataclasses import FrozenInstanceError
from pathlib import Path

import pytest

from host.brains import make_brain
from host.config import Settings
from host.orchestration.host_agent import HostAgent
from host.orchestration.hub import Host
from research.plan import Plan

QUESTION = "How do canal locks work?"


class Halt(Exception):
    """Raised by the plan's review to end the run before its research starts."""


def _settings(tmp_path: Path) -> Settings:
    return Settings(runs_dir=tmp_path / "runs", page_cache=False, quiet=True)


def test_the_host_context_is_shared_by_its_parts_and_cannot_be_changed(tmp_path):
    host = Host(_settings(tmp_path), make_brain("offline"))
    context = host.context
    for part in (host.workers, host.checkpoints, host.stopper, host.drive):
        assert part.context is context
    assert context.settings is host.settings and context.ledger is host.ledger
    assert context.tokens is host.token_ledger and context.interrupt is host.interrupt
    with pytest.raises(FrozenInstanceError):
        context.exact = True  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        context.settings = Settings()  # type: ignore[misc]
    assert context.exact is False


async def test_a_run_state_has_its_folder_and_result_from_the_start(tmp_path):
    seen: dict[str, object] = {}

    async def review(plan: Plan) -> Plan:
        state = host.state
        assert state is not None and host.stopper.state is state
        assert host.run_folder is state.run and state.result.run is state.run
        assert state.result.question == QUESTION and state.result.plan is plan
        assert isinstance(state.host_agent, HostAgent)
        assert state.planned is None  # the research has not started
        with pytest.raises(RuntimeError, match="not planned"):
            _ = state.research
        seen["folder"] = state.run.path
        raise Halt("the plan was not approved")

    host = Host(_settings(tmp_path), make_brain("offline"), review_plan=review)
    assert host.state is None and host.run_folder is None and host.colophon() is None
    with pytest.raises(Halt):
        await host.run(QUESTION)
    state = host.state
    assert state is not None and state.run.path == seen["folder"]
    assert state.planned is None and state.result.errors == ["the plan was not approved"]
    assert state.run.real_path("/internal/run.json").is_file()  # the run was recorded
