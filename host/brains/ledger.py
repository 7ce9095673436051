"""The run's token and cost ledger: usage per stage and per model, priced when known.

Token counts mean the same for every provider:

- ``input``: every prompt token the model read, cached or not;
- ``cache_read`` / ``cache_write``: the part of ``input`` read from, or written to, the
  provider's prompt cache (Anthropic reports them apart from ``input_tokens``; OpenAI
  reports cached tokens inside ``prompt_tokens``);
- ``output``: the tokens the model wrote.

Prices are optional, per million tokens, per model (``provider:name``), from
``[quartet.prices."openai:gpt-4o-mini"]`` in ``quartet.toml``. Cache reads and writes
without a price of their own are priced as input.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

PRICE_FIELDS = ("input", "output", "cache_read", "cache_write")
PER_TOKENS = 1_000_000


@dataclass
class Usage:
    """Tokens of one or more model calls."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    calls: int = 0

    def add(self, other: Usage) -> None:
        """Add ``other``'s counts to these."""
        self.input += other.input
        self.output += other.output
        self.cache_read += other.cache_read
        self.cache_write += other.cache_write
        self.calls += other.calls


@dataclass(frozen=True)
class ModelPrice:
    """One model's prices per million tokens (any currency, the same for all four)."""

    input: float
    output: float
    cache_read: float | None = None
    cache_write: float | None = None

    @classmethod
    def parse(cls, model: str, raw: Any) -> ModelPrice:
        """A price from a ``quartet.toml`` table such as ``{input = 0.15, output = 0.6}``.

        Raises:
            ValueError: the table is not a table, misses ``input`` or ``output``, has an
                unknown field, or a price is not a finite, non-negative number.
        """
        where = f'prices."{model}"'
        if not isinstance(raw, Mapping):
            raise ValueError(f"{where}: expected a table such as {{input = 0.15, output = 0.6}}")
        unknown = sorted(set(raw) - set(PRICE_FIELDS))
        if unknown:
            raise ValueError(
                f"{where}: unknown {', '.join(unknown)}; use {', '.join(PRICE_FIELDS)}"
            )
        missing = [f for f in ("input", "output") if f not in raw]
        if missing:
            raise ValueError(f"{where}: {' and '.join(missing)} price missing")
        values: dict[str, float] = {}
        for name, value in raw.items():
            number = isinstance(value, int | float) and not isinstance(value, bool)
            if not (number and math.isfinite(value) and value >= 0):
                raise ValueError(
                    f"{where}.{name}: expected a finite, non-negative number, got {value!r}"
                )
            values[name] = float(value)
        return cls(**values)

    def cost(self, usage: Usage) -> float:
        """What ``usage`` costs at these prices."""
        fresh = max(0, usage.input - usage.cache_read - usage.cache_write)
        read = self.input if self.cache_read is None else self.cache_read
        write = self.input if self.cache_write is None else self.cache_write
        total = (
            fresh * self.input
            + usage.cache_read * read
            + usage.cache_write * write
            + usage.output * self.output
        )
        return total / PER_TOKENS


def _count(data: Mapping[str, Any], key: str) -> int:
    value = data.get(key)
    return value if isinstance(value, int) and value > 0 else 0


def usage_of(response: Any, raw: Mapping[str, Any] | None = None) -> Usage:
    """The usage of one call, from agentscope's response and the body's ``usage`` object.

    Args:
        response: the agentscope ``ChatResponse`` (its ``usage`` has input/output tokens).
        raw: the provider's ``usage`` object as the body carried it, when it was seen.
    """
    usage = getattr(response, "usage", None)
    counted = Usage(
        input=int(getattr(usage, "input_tokens", 0) or 0),
        output=int(getattr(usage, "output_tokens", 0) or 0),
        calls=1,
    )
    raw = raw or {}
    counted.cache_read = _count(raw, "cache_read_input_tokens")
    counted.cache_write = _count(raw, "cache_creation_input_tokens")
    if counted.cache_read or counted.cache_write:  # Anthropic: reported apart from input
        counted.input += counted.cache_read + counted.cache_write
    else:  # OpenAI: cached tokens are part of prompt_tokens
        details = raw.get("prompt_tokens_details")
        counted.cache_read = _count(details, "cached_tokens") if isinstance(details, Mapping) else 0
    return counted


class TokenLedger:
    """Usage by stage and model for one run, and its cost where the model has a price.

    Args:
        prices: prices by model (``provider:name``); models without one are not priced.
    """

    def __init__(self, prices: Mapping[str, ModelPrice] | None = None) -> None:
        self.prices = dict(prices or {})
        self._usage: dict[tuple[str, str], Usage] = {}
        #: called after every entry (the run checks its budgets there)
        self.on_add: Callable[[], None] | None = None

    def add(self, stage: str, model: str, usage: Usage) -> None:
        """Enter ``usage`` of a call made for ``stage`` with ``model``."""
        self._usage.setdefault((stage, model), Usage()).add(usage)
        if self.on_add is not None:
            self.on_add()

    def state(self) -> list[list[Any]]:
        """The usage entered so far, JSON-ready (a checkpoint keeps it)."""
        return [[stage, model, asdict(u)] for (stage, model), u in sorted(self._usage.items())]

    def restore(self, state: list[list[Any]]) -> None:
        """Add a checkpoint's usage to this ledger."""
        for stage, model, usage in state:
            self.add(str(stage), str(model), Usage(**usage))

    def total(self) -> Usage:
        """Every call's usage, added up."""
        total = Usage()
        for usage in self._usage.values():
            total.add(usage)
        return total

    def _group(self, index: int) -> dict[str, dict[str, Any]]:
        groups: dict[str, Usage] = {}
        costs: dict[str, float] = {}
        for key, usage in sorted(self._usage.items()):
            name = key[index]
            groups.setdefault(name, Usage()).add(usage)
            price = self.prices.get(key[1])
            if price is not None:
                costs[name] = costs.get(name, 0.0) + price.cost(usage)
        out: dict[str, dict[str, Any]] = {}
        for name, usage in groups.items():
            out[name] = asdict(usage)
            if name in costs:
                out[name]["cost"] = round(costs[name], 6)
        return out

    def summary(self) -> dict[str, Any]:
        """What ``run.json`` holds under ``tokens``: totals, ``by_stage``, ``by_model``, and
        ``cost`` when at least one model used has a price (``unpriced`` names the others)."""
        data: dict[str, Any] = asdict(self.total())
        data["by_stage"] = self._group(0)
        data["by_model"] = self._group(1)
        models = {model for _, model in self._usage}
        priced = sorted(m for m in models if m in self.prices)
        if priced:
            data["cost"] = round(
                sum(self.prices[m].cost(u) for (_, m), u in self._usage.items() if m in priced), 6
            )
            unpriced = sorted(models - set(priced))
            if unpriced:
                data["unpriced"] = unpriced
        return data


def describe(tokens: Mapping[str, Any]) -> str:
    """The ledger's summary in a few lines for the CLI's closing table."""
    line = f"{tokens.get('input', 0)} in / {tokens.get('output', 0)} out"
    cached = [f"{tokens[k]} cache {k[6:]}" for k in ("cache_read", "cache_write") if tokens.get(k)]
    if cached:
        line += " (" + ", ".join(cached) + ")"
    if "cost" in tokens:
        line += f" · cost {tokens['cost']:.4f}"
    stages = tokens.get("by_stage") or {}
    parts = [f"{name} {u['input']}/{u['output']}" for name, u in stages.items()]
    return line + ("\n" + ", ".join(parts) if parts else "")
