"""What a run shows while it works, shared by the command line and the web app.

- :mod:`.progress`: the live view of a run on a terminal, and its events one a line when
  piped;
- :mod:`.part_labels`: a short label for each part of a plan.
"""
