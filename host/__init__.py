"""The Host: the side of Quartet that plans a question and has its subagents research it.

- :mod:`host.orchestration`: the run: the Host, delegation, guards, approval;
- :mod:`host.durability`: the run folder, past runs, checkpoint, resume, tape, replay;
- :mod:`host.brains`: the model providers and the offline policies;
- :mod:`host.mcp`: MCP both ways (external servers' tools, a subagent served);
- :mod:`host.display`: what a run shows while it works (the live view, its lines);
- :mod:`host.config`: the settings; :mod:`host.research`: the run's research state.

The command line and batches are :mod:`quartet`, above this package.
"""
