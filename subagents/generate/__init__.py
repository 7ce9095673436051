"""Generate subagent: a cited report from notes and evidence, in four formats.

See :mod:`.notes` for the notes format, :mod:`.citations` for how citations are checked
and :mod:`.report` for the extractive and model-written paths.
"""
