"""Orchestration: the run itself.

:mod:`.hub` (:class:`~.hub.Host`, which composes the parts below) · :mod:`.host_agent`
(the Host's prompt, requests and plan) · :mod:`.factory` (the agents of a run) ·
:mod:`.drive` (the research of a plan) · :mod:`.delegation` (the ``task`` tool) ·
:mod:`.guards` (limits enforced by mechanism) · :mod:`.approval` (the user's decisions)
· :mod:`.stages` (delegation messages) · :mod:`.task_schema` · :mod:`.workers` (the
subagents' agent) · :mod:`.interrupt` and :mod:`.stopping` (Ctrl-C, spent budgets) ·
:mod:`.budget` · :mod:`.checkpointing` · :mod:`.audit` · :mod:`.context` (what the
Host's parts share for its lifetime) · :mod:`.state` (the run under way, as it starts and
once it is planned) · :mod:`.result` (what a run produced).

Nothing here imports the command line, the batch or MCP serving.
"""
