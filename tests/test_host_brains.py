"""The model factory for every provider string, and the offline policy's plans."""

from __future__ import annotations

import asyncio
import json

import pytest
from agentscope.model import ChatModelBase

from host.brains import ModelSpecError, make_brain, parse_spec
from host.brains.offline import OfflinePolicy
from subagents import SPECS
from subagents.browser import offline as browser_offline
from subagents.file import offline as file_offline
from subagents.generate import offline as generate_offline
from subagents.offline import CallResult, safe_name
from subagents.search import offline as search_offline

CANARY = "sk-canary-0b5e7d1f"

PROVIDER_ENV = {
    "openai": "OPENAI_API_KEY",
    "dashscope": "DASHSCOPE_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "gemini": "GEMINI_API_KEY",
}
EXPECTED = {
    "openai": ("OpenAIChatModel", "OpenAIMultiAgentFormatter"),
    "dashscope": ("DashScopeChatModel", "DashScopeMultiAgentFormatter"),
    "anthropic": ("AnthropicChatModel", "AnthropicMultiAgentFormatter"),
    "gemini": ("GeminiChatModel", "GeminiMultiAgentFormatter"),
    "ollama": ("OllamaChatModel", "OllamaMultiAgentFormatter"),
}


@pytest.mark.parametrize("provider", sorted(EXPECTED))
def test_each_provider_string_builds_its_model_and_formatter(provider, monkeypatch):
    if provider in PROVIDER_ENV:
        monkeypatch.setenv(PROVIDER_ENV[provider], CANARY)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")
    brain = make_brain(f"{provider}:some-model")
    model_cls, formatter_cls = EXPECTED[provider]
    assert type(brain.model).__name__ == model_cls
    assert type(brain.formatter).__name__ == formatter_cls
    assert isinstance(brain.model, ChatModelBase)
    assert brain.model.model_name == "some-model"
    assert not brain.offline


@pytest.mark.parametrize("provider", sorted(PROVIDER_ENV))
def test_a_missing_key_names_the_variable(provider, monkeypatch):
    monkeypatch.delenv(PROVIDER_ENV[provider], raising=False)
    with pytest.raises(ModelSpecError, match=PROVIDER_ENV[provider]):
        make_brain(f"{provider}:m")


def test_offline_is_the_default_and_bad_specs_are_explained():
    assert make_brain("offline").offline
    assert parse_spec("") == ("offline", "")
    assert parse_spec("openai:gpt-4o-mini") == ("openai", "gpt-4o-mini")
    for bad in ("gpt-4", "openai:", "unknown:model", "openai"):
        with pytest.raises(ModelSpecError, match="PROVIDER:NAME"):
            parse_spec(bad)


def test_errors_never_carry_key_values(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", CANARY)
    with pytest.raises(ModelSpecError) as info:
        make_brain("nope:model")
    assert CANARY not in str(info.value)


def rec(name: str, failed: bool = False, text: str = "done", **args) -> CallResult:
    """A finished call as the offline plans see it: its input and its result's text."""
    return CallResult(name, args, "Error: failed" if failed else text)


SEARCH_TOOLS = {"search_google", "search_bing", "search_sogou", "search_github", "search_wiki"}


def test_search_plan_sends_the_first_query_everywhere_and_never_repeats_a_call():
    ctx = {"queries": ["Grand Canal China built", "Grand Canal construction"]}
    calls = search_offline.plan(ctx, [], SEARCH_TOOLS)
    first = [name for name, args in calls if args["query"] == ctx["queries"][0]]
    assert first == sorted(SEARCH_TOOLS)  # every source once
    later = [name for name, args in calls if args["query"] == ctx["queries"][1]]
    assert later == sorted(search_offline.WEB_TOOLS)  # the general web only
    done = [rec(name, query=args["query"]) for name, args in calls]
    assert search_offline.plan(ctx, done, SEARCH_TOOLS) == []
    assert search_offline.plan({"subquestion": "大运河是如何修建的？"}, [], {"search_wiki"}) == [
        ("search_wiki", {"query": "大运河是如何修建的？"})
    ]


def test_browser_plan_reads_pages_with_the_question_then_fetches_the_documents_given():
    ctx = {
        "subquestion": "q",
        "max_downloads": 3,
        "urls": ["http://h/a.html", "http://h/b.html", "http://h/d/report.pdf"],
        "documents": ["http://h/d/report.pdf"],
    }
    tools = {"viewer_fetch", "http_download"}
    assert browser_offline.plan(ctx, [], tools) == [
        ("viewer_fetch", {"url": "http://h/a.html", "query": "q"}),
        ("viewer_fetch", {"url": "http://h/b.html", "query": "q"}),
    ]
    page_a = (
        "URL: http://h/x/a.html\nStored: /workspace/pages/a.md (10 characters)\n\n"
        "Question: q\nAnswer (bm25): x\n\nEvidence (exact quotes):\n"
        '- [ev-0123456789ab] "x" (characters 0–1)\n\nLinks on the page:\n'
        "- [data](http://h/files/data.xlsx)\n- [again](http://h/d/report.pdf)\n"
        "- [next page](http://h/next.html)"
    )
    done = [
        rec("viewer_fetch", text=page_a, url="http://h/a.html", query="q"),
        rec("viewer_fetch", True, url="http://h/b.html", query="q"),  # failed: not retried
    ]
    # Only the documents the Host handed out are downloaded; the ones a page links to
    # become the Host's candidates for a later task (so two tasks never race for them).
    assert browser_offline.plan(ctx, done, tools) == [
        (
            "http_download",
            {"url": "http://h/d/report.pdf", "save_path": "/workspace/downloads/report.pdf"},
        ),
    ]
    assert browser_offline.document_links(done) == [
        "http://h/files/data.xlsx",
        "http://h/d/report.pdf",
    ]
    done += [
        rec(
            "http_download",
            url="http://h/d/report.pdf",
            save_path="/workspace/downloads/report.pdf",
        ),
    ]
    assert browser_offline.plan(ctx, done, tools) == []
    outcome = browser_offline.outcome(ctx, done)
    assert outcome["evidence_ids"] == ["ev-0123456789ab"]
    assert outcome["pages"] == ["/workspace/pages/a.md"]
    assert outcome["gaps"] == ["could not read http://h/b.html"]
    assert safe_name("http://h/a%20b/报告 v1.pdf?x=1") == "报告_v1.pdf"


def test_file_plan_lists_then_reads_each_file_by_type_from_the_listing_text():
    tools = {
        "list_directory",
        "pdf_read_text",
        "xlsx_read_cells",
        "csv_read",
        "pptx_read_outline",
        "image_qa",
        "read_text_file",
    }
    assert file_offline.plan({}, [], tools) == [
        ("list_directory", {"path": "/userinput/"}),
        ("list_directory", {"path": "/workspace/downloads/"}),
    ]
    listing = (
        "/userinput/ — 5 entries:\n[FILE] a.pdf (1,024 bytes)\n[FILE] b.xlsx (2,048 bytes)\n"
        "[FILE] c.png (512 bytes)\n[FILE] d.bin (9 bytes)\n[DIR]  sub/"
    )
    done = [
        rec("list_directory", text=listing, path="/userinput/"),
        rec("list_directory", True, path="/workspace/downloads/"),
    ]
    assert file_offline.plan({}, done, tools) == [("list_directory", {"path": "/userinput/sub/"})]
    done.append(rec("list_directory", text="/userinput/sub/ — empty", path="/userinput/sub/"))
    reads = file_offline.plan({}, done, tools)
    assert reads == [
        ("pdf_read_text", {"path": "/userinput/a.pdf"}),
        ("xlsx_read_cells", {"path": "/userinput/b.xlsx", "range": "A1:Z200"}),
        ("image_qa", {"img_path": "/userinput/c.png"}),
    ]
    sheet = "/userinput/b.xlsx — sheet 'Days' (sheets: Days, 城市 表; used range A1:B3)\n..."
    done += [rec(n, text=sheet if n == "xlsx_read_cells" else "read", **a) for n, a in reads]
    assert file_offline.plan({}, done, tools) == [
        ("xlsx_read_cells", {"path": "/userinput/b.xlsx", "range": "'城市 表'!"})
    ]
    done.append(rec("xlsx_read_cells", path="/userinput/b.xlsx", range="'城市 表'!"))
    assert file_offline.plan({}, done, tools) == []


def test_generate_plan_makes_each_requested_format():
    tools = {"generate_markdown", "generate_html", "generate_pdf", "generate_pptx"}
    ctx = {"question": "q", "formats": ["md", "pdf"], "from_paths": ["/p.md"]}
    calls = generate_offline.plan(ctx, [], tools)
    assert [(n, a["out_path"]) for n, a in calls] == [
        ("generate_markdown", "/workspace/reports/report.md"),
        ("generate_pdf", "/workspace/reports/report.pdf"),
    ]
    assert all(a["from_paths"] == ["/p.md"] and a["requirements"] == "q" for _, a in calls)
    written = rec(
        "generate_markdown",
        text="Wrote /workspace/reports/report.md.\n```json\n"
        '{"path": "/workspace/reports/report.md", "citations": 3}\n```',
    )
    assert generate_offline.outcome(ctx, [written])["outputs"] == ["/workspace/reports/report.md"]


async def test_offline_policy_stops_when_the_cap_refuses():
    policy = OfflinePolicy(SPECS["search"])
    tools = [{"function": {"name": n}} for n in SEARCH_TOOLS]
    call = {"id": "c1", "function": {"name": "search_google", "arguments": '{"query": "q"}'}}
    messages = [
        {"role": "user", "name": "Host", "content": '<context>{"queries": ["q"]}</context>'},
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "Error: tool-call limit reached (1)"},
    ]
    response = await policy(messages, tools=tools)
    assert [b["type"] for b in response.content] == ["text"]
    fresh = await policy(messages[:1], tools=tools)
    assert {b["name"] for b in fresh.content} == SEARCH_TOOLS


_FILES = CallResult("task", {"subagent_type": "file", "context": {}}, "Task t (file) done.")


def _search_done(sub: str, read_next: list[str]) -> CallResult:
    facts = '```json\n{"task": "t", "subagent": "search", "status": "done", "read_next": %s}\n```'
    quoted = ", ".join(f'"{u}"' for u in read_next)
    return CallResult(
        "task",
        {"subagent_type": "search", "context": {"subquestion": sub}},
        f"Task t (search, {sub}) done.\n" + facts % f"[{quoted}]",
    )


def test_the_host_leaves_the_choice_of_pages_to_when_the_reading_starts():
    """Which pages each part reads must not depend on which search finished first.

    A search's report lists the pages nobody had been handed when it finished; parts that
    search at once see different lists depending on their order. The policy's reading
    tasks are the same whatever those lists were, so the Host picks the pages as each task
    starts, with every search of the round known.
    """
    from host.brains.offline import HostPolicy

    plan = {"subquestions": [{"id": "q1"}, {"id": "q2"}]}
    first = [_FILES, _search_done("q1", ["http://a/1", "http://a/2"]), _search_done("q2", ["x"])]
    second = [_FILES, _search_done("q2", ["http://a/1", "http://a/2"]), _search_done("q1", ["x"])]
    calls = HostPolicy().next_calls(plan, first)
    assert calls == HostPolicy().next_calls(plan, second)
    assert [(name, args["subagent_type"], args["context"]) for name, args in calls] == [
        ("task", "browser", {"subquestion": "q1"}),
        ("task", "browser", {"subquestion": "q2"}),
    ]


def _task_call(call_id: str, kind: str, **context: object) -> dict:
    """A ``task`` call of the Host as the formatter gives it to the brain."""
    args = {"description": "t", "subagent_type": kind, "context": context}
    return {"id": call_id, "function": {"name": "task", "arguments": json.dumps(args)}}


def _round(prefix: str, kind: str) -> dict:
    """The Host's message asking for a ``kind`` task for q1 and one for q2 at once."""
    calls = [_task_call(f"{prefix}{n}", kind, subquestion=f"q{n}") for n in (1, 2)]
    return {"role": "assistant", "tool_calls": calls}


def _gap_report(call_id: str, queries: list[str]) -> dict:
    """A reading task's result whose coverage report leaves q1 open, suggesting
    ``queries`` for it."""
    facts = {
        "task": call_id,
        "coverage": [{"id": "q1", "status": "partly answered"}],
        "suggestions": {"q1": {"queries": queries, "links": []}},
        "budget": {"pages_left": 5, "rounds_left": {"q1": 2}},
    }
    text = f"Task {call_id} ok.\n```json\n{json.dumps(facts)}\n```"
    return {"role": "tool", "tool_call_id": call_id, "content": text}


def test_the_host_reads_the_coverage_report_that_came_last_not_the_one_asked_last():
    """Tasks run together end in any order, and each reports coverage as it stood when
    it ended: the last to end saw every page of the round. Which follow-up searches the
    Host asks for must not depend on the order the tasks were started in."""
    from host.brains.offline import HostPolicy

    plan = {"subquestions": [{"id": "q1"}, {"id": "q2"}]}
    messages = [
        {"role": "user", "name": "user", "content": f"<plan>{json.dumps(plan)}</plan>"},
        {"role": "assistant", "tool_calls": [_task_call("d1", "file")]},
        {"role": "tool", "tool_call_id": "d1", "content": "Task d1 (file) done."},
        _round("s", "search"),
        {"role": "tool", "tool_call_id": "s1", "content": "Task s1 done."},
        {"role": "tool", "tool_call_id": "s2", "content": "Task s2 done."},
        _round("b", "browser"),
        _gap_report("b2", ["canal first"]),  # b2 ended first, before b1's pages were read
        _gap_report("b1", ["canal later"]),
    ]
    response = asyncio.run(HostPolicy()(messages, tools=[{"function": {"name": "task"}}]))
    (call,) = [b for b in response.content if b.get("type") == "tool_use"]
    assert call["input"]["context"] == {"subquestion": "q1", "queries": ["canal later"]}


def test_a_part_whose_task_failed_once_is_tried_again_and_given_up_after_twice():
    from host.brains.offline import HostPolicy

    plan = {"subquestions": [{"id": "q1"}, {"id": "q2"}]}
    read = {"subagent_type": "browser", "context": {"subquestion": "q1"}}
    failed = CallResult("task", read, "Error: [Errno 2] No such file or directory: 'x'")
    searched = [_FILES, _search_done("q1", ["http://a/1"]), _search_done("q2", ["http://a/2"])]
    once = HostPolicy().next_calls(plan, [*searched, failed])
    assert ("browser", {"subquestion": "q1"}) in [
        (args["subagent_type"], args["context"]) for _, args in once
    ]
    twice = HostPolicy().next_calls(plan, [*searched, failed, failed])
    assert all(args["context"].get("subquestion") != "q1" for _, args in twice)


def _task_done(kind: str, facts: dict, **context: object) -> CallResult:
    """A finished task of ``kind`` whose result ends with the fenced ``facts`` block."""
    block = "```json\n" + json.dumps({"task": "t", "subagent": kind, **facts}) + "\n```"
    return CallResult(
        "task", {"subagent_type": kind, "context": context}, f"Task t ({kind}) ok.\n{block}"
    )


def _research_then_early_read() -> list[CallResult]:
    """Input files, one round for q1, the downloads read once, and a later download."""
    return [
        _FILES,
        _search_done("q1", ["http://a/1"]),
        _task_done("browser", {}, subquestion="q1"),
        _task_done("file", {}, paths=["/workspace/downloads/"]),
        _task_done(
            "browser", {"downloads_unread": ["/workspace/downloads/late.pdf"]}, download=True
        ),
    ]


def _kinds(calls: list[tuple[str, dict]]) -> list[tuple[str, dict]]:
    return [(args["subagent_type"], args["context"]) for _, args in calls]


def test_the_host_reads_the_downloads_again_when_a_later_task_saved_one():
    from host.brains.offline import HostPolicy

    plan = {"subquestions": [{"id": "q1"}]}
    calls = HostPolicy().next_calls(plan, _research_then_early_read())
    assert _kinds(calls) == [("file", {"paths": ["/workspace/downloads/"]})]
    nothing_new = [*_research_then_early_read()[:-1], _task_done("browser", {}, download=True)]
    assert _kinds(HostPolicy().next_calls(plan, nothing_new)) == [("generate", {})]


def test_a_download_the_file_task_could_not_read_is_not_asked_for_again():
    """The Host reads unread downloads once after the task that saved them, not in a loop."""
    from host.brains.offline import HostPolicy

    plan = {"subquestions": [{"id": "q1"}]}
    unread = {"downloads_unread": ["/workspace/downloads/late.pdf"]}
    failed = _task_done("file", unread, paths=["/workspace/downloads/"])
    done = [*_research_then_early_read(), failed]
    assert _kinds(HostPolicy().next_calls(plan, done)) == [("generate", {})]
    errored = CallResult("task", {"subagent_type": "file", "context": {}}, "Error: timed out")
    done = [*_research_then_early_read(), errored]
    assert _kinds(HostPolicy().next_calls(plan, done)) == [("generate", {})]
    written = _task_done("generate", unread)
    assert HostPolicy().next_calls(plan, [*_research_then_early_read(), written]) == []
