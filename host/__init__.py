"""The Host: run folder, subagents in a MsgHub, brains and the command line."""
