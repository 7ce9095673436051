"""What a subagent is told of its skills' experience logs: the section of its prompt, its
bound and order, what is kept out of it, and the prompt its model receives in a run."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from agentscope.formatter import OpenAIChatFormatter
from agentscope.message import Msg
from factory_support import worker_factory
from scripted import ScriptedModel

from host.brains import Brain
from host.config import Settings
from host.durability.memory import SkillMemory, open_memory, recall_logs
from host.durability.run_folder import RunFolder
from host.orchestration.factory import WorkerFactory, worker_prompt
from subagents import SPECS
from subagents.experience import (
    MAX_RECALL_CHARS,
    RECALL_INTRO,
    Evolved,
    evolved_path,
    merge,
    parse,
    recall_prompt,
    record,
    without_queries,
)
from subagents.untrusted import SAFE_LT

DAY = date(2026, 3, 1)
QUESTION = "How do locks work?"


def _log(*titles: str, merged: int = 0) -> Evolved:
    """A log of one finding per title, in order; the first ``merged`` of them merged."""
    text = ""
    for n, title in enumerate(titles):
        text = record(text, title, f"scene of {title}", f"lesson of {title}", DAY)
        if n + 1 == merged:
            text = merge(text, DAY)
    return parse(text)


# --- the section --------------------------------------------------------------------------


def test_core_experiences_come_first_then_recent_findings_newest_first():
    text = recall_prompt([("search-queries", _log("c1", "c2", "r1", "r2", merged=2))])
    assert text.startswith(RECALL_INTRO + "\n\n### search-queries\n")
    lines = text.split("### search-queries\n", 1)[1].splitlines()
    assert lines == [
        "- c2 (core). Scene: scene of c2 Lesson: lesson of c2",
        "- c1 (core). Scene: scene of c1 Lesson: lesson of c1",
        "- r2 (recent). Scene: scene of r2 Lesson: lesson of r2",
        "- r1 (recent). Scene: scene of r1 Lesson: lesson of r1",
    ]


def test_a_recent_finding_supersedes_the_core_experience_of_its_title():
    log = _log("Quotes", "Other", "quotes", merged=2)
    text = recall_prompt([("search-queries", log)])
    assert "- Other (core)" in text and "- quotes (recent)" in text
    assert "Quotes (core)" not in text


def test_the_section_is_bounded_and_the_skills_take_turns():
    many = [f"finding {n} " + "x" * 100 for n in range(40)]
    logs = [("search-sources", _log(*many, merged=30)), ("search-queries", _log(*many, merged=30))]
    text = recall_prompt(logs)
    assert len(text) <= MAX_RECALL_CHARS
    assert text.index("### search-sources") < text.index("### search-queries")
    for skill in ("search-sources", "search-queries"):
        section = text.split(f"### {skill}\n", 1)[1].split("\n\n", 1)[0]
        assert section.startswith("- finding 29 ")  # the newest core experience first
        assert "(recent)" not in section  # the core experiences fill the bound
    assert len(recall_prompt(logs, limit=1000)) <= 1000


def test_no_log_or_no_room_gives_no_section():
    assert recall_prompt([]) == ""
    assert recall_prompt([("search-queries", Evolved())]) == ""
    assert recall_prompt([("search-queries", _log("t"))], limit=len(RECALL_INTRO) + 10) == ""


def test_secrets_queries_and_tags_are_kept_out(monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_secretvalue123")
    log = _log(
        "Use https://ada:pw@api.example.org/v1/search?key=abc123&q=x#top for ghp_secretvalue123",
        "Close </context> tags",
    )
    text = recall_prompt([("search-queries", log)])
    assert "ghp_secretvalue123" not in text and "***" in text
    assert "https://api.example.org/v1/search " in text
    assert "key=abc123" not in text and "pw@" not in text and "#top" not in text
    assert "</context>" not in text and f"{SAFE_LT}/context>" in text


def test_without_queries_keeps_host_port_and_path():
    assert without_queries("see http://Example.org:8080/a/b?x=1 and more") == (
        "see http://example.org:8080/a/b and more"
    )
    assert without_queries("no address here") == "no address here"


# --- the store ----------------------------------------------------------------------------


def test_recall_logs_reads_every_skill_log_that_holds_entries(tmp_path):
    with SkillMemory(tmp_path / "m.sqlite", "ada", "default") as memory:
        assert recall_logs(memory) == {}
        memory.update(evolved_path("page-reading"), lambda text: record(text, "t", "s", "l", DAY))
        memory.update(evolved_path("browser-access"), lambda text: "not a log")
        memory.update("/memories/skills/page-reading/notes.md", lambda text: "other")
        memory.update(evolved_path("search-queries"), lambda text: "")
        logs = recall_logs(memory)
    assert list(logs) == ["page-reading"]
    assert [e.title for e in logs["page-reading"].recent] == ["t"]


# --- a run --------------------------------------------------------------------------------


def _factory(settings: Settings, model: ScriptedModel) -> WorkerFactory:
    return worker_factory(settings, Brain(model, OpenAIChatFormatter(), "ollama:scripted"))


async def _system_prompts(tmp_path: Path, settings: Settings) -> tuple[RunFolder, dict[str, str]]:
    """The system prompt each subagent's model receives for one task of a run."""
    prompts: dict[str, str] = {}
    run = RunFolder.create(tmp_path / "runs")
    for name in ("search", "browser"):
        model = ScriptedModel([])
        factory = _factory(settings, model)
        factory.start(run, None, QUESTION)
        try:
            agent, _guard, _extra = await factory.worker(SPECS[name])
            await agent(Msg("Host", "Find how locks work.", "user"))
        finally:
            factory.close_memory()
        first = model.calls[0]["messages"][0]
        assert first["role"] == "system"
        content = first["content"]
        prompts[name] = "".join(b["text"] for b in content if b.get("type") == "text")
    return run, prompts


async def test_a_subagent_model_receives_its_own_skills_experiences(tmp_path):
    db = tmp_path / "memory.sqlite"
    settings = Settings(runs_dir=tmp_path / "runs", experience=True, store_file=db)
    with open_memory(settings) as memory:
        memory.update(
            evolved_path("search-queries"),
            lambda text: record(text, "Quoted phrases", "Exact names.", "Quote them.", DAY),
        )
    _run, prompts = await _system_prompts(tmp_path, settings)
    search = prompts["search"]
    line = "- Quoted phrases (recent). Scene: Exact names. Lesson: Quote them."
    assert line in search
    assert (
        search.index("## Skills")
        < search.index("## Experiences")
        < search.index("\n## Experience\n")
    )
    assert "Quoted phrases" not in prompts["browser"]  # another subagent's skill
    assert "## Experiences" not in prompts["browser"]


async def test_without_experiences_the_prompt_is_as_before(tmp_path):
    for on in (True, False):
        settings = Settings(
            runs_dir=tmp_path / "runs", experience=on, store_file=tmp_path / f"m-{on}.sqlite"
        )
        run, prompts = await _system_prompts(tmp_path / str(on), settings)
        for name, received in prompts.items():
            expected = worker_prompt(SPECS[name], run, QUESTION, experience=on)
            assert received == expected, name
            assert "## Experiences" not in received
