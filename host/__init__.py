"""The Host: the side of Quartet that plans a question and has its subagents research it.

- :mod:`host.cli`: the command line (``quartet``, ``python -m host``);
- :mod:`host.orchestration`: the run: the Host, delegation, guards, approval;
- :mod:`host.durability`: the run folder, past runs, checkpoint, resume, tape, replay;
- :mod:`host.brains`: the model providers and the offline policies;
- :mod:`host.mcp`: MCP both ways (external servers' tools, a subagent served);
- :mod:`host.batch`: many questions, each its own run;
- :mod:`host.config`: the settings; :mod:`host.research`: the run's research state.
"""
