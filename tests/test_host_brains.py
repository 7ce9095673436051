"""The model factory for every provider string, and the offline policy's plans."""

from __future__ import annotations

import pytest
from agentscope.model import ChatModelBase

from host.brains import ModelSpecError, make_brain, parse_spec
from host.brains.offline import (
    OfflinePolicy,
    keywords,
    plan_browser,
    plan_file,
    plan_generate,
    plan_search,
    safe_name,
)
from host.guards import ToolCallRecord

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


def rec(name: str, failed: bool = False, **kw) -> ToolCallRecord:
    r = ToolCallRecord(
        "x", name, kw.pop("input", {}), text=kw.pop("text", ""), metadata=kw.pop("metadata", {})
    )
    if failed:
        r.text = "Error: failed"
    return r


SEARCH_TOOLS = {"search_google", "search_bing", "search_sogou", "search_github", "search_wiki"}


def test_search_plan_calls_every_source_once():
    ctx = {"question": "How was the Grand Canal of China built?"}
    calls = plan_search(ctx, [], SEARCH_TOOLS)
    assert [c[0] for c in calls] == [
        "search_google",
        "search_bing",
        "search_sogou",
        "search_github",
        "search_wiki",
    ]
    assert calls[0][1]["query"] == ctx["question"]
    assert calls[4][1]["query"] == "Grand Canal China built"
    assert plan_search(ctx, [rec("search_google")], SEARCH_TOOLS) == []
    assert keywords("大运河是如何修建的？") == "大运河是如何修建的"


def test_browser_plan_reads_pages_then_asks_them_and_fetches_linked_documents():
    ctx = {
        "question": "q",
        "max_pages": 2,
        "urls": [
            {"url": "http://h/a.html"},
            {"url": "http://h/b.html"},
            {"url": "http://h/c.html"},
            {"url": "http://h/d/report.pdf"},
        ],
    }
    tools = {"viewer_fetch", "http_download"}
    first = plan_browser(ctx, [], tools)
    assert first == [
        ("viewer_fetch", {"url": "http://h/a.html"}),
        ("viewer_fetch", {"url": "http://h/b.html"}),
        (
            "http_download",
            {"url": "http://h/d/report.pdf", "save_path": "/workspace/downloads/report.pdf"},
        ),
    ]
    done = [
        rec(
            "viewer_fetch",
            input={"url": "http://h/a.html"},
            text="see [data](../files/data.xlsx) and [again](/d/report.pdf)",
            metadata={"url": "http://h/x/a.html"},
        ),
        rec("viewer_fetch", True, input={"url": "http://h/b.html"}),
        rec(
            "http_download",
            input={"url": "http://h/d/report.pdf", "save_path": "/workspace/downloads/report.pdf"},
        ),
    ]
    second = plan_browser(ctx, done, tools)
    assert second == [
        ("viewer_fetch", {"url": "http://h/a.html", "query": "q"}),  # b failed: not asked
        (
            "http_download",
            {"url": "http://h/files/data.xlsx", "save_path": "/workspace/downloads/data.xlsx"},
        ),
    ]
    done += [
        rec("viewer_fetch", input={"url": "http://h/a.html", "query": "q"}),
        rec("http_download", input={"url": "http://h/files/data.xlsx"}),
    ]
    assert plan_browser(ctx, done, tools) == []
    assert safe_name("http://h/a%20b/报告 v1.pdf?x=1") == "报告_v1.pdf"


def test_file_plan_lists_then_reads_by_type_then_writes_notes():
    tools = {
        "list_directory",
        "pdf_read_text",
        "xlsx_read_cells",
        "csv_read",
        "pptx_read_outline",
        "image_qa",
        "read_text_file",
        "write_file",
    }
    first = plan_file({}, [], tools)
    assert first == [
        ("list_directory", {"path": "/userinput/"}),
        ("list_directory", {"path": "/workspace/downloads/"}),
    ]
    entries = [
        {"path": p, "is_dir": False}
        for p in ("/userinput/a.pdf", "/userinput/b.xlsx", "/userinput/c.png", "/userinput/d.bin")
    ]
    done = [
        rec(
            "list_directory",
            input={"path": "/userinput/"},
            metadata={"entries": [*entries, {"path": "/userinput/sub/", "is_dir": True}]},
        ),
        rec("list_directory", input={"path": "/workspace/downloads/"}, metadata={"entries": []}),
    ]
    assert plan_file({}, done, tools) == [("list_directory", {"path": "/userinput/sub/"})]
    done.append(rec("list_directory", input={"path": "/userinput/sub/"}, metadata={"entries": []}))
    reads = plan_file({}, done, tools)
    assert reads == [
        ("pdf_read_text", {"path": "/userinput/a.pdf"}),
        ("xlsx_read_cells", {"path": "/userinput/b.xlsx", "range": "A1:L60"}),
        ("image_qa", {"img_path": "/userinput/c.png"}),
    ]
    metadata = {
        "pdf_read_text": {
            "pages": [
                {
                    "page": 1,
                    "text": "The canal was built in\nstages "
                    "over many centuries. Short. It carried grain north.",
                }
            ]
        },
        "xlsx_read_cells": {"cells": [["Day", "City"], [1, "Beijing"], [None, ""]]},
        "image_qa": {"ocr_text": "THE GRAND CANAL\n\n大运河"},
    }
    done += [rec(n, input=a, metadata=metadata[n]) for n, a in reads]
    notes = plan_file({"question": "q"}, done, tools)
    assert notes[0][0] == "write_file" and notes[0][1]["path"] == "/workspace/notes/files.md"
    assert notes[0][1]["content"] == (
        "## From the input file a.pdf\n\n"
        "- The canal was built in stages over many centuries.\n"
        "- It carried grain north.\n\n"
        "## From the input file b.xlsx\n\n- Day — City\n- 1 — Beijing\n\n"
        "## From the input file c.png\n\n"
        "- Text in the image: THE GRAND CANAL\n- Text in the image: 大运河\n"
    )


def test_generate_plan_makes_each_requested_format():
    tools = {"generate_markdown", "generate_html", "generate_pdf", "generate_pptx"}
    calls = plan_generate(
        {"question": "q", "formats": ["md", "pdf"], "paths": ["/p.md"]}, [], tools
    )
    assert [(n, a["out_path"]) for n, a in calls] == [
        ("generate_markdown", "/workspace/reports/report.md"),
        ("generate_pdf", "/workspace/reports/report.pdf"),
    ]
    assert all(a["from_paths"] == ["/p.md"] for _, a in calls)


async def test_offline_policy_stops_when_the_cap_refuses():
    class FakeGuard:
        def __init__(self) -> None:
            self.records = [ToolCallRecord("s", "search_google", {}, refused=True)]

    policy = OfflinePolicy()
    policy.bind(FakeGuard())  # type: ignore[arg-type]
    tools = [{"function": {"name": n}} for n in SEARCH_TOOLS]
    response = await policy(
        [{"role": "user", "content": '<context>{"question": "q"}</context>'}], tools=tools
    )
    assert response.content[0]["type"] == "text"
