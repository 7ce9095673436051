"""Experience logs per skill: the evolved.md format, the memory store, the meta tool
evolve_skill (equipped only with experience on), the Host's own recording after a run,
the settings, and ``quartet skills``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest
from factory_support import worker_factory
from test_contract import SPEC_FIELDS, field_set, spec_fields

from fs_service.backends import StoreFileSystem
from host.brains import make_brain
from host.config import STORE_NAME, ConfigError, Settings, load_settings
from host.durability.memory import (
    BROWSER_SKILL,
    SkillMemory,
    browser_findings,
    open_memory,
    os_user,
    record_findings,
)
from host.durability.run_folder import RunFolder
from host.orchestration.factory import WorkerFactory
from host.orchestration.hub import Host
from subagents import SPECS, all_schemas
from subagents.evolve import EVOLVE_SKILL, META_GROUP, evolve_skill
from subagents.experience import (
    MAX_RECENT,
    Entry,
    evolved_path,
    merge,
    merged,
    needs_merge,
    parse,
    record,
    render,
)
from subagents.results import status_of

ROOT = Path(__file__).resolve().parent.parent
#: Seconds any child process may take before the test fails (the machine may be busy).
WAIT = 300
DAY = date(2026, 3, 1)
LATER = date(2026, 4, 2)


def _recorded(count: int, text: str = "", start: int = 1) -> str:
    """``text`` with ``count`` more findings, titled ``finding <n>`` from ``start``."""
    for n in range(start, start + count):
        text = record(text, f"finding {n}", f"scene {n}", f"lesson {n}", DAY)
    return text


def _titles(entries: tuple[Entry, ...]) -> list[str]:
    return [e.title for e in entries]


# --- the format ---------------------------------------------------------------------------


def test_25_findings_keep_the_newest_10_and_count_all():
    text = _recorded(25)
    log = parse(text)
    assert log.total == 25 and log.last_merged is None and log.core == ()
    assert _titles(log.recent) == [f"finding {n}" for n in range(16, 26)]
    assert len(log.recent) == MAX_RECENT
    assert log.recent[-1] == Entry("finding 25", "scene 25", "lesson 25")
    assert render(parse(text)) == text
    assert text.startswith("---\ntotal: 25\nlast_merged: null\n")
    assert "## Core experiences" in text and "## Recent findings" in text
    assert "### finding 25\nScene: scene 25\nLesson: lesson 25\n" in text


def test_a_merge_moves_the_recent_findings_into_the_core():
    text = merge(_recorded(25), LATER)
    log = parse(text)
    assert _titles(log.core) == [f"finding {n}" for n in range(16, 26)]
    assert log.recent == () and log.last_merged == LATER and log.total == 25
    assert render(parse(text)) == text
    assert "last_merged: 2026-04-02" in text
    assert not needs_merge(text)


def test_a_finding_is_kept_only_if_merged_before_it_is_pushed_out():
    text = merge(_recorded(3), LATER)
    text = _recorded(MAX_RECENT + 1, text, start=4)  # the 11th pushes finding 4 out
    log = parse(text)
    assert _titles(log.core) == ["finding 1", "finding 2", "finding 3"]
    assert _titles(log.recent) == [f"finding {n}" for n in range(5, 15)]
    assert log.total == 14


def test_a_merge_keeps_the_most_recent_entry_of_a_title():
    text = merge(record("", "Consent walls", "old scene", "old lesson", DAY), DAY)
    text = record(text, "Other", "s", "l", DAY)
    text = record(text, "consent WALLS", "new scene", "new lesson", DAY)
    result = merged(parse(text), LATER)
    assert [(e.title, e.lesson) for e in result.evolved.core] == [
        ("Other", "l"),
        ("consent WALLS", "new lesson"),
    ]
    assert result.moved == ("Other", "consent WALLS") and result.replaced == ("consent WALLS",)
    assert result.evolved.total == 3


def test_recording_a_recent_title_again_replaces_it():
    text = record(_recorded(2), "FINDING 1", "again", "better", DAY)
    log = parse(text)
    assert _titles(log.recent) == ["finding 2", "FINDING 1"] and log.total == 3


def test_a_merge_is_suggested_after_20_findings_since_the_last():
    assert not needs_merge(_recorded(19))
    assert needs_merge(_recorded(20))
    text = merge(_recorded(20), DAY)
    assert not needs_merge(_recorded(19, text, start=21))
    assert needs_merge(_recorded(20, text, start=21))


def test_texts_are_kept_on_one_line_and_checked():
    text = record("", "  two\nlines ", "a\n\nscene", "the\tlesson", DAY)
    assert parse(text).recent == (Entry("two lines", "a scene", "the lesson"),)
    for title, scene, lesson in (("", "s", "l"), ("t", " ", "l"), ("t" * 121, "s", "l")):
        with pytest.raises(ValueError):
            record("", title, scene, lesson, DAY)


@pytest.mark.parametrize(
    "text",
    [
        "no front matter",
        "---\ntotal: -1\n---\n",
        "---\ntotal: 1\nlast_merged: yesterday\n---\n",
        "---\ntotal: 1\n---\n## Core experiences\n\nloose text\n",
        "---\ntotal: 1\n---\n## Elsewhere\n",
        "---\ntotal: 1\n---\n## Recent findings\n\n### t\nWhy: x\n",
    ],
)
def test_a_malformed_log_is_refused(text):
    with pytest.raises(ValueError):
        parse(text)


def test_the_log_path_is_one_folder_per_skill():
    assert evolved_path("browser-access") == "/memories/skills/browser-access/evolved.md"
    for bad in ("", "a/b", "..", " x"):
        with pytest.raises(ValueError):
            evolved_path(bad)


# --- the memory store and the meta tool ---------------------------------------------------


def _read_back(db: Path, skill: str, user: str = "ada", project: str = "default") -> str:
    """``skill``'s log as a fresh connection to the database file reads it."""
    with StoreFileSystem(db, user, project) as store:
        return store.read_bytes(evolved_path(skill), 1 << 20).decode("utf-8")


def _text(response) -> str:
    return "".join(b.get("text", "") for b in response.content)


async def test_evolve_skill_writes_the_log_into_the_store(tmp_path):
    db = tmp_path / "memory.sqlite"
    own = ("browser-access", "page-reading")
    with SkillMemory(db, "ada", "default") as memory:
        first = await evolve_skill("page-reading", "Tables", "A wide table.", "Read rows whole.",
                                   memory=memory, skills=own)  # fmt: skip
        second = await evolve_skill("page-reading", "Units", "Figures.", "Keep units.",
                                    memory=memory, skills=own)  # fmt: skip
    assert status_of(first) == status_of(second) == "ok"
    assert "page-reading" in _text(second) and "2 experiences" in _text(second)
    log = parse(_read_back(db, "page-reading"))
    assert _titles(log.recent) == ["Tables", "Units"] and log.total == 2
    with pytest.raises(Exception, match="does not exist"):
        _read_back(db, "page-reading", project="other")  # another namespace sees nothing


async def test_evolve_skill_refuses_a_skill_of_another_subagent(tmp_path):
    db = tmp_path / "memory.sqlite"
    with SkillMemory(db, "ada", "default") as memory:
        response = await evolve_skill("search-queries", "t", "s", "l", memory=memory,
                                      skills=("browser-access", "page-reading"))  # fmt: skip
        assert memory.log("search-queries") == ""
        bad = await evolve_skill("page-reading", "", "s", "l", memory=memory,
                                 skills=("page-reading",))  # fmt: skip
    assert status_of(response) == "refused"
    told = _text(response)
    assert told.startswith("Error: 'search-queries' is not one of your skills")
    assert "browser-access, page-reading" in told
    assert status_of(bad) == "error" and "title is empty" in _text(bad)


def test_writers_in_two_processes_lose_no_finding(tmp_path):
    db = tmp_path / "memory.sqlite"
    code = (
        "import sys\n"
        "from datetime import date\n"
        "from host.durability.memory import SkillMemory\n"
        "from subagents.experience import evolved_path, record\n"
        "with SkillMemory(sys.argv[1], 'ada', 'default') as memory:\n"
        "    for n in range(8):\n"
        "        memory.update(evolved_path('page-reading'), lambda text: record(\n"
        "            text, f'{sys.argv[2]} {n}', 's', 'l', date.today()))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [
        subprocess.Popen([sys.executable, "-c", code, str(db), name], env=env, cwd=tmp_path)
        for name in ("a", "b")
    ]
    assert [p.wait(timeout=WAIT) for p in procs] == [0, 0]
    assert parse(_read_back(db, "page-reading")).total == 16


# --- the toolkits and prompts ---------------------------------------------------------------


def _factory(settings: Settings) -> WorkerFactory:
    return worker_factory(settings)


async def _workers(tmp_path: Path, settings: Settings) -> tuple[WorkerFactory, dict]:
    factory = _factory(settings)
    run = RunFolder.create(tmp_path / "runs")
    factory.start(run, None, "How do locks work?")
    return factory, {name: await factory.worker(spec) for name, spec in SPECS.items()}


async def test_without_experience_the_toolkits_are_exactly_the_seed_allowlists(tmp_path):
    factory, workers = await _workers(tmp_path, Settings(runs_dir=tmp_path / "runs"))
    assert factory.memory is None
    for name, (agent, _guard, extra) in workers.items():
        assert extra == ()
        schemas = {s["function"]["name"]: s for s in all_schemas(agent.toolkit)}
        assert sorted(schemas) == sorted(SPEC_FIELDS[name]), name
        for tool, listed in SPEC_FIELDS[name].items():
            assert field_set(schemas[tool]) == spec_fields(listed), f"{name}.{tool}"
        assert EVOLVE_SKILL not in agent.sys_prompt
    assert not (tmp_path / "runs" / STORE_NAME).exists()


async def test_with_experience_evolve_skill_is_the_one_extra_meta_tool(tmp_path):
    db = tmp_path / "memory.sqlite"
    settings = Settings(runs_dir=tmp_path / "runs", experience=True, store_file=db)
    factory, workers = await _workers(tmp_path, settings)
    try:
        for name, (agent, _guard, extra) in workers.items():
            toolkit = agent.toolkit
            assert extra == (EVOLVE_SKILL,)
            assert set(toolkit.tools) == {*SPEC_FIELDS[name], EVOLVE_SKILL}, name
            tool = toolkit.tools[EVOLVE_SKILL]
            assert tool.group == META_GROUP and toolkit.groups[META_GROUP].active
            assert tool.preset_kwargs["skills"] == SPECS[name].skills
            assert field_set(tool.json_schema) == spec_fields("skill, title, scene, lesson")
            prompt = agent.sys_prompt
            note = prompt[prompt.index("## Experience") :]
            assert prompt.index("## Skills") < prompt.index("## Experience")
            assert f"one of your own skills only: {', '.join(SPECS[name].skills)}." in note
        search = workers["search"][0].toolkit
        told = await _call(search, "browser-access")
        assert "not one of your skills" in told
        assert "Recorded" in await _call(search, "search-queries")
    finally:
        factory.close_memory()
    assert parse(_read_back(db, "search-queries", user=os_user())).total == 1


async def _call(toolkit, skill: str) -> str:
    """The text of ``evolve_skill`` called through ``toolkit`` as a model calls it."""
    call = {
        "type": "tool_use",
        "id": "1",
        "name": EVOLVE_SKILL,
        "input": {"skill": skill, "title": "Quoted phrases", "scene": "s", "lesson": "l"},
    }
    last = None
    async for chunk in await toolkit.call_tool_function(call):
        last = chunk
    return _text(last)


# --- the Host's own recording ---------------------------------------------------------------


def _page(run: Path, name: str, url: str, tier: str) -> None:
    sidecar = {"url": url, "final_url": url, "tier": tier, "kind": "web"}
    (run / "workspace" / "pages" / f"{name}.json").write_text(json.dumps(sidecar), "utf-8")


def _run_with_pages(runs: Path) -> RunFolder:
    run = RunFolder.create(runs)
    _page(run.path, "a1", "https://News.example/a", "chromium")
    _page(run.path, "a2", "https://news.example/b", "chromium")
    _page(run.path, "b", "https://plain.example/", "http")
    _page(run.path, "c", "https://app.example/x", "chromium")
    (run.path / "workspace" / "pages" / "broken.json").write_text("{", "utf-8")
    return run


def test_sites_read_in_chromium_are_recorded_once(tmp_path):
    run = _run_with_pages(tmp_path / "runs")
    findings = browser_findings(run.path)
    assert [f.title for f in findings] == [
        "app.example is read in a real browser",
        "news.example is read in a real browser",
    ]
    with SkillMemory(tmp_path / "m.sqlite", "ada", "default") as memory:
        assert record_findings(memory, BROWSER_SKILL, findings, DAY) == [f.title for f in findings]
        assert record_findings(memory, BROWSER_SKILL, findings, DAY) == []
        memory.update(evolved_path(BROWSER_SKILL), lambda text: merge(text, DAY))
        assert record_findings(memory, BROWSER_SKILL, findings, DAY) == []
        assert parse(memory.log(BROWSER_SKILL)).total == 2


async def test_the_host_records_after_a_run_only_with_experience_on(tmp_path):
    for on in (False, True):
        db = tmp_path / f"m-{on}.sqlite"
        settings = Settings(runs_dir=tmp_path / "runs", experience=on, store_file=db)
        host = Host(settings, make_brain("offline"))
        run = _run_with_pages(tmp_path / "runs")
        state = host._start_run(run, "q")
        result = state.result
        await host._record_experience(state)
        await host.close()
        assert result.errors == [] and host.workers.memory is None
        assert db.exists() == on
    log = parse(_read_back(db, BROWSER_SKILL, user=os_user()))
    assert _titles(log.recent) == [
        "app.example is read in a real browser",
        "news.example is read in a real browser",
    ]


# --- the settings -----------------------------------------------------------------------------


def _toml(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "quartet.toml"
    path.write_text(f"[quartet]\n{text}\n", encoding="utf-8")
    return path


def test_experience_is_off_and_the_store_in_the_runs_folder_by_default(tmp_path, clean_env):
    settings = load_settings({"runs_dir": str(tmp_path / "r")}, tmp_path / "none.toml")
    assert settings.experience is False and settings.project == "default"
    assert settings.store_path() == tmp_path / "r" / ".store" / "quartet.sqlite"


def test_the_memory_settings_come_from_the_toml_and_the_environment(tmp_path, clean_env):
    toml = _toml(tmp_path, f'experience = true\nstore = "{tmp_path}/a/m.sqlite"\nproject = "p"')
    settings = load_settings({}, toml)
    assert settings.experience is True and settings.project == "p"
    assert settings.store_path() == tmp_path / "a" / "m.sqlite"
    clean_env.setenv("QUARTET_EXPERIENCE", "false")
    clean_env.setenv("QUARTET_STORE", str(tmp_path / "b.sqlite"))
    clean_env.setenv("QUARTET_PROJECT", "q")
    settings = load_settings({}, toml)
    assert settings.experience is False and settings.project == "q"
    assert settings.store_path() == tmp_path / "b.sqlite"


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ('experience = "maybe"', "experience: expected true or false"),
        ('store = ""', "store: expected the path of a database file"),
        ("store = 3", "store: expected the path of a database file"),
        ('project = ""', "project: expected a name of 1 to 100 printable characters"),
        ('project = "a\\nb"', "project: expected a name"),
    ],
)
def test_a_bad_memory_setting_is_named(tmp_path, clean_env, line, says):
    with pytest.raises(ConfigError, match=says):
        load_settings({}, _toml(tmp_path, line))


def test_a_store_where_no_file_can_be_written_is_refused(tmp_path, clean_env):
    (tmp_path / "a-file").write_text("x", encoding="utf-8")
    with pytest.raises(ConfigError, match="it is a folder, not a database file"):
        load_settings({}, _toml(tmp_path, f'store = "{tmp_path}"'))
    with pytest.raises(ConfigError, match=r"a-file is a file, not a folder"):
        load_settings({}, _toml(tmp_path, f'store = "{tmp_path}/a-file/below/m.sqlite"'))


# --- quartet skills -----------------------------------------------------------------------------


def _skills_cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("QUARTET_")}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, "-m", "quartet", "skills", *args, "--runs-dir", str(tmp_path / "runs")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=WAIT,
    )


def test_quartet_skills_lists_shows_and_merges(tmp_path):
    store = tmp_path / "runs" / STORE_NAME
    listed = _skills_cli(tmp_path, "list")
    assert listed.returncode == 0, listed.stderr
    for spec in SPECS.values():
        for skill in spec.skills:
            assert f"{skill} ({spec.name}): no experiences recorded" in listed.stdout
    assert not store.exists()  # reading never creates the store

    settings = Settings(runs_dir=tmp_path / "runs")
    with open_memory(settings) as memory:
        memory.update(evolved_path(BROWSER_SKILL), lambda text: _recorded(25, text))
    listed = _skills_cli(tmp_path, "list")
    assert listed.returncode == 0, listed.stderr
    assert (
        "browser-access (browser): 25 experiences recorded (0 core, 10 recent), merge suggested"
        in listed.stdout
    )
    assert "page-reading (browser): no experiences recorded" in listed.stdout

    shown = _skills_cli(tmp_path, "show", BROWSER_SKILL)
    assert shown.returncode == 0, shown.stderr
    body = shown.stdout.index("# Getting at a page's content")
    assert body < shown.stdout.index("## Recent findings") < shown.stdout.index("### finding 25")

    merged_out = _skills_cli(tmp_path, "merge", BROWSER_SKILL)
    assert merged_out.returncode == 0, merged_out.stderr
    assert "moved 10 recent findings into the core experiences (10 now)" in merged_out.stdout
    assert "  finding 16\n" in merged_out.stdout
    listed = _skills_cli(tmp_path, "list")
    assert "browser-access (browser): 25 experiences recorded (10 core, 0 recent)\n" in (
        listed.stdout
    )
    again = _skills_cli(tmp_path, "merge", BROWSER_SKILL)
    assert again.returncode == 0 and "nothing to merge" in again.stdout


def test_quartet_skills_names_an_unknown_skill_and_exits_2(tmp_path):
    for action in ("show", "merge"):
        proc = _skills_cli(tmp_path, action, "browser-acess")
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.strip() == (
            "quartet: error: unknown skill 'browser-acess'; did you mean browser-access?"
        )
    assert not (tmp_path / "runs" / STORE_NAME).exists()
