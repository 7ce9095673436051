"""Durability: what a run leaves on disk, and how a run stops and goes on, or is made again.

:mod:`.run_folder` (a run's folder and its file services), :mod:`.runs` (past runs, read
from their folders), :mod:`.transcript` (the Host's records in ``/internal/``),
:mod:`.checkpoint` (a run's state after every task, and its restore), :mod:`.resume`
(which stopped run may resume, and with which settings), :mod:`.tape` (a recorded run's
model answers) and :mod:`.replay` (``quartet replay``: a recording run again and
compared).
"""
