"""Durability: what lets a run stop and go on, or be made again.

:mod:`.checkpoint` (a run's state after every task, and its restore), :mod:`.resume`
(which stopped run may resume, and with which settings), :mod:`.tape` (a recorded run's
model answers) and :mod:`.replay` (``quartet replay``: a recording run again and
compared).
"""
