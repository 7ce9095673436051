"""Browser automation tools and agent hooks, driving real Chromium on a loopback form page."""

from __future__ import annotations

import pytest
import pytest_asyncio
from agentscope.agent import ReActAgent
from agentscope.formatter import OpenAIChatFormatter
from agentscope.memory import InMemoryMemory
from agentscope.message import Msg, TextBlock, ToolUseBlock
from agentscope.model import ChatModelBase, ChatResponse
from agentscope.tool import ToolResponse
from browser_sites import running_site
from browser_support import LOOPBACK, LOOPBACK_SETTINGS
from scripted import call_tool as call

from subagents import build_toolkit
from subagents.browser.automation import browser_navigate, browser_snapshot
from subagents.browser.hooks import SNAPSHOT_MARK, attach_browser_hooks
from subagents.browser.session import BrowserSession
from subagents.results import text_of

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture(scope="module")
def site():
    with running_site() as server:
        yield server


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser():
    session = BrowserSession(allow=LOOPBACK)
    try:
        yield session
    finally:
        await session.aclose()


async def test_form_is_filled_clicked_waited_for_and_captured(site, browser, disk_service):
    toolkit = build_toolkit(
        "browser",
        service=disk_service,
        browser=browser,
        evidence=None,
        model=None,
        settings=LOOPBACK_SETTINGS,
    )
    res = await call(toolkit, "browser_navigate", url=site.url("/form.html"))
    assert "Order form" in text_of(res) and "HTTP 200" in text_of(res)
    snap = text_of(await call(toolkit, "browser_snapshot"))
    assert 'button "Send order"' in snap and 'textbox "Your name"' in snap
    res = await call(toolkit, "browser_type", selector='role=textbox[name="Your name"]', text="Ada")
    assert res.content[0]["text"].startswith("Typed into")
    res = await call(toolkit, "browser_click", selector='role=button[name="Send order"]')
    assert res.content[0]["text"].startswith("Clicked")
    res = await call(toolkit, "browser_wait", selector="#confirmed", timeout=5000)
    assert text_of(res).startswith("Found visible"), text_of(res)
    snap = text_of(await call(toolkit, "browser_snapshot"))
    assert "Thank you, Ada!" in snap and "Order confirmed for Ada" in snap
    res = await call(toolkit, "browser_screenshot")
    (path,) = res.metadata["paths"]
    assert path.startswith("/workspace/screenshots/127-0-0-1-") and path.endswith(".png")
    png = await disk_service.read_bytes(path)
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    assert text_of(res).startswith("Saved a screenshot of http://127.0.0.1:")
    assert text_of(res).endswith(f" to {path} ({len(png)} bytes).")


async def test_wait_that_times_out_and_bad_selector_are_errors(site, browser):
    await browser_navigate(site.url("/form.html"), browser=browser)
    toolkit = build_toolkit(
        "browser",
        service=None,
        browser=browser,
        evidence=None,
        model=None,
        settings=LOOPBACK_SETTINGS,
    )
    res = await call(toolkit, "browser_wait", selector="#never-there", timeout=200)
    assert text_of(res).startswith("Error: could not wait for '#never-there'")
    assert "browser_snapshot" in text_of(res)
    res = await call(toolkit, "browser_click", selector="###")
    assert text_of(res).startswith("Error: could not click '###'")


async def test_navigate_refuses_private_addresses():
    strict = BrowserSession()  # no host exempt from the private-address refusal
    try:
        res = await browser_navigate("http://127.0.0.1:9/", browser=strict)
    finally:
        await strict.aclose()
    assert text_of(res).startswith("Error: refused")
    assert res.metadata["status"] == "error" and not strict.started


async def test_snapshot_needs_an_open_page_and_a_missing_browser_is_unavailable(site):
    session = BrowserSession(allow=LOOPBACK)
    try:
        res = await browser_snapshot(browser=session)
        assert text_of(res).startswith("Error: no page is open")
    finally:
        await session.aclose()
    assert not session.started
    broken = BrowserSession(executable="/nonexistent/chromium", allow=LOOPBACK)
    try:
        res = await browser_navigate(site.url("/form.html"), browser=broken)
    finally:
        await broken.aclose()
    assert res.metadata["status"] == "unavailable"
    assert "Chromium could not be started" in text_of(res)
    assert "Chromium could not be started" in res.metadata["reason"]


# --- hooks on a real ReActAgent -------------------------------------------------------


class ScriptedModel(ChatModelBase):
    """Plays a fixed plan and records the prompt it was given at each step."""

    def __init__(self, plan: list[list]) -> None:
        super().__init__(model_name="scripted", stream=False)
        self.plan = list(plan)
        self.prompts: list[str] = []

    async def __call__(self, messages, tools=None, tool_choice=None, **kwargs):
        text = repr(messages)
        start = text.find("<browser_snapshot")
        self.prompts.append(text[start : text.find("</browser_snapshot>")] if start >= 0 else "")
        return ChatResponse(
            content=self.plan.pop(0) if self.plan else [TextBlock(type="text", text="done")]
        )


def use(call_id: str, name: str, **kwargs) -> list:
    return [ToolUseBlock(type="tool_use", id=call_id, name=name, input=kwargs)]


async def noisy_tool() -> ToolResponse:
    """Return untidy text.

    Used to see the post_acting hook tidy tool output.
    """
    return ToolResponse(content=[TextBlock(type="text", text="a\x00b\r\n\n\n\n\nc" + "z" * 30_000)])


async def test_hooks_fire_in_order_and_keep_the_snapshot_only_during_reasoning(site, disk_service):
    session = BrowserSession(allow=LOOPBACK)
    toolkit = build_toolkit(
        "browser",
        service=disk_service,
        browser=session,
        evidence=None,
        model=None,
        settings=LOOPBACK_SETTINGS,
    )
    toolkit.register_tool_function(noisy_tool)
    model = ScriptedModel(
        [
            use("t1", "browser_type", selector="#name", text="Grace"),
            use("t2", "browser_click", selector="#go"),
            use("t3", "noisy_tool"),
        ]
    )
    agent = ReActAgent(
        name="Browser",
        sys_prompt="You drive a browser.",
        model=model,
        formatter=OpenAIChatFormatter(),
        toolkit=toolkit,
        memory=InMemoryMemory(),
        max_iters=6,
    )
    agent.set_console_output_enabled(False)
    visits = site.paths().count("/form.html")
    state = attach_browser_hooks(agent, session, start_url=site.url("/form.html"))
    try:
        reply = await agent(Msg("user", "Order tea for Grace.", "user"))
        again = await agent(Msg("user", "Anything else?", "user"))
    finally:
        await session.aclose()
    assert reply.get_text_content() == "done" and again.get_text_content() == "done"
    one_call = ["pre_reasoning", "post_reasoning", "post_acting"]
    assert state.events == [
        "pre_reply",
        *one_call * 3,
        "pre_reasoning",
        "post_reasoning",
        "pre_reply",
        "pre_reasoning",
        "post_reasoning",
    ]
    assert state.errors == []
    # Each prompt is built from memory (only its snapshot part is kept here).
    assert len(model.prompts) == 5
    assert all("<browser_snapshot url=" in p for p in model.prompts)
    assert await agent.memory.get_memory(mark=SNAPSHOT_MARK) == []
    assert all("<browser_snapshot" not in repr(m.content) for m in await agent.memory.get_memory())
    # Each reasoning step saw the page as it was at that moment.
    assert 'textbox "Your name"' in model.prompts[0] and "Grace" not in model.prompts[0]
    assert "Grace" in model.prompts[1] and "Thank you" not in model.prompts[1]
    assert "Thank you, Grace!" in model.prompts[2]
    # The start URL was opened once, on the first reply only.
    assert site.paths().count("/form.html") == visits + 1
    results = [
        b
        for m in await agent.memory.get_memory()
        if isinstance(m.content, list)
        for b in m.content
        if b.get("type") == "tool_result" and b["id"] == "t3"
    ]
    text = results[0]["output"][0]["text"]
    assert text.startswith("ab\n\nc") and "\x00" not in text and "\r" not in text
    assert len(text) < 21_000 and "more characters not shown" in text
