#!/usr/bin/env bash
# Idempotent set-up for a Debian machine: system packages, a browser, the virtual
# environment and the package in editable mode. Quick when nothing changed.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  fonts-noto-cjk fonts-wqy-zenhei
  tesseract-ocr tesseract-ocr-eng tesseract-ocr-chi-sim
  poppler-utils libpango-1.0-0 libpangoft2-1.0-0
)
VENV=.venv
STAMP="$VENV/.setup-stamp"

say() { printf '[setup] %s\n' "$*" >&2; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    say "need root to run: $*"; return 1; fi
}

apt_updated=0
apt_install() {
  [ "$#" -gt 0 ] || return 0
  if [ "$apt_updated" -eq 0 ]; then
    as_root apt-get update -qq
    apt_updated=1
  fi
  say "installing Debian packages: $*"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

missing=()
for p in "${APT_PACKAGES[@]}"; do installed "$p" || missing+=("$p"); done
# PostgreSQL's server binaries: the store's tests start a throwaway server of their own.
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || missing+=(postgresql)
apt_install "${missing[@]}"

PY=${PYTHON:-python3}
if [ ! -x "$VENV/bin/python" ]; then
  say "creating $VENV"
  if ! "$PY" -m venv "$VENV" 2>/dev/null; then
    rm -rf "$VENV"
    apt_install python3-venv
    "$PY" -m venv "$VENV"
  fi
fi

want=$(cat pyproject.toml scripts/setup.sh | sha256sum | cut -d' ' -f1)
if [ "$(cat "$STAMP" 2>/dev/null)" != "$want" ]; then
  say "installing Python packages (first run takes about a minute)"
  log="$VENV/pip-install.log"
  if ! { "$VENV/bin/python" -m pip install -q --disable-pip-version-check --upgrade pip &&
         "$VENV/bin/python" -m pip install -q --disable-pip-version-check -e '.[dev,ray]'; } \
       >"$log" 2>&1 ||
     ! "$VENV/bin/python" -c "import agentscope, playwright, trafilatura, weasyprint" 2>>"$log"
  then
    tail -40 "$log" >&2
    say "Python packages failed to install; the whole log is in $log"
    exit 1
  fi
  echo "$want" > "$STAMP"
fi

# The project's own modules compiled once, as pip compiles those it installs: where
# PYTHONDONTWRITEBYTECODE is set, every command would otherwise compile them again
# (a third of a second before its first page). Up-to-date files are skipped.
"$VENV/bin/python" -m compileall -q -j 0 quartet host subagents research fs_service schemas \
  demo webapp >/dev/null || say "compiling the modules failed; they compile as they load"

# A browser: Playwright's own where it can be downloaded, else Debian's chromium.
has_browser() {
  [ -n "${QUARTET_BROWSER:-}" ] && [ -x "$QUARTET_BROWSER" ] && return 0
  [ -x /usr/bin/chromium ] && return 0
  ls "${PLAYWRIGHT_BROWSERS_PATH:-$HOME/.cache/ms-playwright}"/chromium*/chrome-linux*/chrome \
    >/dev/null 2>&1
}
if ! has_browser; then
  say "installing Chromium"
  if ! timeout 300 "$VENV/bin/python" -m playwright install chromium >/dev/null 2>&1; then
    say "Playwright's download is not available here; using Debian's chromium"
    apt_install chromium
  fi
fi
