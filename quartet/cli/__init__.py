"""The command line: ``quartet {run,demo,batch,resume,replay,runs,show,tools,mcp,serve}``
(also ``python -m quartet``).

- :mod:`.entry`: ``main``, which parses the command line and runs the command, and
  ``run``, the script's entry, which then leaves at once;
- :mod:`.parser`: the table of commands and options;
- :mod:`.running`: what the research commands share (settings, the brain, Ctrl-C going
  to the Host, the summary printed at the end);
- :mod:`.questions` (``run``, ``demo``, ``batch``), :mod:`.rerun` (``resume``,
  ``replay``), :mod:`.runs` (``runs``, ``show``), :mod:`.tools` (``tools``, ``mcp``),
  :mod:`.skills` (``skills``), :mod:`.cache` (``cache``), :mod:`.explain` (``explain``).

The live view of a run is :mod:`host.display.progress`, which the web app shares.

Start-up is kept fast: these modules import only the standard library and light modules
(settings, run records). The Host, the brains, the subagents' tools, agentscope and rich
are imported inside the commands that use them.
"""

from .entry import main, run

__all__ = ["main", "run"]
