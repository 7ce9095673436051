"""``python -m host``: the Quartet command line, by the name the specification gives it.

The command line itself lives above ``host/``, in :mod:`quartet.cli` (``python -m
quartet`` is the same, and so is its exit: without taking every loaded module apart, see
:func:`quartet.cli.run`); this module only hands it the arguments. It is the one module
of ``host/`` that may import ``quartet`` (see ``ENTRY_POINTS`` in ``tests/test_imports.py``).
"""

from quartet.cli import run

if __name__ == "__main__":
    run()
