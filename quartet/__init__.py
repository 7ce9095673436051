"""Quartet's commands: the only package that knows :mod:`host`, :mod:`webapp` and
:mod:`demo`, so that none of them imports another one above it.

- :mod:`quartet.cli`: the command line (``quartet``, ``python -m quartet``);
- :mod:`quartet.batch`: many questions, each its own run (``quartet batch``).
"""
