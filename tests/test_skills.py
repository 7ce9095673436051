"""Skills: each subagent's prompt carries its own skills, the Host's none.

The shipped skills parse and keep to field knowledge; the factory builds each subagent's
system prompt with its skills' names and descriptions, and the bodies of those the run's
question is relevant to; a user's skill from ``[quartet.skills]`` reaches only the
subagent it is listed under; a malformed ``SKILL.md`` is refused with the file named.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from factory_support import worker_factory

from host.config import ConfigError, Settings, load_settings
from host.durability.run_folder import RunFolder
from host.orchestration.factory import WorkerFactory, worker_prompt
from subagents import PIPELINE_ORDER, SPECS
from subagents.skills import (
    SHIPPED_ROOT,
    SKILL_FILE,
    Skill,
    is_relevant,
    load_skill,
    skills_for,
    skills_prompt,
)

SHIPPED = sorted(p.parent for p in SHIPPED_ROOT.glob(f"*/{SKILL_FILE}"))
TOOL_NAMES = {name for spec in SPECS.values() for name in spec.allowlist()}


def _skill(root: Path, folder: str, text: str) -> Path:
    path = root / folder
    path.mkdir(parents=True)
    (path / SKILL_FILE).write_text(text, encoding="utf-8")
    return path


def _factory(settings: Settings) -> WorkerFactory:
    return worker_factory(settings)


async def _prompts(tmp_path: Path, settings: Settings, question: str | None) -> dict[str, str]:
    """Every subagent's system prompt, and the Host's, as the factory builds them."""
    factory = _factory(settings)
    run = RunFolder.create(tmp_path / "runs")
    factory.start(run, None, question)
    prompts = {name: (await factory.worker(spec))[0].sys_prompt for name, spec in SPECS.items()}
    prompts["host"] = factory.host_agent(SPECS).sys_prompt
    return prompts


# --- the shipped skills ------------------------------------------------------------------


def test_every_shipped_skill_parses_with_a_name_and_a_one_sentence_description():
    assert len(SHIPPED) >= len(PIPELINE_ORDER)
    for folder in SHIPPED:
        skill = load_skill(folder)
        assert skill.name == folder.name, folder
        assert skill.description.endswith(".") and skill.description.count(". ") == 0, folder
        assert skill.body and len(skill.body.splitlines()) <= 40, folder


def test_shipped_skills_are_field_knowledge_not_tool_documentation():
    for folder in SHIPPED:
        text = (folder / SKILL_FILE).read_text(encoding="utf-8")
        named = sorted(tool for tool in TOOL_NAMES if tool in text)
        assert not named, f"{folder.name} names tools: {named}"


def test_each_subagent_names_one_or_two_shipped_skills_of_its_own():
    owners: dict[str, str] = {}
    for name in PIPELINE_ORDER:
        spec = SPECS[name]
        assert 1 <= len(spec.skills) <= 2, name
        assert [s.name for s in skills_for(spec.skills)] == list(spec.skills)
        for skill in spec.skills:
            assert owners.setdefault(skill, name) == name, f"{skill} is shared"
    assert set(owners) == {folder.name for folder in SHIPPED}


# --- prompts ------------------------------------------------------------------------------


async def test_each_prompt_holds_its_own_skills_and_the_hosts_none(tmp_path):
    prompts = await _prompts(tmp_path, Settings(), "How many people lived in the city in 2020?")
    for name, prompt in prompts.items():
        own = set(SPECS[name].skills) if name in SPECS else set()
        for other in PIPELINE_ORDER:
            for skill in SPECS[other].skills:
                assert (skill in prompt) == (skill in own), f"{skill} in {name}'s prompt"
    assert "## Skills" not in prompts["host"]


async def test_the_prompt_ends_with_the_skills_after_the_grants(tmp_path):
    spec = SPECS["file"]
    run = RunFolder.create(tmp_path)
    prompt = worker_prompt(spec, run, None)
    assert prompt.startswith(spec.sys_prompt)
    grants = prompt.index(run.subagent_service.describe_grants_markdown())
    assert grants < prompt.index("## Skills")


def test_only_the_bodies_of_relevant_skills_are_included(tmp_path):
    run = RunFolder.create(tmp_path)
    pdf, office = skills_for(SPECS["file"].skills)
    question = "What is the total of the spreadsheet's revenue column?"
    assert is_relevant(office, question) and not is_relevant(pdf, question)
    prompt = worker_prompt(SPECS["file"], run, question)
    assert office.body in prompt and pdf.body not in prompt
    assert pdf.description in prompt and office.description in prompt
    scanned = worker_prompt(SPECS["file"], run, "Which PDF files were scanned?")
    assert pdf.body in scanned and office.body not in scanned


def test_without_a_task_only_names_and_descriptions_are_given():
    skills = skills_for(SPECS["search"].skills)
    text = skills_prompt(skills)
    assert all(s.name in text and s.description in text for s in skills)
    assert not any(s.body in text for s in skills)
    assert skills_prompt([], "anything") == ""


def test_relevance_ignores_case_stop_words_and_a_plural_s(tmp_path):
    skill = Skill("tables", "Helps read the TABLES of a report.", "body", tmp_path)
    assert is_relevant(skill, "one table, please")
    assert is_relevant(skill, "the Report")
    assert not is_relevant(skill, "what is the answer for them?")


# --- the user's skills --------------------------------------------------------------------


async def test_a_user_skill_from_quartet_toml_reaches_only_its_subagent(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        if name.startswith("QUARTET_"):
            monkeypatch.delenv(name)
    folder = _skill(
        tmp_path / "mine",
        "paywalls",
        "---\nname: archive-copies\ndescription: Helps find archived copies of paywalled "
        "newspaper articles.\n---\nLook for the article in a web archive.\n",
    )
    toml = tmp_path / "quartet.toml"
    toml.write_text(f'[quartet.skills]\nbrowser = ["{folder}"]\n', encoding="utf-8")
    settings = load_settings({}, toml)
    assert settings.skills == {"browser": (folder.resolve(),)}
    prompts = await _prompts(tmp_path, settings, "Which newspaper articles mention it?")
    assert "archive-copies" in prompts["browser"]
    assert "Look for the article in a web archive." in prompts["browser"]
    assert all("archive-copies" not in p for name, p in prompts.items() if name != "browser")
    assert all(skill in prompts["browser"] for skill in SPECS["browser"].skills)


def test_a_user_skill_named_like_a_shipped_one_replaces_it(tmp_path):
    folder = _skill(
        tmp_path, "mine", "---\nname: report-writing\ndescription: House style.\n---\nOurs.\n"
    )
    prompt = worker_prompt(SPECS["generate"], RunFolder.create(tmp_path), "house", [folder])
    assert prompt.count("report-writing") == 2 and "Ours." in prompt  # listed, then its body
    assert skills_for(["report-writing"])[0].description not in prompt


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('browsr = ["x"]', r"'browsr' in \[quartet.skills\]; did you mean browser\?"),
        ('browser = "x"', r"skills.browser: expected a list of skill folders"),
        ('browser = ["nowhere"]', r"skills.browser: nowhere is not a folder holding SKILL.md"),
    ],
)
def test_a_bad_skills_table_is_refused(tmp_path, monkeypatch, table, message):
    monkeypatch.chdir(tmp_path)
    toml = tmp_path / "quartet.toml"
    toml.write_text(f"[quartet.skills]\n{table}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=message):
        load_settings({}, toml)


def test_a_skill_whose_front_matter_is_bad_is_refused_through_the_settings(tmp_path):
    folder = _skill(tmp_path, "bad", "---\nname: bad\n---\nbody\n")
    toml = tmp_path / "quartet.toml"
    toml.write_text(f'[quartet.skills]\nfile = ["{folder}"]\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"skills.file: .*SKILL.md: .*'description'"):
        load_settings({}, toml)


# --- malformed SKILL.md -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("# No front matter\n", "expected YAML front matter"),
        ("---\nname: x\ndescription: [unclosed\n---\nbody\n", "not valid YAML"),
        ("---\n- a list\n---\nbody\n", "must be a mapping"),
        ("---\ndescription: Helps.\n---\nbody\n", "non-empty 'name'"),
        ("---\nname: x\ndescription: '  '\n---\nbody\n", "non-empty 'description'"),
    ],
)
def test_a_bad_skill_file_gives_a_clear_error_naming_it(tmp_path, text, message):
    folder = _skill(tmp_path, "bad", text)
    with pytest.raises(ValueError, match=message) as caught:
        load_skill(folder)
    assert str(caught.value).startswith(str(folder / SKILL_FILE))


def test_a_missing_skill_is_named(tmp_path):
    with pytest.raises(ValueError, match=r"no SKILL.md"):
        load_skill(tmp_path)
    with pytest.raises(ValueError, match=r"skill 'nowhere': no nowhere/SKILL.md in"):
        skills_for(["nowhere"], [tmp_path])
    found = _skill(tmp_path, "extra", "---\nname: extra\ndescription: More.\n---\nText.\n")
    assert skills_for(["extra"], [tmp_path])[0].path == found / SKILL_FILE
