"""A skill's experience log merged: condensed by a chat model when one is given, else
de-duplicated offline (:func:`subagents.experience.merged`).

With a model, its core experiences and recent findings are condensed into fewer core
experiences by one call (:func:`subagents.condense.condense`), behind the request
timeout and retries every model call has (:func:`host.brains.resilient_model`) and with
its reply scrubbed of secrets. The model is asked outside the store's writing
transaction, since its answer may take a while; what it answered is written only if
the log is still the one it was given, in one update (:meth:`.memory.SkillMemory.update`).
An answer that is not what was asked for, a call that failed or timed out, or a log
that changed meanwhile leaves the model's answer unused: the log is merged offline
instead, and the outcome says why (:attr:`LogMerge.fallback`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING

from subagents.experience import Entry, Evolved, evolved_path, merged, parse, render, with_core

from .memory import SkillMemory

if TYPE_CHECKING:
    from host.brains import Brain, RetryPolicy


@dataclass(frozen=True)
class LogMerge:
    """What a merge of one skill's log did.

    Attributes:
        evolved: the log after the merge (as it was, when nothing was merged).
        went_in: the entries the merge took: core experiences and recent findings.
        condensed_by: the model that condensed them (``PROVIDER:NAME``); "" offline.
        fallback: why a model's answer was not used ("" when it was, or no model was
            asked).
        moved: offline, the titles of the recent findings that became core experiences.
        replaced: those of them that replaced a core experience of the same title.
    """

    evolved: Evolved
    went_in: int
    condensed_by: str = ""
    fallback: str = ""
    moved: tuple[str, ...] = ()
    replaced: tuple[str, ...] = ()


def merge_log(
    memory: SkillMemory,
    skill: str,
    today: date,
    brain: Brain | None = None,
    policy: RetryPolicy | None = None,
) -> LogMerge:
    """Merge ``skill``'s log in ``memory`` on ``today``: condensed by ``brain``'s model
    when it has one and the log holds recent findings, else offline.

    Args:
        memory: the memory store holding the log.
        skill: the skill whose log it is.
        today: the day of the merge (``last_merged``).
        brain: the model to condense with; None (or the offline brain) merges offline.
        policy: the model request's timeout and retries (default: the defaults).

    Raises:
        ValueError: the log cannot be read (see :func:`subagents.experience.parse`).
        FsError: the store could not read or write the log.
    """
    path = evolved_path(skill)
    text = memory.read(path)
    before = parse(text)
    core: tuple[Entry, ...] | None = None
    fallback = ""
    if brain is not None and not brain.offline and before.recent:
        core, fallback = _condense_or_why(brain, policy, skill, before.entries)
    done: list[LogMerge] = []

    def change(current: str) -> str:
        if core is not None and brain is not None and current == text:
            done[:] = [LogMerge(with_core(before, core, today), len(before.entries), brain.spec)]
            return render(done[0].evolved)
        changed = "the log changed while the model worked" if core is not None else ""
        log = parse(current)
        result = merged(log, today)
        after = result.evolved if result.moved else log
        done[:] = [
            LogMerge(
                after, len(log.entries), "", fallback or changed, result.moved, result.replaced
            )
        ]
        return render(after) if result.moved else current

    memory.update(path, change)
    return done[0]


def _condense_or_why(
    brain: Brain, policy: RetryPolicy | None, skill: str, entries: Sequence[Entry]
) -> tuple[tuple[Entry, ...] | None, str]:
    """``(core experiences, "")`` as ``brain``'s model condensed ``entries``, or
    ``(None, why)`` when its answer was not what was asked for or the call failed."""
    from host.brains import ModelCallError

    try:
        return asyncio.run(_condensed(brain, policy, skill, entries)), ""
    except (ModelCallError, ValueError) as exc:
        return None, str(exc)


async def _condensed(
    brain: Brain, policy: RetryPolicy | None, skill: str, entries: Sequence[Entry]
) -> tuple[Entry, ...]:
    """``entries`` condensed by ``brain``'s model, its reply scrubbed of secrets.

    Raises:
        ModelCallError: the call failed for good (after its retries) or timed out.
        ValueError: the answer is not what was asked for.
    """
    from host.brains import ModelCallStats, RetryPolicy, resilient_model
    from host.brains.wrapping import ScrubbedModel
    from subagents.condense import condense

    model = ScrubbedModel(resilient_model(brain, policy or RetryPolicy(), ModelCallStats()))
    return await condense(model, skill, entries)
