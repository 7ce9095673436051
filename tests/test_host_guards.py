"""Guards by mechanism, driven through a real ReActAgent by a scripted model."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from agentscope.agent import ReActAgent
from agentscope.formatter import OpenAIChatFormatter
from agentscope.memory import InMemoryMemory
from agentscope.message import Msg, TextBlock
from agentscope.model import ChatModelBase, ChatResponse
from agentscope.tool import Toolkit, ToolResponse
from scripted import ScriptedModel, tool_call

from host.core.stages import message_text
from host.orchestration.guards import (
    DelegationDepthError,
    ToolGuard,
    current_depth,
    delegation_scope,
)
from subagents.results import ok


class Counter:
    def __init__(self) -> None:
        self.calls: list[str] = []


def make_toolkit(counter: Counter) -> Toolkit:
    async def bump(label: str, counter: object) -> ToolResponse:
        """Count one call.

        Args:
            label (str): A label for the call.
        """
        counter.calls.append(label)
        return ok(f"counted {label} with {type(counter).__name__}")

    async def big(counter: object) -> ToolResponse:
        """Return a very long text."""
        return ok("x" * 50_000)

    tk = Toolkit()
    tk.register_tool_function(bump, preset_kwargs={"counter": counter})
    tk.register_tool_function(big, preset_kwargs={"counter": counter})
    return tk


def agent_with(
    model: ScriptedModel, tk: Toolkit, cls: type[ReActAgent] = ReActAgent, **kwargs: Any
) -> ReActAgent:
    agent = cls(
        name="worker",
        sys_prompt="work",
        model=model,
        formatter=OpenAIChatFormatter(),
        toolkit=tk,
        memory=InMemoryMemory(),
        **{"max_iters": 5, **kwargs},
    )
    agent.set_console_output_enabled(False)
    return agent


async def test_over_cap_call_is_refused_before_the_tool_and_cap_resets_per_delegation():
    counter = Counter()
    tk = make_toolkit(counter)
    guard = ToolGuard("worker", tk, cap=3)
    burst = [tool_call("bump", f"c{i}", label=str(i)) for i in range(5)]
    model = ScriptedModel([burst])
    await agent_with(model, tk)(Msg("Host", "go", "user"))
    assert counter.calls == ["0", "1", "2"]  # the 4th and 5th never reached the tool
    refused = [r for r in guard.records if r.refused]
    assert len(refused) == 2 and "tool-call limit reached (3" in refused[0].text
    # the refusal reached the model as a tool result telling it to wrap up
    last_messages = str(model.calls[-1]["messages"])
    assert "Stop calling tools and give your final answer" in last_messages

    guard.reset()
    model.plan = [[tool_call("bump", "d1", label="again")]]
    await agent_with(model, tk)(Msg("Host", "go again", "user"))
    assert counter.calls[-1] == "again"


async def test_a_model_cannot_override_an_injected_dependency():
    counter = Counter()
    tk = make_toolkit(counter)
    guard = ToolGuard("worker", tk)
    model = ScriptedModel([[tool_call("bump", "c1", label="x", counter="EVIL")]])
    await agent_with(model, tk)(Msg("Host", "go", "user"))
    assert counter.calls == ["x"]
    assert guard.records[0].input == {"label": "x"}
    assert "with Counter" in guard.records[0].text


async def test_oversized_results_are_evicted_with_a_preview_and_reference():
    counter = Counter()
    tk = make_toolkit(counter)
    stored: dict[str, str] = {}

    async def evict(tool: str, text: str) -> str:
        stored[tool] = text
        return f"/internal/evicted/{tool}.txt"

    guard = ToolGuard("worker", tk, evict=evict, evict_chars=10_000)
    model = ScriptedModel([[tool_call("big", "c1")]])
    agent = agent_with(model, tk)
    await agent(Msg("Host", "go", "user"))
    assert len(stored["big"]) == 50_000
    assert guard.records[0].evicted_to == "/internal/evicted/big.txt"
    seen = str(model.calls[-1]["messages"])
    assert "/internal/evicted/big.txt" in seen and "x" * 10_000 not in seen


async def test_errors_reach_the_model_with_their_real_cause():
    tk = Toolkit()

    async def boom(path: str) -> ToolResponse:
        """Fail.

        Args:
            path (str): Anything.
        """
        raise OSError("disk on fire")

    tk.register_tool_function(boom)
    guard = ToolGuard("worker", tk)
    model = ScriptedModel([[tool_call("boom", "c1", path="/x")]])
    await agent_with(model, tk)(Msg("Host", "go", "user"))
    assert "disk on fire" in guard.records[0].text
    assert "disk on fire" in str(model.calls[-1]["messages"])
    assert len(model.calls) == 2  # no blind retry: one failure, then the model decides


def test_delegation_depth_is_capped_and_restored():
    assert current_depth() == 0
    with delegation_scope(cap=2) as d1:
        assert d1 == 1
        with delegation_scope(cap=2) as d2:
            assert d2 == 2
            with (
                pytest.raises(DelegationDepthError, match="over the cap of 2"),
                delegation_scope(cap=2),
            ):
                pass
        assert current_depth() == 1
    assert current_depth() == 0


async def test_depth_is_per_task():
    async def nested(n: int) -> int:
        with delegation_scope(cap=3):
            await asyncio.sleep(0)
            return current_depth() + n * 0

    results = await asyncio.gather(*(nested(i) for i in range(5)))
    assert results == [1] * 5


async def test_unknown_tools_and_invalid_arguments_are_failed_calls_everywhere():
    from io import StringIO

    from pydantic import BaseModel
    from rich.console import Console

    from host.core.stages import summarize
    from host.display.progress import Progress

    class Answer(BaseModel):
        count: int

    counter = Counter()
    tk = make_toolkit(counter)
    shown = Progress(console=Console(file=StringIO(), width=200, color_system=None), verbose=True)
    guard = ToolGuard("worker", tk, on_call=lambda r: shown("tool", {"record": r}))
    model = ScriptedModel(
        [
            [tool_call("no_such_tool", "c1", label="x")],
            [tool_call("bump", "c2")],  # the required label is missing
            [tool_call("bump", "c3", label=["not", "a", "string"])],
            [tool_call("generate_response", "c4", count="many")],
            [tool_call("generate_response", "c5", count=2)],
        ]
    )
    await agent_with(model, tk)(Msg("Host", "go", "user"), structured_model=Answer)
    statuses = [(r.name, r.status) for r in guard.records]
    assert statuses == [
        ("no_such_tool", "unknown tool"),
        ("bump", "invalid arguments"),
        ("bump", "ok"),  # a mistyped argument the tool coped with is not a failure
        ("generate_response", "invalid arguments"),
        ("generate_response", "ok"),
    ]
    lines = [r.summary() for r in guard.records]
    assert [line["ok"] for line in lines] == [False, False, True, False, True]
    assert lines[0]["status"] == "unknown tool"
    display = shown.console.file.getvalue().splitlines()
    assert display[0].startswith("  ✗ worker: no_such_tool") and "unknown tool" in display[0]
    assert display[1].startswith("  ✗ worker: bump") and "invalid arguments" in display[1]
    assert display[2].startswith("  ✓ worker: bump")
    guard.records[0].text = "Error: cannot read [/workspace/pages/a.md]"  # not rich markup
    shown("tool", {"record": guard.records[0]})
    assert shown.console.file.getvalue().splitlines()[-1].endswith("[/workspace/pages/a.md]")
    hub_text = summarize("worker", guard.records, None)
    assert hub_text.startswith("[worker] 5 tool calls, 2 succeeded, 3 failed.")
    assert "no_such_tool failed (unknown tool)" in hub_text


async def test_a_timed_out_task_keeps_its_finished_calls_and_counts_the_interrupted_one():
    from host.core.stages import kept
    from host.orchestration.delegation import run_with_timeout
    from host.orchestration.workers import WorkerAgent

    entered = asyncio.Event()

    async def fetch(url: str) -> ToolResponse:
        """Store a page.

        Args:
            url (str): The page.
        """
        return ok(f"Stored: {url}", paths=["/workspace/pages/a.md"], evidence_ids=["e1"])

    async def hang(url: str) -> ToolResponse:
        """Never finish.

        Args:
            url (str): The page.
        """
        entered.set()
        await asyncio.Event().wait()  # never set
        return ok("unreachable")

    tk = Toolkit()
    tk.register_tool_function(fetch)
    tk.register_tool_function(hang)
    guard = ToolGuard("browser", tk)
    model = ScriptedModel(
        [[tool_call("fetch", "c1", url="u1")], [tool_call("hang", "c2", url="u2")]]
    )
    agent = agent_with(model, tk, WorkerAgent, parallel_tool_calls=True)
    reply, timed_out = await run_with_timeout(agent(Msg("Host", "go", "user")), 0.5)
    assert timed_out and entered.is_set()
    assert [(r.name, r.status) for r in guard.records] == [("fetch", "ok"), ("hang", "interrupted")]
    assert guard.records[1].failed and not guard.records[1].summary()["ok"]
    assert kept(guard.records) == "1 page and 1 evidence item stored before that were kept"
    said = [reply.get_text_content()] + [
        m.get_text_content() for m in await agent.memory.get_memory()
    ]
    assert not any("interrupted me" in (text or "") for text in said)


async def test_a_call_cancelled_inside_the_guard_is_still_recorded_as_interrupted():
    from host.orchestration.delegation import run_with_timeout

    counter = Counter()
    tk = make_toolkit(counter)

    async def evict(tool: str, text: str) -> str:
        await asyncio.Event().wait()  # the store never answers
        return "/internal/evicted/never.txt"

    guard = ToolGuard("worker", tk, evict=evict, evict_chars=10_000)
    model = ScriptedModel([[tool_call("big", "c1")]])
    _, timed_out = await run_with_timeout(agent_with(model, tk)(Msg("Host", "go", "user")), 0.3)
    assert timed_out
    assert [(r.name, r.status) for r in guard.records] == [("big", "interrupted")]


class Summarizer(ChatModelBase):
    """agentscope's compression model: answers with the summary schema's fields."""

    def __init__(self) -> None:
        super().__init__(model_name="summarizer", stream=False)
        self.calls = 0

    async def __call__(self, messages, tools=None, tool_choice=None, **kwargs):
        self.calls += 1
        fields = ("task_overview", "current_state", "important_discoveries", "next_steps")
        summary = {f: "earlier searches" for f in (*fields, "context_to_preserve")}
        return ChatResponse(content=[TextBlock(type="text", text="summary")], metadata=summary)


class Researcher(ChatModelBase):
    """Searches round after round; it moves on only when it can see the last round's
    results, and otherwise searches again, as a model that lost its results does."""

    def __init__(self, rounds: list[list[str]]) -> None:
        super().__init__(model_name="researcher", stream=False)
        self.rounds, self.shown = rounds, []

    async def __call__(self, messages, tools=None, tool_choice=None, **kwargs):
        text = "\n".join(message_text(m) for m in messages)
        self.shown.append(text)
        seen = [
            i for i, qs in enumerate(self.rounds) if all(f"RESULTS-FOR-{q}" in text for q in qs)
        ]
        following = max(seen) + 1 if seen else 0
        if following == len(self.rounds):
            return ChatResponse(content=[TextBlock(type="text", text="done")])
        calls = [tool_call("search", f"{following}-{q}", query=q) for q in self.rounds[following]]
        return ChatResponse(content=calls)


async def test_compression_keeps_the_task_and_the_latest_round_of_results():
    from agentscope.token import CharTokenCounter

    from host.orchestration.workers import WorkerAgent

    async def search(query: str) -> ToolResponse:
        """Search.

        Args:
            query (str): The query.
        """
        return ok(f"RESULTS-FOR-{query}\n" + f"{query} result line. " * 150)

    tk = Toolkit()
    tk.register_tool_function(search)
    stored: dict[str, str] = {}

    async def evict(tool: str, text: str) -> str:
        path = f"/internal/evicted/{tool}-{len(stored)}.txt"
        stored[path] = text
        return path

    guard = ToolGuard("search", tk, evict=evict)
    rounds = [["a1", "a2", "a3"], ["b1", "b2", "b3"], ["c1", "c2", "c3"]]
    model, summarizer = Researcher(rounds), Summarizer()
    compression = ReActAgent.CompressionConfig(
        enable=True,
        agent_token_counter=CharTokenCounter(),
        trigger_threshold=4000,
        keep_recent=4,
        compression_model=summarizer,
        compression_formatter=OpenAIChatFormatter(),
    )
    agent = agent_with(
        model, tk, WorkerAgent, guard=guard, compression_config=compression, max_iters=12
    )
    task = Msg("Host", "Find the three facts. TASK-MARKER-7f3", "user")
    await agent(task)
    assert len(model.shown) == len(rounds) + 1  # one call per round, then the answer
    assert summarizer.calls >= 1  # older rounds were compressed
    for shown in model.shown:
        assert "TASK-MARKER-7f3" in shown
    for i, shown in enumerate(model.shown[1:]):
        assert all(f"RESULTS-FOR-{q}" in shown for q in rounds[i])
    # each round (3 × 2,400 characters) was over half the threshold: its largest results
    # were evicted, in full, with a preview left in the history
    assert len(stored) == 9 and all(len(t) > 2400 for t in stored.values())
    assert "/internal/evicted/search-" in model.shown[-1]
    assert {r.evicted_to for r in guard.records} == set(stored)


async def test_compression_keeps_the_history_under_its_size_in_characters():
    """Rounds each under half the threshold, but together far over it: every request's
    history stays under the threshold in characters, and still pairs calls with results."""
    from agentscope.token import CharTokenCounter

    from host.orchestration.workers import WorkerAgent

    async def search(query: str) -> ToolResponse:
        """Search.

        Args:
            query (str): The query.
        """
        return ok(f"RESULTS-FOR-{query}\n" + "a result line. " * 50)

    tk = Toolkit()
    tk.register_tool_function(search)
    rounds = [[f"r{i}a", f"r{i}b"] for i in range(10)]
    model, summarizer = Researcher(rounds), Summarizer()
    threshold = 6000
    compression = ReActAgent.CompressionConfig(
        enable=True,
        agent_token_counter=CharTokenCounter(),
        trigger_threshold=threshold,
        keep_recent=4,
        compression_model=summarizer,
        compression_formatter=OpenAIChatFormatter(),
    )
    guard = ToolGuard("search", tk)
    agent = agent_with(
        model, tk, WorkerAgent, guard=guard, compression_config=compression, max_iters=12
    )
    await agent(Msg("Host", "Find the facts. TASK-MARKER-9c1", "user"))
    assert len(model.shown) == len(rounds) + 1  # nothing had to be fetched again
    sizes = [len(shown) for shown in model.shown]  # the text of every message sent
    assert len(rounds) * 2 * 750 > 2 * threshold  # the results add up to far more
    assert max(sizes) <= threshold, sizes
    assert summarizer.calls >= 2
    assert all("TASK-MARKER-9c1" in shown for shown in model.shown)
    assert not any(r.evicted_to for r in guard.records)  # no round was too large alone


def _tool_calls_answered_in_place(messages: list[dict]) -> bool:
    """The OpenAI rule: an assistant message with tool_calls is followed at once by one
    tool message per call id, before anything else."""
    for i, message in enumerate(messages):
        ids = [c["id"] for c in message.get("tool_calls") or []]
        following = messages[i + 1 : i + 1 + len(ids)]
        if ids and (
            len(following) < len(ids)
            or any(m.get("role") != "tool" for m in following)
            or {m.get("tool_call_id") for m in following} != set(ids)
        ):
            return False
    return True


async def test_hub_news_reaches_a_working_subagent_after_its_tool_results():
    """A task's outcome broadcast while another subagent waits on its tool calls joins that
    subagent's history only after all their results, at its next turn."""
    from agentscope.pipeline import MsgHub

    from host.orchestration.workers import WorkerAgent

    first_done = asyncio.Event()
    news_sent = asyncio.Event()

    async def quick(label: str) -> ToolResponse:
        """Return at once.

        Args:
            label (str): A label.
        """
        first_done.set()
        return ok(f"quick {label}")

    async def slow(label: str) -> ToolResponse:
        """Return once the news is out.

        Args:
            label (str): A label.
        """
        await news_sent.wait()
        return ok(f"slow {label}")

    tk = Toolkit()
    tk.register_tool_function(quick)
    tk.register_tool_function(slow)
    model = ScriptedModel(
        [[tool_call("slow", "c1", label="a"), tool_call("quick", "c2", label="b")]]
    )
    worker = agent_with(model, tk, WorkerAgent, parallel_tool_calls=True)
    async with MsgHub(participants=[worker], enable_auto_broadcast=False) as hub:
        task = asyncio.create_task(worker(Msg("Host", "go", "user")))
        await first_done.wait()
        await hub.broadcast(Msg("search", "NEWS: the search task finished", "assistant"))
        news_sent.set()
        await task
    second = model.calls[1]["messages"]
    assert _tool_calls_answered_in_place(second), second
    texts = [str(m.get("content")) for m in second]
    assert any("NEWS" in t for t in texts)  # the news is not lost
    assert not worker.news and not worker.replying
    # Between replies, news joins the memory at once.
    await worker.observe(Msg("file", "LATER NEWS", "assistant"))
    assert "LATER NEWS" in (await worker.memory.get_memory())[-1].get_text_content()


@pytest.mark.parametrize("through", ["replied", "run_with_timeout"])
async def test_a_stop_at_once_an_agent_turns_into_a_reply_still_stops_the_run(through: str):
    """An agentscope agent meets a cancel by replying "interrupted" instead of raising:
    the Host's call to it (planning, a delegated task) still ends cancelled, or a stop at
    once during the agent's reply would be lost and the run would go on to finish."""
    from host.orchestration.delegation import run_with_timeout
    from host.orchestration.interrupt import replied

    working = asyncio.Event()

    async def agent_reply() -> str:
        try:
            working.set()
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            return "interrupted"  # as the agents do
        return "done"

    async def host_call() -> object:
        if through == "replied":
            return await replied(agent_reply())
        return await run_with_timeout(agent_reply(), 600)

    run = asyncio.ensure_future(host_call())
    await working.wait()
    run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await run
