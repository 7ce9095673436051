#!/usr/bin/env bash
# One entry point: set everything up, then run what was asked.
#   bash run.sh demo          the whole pipeline offline against a bundled local web
#   bash run.sh test          the whole test suite and the linter
#   bash run.sh train         fit the research core's models again (--check: compare only)
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
  train)
    shift
    # The data the models are fitted on (tune halves only), read at run time from git
    # mirrors and never copied here.
    mirror() { [ -d "$1" ] || git clone -q --mirror "https://github.com/$2" "$1"; }
    mirror "${QUARTET_XQUAD:-/tmp/xquad.git}" google-deepmind/xquad
    mirror "${QUARTET_CMRC:-/tmp/cmrc2018.git}" ymcui/cmrc2018
    mirror "${QUARTET_SELQA:-/tmp/selqa.git}" emorynlp/selqa
    # In order: the rules' thresholds and the line model are fitted on whole runs, which
    # the sentence model and the rules take part in.
    "$PY" scripts/train_ranker.py "$@"
    "$PY" scripts/fit_rules.py "${@:---write}"
    exec "$PY" scripts/train_lines.py "$@"
    ;;
  *)
    exec "$PY" -m quartet "$@"
    ;;
esac
