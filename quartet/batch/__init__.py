"""``quartet batch``: many questions, each an ordinary run folder, on this machine or Ray.

- :mod:`.questions` reads the questions file (text, CSV or XLSX) into jobs;
- :mod:`.state` keeps the batch's own state file, so a rerun skips finished questions;
- :mod:`.worker` runs one question (new, resumed, or already finished) in a worker;
- :mod:`.engines` runs workers: local processes or Ray tasks;
- :mod:`.coordinator` schedules, retries and times out the questions;
- :mod:`.summary` writes ``summary.csv``, ``summary.xlsx`` and ``summary.html``;
- :mod:`.progress` shows the batch as it goes.

Only :mod:`.questions` and :mod:`.state` are light; the CLI imports the rest when the
command runs.
"""
