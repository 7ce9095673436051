"""The base of the model wrappers: a chat model that stands in front of another one.

A wrapper is itself an agentscope ``ChatModelBase``, so agents and tools take it where
they take a model. It shares the wrapped model's name and its ``stream`` switch (the
agent may turn streaming off for one call), passes any other attribute through, and
exposes the provider's model at the end of the chain as ``inner_model``: that model picks
the message format (:func:`subagents.models.formatter_for`).
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncGenerator
from typing import Any

from agentscope.model import ChatModelBase

from subagents.secrets import scrub, scrub_data


class ModelWrapper(ChatModelBase):
    """A chat model that calls ``model``; subclasses add what happens around the call.

    Args:
        model: the agentscope chat model, or another wrapper, to call.
    """

    def __init__(self, model: Any) -> None:
        self.model = model
        super().__init__(model_name=model.model_name, stream=model.stream)

    @property
    def stream(self) -> bool:  # type: ignore[override]
        return bool(self.model.stream)

    @stream.setter
    def stream(self, value: bool) -> None:
        self.model.stream = value

    @property
    def inner_model(self) -> Any:
        """The provider's model at the end of the chain."""
        return getattr(self.model, "inner_model", self.model)

    def __getattr__(self, name: str) -> Any:
        if name == "model":  # not set yet: no recursion
            raise AttributeError(name)
        return getattr(self.model, name)

    async def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return await self.model(*args, **kwargs)


class ScrubbedModel(ModelWrapper):
    """A model whose replies never carry a credential value.

    A provider or proxy that echoes the key it was sent ("your key sk-… is …") would
    otherwise put it into a stage reply, a tool call's arguments (and from there into
    a query sent to a website, a report, ``run.json`` or the transcript). Every text,
    thinking and tool-call block of every response, streamed chunks included, passes
    through :func:`subagents.secrets.scrub`.
    """

    async def __call__(self, *args: Any, **kwargs: Any) -> Any:
        response = await self.model(*args, **kwargs)
        if inspect.isasyncgen(response):
            return self._scrubbed_stream(response)
        return scrub_response(response)

    @staticmethod
    async def _scrubbed_stream(chunks: AsyncGenerator) -> AsyncGenerator:
        async for chunk in chunks:
            yield scrub_response(chunk)


def scrub_response(response: Any) -> Any:
    """``response`` (a ChatResponse) with every credential value in its blocks replaced."""
    for block in getattr(response, "content", None) or []:
        if not isinstance(block, dict):
            continue
        for key in ("text", "thinking", "raw_input"):
            if isinstance(block.get(key), str):
                block[key] = scrub(block[key])
        if isinstance(block.get("input"), dict):
            block["input"] = scrub_data(block["input"])
    return response
