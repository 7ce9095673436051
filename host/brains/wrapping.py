"""The base of the model wrappers: a chat model that stands in front of another one.

A wrapper is itself an agentscope ``ChatModelBase``, so agents and tools take it where
they take a model. It shares the wrapped model's name and its ``stream`` switch (the
agent may turn streaming off for one call), passes any other attribute through, and
exposes the provider's model at the end of the chain as ``inner_model``: that model picks
the message format (:func:`subagents.models.formatter_for`).
"""

from __future__ import annotations

from typing import Any

from agentscope.model import ChatModelBase


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
