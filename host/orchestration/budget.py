"""The run's model budgets: ``--max-tokens`` and ``--max-cost``.

Tokens are those the model read and wrote (``input`` + ``output`` in the token ledger,
cached input included); cost is the ledger's cost at the prices of ``quartet.toml``. A
budget is checked after every model call: the call that spends it finishes, and no new
research task or model request starts after it. The tasks in flight wind down as after
a first Ctrl-C, and the report is written from what was found, without a model (the
extractive writer). ``run.json`` says which budget ended the research under
``budget_stop``; the run still counts as finished (exit status 0 for a report that
answers something, 3 for one that answers nothing).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..brains.ledger import TokenLedger

#: what each budget is called in messages
NAMES = {"tokens": "token", "cost": "cost"}


def spent(
    ledger: TokenLedger, max_tokens: int | None, max_cost: float | None
) -> dict[str, Any] | None:
    """The budget ``ledger`` has spent, as ``{"budget", "limit", "used"}``; None if none."""
    if max_tokens is not None:
        total = ledger.total()
        used = total.input + total.output
        if used >= max_tokens:
            return {"budget": "tokens", "limit": max_tokens, "used": used}
    if max_cost is not None:
        cost = float(ledger.summary().get("cost", 0.0))
        if cost >= max_cost:
            return {"budget": "cost", "limit": max_cost, "used": cost}
    return None


def amount(stop: Mapping[str, Any], key: str) -> str:
    """A budget's limit or use as text: ``1200 tokens``, ``1 token``, ``0.0150``."""
    value = stop[key]
    if stop.get("budget") == "tokens":
        return f"{int(value)} token{'s' * (int(value) != 1)}"
    return f"{float(value):.4f}"


def budget_sentence(stop: Mapping[str, Any]) -> str:
    """What a budget stop means, in one sentence for the CLI."""
    name = NAMES.get(str(stop.get("budget")), str(stop.get("budget")))
    return (
        f"the run's {name} budget ({amount(stop, 'limit')}) was spent ({amount(stop, 'used')} "
        "used): research stopped early and the report was written from what had been found"
    )


def check_prices(max_cost: float | None, model: str, prices: Mapping[str, Any]) -> None:
    """Refuse a cost budget for a model the price table does not price.

    Raises:
        ValueError: ``max_cost`` is set and ``model`` has no price.
    """
    if max_cost is not None and model != "offline" and model not in prices:
        raise ValueError(
            f'--max-cost needs a price for {model}: add [quartet.prices."{model}"] with '
            "input and output prices per million tokens to quartet.toml"
        )
