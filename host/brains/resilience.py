"""Every model request with its own timeout, bounded retries, and a clear last word.

:class:`ResilientModel` wraps an agentscope chat model. Each attempt runs under the
request timeout (``QUARTET_MODEL_TIMEOUT``); rate limits (429), server errors (5xx),
timeouts, connection errors and malformed bodies are tried again, up to
``RetryPolicy.attempts`` in all, after an exponential backoff with jitter or the wait the
server asked for (``Retry-After``, capped). A reply is not trusted as it comes: one cut
at its output limit (``finish_reason: length``, ``stop_reason: max_tokens``) is asked
again with twice the limit (up to a cap), and an empty one is asked again, up to
``RetryPolicy.output_attempts`` in all (:mod:`host.brains.output`). What cannot succeed
(400, 401, 403, 404) fails at once, with the provider's explanation of the refusal.
Either way the failure is a :class:`ModelCallError` naming the provider, the model and
the cause ("openai model gpt-x: HTTP 503 after 3 attempts"), with every key scrubbed. The
SDKs' own retries are switched off (:mod:`host.brains.providers`), so each attempt is
counted once, here, in :class:`ModelCallStats`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import random
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from subagents.secrets import scrub

from .faults import Fault, classify
from .limits import DEFAULT_MODEL_ATTEMPTS, DEFAULT_MODEL_TIMEOUT
from .output import LIMIT_FIELDS, OutputLimits, current_role, distrust, stops
from .wrapping import ModelWrapper


class ModelCallError(RuntimeError):
    """A model request failed for good; the message names provider, model and cause."""

    def __init__(self, message: str, fault: Fault, attempts: int) -> None:
        super().__init__(message)
        self.fault, self.attempts = fault, attempts


@dataclass(frozen=True)
class RetryPolicy:
    """How long one attempt may take and how failed attempts are repeated.

    Attributes:
        timeout: seconds one attempt may take.
        attempts: attempts in all, the first included.
        base_delay: the backoff before the first retry, doubled for each later one.
        max_delay: the longest backoff.
        max_retry_after: the longest wait a server's ``Retry-After`` can ask for.
        output_attempts: attempts in all for a reply that comes back empty or cut at
            its output limit, the first included.
    """

    timeout: float = DEFAULT_MODEL_TIMEOUT
    attempts: int = DEFAULT_MODEL_ATTEMPTS
    base_delay: float = 1.0
    max_delay: float = 30.0
    max_retry_after: float = 60.0
    output_attempts: int = 2

    def delay(self, retry: int, fault: Fault, rand: Callable[[], float] = random.random) -> float:
        """Seconds to wait before retry number ``retry`` (1 for the first).

        The server's ``Retry-After`` wins (capped); otherwise half the exponential backoff
        plus a random part of the other half.
        """
        if fault.retry_after is not None:
            return min(fault.retry_after, self.max_retry_after)
        backoff = min(self.max_delay, self.base_delay * 2 ** (retry - 1))
        return backoff / 2 + rand() * backoff / 2


@dataclass
class ModelCallStats:
    """Model calls of a run: attempts, retries, and failures by cause."""

    calls: int = 0
    attempts: int = 0
    retries: int = 0
    failed: int = 0
    faults: Counter[str] = field(default_factory=Counter)
    failures: Counter[str] = field(default_factory=Counter)

    def restore(self, summary: dict[str, Any]) -> None:
        """Add the counts of an earlier :meth:`summary` (a resumed run's first part)."""
        self.calls += int(summary.get("calls", 0))
        self.attempts += int(summary.get("attempts", 0))
        self.retries += int(summary.get("retries", 0))
        self.failed += int(summary.get("failed", 0))
        self.faults.update(summary.get("faults") or {})
        self.failures.update(summary.get("failures") or {})

    def summary(self) -> dict[str, Any]:
        """What ``run.json`` holds under ``model_calls``.

        ``faults`` counts every failed attempt by cause (retried or not); ``failures``
        counts the calls that failed in the end, by the cause of their last attempt.
        """
        return {
            "calls": self.calls,
            "attempts": self.attempts,
            "retries": self.retries,
            "failed": self.failed,
            "faults": dict(sorted(self.faults.items())),
            "failures": dict(sorted(self.failures.items())),
        }


class ResilientModel(ModelWrapper):
    """A chat model whose every request has a timeout and bounded, counted retries.

    Args:
        model: the agentscope chat model (or a wrapper of one) to call.
        provider: the provider's name, for messages (``openai``, ``anthropic``, ...).
        policy: the timeout and retry settings.
        stats: where attempts, retries and failures are counted (shared by a run).
        request_kwargs: keyword arguments added to every request (the SDK's per-request
            ``timeout``, for providers that accept one).
        sleep: how to wait between attempts (tests pass a recorder).
        limits: the output limit of each role (sent where :data:`LIMIT_FIELDS` names the
            provider's field).
    """

    def __init__(
        self,
        model: Any,
        provider: str,
        policy: RetryPolicy,
        stats: ModelCallStats,
        request_kwargs: dict[str, Any] | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        limits: OutputLimits | None = None,
    ) -> None:
        super().__init__(model)
        self.provider, self.policy, self.stats = provider, policy, stats
        self.request_kwargs = dict(request_kwargs or {})
        self.limits = limits or OutputLimits()
        self._sleep = sleep

    async def _attempt(
        self, args: tuple[Any, ...], kwargs: dict[str, Any], limit: int
    ) -> tuple[Any, Fault | None]:
        """One attempt: the response, and what makes its reply unusable (if anything)."""
        extra = {LIMIT_FIELDS[self.provider]: limit} if self.provider in LIMIT_FIELDS else {}
        with stops() as reasons:
            async with asyncio.timeout(self.policy.timeout):
                response = await self.model(*args, **{**self.request_kwargs, **extra, **kwargs})
        if inspect.isasyncgen(response):
            return response, None
        verdict = distrust(response, reasons)
        if verdict == "truncated":
            return response, Fault("truncated", f"the reply was cut at {limit} tokens", True)
        if verdict == "empty":
            return response, Fault("empty", "the reply was empty", True)
        return response, None

    async def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Call the model; retry what may pass; raise :class:`ModelCallError` at the end.

        A reply cut at its output limit or empty counts as a failed attempt too, with its
        own bound (``output_attempts``); a cut one is asked again with a larger limit.
        """
        self.stats.calls += 1
        limit = self.limits.limit(current_role())
        attempt = bad_replies = 0
        while True:
            attempt += 1
            self.stats.attempts += 1
            try:
                response, fault = await self._attempt(args, kwargs, limit)
            except Exception as exc:  # every SDK raises its own types; classify() sorts them
                fault = self._classified(exc)
            else:
                if fault is None:
                    return response
                bad_replies += 1
            self.stats.faults[fault.cause] += 1
            if self._final(fault, attempt, bad_replies):
                self.stats.failed += 1
                self.stats.failures[fault.cause] += 1
                raise self._error(fault, attempt) from None
            self.stats.retries += 1
            if fault.cause == "truncated":
                limit = self.limits.raised(limit)
            elif fault.cause != "empty":
                await self._sleep(self.policy.delay(attempt, fault))

    def _classified(self, exc: Exception) -> Fault:
        fault = classify(exc)
        if fault.cause == "timeout":
            fault = dataclasses.replace(fault, text=f"no answer within {self.policy.timeout:g} s")
        return fault

    def _final(self, fault: Fault, attempt: int, bad_replies: int) -> bool:
        """Whether the attempt that ended in ``fault`` is the last one."""
        if fault.cause in ("truncated", "empty"):
            return bad_replies >= self.policy.output_attempts
        return not fault.retryable or attempt >= self.policy.attempts

    def _error(self, fault: Fault, attempts: int) -> ModelCallError:
        where = f"{self.provider} model {self.model_name}"
        if fault.retryable:
            text = f"{where}: {fault.text} after {attempts} attempt{'s' * (attempts != 1)}"
        else:
            text = f"{where}: {fault.text}; not retried"
        return ModelCallError(scrub(text), fault, attempts)
