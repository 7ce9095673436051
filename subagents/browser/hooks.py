"""Agent hooks that keep a Browser agent's model looking at the live page.

``attach_browser_hooks`` registers instance hooks on one ReActAgent:

- ``pre_reply``: open the start URL once, on the first reply;
- ``pre_reasoning``: put a fresh ARIA snapshot of the page into memory;
- ``post_reasoning``: take that snapshot out again, so memory never piles them up;
- ``post_acting``: normalise the tool output just stored (control characters removed,
  blank runs collapsed, length bounded).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from agentscope.message import Msg
from playwright.async_api import Error as PlaywrightError

from ..net.netguard import BlockedURLError, check_url
from ..results import bounded
from ..untrusted import neutralise
from .automation import page_snapshot
from .session import BrowserSession, BrowserUnavailableError

SNAPSHOT_MARK = "browser_snapshot"
SNAPSHOT_NAME = "browser"
HOOK_NAME = "quartet_browser"
TOOL_OUTPUT_CHARS = 20_000

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_BLANKS = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")


def normalise_text(text: str, limit: int = TOOL_OUTPUT_CHARS) -> str:
    """Tool output made tidy for a model: no control characters, no blank runs, bounded."""
    clean = _BLANKS.sub("\n\n", _CONTROL.sub("", text.replace("\r\n", "\n"))).strip()
    return bounded(clean, limit, "The output was cut.")


@dataclass
class BrowserHookState:
    """What the hooks did, in order; ``snapshot_id`` is the snapshot now in memory."""

    start_url: str | None
    navigated: bool = False
    snapshot_id: str | None = None
    events: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def attach_browser_hooks(
    agent: Any, browser: BrowserSession, start_url: str | None = None
) -> BrowserHookState:
    """Register the four browser hooks on ``agent`` (instance hooks) and return their state."""
    state = BrowserHookState(start_url=start_url)

    async def pre_reply(self: Any, kwargs: dict) -> None:
        state.events.append("pre_reply")
        if state.start_url and not state.navigated:
            state.navigated = True
            try:
                await check_url(state.start_url, browser.allow)
                page = await browser.page()
                await page.goto(state.start_url, wait_until="load")
            except (BlockedURLError, BrowserUnavailableError, PlaywrightError) as exc:
                state.errors.append(f"pre_reply: {exc}")

    async def pre_reasoning(self: Any, kwargs: dict) -> None:
        state.events.append("pre_reasoning")
        await _drop_snapshot(self, state)
        if not browser.started:
            return
        try:
            page = await browser.page()
            if page.url in ("", "about:blank"):
                return
            tree = await page_snapshot(page)
        except (BrowserUnavailableError, PlaywrightError) as exc:
            state.errors.append(f"pre_reasoning: {exc}")
            return
        msg = Msg(
            SNAPSHOT_NAME,
            # The page's own text: data, and unable to close the block (subagents.untrusted).
            f"<browser_snapshot url={page.url!r}>\n{neutralise(tree)}\n</browser_snapshot>",
            "user",
            metadata={"browser_snapshot": True, "url": page.url},
        )
        await self.memory.add(msg, marks=SNAPSHOT_MARK)
        state.snapshot_id = msg.id

    async def post_reasoning(self: Any, kwargs: dict, output: Any) -> None:
        state.events.append("post_reasoning")
        await _drop_snapshot(self, state)

    async def post_acting(self: Any, kwargs: dict, output: Any) -> None:
        state.events.append("post_acting")
        call_id = (kwargs.get("tool_call") or {}).get("id")
        for msg in reversed(await self.memory.get_memory(prepend_summary=False)):
            if not isinstance(msg.content, list):
                continue
            for block in msg.content:
                if block.get("type") == "tool_result" and block.get("id") == call_id:
                    _normalise_block(block)
                    return

    agent.register_instance_hook("pre_reply", HOOK_NAME, pre_reply)
    agent.register_instance_hook("pre_reasoning", HOOK_NAME, pre_reasoning)
    agent.register_instance_hook("post_reasoning", HOOK_NAME, post_reasoning)
    agent.register_instance_hook("post_acting", HOOK_NAME, post_acting)
    return state


async def _drop_snapshot(agent: Any, state: BrowserHookState) -> None:
    if state.snapshot_id is not None:
        await agent.memory.delete_by_mark(SNAPSHOT_MARK)
        state.snapshot_id = None


def _normalise_block(block: dict) -> None:
    output = block.get("output")
    if isinstance(output, str):
        block["output"] = normalise_text(output)
        return
    for part in output or []:
        if isinstance(part, dict) and part.get("type") == "text":
            part["text"] = normalise_text(part.get("text", ""))
