#!/usr/bin/env bash
# One entry point: set everything up, then run what was asked.
#   bash run.sh demo          the whole pipeline offline against a bundled local web
#   bash run.sh test          the whole test suite and the linter
#   bash run.sh ARGS...       python -m quartet ARGS...
set -euo pipefail
cd "$(dirname "$0")"
bash scripts/setup.sh
PY=.venv/bin/python
case "${1:-demo}" in
  test)
    shift
    "$PY" -m ruff check .
    # Two worker processes (QUARTET_TEST_WORKERS=0: one process); each test file runs
    # whole in one worker, so a module's shared fixtures are made once.
    exec "$PY" -m pytest -n "${QUARTET_TEST_WORKERS:-2}" --dist loadfile "$@"
    ;;
  *)
    exec "$PY" -m quartet "$@"
    ;;
esac
